/* costs.c - the analytic FLOPs and minimum bytes of every workload step (kernels/README.md derives each), and one layer's plan.
 *
 * Plain C with no CUDA: the workloads (on a GPU) and `roofline run` (without
 * one) take their labels and costs from here, so the analytic positions
 * drawn without a GPU are those of the very steps traced with one.
 */
#include "kernels/costs.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *rl_dtype_name(enum rl_dtype t)
{
    static const char *const names[] = {"fp64", "fp32", "fp16", "bf16", "fp8", "int8", "int32"};
    return names[t];
}

size_t rl_dtype_bytes(enum rl_dtype t)
{
    static const size_t sizes[] = {8, 4, 2, 2, 1, 1, 4};
    return sizes[t];
}

/* The workloads' names (kernels/workloads.c runs them), here on the host
 * side so that the CLI checks `--builtin` without the CUDA plugin. */
const char *const *rl_workload_names(void)
{
    static const char *const names[] = {"gemm",    "gemv",   "elementwise", "decode",
                                        "prefill", "shapes", NULL};
    return names;
}

const char *rl_float_roof(enum rl_dtype t)
{
    return t == RL_DT_F32 ? "fp32" : t == RL_DT_F16 ? "fp16-cuda" : "bf16-cuda";
}

struct rl_step_cost rl_gemm_cost(int64_t m, int64_t n, int64_t k, enum rl_dtype ab,
                                 enum rl_dtype d, const char *roof)
{
    struct rl_step_cost c;
    c.flops = 2.0 * (double)m * (double)n * (double)k;
    c.bytes = ((double)m * k + (double)k * n) * rl_dtype_bytes(ab) +
              (double)m * n * rl_dtype_bytes(d);
    c.precision = roof;
    return c;
}

struct rl_step_cost rl_gemv_cost(int64_t m, int64_t k, enum rl_dtype t)
{
    struct rl_step_cost c;
    c.flops = 2.0 * m * k;
    c.bytes = (double)(m * k + k + m) * rl_dtype_bytes(t);
    c.precision = rl_float_roof(t);
    return c;
}

struct rl_step_cost rl_ew_cost(enum rl_ew_op op, size_t n, enum rl_dtype t)
{
    static const double flops[] = {1, 1, 4, 9, 5};
    const bool two = op == RL_EW_ADD || op == RL_EW_SILU_MUL;
    struct rl_step_cost c = {flops[op] * (double)n, (two ? 3.0 : 2.0) * n * rl_dtype_bytes(t),
                             rl_float_roof(t)};
    return c;
}

struct rl_step_cost rl_rmsnorm_cost(int64_t rows, int64_t cols, enum rl_dtype t)
{
    /* Per element: square, add, two multiplies; per row: divide, add, rsqrt. */
    struct rl_step_cost c = {4.0 * rows * cols + 3.0 * rows,
                             (2.0 * rows * cols + cols) * rl_dtype_bytes(t), rl_float_roof(t)};
    return c;
}

struct rl_step_cost rl_softmax_cost(int64_t rows, int64_t cols, enum rl_dtype t)
{
    /* Per element: scale, max, subtract, exp, sum, normalize. */
    struct rl_step_cost c = {6.0 * rows * cols, 2.0 * rows * cols * rl_dtype_bytes(t),
                             rl_float_roof(t)};
    return c;
}

struct rl_step_cost rl_attention_decode_cost(int heads, int kv_heads, int ctx)
{
    /* q.k and p.v: 2 x 128 FLOP per head and token each; softmax: scale,
     * max, subtract, exp, sum, normalize (6 per score). Bytes: the KV cache
     * of the KV heads once (GQA: not once per query head), q and out. */
    struct rl_step_cost c;
    c.flops = 4.0 * heads * ctx * RL_L3_HEAD_DIM + 6.0 * heads * ctx;
    c.bytes = (2.0 * kv_heads * ctx * RL_L3_HEAD_DIM + 2.0 * heads * RL_L3_HEAD_DIM) * 2;
    c.precision = "bf16-cuda";
    return c;
}

struct rl_step_cost rl_attention_prefill_cost(int which, int heads, int kv_heads, int tokens)
{
    /* The full T x T score matrix is computed (the causal mask only zeroes
     * probabilities): 2 T T 128 FLOP per head for QK^T and again for PV. */
    const double t = tokens, scores = (double)heads * t * t;
    struct rl_step_cost c;
    c.flops = 2.0 * scores * RL_L3_HEAD_DIM;
    c.precision = "bf16";
    if (which == 0) /* Q, K in; scores out */
        c.bytes = (t * heads * RL_L3_HEAD_DIM + t * kv_heads * RL_L3_HEAD_DIM + scores) * 2;
    else /* P, V in; out */
        c.bytes = (scores + t * kv_heads * RL_L3_HEAD_DIM + t * heads * RL_L3_HEAD_DIM) * 2;
    return c;
}

/* ---- the layer plans ------------------------------------------------------- */

struct plan {
    struct rl_plan_step *out;
    int n, max;
};

static void add(struct plan *p, struct rl_step_cost cost, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add(struct plan *p, struct rl_step_cost cost, const char *fmt, ...)
{
    if (p->n < p->max) {
        struct rl_plan_step *s = &p->out[p->n];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->label, sizeof s->label, fmt, ap);
        va_end(ap);
        s->cost = cost;
    }
    p->n++;
}

static void gemv(struct plan *p, const char *what, int64_t m, int64_t k)
{
    add(p, rl_gemv_cost(m, k, RL_DT_BF16), "%s GEMV %lld->%lld bf16 (built-in)", what, (long long)k,
        (long long)m);
}

static void gemm(struct plan *p, const char *what, int64_t m, int64_t n, int64_t k)
{
    add(p, rl_gemm_cost(m, n, k, RL_DT_BF16, RL_DT_BF16, "bf16"),
        "%s GEMM %lldx%lldx%lld bf16 (cuBLASLt)", what, (long long)m, (long long)n,
        (long long)k);
}

int rl_layer_plan(const char *phase, int tokens, struct rl_plan_step *out, int max)
{
    const int H = RL_L3_HIDDEN, F = RL_L3_FFN;
    struct plan p = {out, 0, max};
    if (strcmp(phase, "decode") == 0) {
        const int ctx = tokens;
        add(&p, rl_rmsnorm_cost(1, H, RL_DT_BF16), "decode attention RMSNorm 1x4096 bf16");
        gemv(&p, "decode qkv", RL_L3_QKV, H);
        add(&p, rl_attention_decode_cost(RL_L3_HEADS, RL_L3_KV_HEADS, ctx),
            "decode attention 32 heads / 8 KV heads, context %d bf16", ctx);
        gemv(&p, "decode o", H, H);
        add(&p, rl_ew_cost(RL_EW_ADD, H, RL_DT_BF16), "decode residual add 1x4096 bf16");
        add(&p, rl_rmsnorm_cost(1, H, RL_DT_BF16), "decode FFN RMSNorm 1x4096 bf16");
        gemv(&p, "decode gate", F, H);
        gemv(&p, "decode up", F, H);
        add(&p, rl_ew_cost(RL_EW_SILU_MUL, F, RL_DT_BF16),
            "decode SiLU x up (SwiGLU) 1x14336 bf16");
        gemv(&p, "decode down", H, F);
        add(&p, rl_ew_cost(RL_EW_ADD, H, RL_DT_BF16), "decode residual add 1x4096 bf16");
        return p.n;
    }
    if (strcmp(phase, "prefill") == 0) {
        const long long T = tokens;
        add(&p, rl_rmsnorm_cost(T, H, RL_DT_BF16), "prefill attention RMSNorm %lldx4096 bf16", T);
        gemm(&p, "prefill qkv", RL_L3_QKV, T, H);
        add(&p, rl_attention_prefill_cost(0, RL_L3_HEADS, RL_L3_KV_HEADS, (int)T),
            "prefill attention QK^T %d heads x %lldx%lld (cuBLAS batched)", RL_L3_HEADS, T, T);
        add(&p, rl_softmax_cost(RL_L3_HEADS * T, T, RL_DT_BF16),
            "prefill attention softmax (causal) %lldx%lld bf16", RL_L3_HEADS * T, T);
        add(&p, rl_attention_prefill_cost(1, RL_L3_HEADS, RL_L3_KV_HEADS, (int)T),
            "prefill attention PV %d heads x %lldx%lld (cuBLAS batched)", RL_L3_HEADS, T, T);
        gemm(&p, "prefill o", H, T, H);
        add(&p, rl_ew_cost(RL_EW_ADD, (size_t)T * H, RL_DT_BF16),
            "prefill residual add %lldx4096 bf16", T);
        add(&p, rl_rmsnorm_cost(T, H, RL_DT_BF16), "prefill FFN RMSNorm %lldx4096 bf16", T);
        gemm(&p, "prefill gate", F, T, H);
        gemm(&p, "prefill up", F, T, H);
        add(&p, rl_ew_cost(RL_EW_SILU_MUL, (size_t)T * F, RL_DT_BF16),
            "prefill SiLU x up (SwiGLU) %lldx14336 bf16", T);
        gemm(&p, "prefill down", H, T, F);
        add(&p, rl_ew_cost(RL_EW_ADD, (size_t)T * H, RL_DT_BF16),
            "prefill residual add %lldx4096 bf16", T);
        return p.n;
    }
    return -1;
}
