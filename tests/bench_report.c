/* bench_report.c - benchmark (not a test): `roofline report` on a generated trace of 1,000,000 kernel launches.
 *
 * Usage: bench_report [ROOFLINE_BIN] [LAUNCHES]
 * Writes a synthetic trace (labelled synthetic in its "program"), in the
 * format `roofline trace` writes, of a serving-like mix: 240 kernel names x
 * a few shapes, most launches with sampled counts, some timing only. Then
 * runs `roofline report` on it and prints its wall time and peak memory
 * (getrusage of the child) against the targets: 1 s and 1 GB. Exit 1 when
 * a target is missed. ROOFLINE_BENCH_KEEP=1 keeps the trace (for perf).
 */
#define _GNU_SOURCE
#include "analyzer/util/error.h"
#include "analyzer/profiler/trace.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define NAMES 240


int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : ROOFLINE_BIN;
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    char dir[] = "/tmp/roofline-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    char path[256], out[256];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    snprintf(out, sizeof out, "%s/report", dir);

    /* The trace. */
    static char names[NAMES][128];
    static const char *const kinds[] = {
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>",
        "void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel>",
        "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>",
        "void gemv_bf16_kernel<__nv_bfloat16>", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>"};
    for (int i = 0; i < NAMES; i++)
        snprintf(names[i], sizeof names[i], "%s #%d", kinds[i % 6], i);
    struct rl_trace_kernel *k = calloc((size_t)n, sizeof *k);
    if (!k) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    uint64_t t = 1000;
    uint32_t rng = 12345;
    for (long i = 0; i < n; i++) {
        rng = rng * 1664525u + 1013904223u;
        int name = (int)(rng >> 8) % NAMES, shape = (int)(rng >> 4) % 4;
        struct rl_trace_kernel *r = &k[i];
        r->name = names[name];
        r->grid[0] = 132u << shape, r->grid[1] = r->grid[2] = 1;
        r->block[0] = 256, r->block[1] = r->block[2] = 1;
        r->registers = 128;
        uint64_t dur = 2000 + (uint64_t)(name * 97 + shape * 1013) % 50000;
        r->start_ns = t;
        r->end_ns = t + dur;
        t += dur + 500;
        r->stream = 7;
        r->correlation = (uint32_t)i + 1;
        r->step = -1;
        for (int q = 0; q < RL_Q_COUNT; q++)
            r->q[q] = NAN;
        if (name % 10 == 9) {
            r->counts = RL_COUNTS_NONE; /* a tenth of the kernels: timing only */
            continue;
        }
        r->counts = i < NAMES * 4 ? RL_COUNTS_COUNTERS : RL_COUNTS_SAMPLED;
        for (int q = 0; q <= RL_Q_TENSOR_FP8; q++)
            r->q[q] = 0;
        double scale = (double)(r->grid[0]) * 1e3;
        r->q[RL_Q_TIME_NS] = (double)dur;
        r->q[RL_Q_FFMA] = scale * (1 + name % 7);
        r->q[RL_Q_TENSOR_BF16] = name % 6 == 0 ? scale * 5000 : 0;
        r->q[RL_Q_DRAM_READ] = scale * (10 + name % 13) * 16;
        r->q[RL_Q_DRAM_WRITE] = scale * 16;
        r->q[RL_Q_L2_BYTES] = scale * 64;
        r->q[RL_Q_L1_BYTES] = scale * 256;
    }
    struct rl_trace_meta m = {.tool = "bench_report", .created = "2026-01-01T00:00:00Z",
                              .pid = 1, .program = "synthetic: tests/bench_report.c",
                              .gpu_name = "NVIDIA H200", .chip = "GH100", .cc_major = 9,
                              .sm_count = 132, .counters_mode = "default",
                              .counters_status = "ok", .tensor_flops_per_op = 2};
    double t0 = bench_now_s();
    FILE *f = fopen(path, "w");
    if (!f || rl_trace_write(f, &m, k, (size_t)n, NULL, 0) || fclose(f)) {
        perror(path);
        return 2;
    }
    free(k);
    struct stat st;
    stat(path, &st);
    printf("generated %ld launches, %.0f MB, in %.1f s: %s\n", n, st.st_size / 1e6, bench_now_s() - t0,
           path);

    /* The report, timed. */
    char *argv_[] = {(char *)bin, "report", "--trace", path, "--gpu", "h200", "-o", out, NULL};
    struct bench_run run;
    if (!bench_run(argv_, &run))
        return 2;
    double wall = run.wall_s, rss_mb = run.peak_mb;
    bool ok = run.exit_code == 0;
    printf("roofline report: exit %d, %.2f s wall, %.2f s user, %.0f MB peak memory "
           "(targets: 1 s, 1024 MB)\n",
           run.exit_code, wall, run.user_s, rss_mb);
    if (getenv("ROOFLINE_BENCH_KEEP")) {
        printf("kept %s\n", dir);
        return ok && wall < 1 && rss_mb < 1024 ? 0 : 1;
    }
    unlink(path);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return ok && wall < 1 && rss_mb < 1024 ? 0 : 1;
}
