/* ops.h - the workload kernels other than GEMM: GEMV, elementwise ops, attention; their costs and checks.
 *
 * Tensors are row-major: a [rows][cols] matrix has cols contiguous. Costs
 * (costs.h) follow kernels/README.md: FLOPs count each add, multiply, divide, compare
 * and transcendental as 1 (an FMA as 2); bytes are the minimum: every input
 * element read once and every output element written once.
 */
#ifndef RL_OPS_H
#define RL_OPS_H

#include "kernels/costs.h"
#include "kernels/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GEMV: y[M] = W[M][K] x[K], FP32 accumulation. */

/* Ours: a warp per output row, 16-byte streaming loads of W, 4 in flight
 * per lane. K must be a multiple of 16 / element size. */
int rl_gemv(const struct rl_tensor *w, const struct rl_tensor *x, struct rl_tensor *y,
            int64_t m, int64_t k, cudaStream_t s, char *errmsg);
/* cuBLAS (cublasGemmEx with N = 1); handle is a cublasHandle_t. */
int rl_gemv_cublas(void *handle, const struct rl_tensor *w, const struct rl_tensor *x,
                   struct rl_tensor *y, int64_t m, int64_t k, char *errmsg);
int rl_gemv_check(const struct rl_tensor *w, const struct rl_tensor *x,
                  const struct rl_tensor *y, int64_t m, int64_t k, double *worst, char *why,
                  char *errmsg);

/* Elementwise, any float type (FP32, FP16, BF16), FP32 math. */


/* c[i] = op(a[i], b[i]) for i < n; b unused by SCALE, SILU, GELU. */
int rl_ew(enum rl_ew_op op, const struct rl_tensor *a, const struct rl_tensor *b,
          struct rl_tensor *c, size_t n, float s, cudaStream_t st, char *errmsg);
int rl_ew_check(enum rl_ew_op op, const struct rl_tensor *a, const struct rl_tensor *b,
                const struct rl_tensor *c, size_t n, float s, double *worst, char *why,
                char *errmsg);

/* Row ops: one block per row. */

/* y[r][:] = x[r][:] / sqrt(mean(x[r]^2) + eps) w[:]. 4 FLOP per element. */
int rl_rmsnorm(const struct rl_tensor *x, const struct rl_tensor *w, struct rl_tensor *y,
               int64_t rows, int64_t cols, float eps, cudaStream_t s, char *errmsg);
int rl_rmsnorm_check(const struct rl_tensor *x, const struct rl_tensor *w,
                     const struct rl_tensor *y, int64_t rows, int64_t cols, float eps,
                     double *worst, char *why, char *errmsg);

/* y[r][:] = softmax(scale x[r][:]) over cols; with causal, columns c >
 * (r mod period) are masked out (attention scores: row = query). 6 FLOP
 * per element. In place allowed. */
int rl_softmax(const struct rl_tensor *x, struct rl_tensor *y, int64_t rows, int64_t cols,
               float scale, int64_t causal_period, cudaStream_t s, char *errmsg);
/* Check rows of y against x (read before the kernel ran, as `x_rows`,
 * n_rows rows starting at row0). */
int rl_softmax_check(const double *x_rows, const struct rl_tensor *y, int64_t row0,
                     int64_t n_rows, int64_t cols, float scale, int64_t causal_period,
                     double *worst, char *why, char *errmsg);

/* Attention, BF16, head dim 128, grouped-query (heads / kv_heads query
 * heads share one KV head). */

/* Decode, one token: q [heads][128], caches k, v [kv_heads][ctx][128],
 * out [heads][128]. One block per query head. */
int rl_attention_decode(const struct rl_tensor *q, const struct rl_tensor *k,
                        const struct rl_tensor *v, struct rl_tensor *out, int heads,
                        int kv_heads, int ctx, cudaStream_t s, char *errmsg);
int rl_attention_decode_check(const struct rl_tensor *q, const struct rl_tensor *k,
                              const struct rl_tensor *v, const struct rl_tensor *out,
                              int heads, int kv_heads, int ctx, double *worst, char *why,
                              char *errmsg);

/* Prefill, causal, over T tokens: qkv [T][(heads + 2 kv_heads) x 128]
 * (query heads, then keys, then values), scores [heads][T][T] (row =
 * query), out [T][heads x 128]. handle is a cublasHandle_t. */
int rl_attention_prefill_qk(void *handle, const struct rl_tensor *qkv, struct rl_tensor *scores,
                            int heads, int kv_heads, int tokens, char *errmsg);
int rl_attention_prefill_pv(void *handle, const struct rl_tensor *probs,
                            const struct rl_tensor *qkv, struct rl_tensor *out, int heads,
                            int kv_heads, int tokens, char *errmsg);
int rl_attention_prefill_check(const struct rl_tensor *qkv, const struct rl_tensor *out,
                               int heads, int kv_heads, int tokens, double *worst, char *why,
                               char *errmsg);

#ifdef __cplusplus
}
#endif

#endif
