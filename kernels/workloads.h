/* workloads.h - the real workloads roofline traces: GEMM, GEMV, elementwise ops, a transformer layer.
 *
 * Each step of a workload is one operation (one or more kernel launches:
 * a cuBLAS call may launch several) with an analytic cost written out in
 * kernels/README.md: its FLOPs and its minimum bytes (every input read
 * once, every output written once). The profiler brackets each step
 * through rl_wl_hooks, so traced kernels inherit the step's label and
 * analytic cost; every step's output is checked against a host reference.
 */
#ifndef RL_WORKLOADS_H
#define RL_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rl_dtype { RL_DT_F64, RL_DT_F32, RL_DT_F16, RL_DT_BF16, RL_DT_E4M3, RL_DT_S8, RL_DT_S32 };

const char *rl_dtype_name(enum rl_dtype t); /* "bf16" */
size_t rl_dtype_bytes(enum rl_dtype t);

/* The analytic cost of one step. */
struct rl_step_cost {
    double flops;           /* FLOP (integer ops for INT8) */
    double bytes;           /* minimum DRAM bytes: inputs once + outputs once */
    const char *precision;  /* roof it runs on: "bf16", "fp32", "fp8", ... */
};

/* What the profiler hands a workload. begin() comes before a step's first
 * launch, end() after its last; either may be NULL. */
struct rl_wl_hooks {
    void (*begin)(void *ctx, const char *label, const struct rl_step_cost *cost);
    void (*end)(void *ctx);
    void *ctx;
};

/* A linear layer to run as it is (workload "shapes", for `roofline llm
 * --measure`): D[m x n] = W[m x k] X[k x n] in BF16; n == 1 is a GEMV (built-in),
 * else a cuBLASLt GEMM. Step labels start with `label`. */
struct rl_wl_shape {
    char label[64];
    int64_t m, n, k;
};

struct rl_wl_options {
    int device;
    int reps;               /* times each step is run (>= 1), each run a step of its own */
    int decode_context;     /* tokens in the KV cache for "decode" (default 2048) */
    int prefill_tokens;     /* tokens for "prefill" (default 2048) */
    const struct rl_wl_shape *shapes; /* for "shapes" */
    int n_shapes;
};

/* Names accepted by rl_workload_run: gemm, gemv, elementwise, decode,
 * prefill, shapes (NULL-terminated). Defined in costs.c (host side). */
const char *const *rl_workload_names(void);

/* Run a workload. Returns 0; RL_ENOTFOUND for an unknown name; RL_EVERIFY
 * when a step's output is wrong (errmsg names the step); RL_ECUDA /
 * RL_ENODEV for GPU errors. Steps the GPU cannot run (FP8 before 8.9) are
 * skipped and said so through `note` (may be NULL). */
int rl_workload_run(const char *name, const struct rl_wl_options *opt,
                    const struct rl_wl_hooks *hooks,
                    void (*note)(void *ctx, const char *text), char *errmsg);

#ifdef __cplusplus
}
#endif

#endif
