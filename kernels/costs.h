/* costs.h - the analytic FLOPs and minimum bytes of every workload step (kernels/README.md derives each), and one layer's plan. */
#ifndef RL_COSTS_H
#define RL_COSTS_H

#include "kernels/workloads.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Llama-3-8B: hidden 4096, 32 query heads and 8 KV heads of 128, FFN
 * 14336, vocabulary 128256. */
#define RL_L3_HIDDEN 4096
#define RL_L3_HEADS 32
#define RL_L3_KV_HEADS 8
#define RL_L3_HEAD_DIM 128
#define RL_L3_FFN 14336
#define RL_L3_VOCAB 128256
#define RL_L3_QKV ((RL_L3_HEADS + 2 * RL_L3_KV_HEADS) * RL_L3_HEAD_DIM) /* 6144 */

/* Elementwise ops: the FLOPs per element of each. */
enum rl_ew_op {
    RL_EW_ADD,      /* c = a + b                                   1 FLOP */
    RL_EW_SCALE,    /* c = s a                                      1 FLOP */
    RL_EW_SILU,     /* c = a / (1 + exp(-a))                       4 FLOP */
    RL_EW_GELU,     /* tanh form: 0.5 a (1 + tanh(0.79788456 (a + 0.044715 a^3)))  9 FLOP */
    RL_EW_SILU_MUL  /* c = silu(a) b (SwiGLU)                      5 FLOP */
};

/* GEMM D[M x N] = A^T[M x K] B[K x N]: 2MNK FLOPs; A, B read and D written once. */
struct rl_step_cost rl_gemm_cost(int64_t m, int64_t n, int64_t k, enum rl_dtype ab,
                                 enum rl_dtype d, const char *roof);
/* GEMV y[M] = W[M x K] x[K]. */
struct rl_step_cost rl_gemv_cost(int64_t m, int64_t k, enum rl_dtype t);
/* Elementwise op over n elements. */
struct rl_step_cost rl_ew_cost(enum rl_ew_op op, size_t n, enum rl_dtype t);
struct rl_step_cost rl_rmsnorm_cost(int64_t rows, int64_t cols, enum rl_dtype t);
struct rl_step_cost rl_softmax_cost(int64_t rows, int64_t cols, enum rl_dtype t);
struct rl_step_cost rl_attention_decode_cost(int heads, int kv_heads, int ctx);
/* which 0: QK^T, 1: PV. */
struct rl_step_cost rl_attention_prefill_cost(int which, int heads, int kv_heads, int tokens);

/* The roof of a float type computed on CUDA cores: "fp32", "fp16-cuda", "bf16-cuda". */
const char *rl_float_roof(enum rl_dtype t);

/* One step of a layer plan. */
struct rl_plan_step {
    char label[128];
    struct rl_step_cost cost;
};

/* The steps of one Llama-3-8B layer (BF16), as `decode` (batch 1, context
 * `tokens`) or `prefill` (`tokens` tokens) run them: labels and costs the
 * same as the workloads' (kernels/workloads.c). Writes at most max steps;
 * returns how many, or -1 for an unknown phase. */
int rl_layer_plan(const char *phase, int tokens, struct rl_plan_step *out, int max);

#ifdef __cplusplus
}
#endif

#endif
