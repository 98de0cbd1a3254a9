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

/* Stream kernels: 16-byte accesses, 4 in flight per thread per iteration. */
#define STREAM_BLOCK 256
#define STREAM_UNROLL 4

/* Shared memory: SMEM_VECS 16-byte vectors per block, each thread loading
 * SMEM_PER_ITER of them per pass. */
#define SMEM_BLOCK 256
#define SMEM_PER_ITER 12
#define SMEM_VECS (SMEM_BLOCK * SMEM_PER_ITER) /* 48 KiB */

#endif
