/* attention.cu - attention with grouped-query heads (head dim 128, BF16): decode over a KV cache, prefill by batched GEMMs. */
#include "kernels/ops.h"

#include "analyzer/util/error.h"
#include "microbench/hash.h"

#include <cmath>
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <vector>

#define HEAD_DIM 128
#define DECODE_MAX_CTX 8192

namespace {

/* One block of 128 threads per query head h, reading KV head h / group.
 * Scores in shared memory, then each thread owns one output dimension. */
__global__ void __launch_bounds__(HEAD_DIM)
    decode_kernel(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                  const __nv_bfloat16 *__restrict__ v, __nv_bfloat16 *__restrict__ out, int group,
                  int ctx)
{
    __shared__ float scores[DECODE_MAX_CTX];
    __shared__ float red[HEAD_DIM / 32];
    const int h = blockIdx.x, kvh = h / group, lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const __nv_bfloat16 *qh = q + h * HEAD_DIM;
    const __nv_bfloat16 *kh = k + (size_t)kvh * ctx * HEAD_DIM;
    const __nv_bfloat16 *vh = v + (size_t)kvh * ctx * HEAD_DIM;
    const float scale = rsqrtf((float)HEAD_DIM);
    float qv[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        qv[i] = __bfloat162float(qh[lane * 4 + i]);
    /* Scores: a warp per token, 4 dimensions per lane. */
    for (int t = warp; t < ctx; t += HEAD_DIM / 32) {
        const __nv_bfloat16 *kt = kh + (size_t)t * HEAD_DIM + lane * 4;
        float s = 0;
#pragma unroll
        for (int i = 0; i < 4; i++)
            s += qv[i] * __bfloat162float(kt[i]);
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0)
            scores[t] = s * scale;
    }
    __syncthreads();
    /* Softmax over the tokens. */
    float mx = -INFINITY;
    for (int t = threadIdx.x; t < ctx; t += HEAD_DIM)
        mx = fmaxf(mx, scores[t]);
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    if (lane == 0)
        red[warp] = mx;
    __syncthreads();
    mx = fmaxf(fmaxf(red[0], red[1]), fmaxf(red[2], red[3]));
    __syncthreads();
    float sum = 0;
    for (int t = threadIdx.x; t < ctx; t += HEAD_DIM) {
        const float e = __expf(scores[t] - mx);
        scores[t] = e;
        sum += e;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (lane == 0)
        red[warp] = sum;
    __syncthreads();
    const float inv = 1.0f / (red[0] + red[1] + red[2] + red[3]);
    /* Output: thread d sums p_t v[t][d] (coalesced across d). */
    float acc = 0;
    for (int t = 0; t < ctx; t++)
        acc += scores[t] * __bfloat162float(vh[(size_t)t * HEAD_DIM + threadIdx.x]);
    out[h * HEAD_DIM + threadIdx.x] = __float2bfloat16_rn(acc * inv);
}

} // namespace

extern "C" int rl_attention_decode(const struct rl_tensor *q, const struct rl_tensor *k,
                                   const struct rl_tensor *v, struct rl_tensor *out, int heads,
                                   int kv_heads, int ctx, cudaStream_t s, char *errmsg)
{
    if (ctx > DECODE_MAX_CTX || heads % kv_heads != 0 || q->t != RL_DT_BF16)
        return rl_fail(errmsg, RL_EINVAL,
                       "decode attention: BF16, context <= %d, heads a multiple of KV heads",
                       DECODE_MAX_CTX);
    decode_kernel<<<heads, HEAD_DIM, 0, s>>>((const __nv_bfloat16 *)q->d,
                                             (const __nv_bfloat16 *)k->d,
                                             (const __nv_bfloat16 *)v->d,
                                             (__nv_bfloat16 *)out->d, heads / kv_heads, ctx);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess
               ? RL_OK
               : rl_fail(errmsg, RL_ECUDA, "decode attention: %s", cudaGetErrorString(e));
}


/* The host reference of one query over n keys, in double: key t's element d
 * at k[t * t_stride + d * d_stride], values alike. Checks out[0..127]
 * against it within tol (relative to the weighted magnitude of the values);
 * *worst keeps the largest error. 0, or -1 with `why` naming `where`. */
static int check_one_query(const char *what, const char *where, const double *q,
                           const double *k, const double *v, size_t t_stride, size_t d_stride,
                           int n, const double *out, double tol, double *worst, char *why)
{
    std::vector<double> p(n);
    double mx = -INFINITY, sum = 0;
    for (int t = 0; t < n; t++) {
        double dot = 0;
        for (int d = 0; d < HEAD_DIM; d++)
            dot += q[d] * k[(size_t)t * t_stride + (size_t)d * d_stride];
        p[t] = dot / sqrt((double)HEAD_DIM);
        mx = fmax(mx, p[t]);
    }
    for (int t = 0; t < n; t++)
        sum += p[t] = exp(p[t] - mx);
    for (int d = 0; d < HEAD_DIM; d++) {
        double want = 0, mag = 0;
        for (int t = 0; t < n; t++) {
            const double x = v[(size_t)t * t_stride + (size_t)d * d_stride];
            want += p[t] * x;
            mag += p[t] * fabs(x);
        }
        want /= sum;
        const double scale = mag / sum + 1e-3;
        double err;
        int bad = rl_check_close(what, &out[d], &want, &scale, 1, tol, &err, why);
        *worst = err > *worst ? err : *worst;
        if (bad) {
            snprintf(why, 160, "%s %s dim %d: %.6g, host %.6g", what, where, d, out[d], want);
            return -1;
        }
    }
    return 0;
}

extern "C" int rl_attention_decode_check(const struct rl_tensor *q, const struct rl_tensor *k,
                                         const struct rl_tensor *v, const struct rl_tensor *out,
                                         int heads, int kv_heads, int ctx, double *worst,
                                         char *why, char *errmsg)
{
    std::vector<double> qh(HEAD_DIM), kh((size_t)ctx * HEAD_DIM), vh((size_t)ctx * HEAD_DIM),
        oh(HEAD_DIM);
    int rc = RL_OK;
    *worst = 0;
    const int check_heads[2] = {0, heads - 1};
    for (int n = 0; n < 2 && rc == RL_OK; n++) {
        const int h = check_heads[n], g = h / (heads / kv_heads);
        const size_t base = (size_t)g * ctx * HEAD_DIM;
        if ((rc = rl_tensor_read(q, (size_t)h * HEAD_DIM, HEAD_DIM, 1, qh.data(), errmsg)) ||
            (rc = rl_tensor_read(k, base, (size_t)ctx * HEAD_DIM, 1, kh.data(), errmsg)) ||
            (rc = rl_tensor_read(v, base, (size_t)ctx * HEAD_DIM, 1, vh.data(), errmsg)) ||
            (rc = rl_tensor_read(out, (size_t)h * HEAD_DIM, HEAD_DIM, 1, oh.data(), errmsg)))
            break;
        char where[32];
        snprintf(where, sizeof where, "head %d", h);
        rc = check_one_query("decode attention", where, qh.data(), kh.data(), vh.data(),
                             HEAD_DIM, 1, ctx, oh.data(), 2e-2, worst, why);
    }
    return rc;
}

/* ---- prefill: batched GEMMs with a causal softmax between ---------------- */

namespace {

/* Device arrays of per-head pointers for cublasGemmBatchedEx. */
struct ptrs {
    const void **a = nullptr, **b = nullptr;
    void **c = nullptr;
};

/* The pointer arrays, copied on the stream the cuBLAS handle launches on
 * (a plain cudaMemcpy would run on the legacy stream, which a non-blocking
 * stream does not wait for) and landed before the host vectors go. */
int make_ptrs(void *handle, ptrs *p, const std::vector<const void *> &a,
              const std::vector<const void *> &b, const std::vector<void *> &c, char *errmsg)
{
    const size_t n = a.size() * sizeof(void *);
    cudaStream_t s = nullptr;
    if (cublasGetStream((cublasHandle_t)handle, &s) != CUBLAS_STATUS_SUCCESS)
        return rl_fail(errmsg, RL_ECUDA, "attention pointers: no cuBLAS stream");
    cudaError_t e;
    if ((e = cudaMalloc((void **)&p->a, n)) != cudaSuccess ||
        (e = cudaMalloc((void **)&p->b, n)) != cudaSuccess ||
        (e = cudaMalloc((void **)&p->c, n)) != cudaSuccess ||
        (e = cudaMemcpyAsync(p->a, a.data(), n, cudaMemcpyHostToDevice, s)) != cudaSuccess ||
        (e = cudaMemcpyAsync(p->b, b.data(), n, cudaMemcpyHostToDevice, s)) != cudaSuccess ||
        (e = cudaMemcpyAsync(p->c, c.data(), n, cudaMemcpyHostToDevice, s)) != cudaSuccess ||
        (e = cudaStreamSynchronize(s)) != cudaSuccess)
        return rl_fail(errmsg, RL_ECUDA, "attention pointers: %s", cudaGetErrorString(e));
    return RL_OK;
}

void free_ptrs(ptrs *p)
{
    cudaFree(p->a);
    cudaFree(p->b);
    cudaFree(p->c);
}

int batched(void *handle, cublasOperation_t ta, int m, int n, int k, const ptrs &p, int lda,
            int ldb, int ldc, int count, char *errmsg)
{
    const float one = 1, zero = 0;
    cublasStatus_t s = cublasGemmBatchedEx((cublasHandle_t)handle, ta, CUBLAS_OP_N, m, n, k, &one,
                                           p.a, CUDA_R_16BF, lda, p.b, CUDA_R_16BF, ldb, &zero,
                                           p.c, CUDA_R_16BF, ldc, count, CUBLAS_COMPUTE_32F,
                                           CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS
               ? RL_OK
               : rl_fail(errmsg, RL_ECUDA, "cublasGemmBatchedEx: %s", cublasGetStatusString(s));
}

const __nv_bfloat16 *bf(const struct rl_tensor *t) { return (const __nv_bfloat16 *)t->d; }

} // namespace

extern "C" int rl_attention_prefill_qk(void *handle, const struct rl_tensor *qkv,
                                       struct rl_tensor *scores, int heads, int kv_heads,
                                       int tokens, char *errmsg)
{
    const int width = (heads + 2 * kv_heads) * HEAD_DIM, group = heads / kv_heads;
    std::vector<const void *> a(heads), b(heads);
    std::vector<void *> c(heads);
    for (int h = 0; h < heads; h++) {
        a[h] = bf(qkv) + (size_t)(heads + h / group) * HEAD_DIM; /* keys */
        b[h] = bf(qkv) + (size_t)h * HEAD_DIM;                   /* queries */
        c[h] = (__nv_bfloat16 *)scores->d + (size_t)h * tokens * tokens;
    }
    ptrs p;
    int rc = make_ptrs(handle, &p, a, b, c, errmsg);
    /* scores_h (keys x queries, column-major) = K^T Q: row-major [query][key]. */
    if (rc == RL_OK)
        rc = batched(handle, CUBLAS_OP_T, tokens, tokens, HEAD_DIM, p, width, width, tokens, heads,
                     errmsg);
    free_ptrs(&p);
    return rc;
}

extern "C" int rl_attention_prefill_pv(void *handle, const struct rl_tensor *probs,
                                       const struct rl_tensor *qkv, struct rl_tensor *out,
                                       int heads, int kv_heads, int tokens, char *errmsg)
{
    const int width = (heads + 2 * kv_heads) * HEAD_DIM, group = heads / kv_heads;
    std::vector<const void *> a(heads), b(heads);
    std::vector<void *> c(heads);
    for (int h = 0; h < heads; h++) {
        a[h] = bf(qkv) + (size_t)(heads + kv_heads + h / group) * HEAD_DIM; /* values */
        b[h] = bf(probs) + (size_t)h * tokens * tokens;
        c[h] = (__nv_bfloat16 *)out->d + (size_t)h * HEAD_DIM;
    }
    ptrs p;
    int rc = make_ptrs(handle, &p, a, b, c, errmsg);
    /* out_h (128 x queries, column-major, ld heads x 128) = V P. */
    if (rc == RL_OK)
        rc = batched(handle, CUBLAS_OP_N, HEAD_DIM, tokens, tokens, p, width, tokens,
                     heads * HEAD_DIM, heads, errmsg);
    free_ptrs(&p);
    return rc;
}


extern "C" int rl_attention_prefill_check(const struct rl_tensor *qkv,
                                          const struct rl_tensor *out, int heads, int kv_heads,
                                          int tokens, double *worst, char *why, char *errmsg)
{
    const int width = (heads + 2 * kv_heads) * HEAD_DIM, group = heads / kv_heads;
    std::vector<double> q(HEAD_DIM), kcol((size_t)tokens * HEAD_DIM),
        vcol((size_t)tokens * HEAD_DIM), o(HEAD_DIM);
    int rc = RL_OK;
    *worst = 0;
    const int samples[3][2] = {{0, 0}, {heads - 1, tokens - 1}, {heads / 2, tokens / 3}};
    for (int s = 0; s < 3 && rc == RL_OK; s++) {
        const int h = samples[s][0], qi = samples[s][1], g = h / group, n = qi + 1;
        if ((rc = rl_tensor_read(qkv, (size_t)qi * width + (size_t)h * HEAD_DIM, HEAD_DIM, 1,
                                 q.data(), errmsg)) ||
            (rc = rl_tensor_read(out, (size_t)qi * heads * HEAD_DIM + (size_t)h * HEAD_DIM,
                                 HEAD_DIM, 1, o.data(), errmsg)))
            break;
        for (int d = 0; d < HEAD_DIM && rc == RL_OK; d++) {
            /* Column d of the keys and values of tokens 0..qi (stride: a row). */
            rc = rl_tensor_read(qkv, (size_t)(heads + g) * HEAD_DIM + d, (size_t)n, (size_t)width,
                                &kcol[(size_t)d * n], errmsg);
            if (rc == RL_OK)
                rc = rl_tensor_read(qkv, (size_t)(heads + kv_heads + g) * HEAD_DIM + d, (size_t)n,
                                    (size_t)width, &vcol[(size_t)d * n], errmsg);
        }
        if (rc)
            break;
        /* BF16 scores and probabilities round at 2^-8: a loose bound. */
        char where[48];
        snprintf(where, sizeof where, "head %d token %d", h, qi);
        rc = check_one_query("prefill attention", where, q.data(), kcol.data(), vcol.data(), 1,
                             (size_t)n, n, o.data(), 5e-2, worst, why);
    }
    return rc;
}
