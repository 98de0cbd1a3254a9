/* memory.cu - bandwidth kernels: HBM streams, a cache working-set sweep, shared-memory loads.
 *
 * Every access is a 16-byte vector. Stream kernels keep STREAM_UNROLL
 * independent accesses in flight per thread (grid-stride, the tail handled
 * by a second loop) and use streaming hints (ld/st .cs) so the 50 MB L2 is
 * not polluted; they see each byte once, so bytes = (reads + writes) x n x 16.
 * Data comes from rl_mb_word() (hash.h), which the host recomputes to check.
 */
#include "microbench/geometry.h"
#include "microbench/hash.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

static_assert(STREAM_UNROLL == 4 && SMEM_PER_ITER == 12, "microbench/bench.c counts these");

__device__ __forceinline__ uint4 rl_vec_word(size_t i, uint32_t seed)
{
    return make_uint4(rl_mb_word(4 * (uint64_t)i, seed), rl_mb_word(4 * (uint64_t)i + 1, seed),
                      rl_mb_word(4 * (uint64_t)i + 2, seed), rl_mb_word(4 * (uint64_t)i + 3, seed));
}

__device__ __forceinline__ uint32_t rl_vec_sum(uint4 v) { return v.x + v.y + v.z + v.w; }

/* Fill n vectors: mode 0, rl_mb_cheap_word() of the word index (sums have
 * a closed form); mode 1, floats in [0.5, 1) from rl_mb_word(). */
extern "C" __global__ void rl_mb_fill(uint4 *a, size_t n, uint32_t seed, int mode)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v;
        if (mode == 1) {
            const uint4 h = rl_vec_word(i, seed);
            v = make_uint4(__float_as_uint(rl_mb_unit_float(h.x)),
                           __float_as_uint(rl_mb_unit_float(h.y)),
                           __float_as_uint(rl_mb_unit_float(h.z)),
                           __float_as_uint(rl_mb_unit_float(h.w)));
        } else {
            const uint32_t w = 4 * (uint32_t)i;
            v = make_uint4(rl_mb_cheap_word(w, seed), rl_mb_cheap_word(w + 1, seed),
                           rl_mb_cheap_word(w + 2, seed), rl_mb_cheap_word(w + 3, seed));
        }
        a[i] = v;
    }
}

/* Sum (mod 2^32) of every word read, one partial per thread. */
extern "C" __global__ void __launch_bounds__(STREAM_BLOCK)
    rl_mb_stream_read(const uint4 *a, size_t n, uint32_t *partial)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t s = 0;
#pragma unroll 1
    for (; i + 3 * stride < n; i += 4 * stride) {
        const uint4 v0 = __ldcs(a + i), v1 = __ldcs(a + i + stride);
        const uint4 v2 = __ldcs(a + i + 2 * stride), v3 = __ldcs(a + i + 3 * stride);
        s += rl_vec_sum(v0) + rl_vec_sum(v1) + rl_vec_sum(v2) + rl_vec_sum(v3);
    }
#pragma unroll 1
    for (; i < n; i += stride)
        s += rl_vec_sum(__ldcs(a + i));
    partial[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* a[i] = rl_mb_cheap_word(): one multiply-add per word, so the kernel
 * stays bound by the stores; nothing is read. */
__device__ __forceinline__ uint4 rl_cheap_vec(size_t i, uint32_t seed)
{
    const uint32_t w = 4 * (uint32_t)i;
    return make_uint4(rl_mb_cheap_word(w, seed), rl_mb_cheap_word(w + 1, seed),
                      rl_mb_cheap_word(w + 2, seed), rl_mb_cheap_word(w + 3, seed));
}

extern "C" __global__ void __launch_bounds__(STREAM_BLOCK)
    rl_mb_stream_write(uint4 *a, size_t n, uint32_t seed)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
    for (; i + 3 * stride < n; i += 4 * stride) {
        __stcs(a + i, rl_cheap_vec(i, seed));
        __stcs(a + i + stride, rl_cheap_vec(i + stride, seed));
        __stcs(a + i + 2 * stride, rl_cheap_vec(i + 2 * stride, seed));
        __stcs(a + i + 3 * stride, rl_cheap_vec(i + 3 * stride, seed));
    }
#pragma unroll 1
    for (; i < n; i += stride)
        __stcs(a + i, rl_cheap_vec(i, seed));
}

extern "C" __global__ void __launch_bounds__(STREAM_BLOCK)
    rl_mb_stream_copy(const uint4 *a, uint4 *b, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
    for (; i + 3 * stride < n; i += 4 * stride) {
        const uint4 v0 = __ldcs(a + i), v1 = __ldcs(a + i + stride);
        const uint4 v2 = __ldcs(a + i + 2 * stride), v3 = __ldcs(a + i + 3 * stride);
        __stcs(b + i, v0);
        __stcs(b + i + stride, v1);
        __stcs(b + i + 2 * stride, v2);
        __stcs(b + i + 3 * stride, v3);
    }
#pragma unroll 1
    for (; i < n; i += stride)
        __stcs(b + i, __ldcs(a + i));
}

__device__ __forceinline__ float4 rl_triad4(float4 b, float4 c, float s)
{
    return make_float4(__fmaf_rn(s, c.x, b.x), __fmaf_rn(s, c.y, b.y), __fmaf_rn(s, c.z, b.z),
                       __fmaf_rn(s, c.w, b.w));
}

/* a[i] = b[i] + s c[i] (one rounding: fmaf, which the host repeats). */
extern "C" __global__ void __launch_bounds__(STREAM_BLOCK)
    rl_mb_stream_triad(float4 *a, const float4 *b, const float4 *c, float s, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float4 b0 = __ldcs(b + i), b1 = __ldcs(b + i + stride);
        const float4 b2 = __ldcs(b + i + 2 * stride), b3 = __ldcs(b + i + 3 * stride);
        const float4 c0 = __ldcs(c + i), c1 = __ldcs(c + i + stride);
        const float4 c2 = __ldcs(c + i + 2 * stride), c3 = __ldcs(c + i + 3 * stride);
        __stcs(a + i, rl_triad4(b0, c0, s));
        __stcs(a + i + stride, rl_triad4(b1, c1, s));
        __stcs(a + i + 2 * stride, rl_triad4(b2, c2, s));
        __stcs(a + i + 3 * stride, rl_triad4(b3, c3, s));
    }
#pragma unroll 1
    for (; i < n; i += stride)
        __stcs(a + i, rl_triad4(__ldcs(b + i), __ldcs(c + i), s));
}

/* Cache sweep: the working set is n_slices slices of slice_vecs vectors.
 * In pass p, block b reads slice (b + p) mod n_slices with default caching
 * (L1 and L2), 4 loads in flight. Over the passes every SM touches the whole
 * working set: it stays in L1 only if it fits one SM's L1, in L2 if it
 * fits L2. Bytes = gridDim x passes x slice_vecs x 16. */
/* A plain load (cached in L1 and L2 by default); the slice changes with the
 * pass, so loads cannot be hoisted across passes. */
__device__ __forceinline__ uint4 rl_ld_ca(const uint4 *p) { return *p; }

extern "C" __global__ void __launch_bounds__(STREAM_BLOCK)
    rl_mb_cache_read(const uint4 *a, size_t slice_vecs, int n_slices, int passes,
                     uint32_t *partial)
{
    uint32_t s = 0;
#pragma unroll 1
    for (int p = 0; p < passes; p++) {
        const uint4 *mine = a + (size_t)((blockIdx.x + p) % n_slices) * slice_vecs;
        size_t i = threadIdx.x;
#pragma unroll 1
        for (; i + 3 * STREAM_BLOCK < slice_vecs; i += 4 * STREAM_BLOCK) {
            const uint4 v0 = rl_ld_ca(mine + i), v1 = rl_ld_ca(mine + i + STREAM_BLOCK);
            const uint4 v2 = rl_ld_ca(mine + i + 2 * STREAM_BLOCK);
            const uint4 v3 = rl_ld_ca(mine + i + 3 * STREAM_BLOCK);
            s += rl_vec_sum(v0) + rl_vec_sum(v1) + rl_vec_sum(v2) + rl_vec_sum(v3);
        }
#pragma unroll 1
        for (; i < slice_vecs; i += STREAM_BLOCK)
            s += rl_vec_sum(rl_ld_ca(mine + i));
    }
    partial[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* Shared memory: each thread loads SMEM_PER_ITER 16-byte vectors per pass,
 * consecutive threads at consecutive addresses (no bank conflicts), through
 * volatile asm so that no pass is hoisted. Bytes = blocks x passes x
 * SMEM_VECS x 16. The sum of words is checked against the host. */
extern "C" __global__ void __launch_bounds__(SMEM_BLOCK)
    rl_mb_smem_read(uint32_t *partial, int passes, uint32_t seed)
{
    __shared__ uint4 buf[SMEM_VECS];
    for (int i = threadIdx.x; i < SMEM_VECS; i += SMEM_BLOCK)
        buf[i] = rl_vec_word((size_t)i, seed);
    __syncthreads();
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(buf + threadIdx.x);
    uint32_t s = 0;
#pragma unroll 1
    for (int p = 0; p < passes; p++) {
#pragma unroll
        for (int k = 0; k < SMEM_PER_ITER; k++) {
            uint4 v;
            asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                         : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                         : "r"(base + k * SMEM_BLOCK * 16));
            s += rl_vec_sum(v);
        }
    }
    partial[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static const struct {
    const char *name;
    const void *fn;
} memory_kernels[] = {
    {"rl_mb_fill", (const void *)rl_mb_fill},
    {"rl_mb_stream_read", (const void *)rl_mb_stream_read},
    {"rl_mb_stream_write", (const void *)rl_mb_stream_write},
    {"rl_mb_stream_copy", (const void *)rl_mb_stream_copy},
    {"rl_mb_stream_triad", (const void *)rl_mb_stream_triad},
    {"rl_mb_cache_read", (const void *)rl_mb_cache_read},
    {"rl_mb_smem_read", (const void *)rl_mb_smem_read},
};

extern "C" const void *rl_mb_memory_kernel(const char *name)
{
    for (const auto &k : memory_kernels)
        if (strcmp(k.name, name) == 0)
            return k.fn;
    return nullptr;
}
