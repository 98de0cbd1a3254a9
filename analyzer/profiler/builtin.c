/* builtin.c - the profiler's side of libroofline_cuda: our workloads under the tracer, the Tensor Core calibration, metric sets.
 *
 * The calibration: Tensor Core counters count "ops" whose FLOP worth is not
 * documented per chip and path (a third-party report has one family read 0
 * for wgmma on H100). A cuBLASLt BF16 GEMM of 2048^3 (2MNK = 17.18 GFLOP,
 * output checked) is counted at start-up; FLOPs per op = 2MNK / ops, kept
 * only when within 5% of a power of two (1, 2, 4...), else tensor FLOPs
 * stay unknown (null) and the trace says why. The same factor then serves
 * every tensor path: the gemm workload's FP16, TF32 and FP8 steps check it
 * (their "flops_vs_analytic" in the trace).
 */
#define _GNU_SOURCE
#include "analyzer/profiler/builtin.h"
#include "analyzer/util/error.h"
#include "kernels/gemm.h"
#include "analyzer/profiler/tracer.h"
#include "kernels/workloads.h"

#include <cupti.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAL_N 2048

static const char *counters_name(int c)
{
    return c == RL_COUNTERS_NONE ? "none" : c == RL_COUNTERS_FULL ? "full" : "default";
}

static void status_into(struct rl_calibration *cal)
{
    const char *reason;
    snprintf(cal->counters_status, sizeof cal->counters_status, "%s",
             rl_tracer_counters_status(&reason));
    snprintf(cal->reason, sizeof cal->reason, "%s", reason ? reason : "");
}

/* CUDA 13.0-13.2 can crash at exit when CUPTI is left initialised: finalize
 * once, at exit (or when this plugin is unloaded), never between two
 * traces of one process (`roofline run` traces twice). */
static void finalize_cupti(void) { cuptiFinalize(); }

static int start_tracer(const struct rl_tracer_options *opt, char *errmsg)
{
    static bool registered;
    if (!registered)
        registered = atexit(finalize_cupti) == 0;
    return rl_tracer_start(opt, errmsg);
}

/* The power of two within 5% of x, or NAN. */
static double snap(double x)
{
    if (!(x > 0))
        return NAN;
    double p = exp2(round(log2(x)));
    return fabs(x - p) <= 0.05 * p ? p : NAN;
}

/* Count one checked BF16 GEMM inside the running tracer. */
static int calibrate_in_session(int device, struct rl_calibration *cal, char *errmsg)
{
    cal->done = false;
    cal->flops_per_op = NAN;
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess)
        return rl_fail(errmsg, RL_ENODEV, "cannot use GPU %d: %s", device, cudaGetErrorString(e));
    cudaStream_t s;
    if ((e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) != cudaSuccess)
        return rl_fail(errmsg, RL_ECUDA, "cudaStreamCreate: %s", cudaGetErrorString(e));
    struct rl_gemm *g;
    int rc = rl_gemm_create(&g, RL_GEMM_BF16, CAL_N, CAL_N, CAL_N, NULL, NULL, NULL, 1, s, errmsg);
    if (rc) {
        cudaStreamDestroy(s);
        return rc;
    }
    char label[96];
    snprintf(label, sizeof label, "calibration: bf16 GEMM %dx%dx%d (cuBLASLt)", CAL_N, CAL_N,
             CAL_N);
    const double flops = rl_gemm_flops(g);
    rl_tracer_force_counting(true);
    rl_tracer_step_begin(label, flops, rl_gemm_min_bytes(g), "bf16");
    rc = rl_gemm_run(g, 0, errmsg);
    rl_tracer_step_end();
    rl_tracer_force_counting(false);
    if (rc == RL_OK && (e = cudaStreamSynchronize(s)) != cudaSuccess)
        rc = rl_fail(errmsg, RL_ECUDA, "calibration GEMM: %s", cudaGetErrorString(e));
    double worst;
    char why[160] = "";
    if (rc == RL_OK) {
        int c = rl_gemm_check(g, 16, &worst, why, errmsg);
        if (c < 0)
            rc = rl_fail(errmsg, RL_EVERIFY, "calibration GEMM: output check failed: %s", why);
        else
            rc = c;
    }
    rl_gemm_destroy(g);
    cudaStreamDestroy(s);
    status_into(cal);
    if (rc)
        return rc;
    double q[RL_Q_COUNT];
    int launches;
    int counted = rl_tracer_step_counters(label, q, &launches);
    const struct rl_metric_set *set = rl_tracer_metric_set();
    if (counted == 0 || !set) {
        snprintf(cal->line, sizeof cal->line, "not done: counters %s%s%.400s", cal->counters_status,
                 cal->reason[0] ? ": " : "", cal->reason);
        return RL_OK;
    }
    cal->done = true;
    if (counted != launches) {
        snprintf(cal->line, sizeof cal->line,
                 "%s: %d of its %d launches counted: tensor FLOPs unknown", label, counted,
                 launches);
        return RL_OK;
    }
    double ops = q[RL_Q_TENSOR_BF16];
    const char *metric = set->metric[RL_Q_TENSOR_BF16];
    if (!set->on[RL_Q_TENSOR_BF16] || isnan(ops)) {
        snprintf(cal->line, sizeof cal->line,
                 "%s: this chip's set has no BF16 Tensor Core counter: tensor FLOPs unknown",
                 label);
        return RL_OK;
    }
    if (ops == 0) {
        snprintf(cal->line, sizeof cal->line,
                 "%s: %s read 0 for %.4g FLOP of Tensor Core work: this counter family does not "
                 "see the GEMM's instructions; tensor FLOPs unknown",
                 label, metric, flops);
        return RL_OK;
    }
    double ratio = flops / ops;
    cal->flops_per_op = snap(ratio);
    if (isnan(cal->flops_per_op)) {
        snprintf(cal->line, sizeof cal->line,
                 "%s: %s = %.6g ops for 2MNK = %.6g FLOP (%.4f FLOP/op, not a power of two "
                 "within 5%%): tensor FLOPs unknown",
                 label, metric, ops, flops, ratio);
        return RL_OK;
    }
    snprintf(cal->line, sizeof cal->line,
             "%s: %s = %.6g ops; 2MNK = %.6g FLOP; %.4f FLOP/op measured, %g used "
             "(counted FLOPs %+.3f%% from 2MNK)",
             label, metric, ops, flops, ratio, cal->flops_per_op,
             100.0 * (ops * cal->flops_per_op - flops) / flops);
    return RL_OK;
}

int rl_profiler_calibrate(int device, int counters, struct rl_calibration *cal, char *errmsg)
{
    memset(cal, 0, sizeof *cal);
    cal->flops_per_op = NAN;
    struct rl_tracer_options opt = {
        .program = "roofline calibration",
        .counters = counters == RL_COUNTERS_FULL ? RL_COUNTERS_FULL : RL_COUNTERS_DEFAULT,
        .samples = 1,
        .tensor_flops_per_op = NAN,
    };
    if (counters == RL_COUNTERS_NONE) {
        snprintf(cal->counters_status, sizeof cal->counters_status, "off");
        snprintf(cal->line, sizeof cal->line, "not done: counters off (--metrics none)");
        return RL_OK;
    }
    int rc = start_tracer(&opt, errmsg);
    if (rc)
        return rc;
    rc = calibrate_in_session(device, cal, errmsg);
    char err[RL_ERRMSG_SIZE];
    rl_tracer_finish(err);
    return rc;
}

/* ---- built-in workloads ---------------------------------------------------- */

/* Each step runs `clean` times timing only, then (with counters) once more
 * counted: its time is the median of the clean runs, never a launch under
 * counter replay; its FLOPs and bytes come from the counted run. The
 * workload runs a step's repetitions back to back (STEP in workloads.c),
 * so the n-th consecutive begin of one label is run n % runs. */
struct hook_state {
    bool verbose;
    int clean, runs;        /* runs = clean + 1 with counters, else clean */
    char label[256];
    int seen;               /* consecutive begins of label */
};

static void hook_begin(void *ctx, const char *label, const struct rl_step_cost *cost)
{
    struct hook_state *h = ctx;
    if (strncmp(h->label, label, sizeof h->label) != 0) {
        snprintf(h->label, sizeof h->label, "%s", label);
        h->seen = 0;
    }
    int run = h->seen++ % h->runs;
    rl_tracer_step_begin_run(label, cost->flops, cost->bytes, cost->precision, run,
                             run < h->clean);
}

static void hook_end(void *ctx)
{
    (void)ctx;
    rl_tracer_step_end();
}

static void hook_note(void *ctx, const char *text)
{
    const struct hook_state *h = ctx;
    if (h && h->verbose)
        fprintf(stderr, "roofline: %s\n", text);
    rl_tracer_note(text);
}

int rl_profiler_trace_builtin(const struct rl_trace_request *req, struct rl_calibration *cal,
                         char *errmsg)
{
    memset(cal, 0, sizeof *cal);
    cal->flops_per_op = NAN;
    const char *const *names = rl_workload_names();
    bool known = false;
    for (size_t i = 0; names[i]; i++)
        known |= strcmp(names[i], req->workload) == 0;
    if (!known)
        return rl_fail(errmsg, RL_ENOTFOUND,
                       "no built-in workload '%s' (gemm, gemv, elementwise, decode, prefill, "
                       "shapes)",
                       req->workload);
    /* Untraced: the workload alone, for another profiler to watch (Nsight
     * Compute cannot run beside a CUPTI subscriber); no trace is written. */
    const char *untraced = getenv(RL_UNTRACED_ENV);
    if (untraced && strcmp(untraced, "1") == 0) {
        snprintf(cal->line, sizeof cal->line, "not done: untraced (%s=1)", RL_UNTRACED_ENV);
        struct rl_wl_options wo = {
            .device = req->device,
            .reps = req->reps > 0 ? req->reps : 1,
            .decode_context = req->decode_context,
            .prefill_tokens = req->prefill_tokens,
            .shapes = req->shapes,
            .n_shapes = req->n_shapes,
        };
        int rc = rl_workload_run(req->workload, &wo, NULL, NULL, errmsg);
        cudaDeviceSynchronize();
        return rc;
    }
    struct rl_tracer_options opt = {
        .out_path = req->out_path,
        .program = req->program,
        .counters = (enum rl_counter_set)req->counters,
        .kernel_regex = req->kernel_regex,
        .samples = req->samples,
        .tensor_flops_per_op = NAN,
        .verbose = req->verbose,
    };
    int rc = start_tracer(&opt, errmsg);
    if (rc)
        return rc;
    if (req->counters != RL_COUNTERS_NONE) {
        if (calibrate_in_session(req->device, cal, errmsg)) {
            /* The workload runs anyway; Tensor Core FLOPs stay unknown. */
            cal->flops_per_op = NAN;
            snprintf(cal->line, sizeof cal->line, "not done: the calibration GEMM failed: %.400s",
                     errmsg);
            rl_tracer_note(cal->line);
        }
        rl_tracer_set_tensor_factor(cal->flops_per_op, cal->line);
    } else {
        snprintf(cal->line, sizeof cal->line, "not done: counters off (--metrics %s)",
                 counters_name(req->counters));
    }
    if (rc == RL_OK) {
        struct hook_state hs = {.verbose = req->verbose, .clean = req->reps > 0 ? req->reps : 3};
        hs.runs = hs.clean + (req->counters != RL_COUNTERS_NONE);
        struct rl_wl_options wo = {
            .device = req->device,
            .reps = hs.runs,
            .decode_context = req->decode_context,
            .prefill_tokens = req->prefill_tokens,
            .shapes = req->shapes,
            .n_shapes = req->n_shapes,
        };
        struct rl_wl_hooks hooks = {hook_begin, hook_end, &hs};
        rc = rl_workload_run(req->workload, &wo, &hooks, hook_note, errmsg);
        if (rc == RL_EVERIFY)
            rl_tracer_note(errmsg);
    }
    cudaDeviceSynchronize();
    status_into(cal);
    char err[RL_ERRMSG_SIZE];
    int wrc = rl_tracer_finish(err);
    if (wrc && rc == RL_OK)
        rc = rl_fail(errmsg, wrc, "%s", err);
    return rc;
}

int rl_profiler_metric_set(const char *chip, bool full, struct rl_metric_set *out, char *errmsg)
{
    return rl_metric_set_build(chip, full ? RL_COUNTERS_FULL : RL_COUNTERS_DEFAULT, NULL, out, errmsg);
}

int rl_profiler_paths(char *inject, size_t inject_size, char *cupti, size_t cupti_size,
                          char *errmsg)
{
    Dl_info self, cu;
    if (!dladdr((void *)rl_profiler_paths, &self) || !self.dli_fname)
        return rl_fail(errmsg, RL_EIO, "cannot locate libroofline_cuda");
    if (!dladdr((void *)cuptiSubscribe, &cu) || !cu.dli_fname)
        return rl_fail(errmsg, RL_EIO, "cannot locate libcupti");
    const char *slash = strrchr(self.dli_fname, '/');
    int dir = slash ? (int)(slash - self.dli_fname) : 1;
    snprintf(inject, inject_size, "%.*s/libroofline_inject.so", dir,
             slash ? self.dli_fname : ".");
    snprintf(cupti, cupti_size, "%s", cu.dli_fname);
    return RL_OK;
}
