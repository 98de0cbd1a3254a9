/* gemv.cu - GEMV y = W x: our memory-bound kernel (16-byte loads, 4 in flight) and cuBLAS's.
 *
 * Decode at batch 1 is a chain of these: every weight is read once and used
 * for one multiply-add, 2 FLOP per weight element, so a BF16 GEMV runs at
 * about 1 FLOP/byte, far left of any ridge, and is as fast as HBM allows.
 */
#include "kernels/ops.h"

#include "analyzer/util/error.h"
#include "microbench/hash.h"

#include <cmath>
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define GEMV_BLOCK 256
#define GEMV_ROWS_PER_BLOCK (GEMV_BLOCK / 32)

namespace {

__device__ __forceinline__ float dot16(uint4 w, uint4 x, const float *)
{
    return __uint_as_float(w.x) * __uint_as_float(x.x) + __uint_as_float(w.y) * __uint_as_float(x.y) +
           __uint_as_float(w.z) * __uint_as_float(x.z) + __uint_as_float(w.w) * __uint_as_float(x.w);
}

__device__ __forceinline__ float dot16(uint4 w, uint4 x, const __half *)
{
    const __half2 *a = reinterpret_cast<const __half2 *>(&w), *b = reinterpret_cast<const __half2 *>(&x);
    float s = 0;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 fa = __half22float2(a[i]), fb = __half22float2(b[i]);
        s += fa.x * fb.x + fa.y * fb.y;
    }
    return s;
}

__device__ __forceinline__ float dot16(uint4 w, uint4 x, const __nv_bfloat16 *)
{
    const __nv_bfloat162 *a = reinterpret_cast<const __nv_bfloat162 *>(&w);
    const __nv_bfloat162 *b = reinterpret_cast<const __nv_bfloat162 *>(&x);
    float s = 0;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 fa = __bfloat1622float2(a[i]), fb = __bfloat1622float2(b[i]);
        s += fa.x * fb.x + fa.y * fb.y;
    }
    return s;
}

template <typename T> __device__ __forceinline__ T from_float(float f);
template <> __device__ __forceinline__ float from_float<float>(float f) { return f; }
template <> __device__ __forceinline__ __half from_float<__half>(float f) { return __float2half_rn(f); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float f)
{
    return __float2bfloat16_rn(f);
}

/* One warp per row; each lane walks the row in 16-byte vectors, 4 in
 * flight (streaming loads: W is read once); x comes through L1/L2. */
template <typename T>
__global__ void __launch_bounds__(GEMV_BLOCK)
    gemv_kernel(const T *__restrict__ w, const T *__restrict__ x, T *__restrict__ y, int64_t m,
                int64_t k)
{
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * GEMV_ROWS_PER_BLOCK + threadIdx.x / 32;
    if (row >= m)
        return;
    const int64_t nvec = k * (int64_t)sizeof(T) / 16;
    const uint4 *wr = reinterpret_cast<const uint4 *>(w + row * k);
    const uint4 *xv = reinterpret_cast<const uint4 *>(x);
    float acc = 0;
    int64_t i = lane;
#pragma unroll 1
    for (; i + 96 < nvec; i += 128) {
        const uint4 w0 = __ldcs(wr + i), w1 = __ldcs(wr + i + 32);
        const uint4 w2 = __ldcs(wr + i + 64), w3 = __ldcs(wr + i + 96);
        acc += dot16(w0, xv[i], (const T *)nullptr) + dot16(w1, xv[i + 32], (const T *)nullptr) +
               dot16(w2, xv[i + 64], (const T *)nullptr) + dot16(w3, xv[i + 96], (const T *)nullptr);
    }
#pragma unroll 1
    for (; i < nvec; i += 32)
        acc += dot16(__ldcs(wr + i), xv[i], (const T *)nullptr);
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0)
        y[row] = from_float<T>(acc);
}

cudaDataType_t cuda_type(enum rl_dtype t)
{
    return t == RL_DT_F32 ? CUDA_R_32F : t == RL_DT_F16 ? CUDA_R_16F : CUDA_R_16BF;
}

} // namespace

extern "C" int rl_gemv(const struct rl_tensor *w, const struct rl_tensor *x, struct rl_tensor *y,
                       int64_t m, int64_t k, cudaStream_t s, char *errmsg)
{
    if ((k * (int64_t)rl_dtype_bytes(w->t)) % 16 != 0)
        return rl_fail(errmsg, RL_EINVAL, "GEMV: K = %lld is not a whole number of 16-byte vectors",
                       (long long)k);
    const unsigned grid = (unsigned)((m + GEMV_ROWS_PER_BLOCK - 1) / GEMV_ROWS_PER_BLOCK);
    RL_FLOAT_DISPATCH(w->t, errmsg, "GEMV",
                      gemv_kernel<T><<<grid, GEMV_BLOCK, 0, s>>>((const T *)w->d, (const T *)x->d,
                                                                 (T *)y->d, m, k))
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? RL_OK
                            : rl_fail(errmsg, RL_ECUDA, "GEMV launch: %s", cudaGetErrorString(e));
}

extern "C" int rl_gemv_cublas(void *handle, const struct rl_tensor *w, const struct rl_tensor *x,
                              struct rl_tensor *y, int64_t m, int64_t k, char *errmsg)
{
    const float one = 1, zero = 0;
    const cudaDataType_t t = cuda_type(w->t);
    /* W row-major [m][k] is column-major k x m: op T gives m x k. */
    cublasStatus_t st = cublasGemmEx((cublasHandle_t)handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)m, 1,
                                     (int)k, &one, w->d, t, (int)k, x->d, t, (int)k, &zero, y->d,
                                     t, (int)m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return st == CUBLAS_STATUS_SUCCESS
               ? RL_OK
               : rl_fail(errmsg, RL_ECUDA, "cublasGemmEx (GEMV): %s", cublasGetStatusString(st));
}


extern "C" int rl_gemv_check(const struct rl_tensor *w, const struct rl_tensor *x,
                             const struct rl_tensor *y, int64_t m, int64_t k, double *worst,
                             char *why, char *errmsg)
{
    double *row = new double[k], *xv = new double[k];
    int rc = rl_tensor_read(x, 0, (size_t)k, 1, xv, errmsg);
    const double tol = w->t == RL_DT_F32 ? 1e-5 : w->t == RL_DT_F16 ? 5e-3 : 2e-2;
    *worst = 0;
    for (int s = 0; s < 32 && rc == RL_OK; s++) {
        const int64_t r = s == 0 ? 0 : s == 1 ? m - 1 : rl_mb_hash((uint32_t)s * 7919u) % m;
        double got, ref = 0, rss = 0, err;
        if ((rc = rl_tensor_read(w, (size_t)(r * k), (size_t)k, 1, row, errmsg)) ||
            (rc = rl_tensor_read(y, (size_t)r, 1, 1, &got, errmsg)))
            break;
        for (int64_t i = 0; i < k; i++) {
            ref += row[i] * xv[i];
            rss += row[i] * xv[i] * row[i] * xv[i];
        }
        /* Output rounding to the element type is relative to |y| itself. */
        double scale = sqrt(rss) + fabs(ref) + 1e-30;
        if (rl_check_close("GEMV", &got, &ref, &scale, 1, tol, &err, why) != 0) {
            snprintf(why, 160, "GEMV row %lld: %.6g, host %.6g", (long long)r, got, ref);
            rc = -1;
        }
        *worst = err > *worst ? err : *worst;
    }
    delete[] row;
    delete[] xv;
    return rc;
}
