/* tcgen05.cu - Blackwell data-center (sm_100a, sm_103a) Tensor Core peak kernels: tcgen05.mma into tensor memory.
 *
 * Same contract as compute.cu (out, in, iters). Per CTA of TC_BLOCK threads:
 *   - warp 0 allocates TC_N columns of tensor memory (tcgen05.alloc, then
 *     relinquish_alloc_permit so the other CTA on the SM can allocate);
 *     block-scaled kinds allocate all 512 and every thread writes scale
 *     factors of 1.0 into its lane of columns TC_N..511 (geometry.h);
 *   - every thread copies its accumulator row C0 from `out` into TMEM
 *     (tcgen05.st 32x32b: warp w owns lanes 32w..32w+31);
 *   - warp 0 runs the loop: elect.sync picks one thread that issues
 *     TC_UNROLL tcgen05.mma (cta_group::1, M = TC_M, N = TC_N, K = 32 bytes
 *     of the type; A and B K-major in shared memory, never reloaded), one
 *     tcgen05.commit to mbarrier i & 1, then waits for the previous
 *     iteration's commit only, so the Tensor Core always has a group queued
 *     (the wgmma kernels' wait_group 1);
 *   - after the last commit completes, every thread reads its row back
 *     (tcgen05.ld) into `out`; warp 0 frees the columns.
 * Syntax and descriptor layouts from the PTX ISA (9.7.16 "TensorCore 5th
 * Generation": tcgen05.alloc/dealloc, tcgen05.mma, tcgen05.commit,
 * tcgen05.ld/st, "Shared memory descriptor", "Instruction descriptor"),
 * cross-read with CUTLASS cute/arch/mma_sm100_desc.hpp and
 * copy_sm100.hpp; written here, not copied. The warp index goes through a
 * shuffle (as CUTLASS's canonical_warp_idx_sync does) so ptxas knows it is
 * warp-uniform: otherwise it wraps every MMA in an ELECT retry loop or adds
 * a divergent copy of the loop, and the SASS test would see both.
 * Outside sm_100a / sm_103a the bodies are empty; rl_mb_select() never
 * launches them there.
 */
#include "microbench/geometry.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
#define RL_HAVE_TCGEN05 1
#else
#define RL_HAVE_TCGEN05 0
#endif
/* kind::i8 is in sm_100a, not in sm_103a (B300 has no INT8 Tensor Cores;
 * ptxas: "Feature '.kind::i8' not supported on .target 'sm_103a'"). */
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define RL_HAVE_TCGEN05_I8 1
#else
#define RL_HAVE_TCGEN05_I8 0
#endif

static_assert(TC_PER_ITER == 8 && TC_M == 128 && TC_N == 256 && TC_BLOCK == 128,
              "microbench/bench.c counts these");

#if RL_HAVE_TCGEN05

/* Shared-memory descriptor (PTX ISA "Shared memory descriptor" for
 * tcgen05): start >> 4 in bits 0-13, leading-dimension byte offset >> 4 in
 * 16-29, stride-dimension byte offset >> 4 in 32-45, the fixed 0b001 in
 * 46-48, base offset 0, no swizzle (61-63 = 0). Core matrices of 8 rows x
 * 16 bytes back to back: 128 bytes between K neighbours, 256 between M/N
 * neighbours, so every address stays inside the tile. */
__device__ __forceinline__ uint64_t rl_tc_desc(uint32_t smem_addr)
{
    return (uint64_t)((smem_addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
           ((uint64_t)(256 >> 4) << 32) | ((uint64_t)1 << 46);
}

__device__ __forceinline__ void rl_tc_sync()
{
    asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

/* Wait until the mbarrier's phase of this parity has completed. */
__device__ __forceinline__ void rl_tc_wait(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n.reg .pred done;\nRL_TC_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra RL_TC_WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

/* 8 consecutive accumulator columns of this thread's row, to and from TMEM. */
__device__ __forceinline__ void rl_tc_st8(uint32_t taddr, const uint32_t *r)
{
    asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};\n"
                 ::"r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]),
                 "r"(r[5]), "r"(r[6]), "r"(r[7])
                 : "memory");
}

__device__ __forceinline__ void rl_tc_ld8(uint32_t taddr, uint32_t *r)
{
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]),
                   "=r"(r[6]), "=r"(r[7])
                 : "r"(taddr)
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
}

/* The whole kernel body for one MMA kind; `out` is read and written as raw
 * 32-bit words (FP32 or S32 accumulators). COLS tensor-memory columns;
 * block-scaled kinds (SF != 0) fill columns TC_N..COLS-1 with the scale
 * word SF and pass scale_A / scale_B addresses (SCALE_OPS). */
#define RL_TC_BODY(KIND, IDESC, COLS, SF, SCALE_OPS)                             \
    __shared__ __align__(128) uint4 tiles[TC_IN_BYTES / 16];                     \
    __shared__ __align__(8) uint64_t bars[2];                                    \
    __shared__ uint32_t tmem_slot;                                               \
    const int warp = __shfl_sync(0xffffffffu, (int)threadIdx.x / 32, 0);          \
    for (int i = threadIdx.x; i < TC_IN_BYTES / 16; i += TC_BLOCK)               \
        tiles[i] = in[i];                                                        \
    if (warp == 0) {                                                             \
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" \
                     ::"r"((uint32_t)__cvta_generic_to_shared(&tmem_slot)), "n"(COLS) \
                     : "memory");                                                \
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"); \
    }                                                                            \
    const uint32_t bar0 = (uint32_t)__cvta_generic_to_shared(&bars[0]);          \
    if (threadIdx.x == 0) {                                                      \
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar0));     \
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar0 + 8)); \
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");     \
    }                                                                            \
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");               \
    rl_tc_sync();                                                                \
    const uint32_t row = tmem_slot + ((uint32_t)(warp * 32) << 16);              \
    uint32_t *acc = (uint32_t *)out + ((size_t)blockIdx.x * TC_BLOCK + threadIdx.x) * TC_N; \
    _Pragma("unroll 1") for (int c = 0; c < TC_N; c += 8) rl_tc_st8(row + c, acc + c); \
    if (SF) {                                                                    \
        const uint32_t sf[8] = {SF, SF, SF, SF, SF, SF, SF, SF};                 \
        _Pragma("unroll 1") for (int c = TC_N; c < COLS; c += 8) rl_tc_st8(row + c, sf); \
    }                                                                            \
    asm volatile("tcgen05.wait::st.sync.aligned;\n" ::: "memory");               \
    rl_tc_sync();                                                                \
    if (warp == 0) {                                                             \
        const uint32_t base = (uint32_t)__cvta_generic_to_shared(tiles);         \
        const uint64_t da = rl_tc_desc(base), db = rl_tc_desc(base + TC_A_BYTES); \
        const uint32_t d = tmem_slot, idesc = (IDESC);                           \
        const uint32_t sfa = tmem_slot + TC_N, sfb = tmem_slot + TC_N + 128;     \
        _Pragma("unroll 1") for (long long i = 0; i < iters; i++)                \
        {                                                                        \
            _Pragma("unroll") for (int u = 0; u < TC_UNROLL; u++)                \
                asm volatile("{\n.reg .pred acc, one;\nsetp.ne.b32 acc, 1, 0;\n"  \
                             "elect.sync _|one, 0xffffffff;\n"                   \
                             "@one tcgen05.mma.cta_group::1." KIND               \
                             " [%0], %1, %2, %3" SCALE_OPS ", acc;\n}\n" ::"r"(d), \
                             "l"(da), "l"(db), "r"(idesc), "r"(sfa), "r"(sfb)    \
                             : "memory");                                        \
            asm volatile("{\n.reg .pred one;\nelect.sync _|one, 0xffffffff;\n"     \
                         "@one tcgen05.commit.cta_group::1.mbarrier::arrive::one" \
                         ".shared::cluster.b64 [%0];\n}\n" ::"r"(bar0 + (uint32_t)(i & 1) * 8) \
                         : "memory");                                            \
            if (i > 0)                                                           \
                rl_tc_wait(bar0 + (uint32_t)((i - 1) & 1) * 8,                   \
                           (uint32_t)(((i - 1) >> 1) & 1));                      \
        }                                                                        \
        if (iters > 0)                                                           \
            rl_tc_wait(bar0 + (uint32_t)((iters - 1) & 1) * 8,                   \
                       (uint32_t)(((iters - 1) >> 1) & 1));                      \
    }                                                                            \
    rl_tc_sync();                                                                \
    _Pragma("unroll 1") for (int c = 0; c < TC_N; c += 8) rl_tc_ld8(row + c, acc + c); \
    rl_tc_sync();                                                                \
    if (warp == 0)                                                               \
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n"    \
                     ::"r"(tmem_slot), "n"(COLS)                                 \
                     : "memory");
#else
#define RL_TC_BODY(KIND, IDESC, COLS, SF, SCALE_OPS)                             \
    (void)out;                                                                   \
    (void)in;                                                                    \
    (void)iters;
#endif

#define RL_TC_KERNEL(name, ACC_T, HAVE, KIND, IDESC)                             \
    extern "C" __global__ void __launch_bounds__(TC_BLOCK)                       \
        name(ACC_T *out, const uint4 *in, long long iters)                       \
    {                                                                            \
        RL_TC_IF_##HAVE(RL_TC_BODY(KIND, IDESC, TC_N, 0u, ""))                   \
    }
/* Block-scaled: scale factors of 1.0 in TMEM, one CTA per SM (geometry.h). */
#define RL_TC_BS_KERNEL(name, KIND, IDESC, SF)                                   \
    extern "C" __global__ void __launch_bounds__(TC_BLOCK)                       \
        name(float *out, const uint4 *in, long long iters)                       \
    {                                                                            \
        RL_TC_BODY(KIND, IDESC, TC_BS_COLS, SF, ", [%4], [%5]")                  \
    }
#if RL_HAVE_TCGEN05_I8
#define RL_TC_IF_I8(x) x
#else
#define RL_TC_IF_I8(x) (void)out; (void)in; (void)iters;
#endif
#define RL_TC_IF_ALL(x) x

RL_TC_KERNEL(rl_mb_tc05_f16, float, ALL, "kind::f16", TC_IDESC_F16)
RL_TC_KERNEL(rl_mb_tc05_bf16, float, ALL, "kind::f16", TC_IDESC_BF16)
/* FP16 accumulate: kind::f16 with an F16 D type (idesc bits 4-5 = 0), one
 * FP16 per 32-bit TMEM column, read back as words (runner.c takes the low
 * half). */
RL_TC_KERNEL(rl_mb_tc05_f16acc16, uint32_t, ALL, "kind::f16", TC_IDESC_F16ACC16)
RL_TC_KERNEL(rl_mb_tc05_tf32, float, ALL, "kind::tf32", TC_IDESC_TF32)
RL_TC_KERNEL(rl_mb_tc05_e4m3, float, ALL, "kind::f8f6f4", TC_IDESC_E4M3)
RL_TC_KERNEL(rl_mb_tc05_e5m2, float, ALL, "kind::f8f6f4", TC_IDESC_E5M2)
RL_TC_KERNEL(rl_mb_tc05_s8, int32_t, I8, "kind::i8", TC_IDESC_S8)
/* FP6 / FP4 through kind::f8f6f4: same 128x256x32 shape and tiles as FP8;
 * the operands are laid out as PTX ISA 9.7.16.10.4.4 prescribes (16
 * elements packed per 16-byte chunk, microbench/fp.h), which
 * rl_mb_fill_operands() (verify.c) does. */
RL_TC_KERNEL(rl_mb_tc05_e2m3, float, ALL, "kind::f8f6f4", TC_IDESC_E2M3)
RL_TC_KERNEL(rl_mb_tc05_e3m2, float, ALL, "kind::f8f6f4", TC_IDESC_E3M2)
RL_TC_KERNEL(rl_mb_tc05_e2m1, float, ALL, "kind::f8f6f4", TC_IDESC_E2M1)
/* Block scaling (PTX ISA 9.7.16.10.7, Table 54 / 55): NVFP4 is mxf4nvf4
 * with UE4M3 scales per 16 elements (scale_vec::4X), MXFP4 is mxf4 with
 * UE8M0 per 32 (2X), both 128x256x64 from FP4 packed two per byte in
 * shared memory (9.7.16.10.4.6); MXFP8 is mxf8f6f4 E4M3 with UE8M0 per 32
 * (1X), 128x256x32. ptxas 13.0: UTCOMMA.4X (sm_103a: UTCOMMA.BLOCK16),
 * UTCOMMA, UTCQMMA with a third tmem operand (the scale factors). */
RL_TC_BS_KERNEL(rl_mb_tc05_nvf4, "kind::mxf4nvf4.block_scale.scale_vec::4X", TC_IDESC_NVF4,
                SF_UE4M3_ONES)
RL_TC_BS_KERNEL(rl_mb_tc05_mxf4, "kind::mxf4.block_scale.scale_vec::2X", TC_IDESC_MXF4,
                SF_UE8M0_ONES)
RL_TC_BS_KERNEL(rl_mb_tc05_mxf8_e4m3, "kind::mxf8f6f4.block_scale.scale_vec::1X",
                TC_IDESC_MXF8_E4M3, SF_UE8M0_ONES)
/* MXFP6: the same kind with E2M3 operands, laid out as kind::f8f6f4's. */
RL_TC_BS_KERNEL(rl_mb_tc05_mxf6_e2m3, "kind::mxf8f6f4.block_scale.scale_vec::1X",
                TC_IDESC_MXF6_E2M3, SF_UE8M0_ONES)

/* ---- lookup by name, for compute.cu's rl_mb_compute_kernel() ---------- */

static const struct {
    const char *name;
    const void *fn;
} tc05_kernels[] = {
    {"rl_mb_tc05_f16", (const void *)rl_mb_tc05_f16},
    {"rl_mb_tc05_bf16", (const void *)rl_mb_tc05_bf16},
    {"rl_mb_tc05_f16acc16", (const void *)rl_mb_tc05_f16acc16},
    {"rl_mb_tc05_tf32", (const void *)rl_mb_tc05_tf32},
    {"rl_mb_tc05_e4m3", (const void *)rl_mb_tc05_e4m3},
    {"rl_mb_tc05_e5m2", (const void *)rl_mb_tc05_e5m2},
    {"rl_mb_tc05_s8", (const void *)rl_mb_tc05_s8},
    {"rl_mb_tc05_e2m3", (const void *)rl_mb_tc05_e2m3},
    {"rl_mb_tc05_e3m2", (const void *)rl_mb_tc05_e3m2},
    {"rl_mb_tc05_e2m1", (const void *)rl_mb_tc05_e2m1},
    {"rl_mb_tc05_nvf4", (const void *)rl_mb_tc05_nvf4},
    {"rl_mb_tc05_mxf4", (const void *)rl_mb_tc05_mxf4},
    {"rl_mb_tc05_mxf8_e4m3", (const void *)rl_mb_tc05_mxf8_e4m3},
    {"rl_mb_tc05_mxf6_e2m3", (const void *)rl_mb_tc05_mxf6_e2m3},
};

extern "C" const void *rl_mb_tc05_kernel(const char *name)
{
    for (const auto &k : tc05_kernels)
        if (strcmp(k.name, name) == 0)
            return k.fn;
    return nullptr;
}
