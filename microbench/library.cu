/* library.cu - the library ceiling: cuBLASLt GEMM per precision, best of the algorithms the heuristic offers.
 *
 * Shape M = N = K = 8192 (FP64: 4096 in quick mode) through kernels/gemm.cu
 * (TN layout, alpha 1, beta 0, inputs from rl_mb_word()). Work = 2 M N K.
 * Each algorithm is timed 3 times; the fastest is then timed like any
 * benchmark, and 64 sampled outputs are checked against dot products in
 * double over the same inputs.
 */
#include "kernels/gemm.h"
#include "analyzer/util/error.h"
#include "microbench/nvml.h"
#include "microbench/runner.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

const struct {
    const char *name;
    enum rl_gemm_kind kind;
} gemms[] = {{"gemm-fp64", RL_GEMM_FP64}, {"gemm-tf32", RL_GEMM_TF32},
             {"gemm-fp16", RL_GEMM_FP16}, {"gemm-bf16", RL_GEMM_BF16},
             {"gemm-fp8", RL_GEMM_FP8},   {"gemm-int8", RL_GEMM_INT8}};

/* Time `batch` runs of one algorithm between two events; ns per run. */
int time_algo(struct rl_run *r, struct rl_gemm *g, int algo, int batch, double *ns)
{
    int rc = RL_OK;
    float ms = 0;
    RL_CK(cudaEventRecord(r->ev0, r->stream));
    for (int i = 0; i < batch && rc == RL_OK; i++)
        rc = rl_gemm_run(g, algo, r->errmsg);
    RL_CK(cudaEventRecord(r->ev1, r->stream));
    RL_CK(cudaEventSynchronize(r->ev1));
    RL_CK(cudaEventElapsedTime(&ms, r->ev0, r->ev1));
    *ns = ms * 1e6 / batch;
done:
    return rc;
}

} // namespace

extern "C" int rl_run_library(struct rl_run *r, const struct rl_mb_def *def,
                              struct rl_mb_raw *out)
{
    enum rl_gemm_kind kind = RL_GEMM_BF16;
    bool found = false;
    for (const auto &g : gemms)
        if (strcmp(g.name, def->name) == 0) {
            kind = g.kind;
            found = true;
        }
    const char *why;
    if (!found)
        return rl_fail(r->errmsg, RL_EINVAL, "no GEMM configuration for %s", def->name);
    if (!rl_mb_supported(def, r->dev->cc_major, r->dev->cc_minor, &why)) {
        out->status = RL_MB_UNSUPPORTED;
        snprintf(out->reason, sizeof out->reason, "%s", why);
        return RL_OK;
    }
    const int64_t n = (kind == RL_GEMM_FP64 && r->opt->quick) ? 4096 : 8192;
    struct rl_gemm *g = nullptr;
    int rc = rl_gemm_create(&g, kind, n, n, n, nullptr, nullptr, nullptr,
                            r->opt->quick ? 4 : 16, r->stream, r->errmsg);
    if (rc == RL_EUNSUPPORTED) {
        out->status = RL_MB_UNSUPPORTED;
        snprintf(out->reason, sizeof out->reason, "%.255s", r->errmsg);
        return RL_OK;
    }
    if (rc)
        return rc;

    /* The fastest algorithm, 3 runs each (one warm-up first). */
    int best = -1;
    double best_ns = INFINITY;
    for (int a = 0; a < rl_gemm_algos(g); a++) {
        double t[3], warm;
        if (time_algo(r, g, a, 1, &warm) != RL_OK)
            continue; /* an algorithm that fails is skipped, not fatal */
        bool ok = true;
        for (int k = 0; k < 3 && ok; k++)
            ok = time_algo(r, g, a, 1, &t[k]) == RL_OK;
        if (ok && rl_run_median(t, 3) < best_ns) {
            best_ns = rl_run_median(t, 3);
            best = a;
        }
    }
    if (best < 0) {
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason, "every cuBLASLt algorithm failed: %.200s",
                 r->errmsg);
        rl_gemm_destroy(g);
        return RL_OK;
    }
    int batch = (int)fmax(1, ceil(r->target_ns / best_ns));
    rl_nvml_sampler_start();
    for (int i = 0; i < r->reps && rc == RL_OK; i++) {
        rc = time_algo(r, g, best, batch, &out->time_ns[i]);
        out->n_reps = i + 1;
    }
    rl_nvml_sampler_stop(&out->cond);
    if (rc == RL_OK) {
        char check_why[160] = "";
        int c = rl_gemm_check(g, 64, &out->check_error, check_why, r->errmsg);
        if (c < 0) {
            out->status = RL_MB_CHECK_FAILED;
            snprintf(out->reason, sizeof out->reason, "output check failed: %s", check_why);
        } else if (c > 0) {
            rc = c;
        }
        snprintf(out->check, sizeof out->check,
                 "64 sampled outputs vs host dot products in double: error / rss(products) "
                 "<= %g (largest %.2g)", rl_gemm_tolerance(g), out->check_error);
    }
    out->work = rl_gemm_flops(g);
    out->bytes = rl_gemm_min_bytes(g);
    snprintf(out->instruction, sizeof out->instruction, "cublasLtMatmul");
    snprintf(out->variant, sizeof out->variant, "%s, %lldx%lldx%lld TN, best of %d algorithms",
             rl_gemm_label(g), (long long)n, (long long)n, (long long)n, rl_gemm_algos(g));
    rl_gemm_destroy(g);
    if (rc && out->status == RL_MB_OK) {
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason, "%.255s", r->errmsg);
    }
    return rc == RL_ECUDA ? RL_OK : rc;
}
