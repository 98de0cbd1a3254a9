/* sweep.cu - arithmetic-intensity sweep: K FMAs on every element read and written back.
 *
 * rl_mb_sweep_<type>_k<K>(a, n, alpha, beta): for each 16-byte vector of a
 * (grid-stride), load it, apply x = fma(x, alpha, beta) K times to each of
 * its lanes, store it back in place. Per vector: 16 bytes read + 16 written;
 * FLOPs = lanes x 2K, where lanes = 4 (fp32), 2 (fp64), 8 (fp16, bf16:
 * 4 paired FMAs of 2 lanes each). Intensity = FLOPs / 32 bytes:
 * fp32 K/4, fp64 K/8, fp16 and bf16 K/2 FLOP/byte.
 */
#include "microbench/hash.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define SWEEP_BLOCK 256

template <int K, typename T, typename F>
__device__ __forceinline__ void rl_sweep_lanes(T *x, int lanes, T alpha, T beta, F fma_op)
{
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int l = 0; l < 4; l++)
            if (l < lanes)
                x[l] = fma_op(x[l], alpha, beta);
}

struct rl_fma_f32 {
    __device__ float operator()(float x, float a, float b) const { return __fmaf_rn(x, a, b); }
};
struct rl_fma_f64 {
    __device__ double operator()(double x, double a, double b) const { return __fma_rn(x, a, b); }
};
struct rl_fma_h2 {
    __device__ __half2 operator()(__half2 x, __half2 a, __half2 b) const { return __hfma2(x, a, b); }
};
struct rl_fma_b2 {
    __device__ __nv_bfloat162 operator()(__nv_bfloat162 x, __nv_bfloat162 a,
                                         __nv_bfloat162 b) const
    {
        return __hfma2(x, a, b);
    }
};

/* One element type: T lanes per 16-byte vector (4 float, 2 double,
 * 4 half2, 4 bfloat162). */
template <int K, typename T, int LANES, typename F>
__device__ __forceinline__ void rl_sweep(uint4 *a, size_t n, T alpha, T beta)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 1
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v = a[i];
        T x[4];
        memcpy(x, &v, sizeof v);
        rl_sweep_lanes<K>(x, LANES, alpha, beta, F());
        memcpy(&v, x, sizeof v);
        a[i] = v;
    }
}

#define RL_SWEEP_TYPE(tname, T, LANES, F, K)                                     \
    extern "C" __global__ void __launch_bounds__(SWEEP_BLOCK)                    \
        rl_mb_sweep_##tname##_k##K(uint4 *a, size_t n, T alpha, T beta)          \
    {                                                                            \
        rl_sweep<K, T, LANES, F>(a, n, alpha, beta);                             \
    }

#define RL_SWEEP_K(K)                                                            \
    RL_SWEEP_TYPE(f32, float, 4, rl_fma_f32, K)                                  \
    RL_SWEEP_TYPE(f64, double, 2, rl_fma_f64, K)                                 \
    RL_SWEEP_TYPE(f16, __half2, 4, rl_fma_h2, K)                                 \
    RL_SWEEP_TYPE(bf16, __nv_bfloat162, 4, rl_fma_b2, K)

RL_SWEEP_K(1)
RL_SWEEP_K(2)
RL_SWEEP_K(4)
RL_SWEEP_K(8)
RL_SWEEP_K(16)
RL_SWEEP_K(32)
RL_SWEEP_K(64)
RL_SWEEP_K(128)
RL_SWEEP_K(256)
RL_SWEEP_K(512)
RL_SWEEP_K(1024)

/* Fill: every lane a value in [0.5, 1) from rl_mb_word(word, seed); type 0
 * float (word 4i+l), 1 double (from word 4i+2l), 2 half2 and 3 bfloat162
 * (word 4i+c holds lanes lo = f(h), hi = f(rl_mb_hash(h))). sweep.c's host
 * check rebuilds the same values. */
extern "C" __global__ void rl_mb_sweep_fill(uint4 *a, size_t n, uint32_t seed, int type)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t w[4];
        for (int c = 0; c < 4; c++) {
            const uint32_t h = rl_mb_word(4 * (uint64_t)i + (uint64_t)c, seed);
            const float lo = rl_mb_unit_float(h), hi = rl_mb_unit_float(rl_mb_hash(h));
            if (type == 2) {
                const __half2 v = __halves2half2(__float2half_rn(lo), __float2half_rn(hi));
                memcpy(&w[c], &v, 4);
            } else if (type == 3) {
                const __nv_bfloat162 v =
                    __halves2bfloat162(__float2bfloat16_rn(lo), __float2bfloat16_rn(hi));
                memcpy(&w[c], &v, 4);
            } else {
                w[c] = __float_as_uint(lo);
            }
        }
        uint4 v = make_uint4(w[0], w[1], w[2], w[3]);
        if (type == 1) {
            const double d0 = __uint_as_float(w[0]), d1 = __uint_as_float(w[2]);
            const unsigned long long b0 = __double_as_longlong(d0), b1 = __double_as_longlong(d1);
            v = make_uint4((uint32_t)b0, (uint32_t)(b0 >> 32), (uint32_t)b1, (uint32_t)(b1 >> 32));
        }
        a[i] = v;
    }
}

#define RL_SWEEP_ENTRY(K)                                                        \
    {"rl_mb_sweep_f32_k" #K, (const void *)rl_mb_sweep_f32_k##K},                \
        {"rl_mb_sweep_f64_k" #K, (const void *)rl_mb_sweep_f64_k##K},            \
        {"rl_mb_sweep_f16_k" #K, (const void *)rl_mb_sweep_f16_k##K},            \
        {"rl_mb_sweep_bf16_k" #K, (const void *)rl_mb_sweep_bf16_k##K},

static const struct {
    const char *name;
    const void *fn;
} sweep_kernels[] = {
    {"rl_mb_sweep_fill", (const void *)rl_mb_sweep_fill},
    RL_SWEEP_ENTRY(1) RL_SWEEP_ENTRY(2) RL_SWEEP_ENTRY(4) RL_SWEEP_ENTRY(8)
    RL_SWEEP_ENTRY(16) RL_SWEEP_ENTRY(32) RL_SWEEP_ENTRY(64) RL_SWEEP_ENTRY(128)
    RL_SWEEP_ENTRY(256) RL_SWEEP_ENTRY(512) RL_SWEEP_ENTRY(1024)
};

extern "C" const void *rl_mb_sweep_kernel(const char *name)
{
    for (const auto &k : sweep_kernels)
        if (strcmp(k.name, name) == 0)
            return k.fn;
    return nullptr;
}
