/* elementwise.cu - elementwise ops (add, scale, SiLU, GELU, SwiGLU) and row ops (RMSNorm, softmax). */
#include "kernels/ops.h"

#include "analyzer/util/error.h"
#include "microbench/hash.h"

#include <cmath>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

#define EW_BLOCK 256
#define ROW_BLOCK 256

namespace {

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v)
{
    return __bfloat162float(v);
}
template <typename T> __device__ __forceinline__ T from_f(float f);
template <> __device__ __forceinline__ float from_f<float>(float f) { return f; }
template <> __device__ __forceinline__ __half from_f<__half>(float f) { return __float2half_rn(f); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float f)
{
    return __float2bfloat16_rn(f);
}

__device__ __forceinline__ float silu(float a) { return a / (1.0f + __expf(-a)); }

__device__ __forceinline__ float gelu(float a)
{
    return 0.5f * a * (1.0f + tanhf(0.7978845608f * (a + 0.044715f * a * a * a)));
}

__device__ __forceinline__ float apply(int op, float a, float b, float s)
{
    switch (op) {
    case RL_EW_ADD:
        return a + b;
    case RL_EW_SCALE:
        return s * a;
    case RL_EW_SILU:
        return silu(a);
    case RL_EW_GELU:
        return gelu(a);
    default:
        return silu(a) * b;
    }
}

/* 16 bytes of elements per thread per step (8 for 16-bit types, 4 for
 * FP32); a scalar loop takes the tail. */
template <typename T>
__global__ void __launch_bounds__(EW_BLOCK)
    ew_kernel(int op, const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
              size_t n, float s)
{
    constexpr int V = 16 / sizeof(T);
    const size_t nvec = n / V, stride = (size_t)gridDim.x * blockDim.x;
    const bool two = op == RL_EW_ADD || op == RL_EW_SILU_MUL;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
        uint4 va = reinterpret_cast<const uint4 *>(a)[i], vb = va, vc;
        if (two)
            vb = reinterpret_cast<const uint4 *>(b)[i];
        const T *ea = reinterpret_cast<const T *>(&va), *eb = reinterpret_cast<const T *>(&vb);
        T *ec = reinterpret_cast<T *>(&vc);
#pragma unroll
        for (int k = 0; k < V; k++)
            ec[k] = from_f<T>(apply(op, to_f(ea[k]), to_f(eb[k]), s));
        reinterpret_cast<uint4 *>(c)[i] = vc;
    }
    for (size_t i = nvec * V + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = from_f<T>(apply(op, to_f(a[i]), two ? to_f(b[i]) : 0.0f, s));
}

__device__ float block_sum(float v, float *smem)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        smem[threadIdx.x / 32] = v;
    __syncthreads();
    float t = threadIdx.x < blockDim.x / 32 ? smem[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            t += __shfl_xor_sync(0xffffffffu, t, off);
    if (threadIdx.x == 0)
        smem[0] = t;
    __syncthreads();
    const float r = smem[0];
    __syncthreads();
    return r;
}

__device__ float block_max(float v, float *smem)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    if ((threadIdx.x & 31) == 0)
        smem[threadIdx.x / 32] = v;
    __syncthreads();
    float t = threadIdx.x < blockDim.x / 32 ? smem[threadIdx.x] : -INFINITY;
    if (threadIdx.x < 32)
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            t = fmaxf(t, __shfl_xor_sync(0xffffffffu, t, off));
    if (threadIdx.x == 0)
        smem[0] = t;
    __syncthreads();
    const float r = smem[0];
    __syncthreads();
    return r;
}

template <typename T>
__global__ void __launch_bounds__(ROW_BLOCK)
    rmsnorm_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int64_t cols,
                   float eps)
{
    __shared__ float smem[32];
    const T *xr = x + blockIdx.x * cols;
    T *yr = y + blockIdx.x * cols;
    float ss = 0;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = to_f(xr[c]);
        ss += v * v;
    }
    const float r = rsqrtf(block_sum(ss, smem) / (float)cols + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = from_f<T>(to_f(xr[c]) * r * to_f(w[c]));
}

/* Row r: masked when causal and c > r mod period. */
template <typename T>
__global__ void __launch_bounds__(ROW_BLOCK)
    softmax_kernel(const T *x, T *y, int64_t cols, float scale, int64_t period)
{
    __shared__ float smem[32];
    const T *xr = x + blockIdx.x * cols;
    T *yr = y + blockIdx.x * cols;
    const int64_t last = period > 0 ? (int64_t)(blockIdx.x % period) : cols - 1;
    float mx = -INFINITY;
    for (int64_t c = threadIdx.x; c <= last; c += blockDim.x)
        mx = fmaxf(mx, scale * to_f(xr[c]));
    mx = block_max(mx, smem);
    float sum = 0;
    for (int64_t c = threadIdx.x; c <= last; c += blockDim.x)
        sum += __expf(scale * to_f(xr[c]) - mx);
    const float inv = 1.0f / block_sum(sum, smem);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = from_f<T>(c <= last ? __expf(scale * to_f(xr[c]) - mx) * inv : 0.0f);
}

int launched(char *errmsg, const char *what)
{
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? RL_OK : rl_fail(errmsg, RL_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}


double tolerance(enum rl_dtype t) { return t == RL_DT_F32 ? 1e-4 : t == RL_DT_F16 ? 5e-3 : 2e-2; }

double host_apply(int op, double a, double b, double s)
{
    switch (op) {
    case RL_EW_ADD:
        return a + b;
    case RL_EW_SCALE:
        return s * a;
    case RL_EW_SILU:
        return a / (1 + exp(-a));
    case RL_EW_GELU:
        return 0.5 * a * (1 + tanh(0.7978845608 * (a + 0.044715 * a * a * a)));
    default:
        return a / (1 + exp(-a)) * b;
    }
}

} // namespace

extern "C" int rl_ew(enum rl_ew_op op, const struct rl_tensor *a, const struct rl_tensor *b,
                     struct rl_tensor *c, size_t n, float s, cudaStream_t st, char *errmsg)
{
    const unsigned grid = 1024;
    const void *bd = b ? b->d : a->d;
    RL_FLOAT_DISPATCH(a->t, errmsg, "elementwise",
                      ew_kernel<T><<<grid, EW_BLOCK, 0, st>>>(op, (const T *)a->d, (const T *)bd,
                                                              (T *)c->d, n, s))
    return launched(errmsg, "elementwise kernel");
}


extern "C" int rl_ew_check(enum rl_ew_op op, const struct rl_tensor *a, const struct rl_tensor *b,
                           const struct rl_tensor *c, size_t n, float s, double *worst, char *why,
                           char *errmsg)
{
    int rc = RL_OK;
    *worst = 0;
    for (int k = 0; k < 256 && rc == RL_OK; k++) {
        const size_t i = k == 0 ? n - 1 : (size_t)rl_mb_hash((uint32_t)k * 104729u) % n;
        double va, vb = 0, vc;
        if ((rc = rl_tensor_read(a, i, 1, 1, &va, errmsg)) ||
            (b && (rc = rl_tensor_read(b, i, 1, 1, &vb, errmsg))) ||
            (rc = rl_tensor_read(c, i, 1, 1, &vc, errmsg)))
            break;
        const double want = host_apply(op, va, vb, s);
        const double scale = fabs(want) + fabs(va) + fabs(vb) * 0.1 + 1e-3;
        double err;
        if (rl_check_close("elementwise", &vc, &want, &scale, 1, tolerance(a->t), &err, why)) {
            snprintf(why, 160, "elementwise op %d at %zu: %.6g, host %.6g", (int)op, i, vc, want);
            rc = -1;
        }
        *worst = err > *worst ? err : *worst;
    }
    return rc;
}

namespace {

template <typename T>
void launch_rmsnorm(const struct rl_tensor *x, const struct rl_tensor *w, struct rl_tensor *y,
                    int64_t rows, int64_t cols, float eps, cudaStream_t s)
{
    rmsnorm_kernel<T><<<(unsigned)rows, ROW_BLOCK, 0, s>>>((const T *)x->d, (const T *)w->d,
                                                          (T *)y->d, cols, eps);
}

template <typename T>
void launch_softmax(const struct rl_tensor *x, struct rl_tensor *y, int64_t rows, int64_t cols,
                    float scale, int64_t period, cudaStream_t s)
{
    softmax_kernel<T><<<(unsigned)rows, ROW_BLOCK, 0, s>>>((const T *)x->d, (T *)y->d, cols, scale,
                                                          period);
}

} // namespace

extern "C" int rl_rmsnorm(const struct rl_tensor *x, const struct rl_tensor *w, struct rl_tensor *y,
                          int64_t rows, int64_t cols, float eps, cudaStream_t s, char *errmsg)
{
    RL_FLOAT_DISPATCH(x->t, errmsg, "rmsnorm", launch_rmsnorm<T>(x, w, y, rows, cols, eps, s))
    return launched(errmsg, "rmsnorm kernel");
}


extern "C" int rl_rmsnorm_check(const struct rl_tensor *x, const struct rl_tensor *w,
                                const struct rl_tensor *y, int64_t rows, int64_t cols, float eps,
                                double *worst, char *why, char *errmsg)
{
    std::vector<double> xr(cols), wr(cols), yr(cols);
    int rc = rl_tensor_read(w, 0, (size_t)cols, 1, wr.data(), errmsg);
    *worst = 0;
    for (int k = 0; k < 4 && rc == RL_OK; k++) {
        const int64_t r = k == 0 ? rows - 1 : rl_mb_hash((uint32_t)k * 613u) % rows;
        if ((rc = rl_tensor_read(x, (size_t)(r * cols), (size_t)cols, 1, xr.data(), errmsg)) ||
            (rc = rl_tensor_read(y, (size_t)(r * cols), (size_t)cols, 1, yr.data(), errmsg)))
            break;
        double ss = 0;
        for (int64_t c = 0; c < cols; c++)
            ss += xr[c] * xr[c];
        const double inv = 1 / sqrt(ss / cols + eps);
        for (int64_t c = 0; c < cols && rc == RL_OK; c++) {
            const double want = xr[c] * inv * wr[c], scale = fabs(want) + 1e-3;
            double err;
            if (rl_check_close("rmsnorm", &yr[c], &want, &scale, 1, tolerance(x->t), &err, why)) {
                snprintf(why, 160, "rmsnorm row %lld col %lld: %.6g, host %.6g", (long long)r,
                         (long long)c, yr[c], want);
                rc = -1;
            }
            *worst = err > *worst ? err : *worst;
        }
    }
    return rc;
}

extern "C" int rl_softmax(const struct rl_tensor *x, struct rl_tensor *y, int64_t rows,
                          int64_t cols, float scale, int64_t causal_period, cudaStream_t s,
                          char *errmsg)
{
    RL_FLOAT_DISPATCH(x->t, errmsg, "softmax",
                      launch_softmax<T>(x, y, rows, cols, scale, causal_period, s))
    return launched(errmsg, "softmax kernel");
}


extern "C" int rl_softmax_check(const double *x_rows, const struct rl_tensor *y, int64_t row0,
                                int64_t n_rows, int64_t cols, float scale, int64_t causal_period,
                                double *worst, char *why, char *errmsg)
{
    std::vector<double> yr(cols);
    int rc = RL_OK;
    *worst = 0;
    for (int64_t k = 0; k < n_rows && rc == RL_OK; k++) {
        const int64_t r = row0 + k;
        const double *xr = x_rows + k * cols;
        const int64_t last = causal_period > 0 ? r % causal_period : cols - 1;
        if ((rc = rl_tensor_read(y, (size_t)(r * cols), (size_t)cols, 1, yr.data(), errmsg)))
            break;
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c <= last; c++)
            mx = fmax(mx, scale * xr[c]);
        for (int64_t c = 0; c <= last; c++)
            sum += exp(scale * xr[c] - mx);
        for (int64_t c = 0; c < cols && rc == RL_OK; c++) {
            const double want = c <= last ? exp(scale * xr[c] - mx) / sum : 0;
            const double tol_scale = fabs(want) + 1e-4;
            double err;
            if (rl_check_close("softmax", &yr[c], &want, &tol_scale, 1, tolerance(y->t), &err,
                               why)) {
                snprintf(why, 160, "softmax row %lld col %lld: %.6g, host %.6g", (long long)r,
                         (long long)c, yr[c], want);
                rc = -1;
            }
            *worst = err > *worst ? err : *worst;
        }
    }
    return rc;
}
