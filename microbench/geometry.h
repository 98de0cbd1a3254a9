/* geometry.h - launch geometry shared by the catalog (C) and the kernels (CUDA). */
#ifndef RL_MB_GEOMETRY_H
#define RL_MB_GEOMETRY_H

/* FMA chains on CUDA cores: each thread runs FMA_CHAINS independent chains,
 * FMA_UNROLL steps each per loop iteration. */
#define FMA_BLOCK 256
#define FMA_CHAINS 8
#define FMA_UNROLL 16
#define FMA_PER_ITER (FMA_CHAINS * FMA_UNROLL) /* 128 FMA instructions */

/* mma.sync: each warp keeps MMA_ACC independent accumulators and issues
 * MMA_UNROLL rounds per loop iteration. */
#define MMA_BLOCK 256
#define MMA_ACC 4
#define MMA_UNROLL 4
#define MMA_PER_ITER (MMA_ACC * MMA_UNROLL) /* 16 MMA instructions */
#define MMA_IN_BYTES 768                    /* 32 lanes x 6 registers x 4 B */

/* wgmma: one warpgroup per block issues WG_UNROLL MMAs per commit group
 * (one loop iteration), A (64 x 32 B) and B (256 x 32 B) in shared memory. */
#define WG_BLOCK 128
#define WG_UNROLL 8
#define WG_PER_ITER WG_UNROLL
#define WG_A_BYTES 2048
#define WG_B_BYTES 8192
#define WG_IN_BYTES (WG_A_BYTES + WG_B_BYTES)

/* tcgen05 (sm_100a / sm_103a): one thread per CTA issues TC_UNROLL
 * tcgen05.mma of shape TC_M x TC_N x K (K x element = 32 bytes: f16 16,
 * tf32 8, fp8 / int8 32) per loop iteration into a TC_N-column FP32 / S32
 * accumulator in tensor memory; A (TC_M x 32 B) and B (TC_N x 32 B) stay in
 * shared memory. Each of the TC_BLOCK threads reads back one accumulator row
 * (TC_N values). TC_BLOCKS_PER_SM CTAs share an SM's 512 TMEM columns. */
#define TC_BLOCK 128
#define TC_UNROLL 8
#define TC_PER_ITER TC_UNROLL
#define TC_M 128
#define TC_N 256
#define TC_A_BYTES (TC_M * 32) /* 4096 */
#define TC_B_BYTES (TC_N * 32) /* 8192 */
#define TC_IN_BYTES (TC_A_BYTES + TC_B_BYTES)
#define TC_BLOCKS_PER_SM 2

/* The tcgen05 instruction descriptor (PTX ISA, "Instruction descriptor",
 * kinds tf32 / f16 / f8f6f4 / i8): D type in bits 4-5 (F32 1, S32 2), A and B
 * types in 7-9 and 10-12, K-major A and B (transpose bits 15, 16 clear),
 * N >> 3 in 17-22, M >> 4 in 24-28, dense. The kernels and the catalog both
 * use this, and the SASS test decodes it from the UMOV that feeds the MMA. */
#define TC_IDESC(dtype, atype, btype)                                            \
    ((unsigned)(dtype) << 4 | (unsigned)(atype) << 7 | (unsigned)(btype) << 10 | \
     (unsigned)(TC_N >> 3) << 17 | (unsigned)(TC_M >> 4) << 24)
#define TC_IDESC_F16 TC_IDESC(1, 0, 0)
/* FP16 accumulate: D type F16 (0 in bits 4-5), the same kind::f16. Each
 * FP16 accumulator takes one 32-bit TMEM column (its low half: CUTLASS
 * tmem_frg_1sm<half_t> keeps the uint32_t storage, a column stride of 2
 * halves), so D keeps TC_N columns and the TMEM budget is FP32's. */
#define TC_IDESC_F16ACC16 TC_IDESC(0, 0, 0)
#define TC_IDESC_BF16 TC_IDESC(1, 1, 1)
#define TC_IDESC_TF32 TC_IDESC(1, 2, 2)
#define TC_IDESC_E4M3 TC_IDESC(1, 0, 0) /* kind::f8f6f4 */
#define TC_IDESC_E5M2 TC_IDESC(1, 1, 1)
#define TC_IDESC_S8 TC_IDESC(2, 1, 1)   /* kind::i8, signed */
/* kind::f8f6f4 sub-byte types (PTX ISA Table 42: E2M3 3, E3M2 4, E2M1 5;
 * CUTLASS cute/arch/mma_sm100_desc.hpp MXF8F6F4Format agrees). K stays 32:
 * in shared memory each element takes a byte's room (fp.h). */
#define TC_IDESC_E2M3 TC_IDESC(1, 3, 3)
#define TC_IDESC_E3M2 TC_IDESC(1, 4, 4)
#define TC_IDESC_E2M1 TC_IDESC(1, 5, 5)

/* Block-scaled tcgen05.mma (kind::mxf8f6f4, mxf4, mxf4nvf4): the scale
 * factors live in tensor memory too. The accumulator keeps columns
 * 0..TC_N-1; columns TC_N..TC_BS_COLS-1 of every lane hold the scale
 * factors, all 1.0, so whichever sub-columns the layout (PTX ISA
 * 9.7.16.10.7.2 / .3, figures) picks for scale_A (from column TC_N) and
 * scale_B (from column TC_N + 128) the products are unscaled: 512 columns,
 * one CTA per SM. Instruction descriptor (PTX ISA Tables 43 / 44, CUTLASS
 * InstrDescriptorBlockScaled): scale-factor B ID bits 4-5 (0), A and B
 * types 7-9 / 10-12 (mxf8f6f4: E4M3 0 ...; mxf4 / mxf4nvf4: E2M1 1), N >> 3
 * in 17-22, scale type bit 23 (UE8M0 1, UE4M3 0), M >> 7 in 27-28, scale-
 * factor A ID 29-30 (0), bit 31 K = 64 (0) for mxf4*; K is 32 for mxf8f6f4,
 * 64 for mxf4 / mxf4nvf4 (two FP4 per byte, 32 bytes a row). */
#define TC_BS_COLS 512
#define TC_BS_BLOCKS_PER_SM 1
#define TC_IDESC_BS(atype, btype, ue8m0)                                         \
    ((unsigned)(atype) << 7 | (unsigned)(btype) << 10 | (unsigned)(TC_N >> 3) << 17 | \
     (unsigned)(ue8m0) << 23 | (unsigned)(TC_M >> 7) << 27)
#define TC_IDESC_NVF4 TC_IDESC_BS(1, 1, 0)      /* kind::mxf4nvf4, UE4M3, scale_vec::4X */
#define TC_IDESC_MXF4 TC_IDESC_BS(1, 1, 1)      /* kind::mxf4, UE8M0, scale_vec::2X */
#define TC_IDESC_MXF8_E4M3 TC_IDESC_BS(0, 0, 1) /* kind::mxf8f6f4, UE8M0, 1X */
#define TC_IDESC_MXF6_E2M3 TC_IDESC_BS(3, 3, 1) /* kind::mxf8f6f4 E2M3 */
/* Scale factors of 1.0 in all four bytes of a word: UE8M0 127, UE4M3 0x38. */
#define SF_UE8M0_ONES 0x7F7F7F7Fu
#define SF_UE4M3_ONES 0x38383838u

/* Stream kernels: 16-byte accesses, 4 in flight per thread per iteration. */
#define STREAM_BLOCK 256
#define STREAM_UNROLL 4

/* Shared memory: SMEM_VECS 16-byte vectors per block, each thread loading
 * SMEM_PER_ITER of them per pass. */
#define SMEM_BLOCK 256
#define SMEM_PER_ITER 12
#define SMEM_VECS (SMEM_BLOCK * SMEM_PER_ITER) /* 48 KiB */

#endif
