/* runner.h - inside libroofline_cuda: what the benchmark runners share (timing, checks, errors). */
#ifndef RL_MB_RUNNER_H
#define RL_MB_RUNNER_H

#include "microbench/bench.h"
#include "analyzer/device/device.h"

#include <cuda_runtime_api.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything one benchmark run needs. */
struct rl_run {
    const struct rl_bench_options *opt;
    const struct rl_device_info *dev;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    char *errmsg;
    /* Run sizes: quick or full. */
    double target_ns;   /* one timed sample lasts about this long */
    int reps;           /* timed samples per measurement */
};

/* Record a failed CUDA call (file:line, expression, CUDA's own message) in
 * r->errmsg and return RL_ECUDA; 0 for cudaSuccess. */
int rl_cuda_check(struct rl_run *r, cudaError_t e, const char *expr, const char *file,
                  int line);

/* Jump to `done` with rc set when a CUDA call fails (the function keeps its
 * cleanup in one place, nccl-tests' CUDACHECK with a goto). */
#define RL_CK(expr)                                                              \
    do {                                                                         \
        if ((rc = rl_cuda_check(r, (expr), #expr, __FILE__, __LINE__)) != 0)     \
            goto done;                                                           \
    } while (0)

/* Copy device memory to the host on the benchmark's stream and wait for
 * it: every copy is ordered with the kernels (the legacy stream, which a
 * plain cudaMemcpy uses, is not ordered with a non-blocking stream). */
int rl_copy_to_host(struct rl_run *r, void *dst, const void *src, size_t bytes);

/* Launch fn `launches` times back to back between two events; *ns gets
 * the elapsed time of all of them. Checks the launch and the run. */
int rl_time_launches(struct rl_run *r, const void *fn, unsigned grid, unsigned block,
                     void **args, size_t smem, int launches, double *ns);

/* Median of n values (sorts v). */
double rl_run_median(double *v, int n);

/* Keep the GPU busy about `ns` so clocks have ramped before measuring. */
int rl_warm_up(struct rl_run *r, double ns);

/* Kernel lookups (compute.cu, memory.cu, sweep.cu). */
const void *rl_mb_compute_kernel(const char *name);
const void *rl_mb_memory_kernel(const char *name);
const void *rl_mb_sweep_kernel(const char *name);

/* The runners, one per kind. Each fills out (status, times, check) and
 * returns 0, or an RL_E* code for errors that are not the benchmark's
 * (out of memory, a CUDA error). */
int rl_run_compute(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);
int rl_run_stream(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);
int rl_run_shared(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);
int rl_run_cache(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);
int rl_run_transfer(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);
int rl_run_sweep(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);
int rl_run_library(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out);

#ifdef __cplusplus
}
#endif

#endif
