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

/* Stream kernels: 16-byte accesses, 4 in flight per thread per iteration. */
#define STREAM_BLOCK 256
#define STREAM_UNROLL 4

/* Shared memory: SMEM_VECS 16-byte vectors per block, each thread loading
 * SMEM_PER_ITER of them per pass. */
#define SMEM_BLOCK 256
#define SMEM_PER_ITER 12
#define SMEM_VECS (SMEM_BLOCK * SMEM_PER_ITER) /* 48 KiB */

#endif
