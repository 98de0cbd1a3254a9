/* compute.cu - peak-FLOP/s kernels: FMA chains on CUDA cores, mma.sync and wgmma on Tensor Cores.
 *
 * Every kernel has the same signature, (out, in, iters):
 *   out  per-thread state: read at start (chains / accumulators C0), written
 *        at the end (so the work cannot be deleted, and is checked);
 *   in   operands: FMA constants {a, b}, mma.sync fragments per lane, or the
 *        wgmma A and B tiles copied to shared memory;
 *   iters loop iterations; one iteration issues the catalog's per_iter
 *        instructions (microbench/bench.c), which the SASS test checks.
 * Loops carry `#pragma unroll 1` so each iteration is exactly the counted
 * body. Kernels for an instruction an architecture lacks compile to an
 * empty body there and are never launched on it (rl_mb_select()).
 */
#include "microbench/geometry.h"
#include "microbench/wgmma-ops.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RL_HAVE_WGMMA 1
#else
#define RL_HAVE_WGMMA 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 890
#define RL_HAVE_MMA_FP8 1
#else
#define RL_HAVE_MMA_FP8 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RL_HAVE_DMMA_16816 1
#else
#define RL_HAVE_DMMA_16816 0
#endif

static_assert(FMA_PER_ITER == 128 && MMA_PER_ITER == 16 && WG_PER_ITER == 8,
              "microbench/bench.c counts these");

/* ---- FMA chains ------------------------------------------------------ */

#define RL_FMA_KERNEL(name, T, FMA)                                              \
    extern "C" __global__ void __launch_bounds__(FMA_BLOCK)                      \
        name(T *out, const T *in, long long iters)                               \
    {                                                                            \
        const T a = in[0], b = in[1];                                            \
        const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;          \
        T x[FMA_CHAINS];                                                         \
        _Pragma("unroll") for (int c = 0; c < FMA_CHAINS; c++) x[c] =            \
            out[t * FMA_CHAINS + c];                                             \
        _Pragma("unroll 1") for (long long i = 0; i < iters; i++)                \
        {                                                                        \
            _Pragma("unroll") for (int u = 0; u < FMA_UNROLL; u++)               \
                _Pragma("unroll") for (int c = 0; c < FMA_CHAINS; c++) x[c] =    \
                    FMA(x[c], a, b);                                             \
        }                                                                        \
        _Pragma("unroll") for (int c = 0; c < FMA_CHAINS; c++)                   \
            out[t * FMA_CHAINS + c] = x[c];                                      \
    }

RL_FMA_KERNEL(rl_mb_fma_f64, double, fma)
RL_FMA_KERNEL(rl_mb_fma_f32, float, fmaf)
RL_FMA_KERNEL(rl_mb_fma_f16x2, __half2, __hfma2)
RL_FMA_KERNEL(rl_mb_fma_bf16x2, __nv_bfloat162, __hfma2)

/* ---- mma.sync -------------------------------------------------------- */

/* Per lane, `in` holds 6 32-bit registers: A fragment a0..a3, B fragment
 * b0, b1 (layouts per the PTX ISA; the check does not depend on them). */
#define RL_MMA_PROLOGUE(ACC_T, N_REGS)                                           \
    const int lane = threadIdx.x & 31;                                           \
    const uint32_t *f = in + lane * 6;                                           \
    const uint32_t a0 = f[0], a1 = f[1], a2 = f[2], a3 = f[3], b0 = f[4],        \
                   b1 = f[5];                                                    \
    const size_t o = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) *           \
                     (MMA_ACC * N_REGS);                                         \
    ACC_T acc[MMA_ACC][N_REGS];                                                  \
    _Pragma("unroll") for (int k = 0; k < MMA_ACC; k++)                          \
        _Pragma("unroll") for (int r = 0; r < N_REGS; r++) acc[k][r] =           \
            out[o + k * N_REGS + r];

#define RL_MMA_LOOP(STEP)                                                        \
    _Pragma("unroll 1") for (long long i = 0; i < iters; i++)                    \
    {                                                                            \
        _Pragma("unroll") for (int u = 0; u < MMA_UNROLL; u++)                   \
            _Pragma("unroll") for (int k = 0; k < MMA_ACC; k++) { STEP }         \
    }

#define RL_MMA_EPILOGUE(N_REGS)                                                  \
    _Pragma("unroll") for (int k = 0; k < MMA_ACC; k++)                          \
        _Pragma("unroll") for (int r = 0; r < N_REGS; r++)                       \
            out[o + k * N_REGS + r] = acc[k][r];

/* FP32 accumulators, A 4 regs, B 2 regs: m16n8k16 f16/bf16, m16n8k8 tf32,
 * m16n8k32 fp8. */
#define RL_MMA_F32_KERNEL(name, GUARD, INSTR)                                    \
    extern "C" __global__ void __launch_bounds__(MMA_BLOCK)                      \
        name(float *out, const uint32_t *in, long long iters)                    \
    {                                                                            \
        if (GUARD) {                                                             \
            RL_MMA_PROLOGUE(float, 4)                                            \
            RL_MMA_LOOP(asm volatile(INSTR " {%0,%1,%2,%3}, {%4,%5,%6,%7}, "      \
                                           "{%8,%9}, {%0,%1,%2,%3};\n"           \
                                     : "+f"(acc[k][0]), "+f"(acc[k][1]),         \
                                       "+f"(acc[k][2]), "+f"(acc[k][3])          \
                                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3),       \
                                       "r"(b0), "r"(b1));)                       \
            RL_MMA_EPILOGUE(4)                                                   \
        }                                                                        \
    }

#if defined(__CUDA_ARCH__)
#define RL_ARCH_GE_80 (__CUDA_ARCH__ >= 800)
#else
#define RL_ARCH_GE_80 1
#endif

/* The guards are constant: ptxas drops the other branch. Instructions an
 * architecture cannot assemble sit behind the preprocessor instead. */
RL_MMA_F32_KERNEL(rl_mb_mma_f16_16816, RL_ARCH_GE_80,
                  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
RL_MMA_F32_KERNEL(rl_mb_mma_bf16_16816, RL_ARCH_GE_80,
                  "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
RL_MMA_F32_KERNEL(rl_mb_mma_tf32_1688, RL_ARCH_GE_80,
                  "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")

#if RL_HAVE_MMA_FP8 || !defined(__CUDA_ARCH__)
RL_MMA_F32_KERNEL(rl_mb_mma_e4m3_16832, 1, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")
RL_MMA_F32_KERNEL(rl_mb_mma_e5m2_16832, 1, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32")
#else
extern "C" __global__ void rl_mb_mma_e4m3_16832(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_e5m2_16832(float *, const uint32_t *, long long) {}
#endif

/* sm_120a (RTX 50 / RTX PRO Blackwell): warp-level FP8 through the new
 * kind::f8f6f4 form (PTX ISA mma.sync ".kind::f8f6f4", m16n8k32; same
 * register fragments as sm_89's FP8 mma). ptxas 13.0: QMMA.16832.F32.E4M3.E4M3. */
#if defined(__CUDA_ARCH_FEAT_SM120_ALL) || !defined(__CUDA_ARCH__)
RL_MMA_F32_KERNEL(rl_mb_mma_e4m3_f8f6f4, 1,
                  "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32")
RL_MMA_F32_KERNEL(rl_mb_mma_e5m2_f8f6f4, 1,
                  "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32")
/* FP6 and FP4 through the same form: one element per byte of the fragment
 * registers, E2M1 in bits 5-2, E2M3 / E3M2 in bits 5-0 (PTX ISA 9.7.14.5.14;
 * runner.c fills them so). ptxas 13.0: QMMA.16832.F32.E2M3.E2M3 etc. */
RL_MMA_F32_KERNEL(rl_mb_mma_e2m3_f8f6f4, 1,
                  "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32")
RL_MMA_F32_KERNEL(rl_mb_mma_e3m2_f8f6f4, 1,
                  "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32")
RL_MMA_F32_KERNEL(rl_mb_mma_e2m1_f8f6f4, 1,
                  "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32")
#else
extern "C" __global__ void rl_mb_mma_e4m3_f8f6f4(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_e5m2_f8f6f4(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_e2m3_f8f6f4(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_e3m2_f8f6f4(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_e2m1_f8f6f4(float *, const uint32_t *, long long) {}
#endif

/* sm_120a block scaling (PTX ISA 9.7.14.5.14 "with block scaling",
 * 9.7.14.3): the scale-a / scale-b registers hold four scale bytes, all
 * 1.0 here, so the selectors {byte-id, thread-id} = {0, 0} pick a 1.0
 * whatever the layout. mxf4 / mxf4nvf4 are m16n8k64 with FP4 packed two
 * per byte in the same 4 + 2 fragment registers; mxf8f6f4 is m16n8k32.
 * ptxas 13.0: OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X, OMMA.SF.16864.F32.
 * E2M1.E2M1.E8, QMMA.SF.16832.F32.E4M3.E4M3.E8. */
#define RL_MMA_BS_KERNEL(name, INSTR, SF)                                        \
    extern "C" __global__ void __launch_bounds__(MMA_BLOCK)                      \
        name(float *out, const uint32_t *in, long long iters)                    \
    {                                                                            \
        const uint32_t sf = (SF);                                                \
        RL_MMA_PROLOGUE(float, 4)                                                \
        RL_MMA_LOOP(asm volatile(INSTR " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "   \
                                       "{%0,%1,%2,%3}, %10, {0, 0}, %10, {0, 0};\n" \
                                 : "+f"(acc[k][0]), "+f"(acc[k][1]), "+f"(acc[k][2]), \
                                   "+f"(acc[k][3])                               \
                                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0),   \
                                   "r"(b1), "r"(sf));)                           \
        RL_MMA_EPILOGUE(4)                                                       \
    }
#if defined(__CUDA_ARCH_FEAT_SM120_ALL) || !defined(__CUDA_ARCH__)
RL_MMA_BS_KERNEL(rl_mb_mma_nvf4_16864,
                 "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X."
                 "f32.e2m1.e2m1.f32.ue4m3",
                 SF_UE4M3_ONES)
RL_MMA_BS_KERNEL(rl_mb_mma_mxf4_16864,
                 "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X."
                 "f32.e2m1.e2m1.f32.ue8m0",
                 SF_UE8M0_ONES)
RL_MMA_BS_KERNEL(rl_mb_mma_mxf8_e4m3_16832,
                 "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X."
                 "f32.e4m3.e4m3.f32.ue8m0",
                 SF_UE8M0_ONES)
RL_MMA_BS_KERNEL(rl_mb_mma_mxf6_e2m3_16832,
                 "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X."
                 "f32.e2m3.e2m3.f32.ue8m0",
                 SF_UE8M0_ONES)
#else
extern "C" __global__ void rl_mb_mma_nvf4_16864(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_mxf4_16864(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_mxf8_e4m3_16832(float *, const uint32_t *, long long) {}
extern "C" __global__ void rl_mb_mma_mxf6_e2m3_16832(float *, const uint32_t *, long long) {}
#endif

/* INT32 accumulators: m16n8k32 s8. */
extern "C" __global__ void __launch_bounds__(MMA_BLOCK)
    rl_mb_mma_s8_16832(int32_t *out, const uint32_t *in, long long iters)
{
    RL_MMA_PROLOGUE(int32_t, 4)
    RL_MMA_LOOP(asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                             "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+r"(acc[k][0]), "+r"(acc[k][1]), "+r"(acc[k][2]),
                               "+r"(acc[k][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));)
    RL_MMA_EPILOGUE(4)
}

/* FP16 accumulators: two half2 registers. */
extern "C" __global__ void __launch_bounds__(MMA_BLOCK)
    rl_mb_mma_f16acc16_16816(uint32_t *out, const uint32_t *in, long long iters)
{
    RL_MMA_PROLOGUE(uint32_t, 2)
    RL_MMA_LOOP(asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, "
                             "{%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
                             : "+r"(acc[k][0]), "+r"(acc[k][1])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));)
    RL_MMA_EPILOGUE(2)
}

/* FP64: m8n8k4 (one A and one B double per lane, two accumulators). */
extern "C" __global__ void __launch_bounds__(MMA_BLOCK)
    rl_mb_mma_f64_884(double *out, const double *in, long long iters)
{
    const int lane = threadIdx.x & 31;
    const double a = in[lane * 2], b = in[lane * 2 + 1];
    const size_t o = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * (MMA_ACC * 2);
    double acc[MMA_ACC][2];
#pragma unroll
    for (int k = 0; k < MMA_ACC; k++) {
        acc[k][0] = out[o + k * 2];
        acc[k][1] = out[o + k * 2 + 1];
    }
    RL_MMA_LOOP(asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, "
                             "{%3}, {%0,%1};\n"
                             : "+d"(acc[k][0]), "+d"(acc[k][1])
                             : "d"(a), "d"(b));)
    RL_MMA_EPILOGUE(2)
}

/* FP64: m16n8k16 (sm_90: 8 A and 4 B doubles per lane, 4 accumulators). */
extern "C" __global__ void __launch_bounds__(MMA_BLOCK)
    rl_mb_mma_f64_16816(double *out, const double *in, long long iters)
{
#if RL_HAVE_DMMA_16816
    const int lane = threadIdx.x & 31;
    const double *f = in + lane * 12;
    double a[8], b[4];
#pragma unroll
    for (int r = 0; r < 8; r++)
        a[r] = f[r];
#pragma unroll
    for (int r = 0; r < 4; r++)
        b[r] = f[8 + r];
    const size_t o = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * (MMA_ACC * 4);
    double acc[MMA_ACC][4];
#pragma unroll
    for (int k = 0; k < MMA_ACC; k++)
#pragma unroll
        for (int r = 0; r < 4; r++)
            acc[k][r] = out[o + k * 4 + r];
    RL_MMA_LOOP(asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                             "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
                             "{%0,%1,%2,%3};\n"
                             : "+d"(acc[k][0]), "+d"(acc[k][1]), "+d"(acc[k][2]),
                               "+d"(acc[k][3])
                             : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]),
                               "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
                               "d"(b[2]), "d"(b[3]));)
    RL_MMA_EPILOGUE(4)
#else
    (void)out;
    (void)in;
    (void)iters;
#endif
}

/* ---- wgmma (sm_90a) --------------------------------------------------- */

/* Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
 * start address >> 4 in bits 0-13, leading-dimension byte offset >> 4 in
 * 16-29, stride-dimension byte offset >> 4 in 32-45, no swizzle. The tiles
 * are 8-row x 16-byte core matrices stored back to back: 128 bytes between
 * neighbours along K, 256 along M/N, so every address stays inside the
 * tile whichever way the unit walks them. */
__device__ __forceinline__ uint64_t rl_wg_desc(uint32_t smem_addr)
{
    return (uint64_t)((smem_addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
           ((uint64_t)(256 >> 4) << 32);
}

#define RL_PF(x) "+f"(x)
#define RL_PR(x) "+r"(x)

/* N_ACC accumulator registers per thread; OPS lists them; INSTR is the
 * wgmma with operands D, %N (desc A), %N+1 (desc B), p (scale-d). */
#define RL_WGMMA_KERNEL(name, ACC_T, N_ACC, D_LIST, OPS, INSTR)                  \
    extern "C" __global__ void __launch_bounds__(WG_BLOCK)                       \
        name(ACC_T *out, const uint4 *in, long long iters)                       \
    {                                                                            \
        if (RL_HAVE_WGMMA) {                                                     \
            __shared__ __align__(128) uint4 tiles[WG_IN_BYTES / 16];             \
            for (int i = threadIdx.x; i < WG_IN_BYTES / 16; i += WG_BLOCK)       \
                tiles[i] = in[i];                                                \
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");       \
            __syncthreads();                                                     \
            const uint32_t base = (uint32_t)__cvta_generic_to_shared(tiles);     \
            const uint64_t da = rl_wg_desc(base), db = rl_wg_desc(base + WG_A_BYTES); \
            const size_t o = ((size_t)blockIdx.x * WG_BLOCK + threadIdx.x) * N_ACC; \
            ACC_T d[N_ACC];                                                      \
            _Pragma("unroll") for (int r = 0; r < N_ACC; r++) d[r] = out[o + r];  \
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");            \
            _Pragma("unroll 1") for (long long i = 0; i < iters; i++)            \
            {                                                                    \
                _Pragma("unroll") for (int u = 0; u < WG_UNROLL; u++)            \
                    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" INSTR \
                                 "\n}\n"                                         \
                                 : OPS                                           \
                                 : "l"(da), "l"(db));                            \
                asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); \
                asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); \
            }                                                                    \
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");     \
            _Pragma("unroll") for (int r = 0; r < N_ACC; r++) out[o + r] = d[r];  \
        }                                                                        \
    }

#define RL_WG_F32(shape_types, tail)                                             \
    "wgmma.mma_async.sync.aligned." shape_types " " RL_WG_D128 ", %128, %129, p" tail ";"

#if RL_HAVE_WGMMA || !defined(__CUDA_ARCH__)
RL_WGMMA_KERNEL(rl_mb_wgmma_f16, float, 128, RL_WG_D128, RL_WG_OPS128(d, RL_PF),
                RL_WG_F32("m64n256k16.f32.f16.f16", ", 1, 1, 0, 0"))
RL_WGMMA_KERNEL(rl_mb_wgmma_bf16, float, 128, RL_WG_D128, RL_WG_OPS128(d, RL_PF),
                RL_WG_F32("m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0"))
RL_WGMMA_KERNEL(rl_mb_wgmma_tf32, float, 128, RL_WG_D128, RL_WG_OPS128(d, RL_PF),
                RL_WG_F32("m64n256k8.f32.tf32.tf32", ", 1, 1"))
RL_WGMMA_KERNEL(rl_mb_wgmma_e4m3, float, 128, RL_WG_D128, RL_WG_OPS128(d, RL_PF),
                RL_WG_F32("m64n256k32.f32.e4m3.e4m3", ", 1, 1"))
RL_WGMMA_KERNEL(rl_mb_wgmma_e5m2, float, 128, RL_WG_D128, RL_WG_OPS128(d, RL_PF),
                RL_WG_F32("m64n256k32.f32.e5m2.e5m2", ", 1, 1"))
RL_WGMMA_KERNEL(rl_mb_wgmma_s8, int32_t, 128, RL_WG_D128, RL_WG_OPS128(d, RL_PR),
                RL_WG_F32("m64n256k32.s32.s8.s8", ""))
RL_WGMMA_KERNEL(rl_mb_wgmma_f16acc16, uint32_t, 64, RL_WG_D64, RL_WG_OPS64(d, RL_PR),
                "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 " RL_WG_D64
                ", %64, %65, p, 1, 1, 0, 0;")
#else
#define RL_WG_EMPTY(name, T)                                                     \
    extern "C" __global__ void name(T *, const uint4 *, long long) {}
RL_WG_EMPTY(rl_mb_wgmma_f16, float)
RL_WG_EMPTY(rl_mb_wgmma_bf16, float)
RL_WG_EMPTY(rl_mb_wgmma_tf32, float)
RL_WG_EMPTY(rl_mb_wgmma_e4m3, float)
RL_WG_EMPTY(rl_mb_wgmma_e5m2, float)
RL_WG_EMPTY(rl_mb_wgmma_s8, int32_t)
RL_WG_EMPTY(rl_mb_wgmma_f16acc16, uint32_t)
#endif

/* ---- lookup by name, for the C runner ---------------------------------- */

static const struct {
    const char *name;
    const void *fn;
} compute_kernels[] = {
    {"rl_mb_fma_f64", (const void *)rl_mb_fma_f64},
    {"rl_mb_fma_f32", (const void *)rl_mb_fma_f32},
    {"rl_mb_fma_f16x2", (const void *)rl_mb_fma_f16x2},
    {"rl_mb_fma_bf16x2", (const void *)rl_mb_fma_bf16x2},
    {"rl_mb_mma_f16_16816", (const void *)rl_mb_mma_f16_16816},
    {"rl_mb_mma_bf16_16816", (const void *)rl_mb_mma_bf16_16816},
    {"rl_mb_mma_tf32_1688", (const void *)rl_mb_mma_tf32_1688},
    {"rl_mb_mma_e4m3_16832", (const void *)rl_mb_mma_e4m3_16832},
    {"rl_mb_mma_e5m2_16832", (const void *)rl_mb_mma_e5m2_16832},
    {"rl_mb_mma_e4m3_f8f6f4", (const void *)rl_mb_mma_e4m3_f8f6f4},
    {"rl_mb_mma_e5m2_f8f6f4", (const void *)rl_mb_mma_e5m2_f8f6f4},
    {"rl_mb_mma_e2m3_f8f6f4", (const void *)rl_mb_mma_e2m3_f8f6f4},
    {"rl_mb_mma_e3m2_f8f6f4", (const void *)rl_mb_mma_e3m2_f8f6f4},
    {"rl_mb_mma_e2m1_f8f6f4", (const void *)rl_mb_mma_e2m1_f8f6f4},
    {"rl_mb_mma_nvf4_16864", (const void *)rl_mb_mma_nvf4_16864},
    {"rl_mb_mma_mxf4_16864", (const void *)rl_mb_mma_mxf4_16864},
    {"rl_mb_mma_mxf8_e4m3_16832", (const void *)rl_mb_mma_mxf8_e4m3_16832},
    {"rl_mb_mma_mxf6_e2m3_16832", (const void *)rl_mb_mma_mxf6_e2m3_16832},
    {"rl_mb_mma_s8_16832", (const void *)rl_mb_mma_s8_16832},
    {"rl_mb_mma_f16acc16_16816", (const void *)rl_mb_mma_f16acc16_16816},
    {"rl_mb_mma_f64_884", (const void *)rl_mb_mma_f64_884},
    {"rl_mb_mma_f64_16816", (const void *)rl_mb_mma_f64_16816},
    {"rl_mb_wgmma_f16", (const void *)rl_mb_wgmma_f16},
    {"rl_mb_wgmma_bf16", (const void *)rl_mb_wgmma_bf16},
    {"rl_mb_wgmma_tf32", (const void *)rl_mb_wgmma_tf32},
    {"rl_mb_wgmma_e4m3", (const void *)rl_mb_wgmma_e4m3},
    {"rl_mb_wgmma_e5m2", (const void *)rl_mb_wgmma_e5m2},
    {"rl_mb_wgmma_s8", (const void *)rl_mb_wgmma_s8},
    {"rl_mb_wgmma_f16acc16", (const void *)rl_mb_wgmma_f16acc16},
};

extern "C" const void *rl_mb_tc05_kernel(const char *name); /* tcgen05.cu */

extern "C" const void *rl_mb_compute_kernel(const char *name)
{
    for (const auto &k : compute_kernels)
        if (strcmp(k.name, name) == 0)
            return k.fn;
    return rl_mb_tc05_kernel(name);
}
