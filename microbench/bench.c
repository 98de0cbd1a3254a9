/* bench.c - the microbenchmark catalog: what each benchmark runs, counts and checks. */
#include "microbench/bench.h"

#include <string.h>

#include "microbench/geometry.h"

/* Variants. MMA K comes from the FLOP count: 2 M N K per instruction. */
#define FMA(kern, s, flop, chk, p)                                              \
    {.sm = 80, .kernel = kern, .sass = s, .per_iter = FMA_PER_ITER,             \
     .issuer_threads = 1, .flop_per_instr = flop, .k = 1, .block_threads = FMA_BLOCK, \
     .out_per_thread = FMA_CHAINS, .in_bytes = 64, .check = chk, .ptx = p}
#define MMA(sm_, kern, s, flop, mn, out, in, chk, p)                            \
    {.sm = sm_, .kernel = kern, .sass = s, .per_iter = MMA_PER_ITER,            \
     .issuer_threads = 32, .flop_per_instr = flop, .k = (int)((flop) / (2.0 * (mn))), \
     .block_threads = MMA_BLOCK, .out_per_thread = out, .in_bytes = in, .check = chk, \
     .ptx = p}
#define WGMMA(kern, s, flop, out, chk, p)                                       \
    {.sm = 90, .kernel = kern, .sass = s, .per_iter = WG_PER_ITER,              \
     .issuer_threads = 128, .flop_per_instr = flop,                             \
     .k = (int)((flop) / (2.0 * 64 * 256)), .block_threads = WG_BLOCK,          \
     .out_per_thread = out, .in_bytes = WG_IN_BYTES, .a_bytes = WG_A_BYTES,      \
     .check = chk, .ptx = p}
/* tcgen05: one MMA of TC_M x TC_N x K per CTA-issue; the SASS opcode names
 * only the kind (UTCHMMA: f16 / bf16 / tf32, UTCQMMA: f8f6f4, UTCIMMA: i8),
 * the shape and types are in the idesc. */
#define TCGEN05(kern, s, flop, id, chk, p, ...)                                 \
    {.sm = 100, .kernel = kern, .sass = s, .per_iter = TC_PER_ITER,             \
     .issuer_threads = TC_BLOCK, .flop_per_instr = flop,                        \
     .k = (int)((flop) / (2.0 * TC_M * TC_N)), .block_threads = TC_BLOCK,       \
     .out_per_thread = TC_N, .in_bytes = TC_IN_BYTES, .a_bytes = TC_A_BYTES,     \
     .max_blocks_per_sm = TC_BLOCKS_PER_SM, .idesc = id, .check = chk, .ptx = p, \
     __VA_ARGS__}
/* Block-scaled tcgen05 (scale factors in TMEM: 512 columns, one CTA per SM). */
#define TCGEN05_BS(kern, s, flop, id, p)                                        \
    {.sm = 100, .kernel = kern, .sass = s, .per_iter = TC_PER_ITER,             \
     .issuer_threads = TC_BLOCK, .flop_per_instr = flop,                        \
     .k = (int)((flop) / (2.0 * TC_M * TC_N)), .block_threads = TC_BLOCK,       \
     .out_per_thread = TC_N, .in_bytes = TC_IN_BYTES, .a_bytes = TC_A_BYTES,     \
     .max_blocks_per_sm = TC_BS_BLOCKS_PER_SM, .idesc = id, .block_scaled = true, \
     .check = RL_MB_CHECK_MMA_F32, .ptx = p}
/* Sweeps: per 16-byte vector and unit of K, per_iter FMAs of flop FLOP. */
#define SWEEP_FMA(kern, s, lanes, flop, chk, p)                                 \
    {.sm = 80, .kernel = kern, .sass = s, .per_iter = lanes, .issuer_threads = 1, \
     .flop_per_instr = flop, .k = 1, .block_threads = 256, .check = chk, .ptx = p}

/* FLOP per instruction: FMA 2 per lane (HFMA2: 2 lanes x 2); an MMA of
 * shape MxNxK: 2 M N K. */
#define F_16816 (2.0 * 16 * 8 * 16)    /* 4096 */
#define F_1688 (2.0 * 16 * 8 * 8)      /* 2048 */
#define F_16832 (2.0 * 16 * 8 * 32)    /* 8192 */
#define F_884 (2.0 * 8 * 8 * 4)        /* 512 */
#define F_WG16 (2.0 * 64 * 256 * 16)   /* 524288: m64n256k16 */
#define F_WG8 (2.0 * 64 * 256 * 8)     /* 262144: m64n256k8 (tf32) */
#define F_WG32 (2.0 * 64 * 256 * 32)   /* 1048576: m64n256k32 (fp8, int8) */
#define F_TC16 (2.0 * TC_M * TC_N * 16) /* 1048576: tcgen05 128x256x16 (f16) */
#define F_TC8 (2.0 * TC_M * TC_N * 8)   /* 524288: 128x256x8 (tf32) */
#define F_TC32 (2.0 * TC_M * TC_N * 32) /* 2097152: 128x256x32 (f8f6f4, i8) */
#define F_TC64 (2.0 * TC_M * TC_N * 64) /* 4194304: 128x256x64 (mxf4, mxf4nvf4) */
#define F_16864 (2.0 * 16 * 8 * 64)     /* 16384: m16n8k64 (mxf4, mxf4nvf4) */

#define COMPUTE(n, r, s, ...)                                                   \
    {.name = n, .kind = RL_MB_COMPUTE, .roof = r, .summary = s,                 \
     .variants = {__VA_ARGS__},                                                 \
     .n_variants = sizeof((struct rl_mb_variant[]){__VA_ARGS__}) /              \
                   sizeof(struct rl_mb_variant)}
#define MEMORY(n, k, r, s, kern, ld, st, rd, wr, lds, sts)                      \
    {.name = n, .kind = k, .roof = r, .summary = s, .mem_kernel = kern,         \
     .loads_per_iter = ld, .stores_per_iter = st, .reads = rd, .writes = wr,     \
     .load_sass = lds, .store_sass = sts}
#define SWEEP(n, r, s, kern, v)                                                 \
    {.name = n, .kind = RL_MB_SWEEP, .roof = r, .summary = s, .variants = {v},  \
     .n_variants = 1, .mem_kernel = kern, .loads_per_iter = 1,                  \
     .stores_per_iter = 1, .reads = 1, .writes = 1, .load_sass = "LDG.E.128",    \
     .store_sass = "STG.E.128"}
#define LIBRARY(n, r, s) {.name = n, .kind = RL_MB_LIBRARY, .roof = r, .summary = s}

static const struct rl_mb_def catalog[] = {
    /* ---- CUDA cores ---- */
    COMPUTE("fp64", "fp64", "FP64 FMA chains on CUDA cores",
            FMA("rl_mb_fma_f64", "DFMA", 2, RL_MB_CHECK_FMA_F64, "fma.rn.f64")),
    COMPUTE("fp32", "fp32", "FP32 FMA chains on CUDA cores",
            FMA("rl_mb_fma_f32", "FFMA", 2, RL_MB_CHECK_FMA_F32, "fma.rn.f32")),
    COMPUTE("fp16-cuda", "fp16-cuda", "FP16 paired FMA (half2) on CUDA cores",
            FMA("rl_mb_fma_f16x2", "HFMA2|HFMA2.MMA", 4, RL_MB_CHECK_FMA_F16X2,
                "fma.rn.f16x2")),
    COMPUTE("bf16-cuda", "bf16-cuda", "BF16 paired FMA (bfloat162) on CUDA cores",
            FMA("rl_mb_fma_bf16x2", "HFMA2.BF16_V2|HFMA2.MMA.BF16_V2", 4,
                RL_MB_CHECK_FMA_BF16X2, "fma.rn.bf16x2")),
    /* ---- Tensor Cores ---- */
    COMPUTE("fp64-tc", "fp64-tc", "FP64 Tensor Core MMA (DMMA)",
            MMA(90, "rl_mb_mma_f64_16816", "DMMA.16x8x16", 2.0 * 16 * 8 * 16, 16 * 8, 16,
                32 * 12 * 8, RL_MB_CHECK_MMA_F64, "mma.sync.m16n8k16.f64"),
            /* sm_100a spells m8n8k4 DMMA.8x8x4 (and splits m16n8k16 into 8 of them) */
            MMA(80, "rl_mb_mma_f64_884", "DMMA.884|DMMA.8x8x4", F_884, 8 * 8, 8, 32 * 2 * 8,
                RL_MB_CHECK_MMA_F64, "mma.sync.m8n8k4.f64")),
    COMPUTE("tf32", "tf32", "TF32 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_tf32", "UTCHMMA", F_TC8, TC_IDESC_TF32, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::tf32 128x256x8"),
            WGMMA("rl_mb_wgmma_tf32", "HGMMA.64x256x8.F32.TF32", F_WG8, 128,
                  RL_MB_CHECK_MMA_F32, "wgmma.mma_async.m64n256k8.f32.tf32.tf32"),
            MMA(80, "rl_mb_mma_tf32_1688", "HMMA.1688.F32.TF32", F_1688, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k8.f32.tf32.tf32")),
    COMPUTE("fp16", "fp16", "FP16 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_f16", "UTCHMMA", F_TC16, TC_IDESC_F16, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f16 128x256x16 f16"),
            WGMMA("rl_mb_wgmma_f16", "HGMMA.64x256x16.F32", F_WG16, 128, RL_MB_CHECK_MMA_F32,
                  "wgmma.mma_async.m64n256k16.f32.f16.f16"),
            MMA(80, "rl_mb_mma_f16_16816", "HMMA.16816.F32", F_16816, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k16.f32.f16.f16")),
    COMPUTE("bf16", "bf16", "BF16 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_bf16", "UTCHMMA", F_TC16, TC_IDESC_BF16, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f16 128x256x16 bf16"),
            WGMMA("rl_mb_wgmma_bf16", "HGMMA.64x256x16.F32.BF16", F_WG16, 128,
                  RL_MB_CHECK_MMA_F32, "wgmma.mma_async.m64n256k16.f32.bf16.bf16"),
            MMA(80, "rl_mb_mma_bf16_16816", "HMMA.16816.F32.BF16", F_16816, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k16.f32.bf16.bf16")),
    COMPUTE("fp16-acc16", "fp16-acc16", "FP16 Tensor Core MMA, FP16 accumulate",
            TCGEN05("rl_mb_tc05_f16acc16", "UTCHMMA", F_TC16, TC_IDESC_F16ACC16,
                    RL_MB_CHECK_MMA_F16_WIDE,
                    "tcgen05.mma.cta_group::1.kind::f16 128x256x16 f16, F16 D"),
            WGMMA("rl_mb_wgmma_f16acc16", "HGMMA.64x256x16.F16", F_WG16, 64,
                  RL_MB_CHECK_MMA_F16, "wgmma.mma_async.m64n256k16.f16.f16.f16"),
            MMA(80, "rl_mb_mma_f16acc16_16816", "HMMA.16816.F16", F_16816, 16 * 8, 8,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F16, "mma.sync.m16n8k16.f16.f16.f16")),
    COMPUTE("fp8-e4m3", "fp8", "FP8 E4M3 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_e4m3", "UTCQMMA", F_TC32, TC_IDESC_E4M3, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f8f6f4 128x256x32 e4m3"),
            MMA(120, "rl_mb_mma_e4m3_f8f6f4", "QMMA.16832.F32.E4M3.E4M3", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.kind::f8f6f4.f32.e4m3.e4m3"),
            WGMMA("rl_mb_wgmma_e4m3", "QGMMA.64x256x32.F32.E4M3.E4M3", F_WG32, 128,
                  RL_MB_CHECK_MMA_F32, "wgmma.mma_async.m64n256k32.f32.e4m3.e4m3"),
            MMA(89, "rl_mb_mma_e4m3_16832", "QMMA.16832.F32.E4M3.E4M3", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.f32.e4m3.e4m3")),
    COMPUTE("fp8-e5m2", "fp8", "FP8 E5M2 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_e5m2", "UTCQMMA", F_TC32, TC_IDESC_E5M2, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f8f6f4 128x256x32 e5m2"),
            MMA(120, "rl_mb_mma_e5m2_f8f6f4", "QMMA.16832.F32.E5M2.E5M2", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.kind::f8f6f4.f32.e5m2.e5m2"),
            WGMMA("rl_mb_wgmma_e5m2", "QGMMA.64x256x32.F32.E5M2.E5M2", F_WG32, 128,
                  RL_MB_CHECK_MMA_F32, "wgmma.mma_async.m64n256k32.f32.e5m2.e5m2"),
            MMA(89, "rl_mb_mma_e5m2_16832", "QMMA.16832.F32.E5M2.E5M2", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.f32.e5m2.e5m2")),
    /* FP6 / FP4 (Blackwell only): kind::f8f6f4, the FP8 shape and rate class. */
    COMPUTE("fp6-e2m3", "fp6", "FP6 E2M3 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_e2m3", "UTCQMMA", F_TC32, TC_IDESC_E2M3, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f8f6f4 128x256x32 e2m3"),
            MMA(120, "rl_mb_mma_e2m3_f8f6f4", "QMMA.16832.F32.E2M3.E2M3", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.kind::f8f6f4.f32.e2m3.e2m3")),
    COMPUTE("fp6-e3m2", "fp6", "FP6 E3M2 Tensor Core MMA, FP32 accumulate",
            TCGEN05("rl_mb_tc05_e3m2", "UTCQMMA", F_TC32, TC_IDESC_E3M2, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f8f6f4 128x256x32 e3m2"),
            MMA(120, "rl_mb_mma_e3m2_f8f6f4", "QMMA.16832.F32.E3M2.E3M2", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.kind::f8f6f4.f32.e3m2.e3m2")),
    COMPUTE("fp4-e2m1", "fp4", "FP4 E2M1 Tensor Core MMA (unscaled kind::f8f6f4), FP32 accumulate",
            TCGEN05("rl_mb_tc05_e2m1", "UTCQMMA", F_TC32, TC_IDESC_E2M1, RL_MB_CHECK_MMA_F32,
                    "tcgen05.mma.cta_group::1.kind::f8f6f4 128x256x32 e2m1"),
            MMA(120, "rl_mb_mma_e2m1_f8f6f4", "QMMA.16832.F32.E2M1.E2M1", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_F32, "mma.sync.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1")),
    /* Block-scaled (Blackwell only), scale factors 1.0 so the check stays
     * that of the unscaled MMA: NVFP4 and MXFP4 reach the FP4 peak (K = 64
     * per instruction, twice kind::f8f6f4's 32); MXFP8 is the FP8 rate. */
    COMPUTE("nvfp4", "fp4",
            "NVFP4 block-scaled Tensor Core MMA (E2M1, UE4M3 per 16), FP32 accumulate",
            TCGEN05_BS("rl_mb_tc05_nvf4", "UTCOMMA.4X|UTCOMMA.BLOCK16", F_TC64, TC_IDESC_NVF4,
                       "tcgen05.mma kind::mxf4nvf4.block_scale.scale_vec::4X 128x256x64"),
            MMA(120, "rl_mb_mma_nvf4_16864", "OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X", F_16864,
                16 * 8, 16, MMA_IN_BYTES, RL_MB_CHECK_MMA_F32,
                "mma.sync.m16n8k64.kind::mxf4nvf4.block_scale.4X.e2m1.ue4m3")),
    COMPUTE("mxfp4", "fp4",
            "MXFP4 block-scaled Tensor Core MMA (E2M1, UE8M0 per 32), FP32 accumulate",
            TCGEN05_BS("rl_mb_tc05_mxf4", "UTCOMMA", F_TC64, TC_IDESC_MXF4,
                       "tcgen05.mma kind::mxf4.block_scale.scale_vec::2X 128x256x64"),
            MMA(120, "rl_mb_mma_mxf4_16864", "OMMA.SF.16864.F32.E2M1.E2M1.E8", F_16864, 16 * 8,
                16, MMA_IN_BYTES, RL_MB_CHECK_MMA_F32,
                "mma.sync.m16n8k64.kind::mxf4.block_scale.2X.e2m1.ue8m0")),
    COMPUTE("mxfp8", "fp8",
            "MXFP8 block-scaled Tensor Core MMA (E4M3, UE8M0 per 32), FP32 accumulate",
            TCGEN05_BS("rl_mb_tc05_mxf8_e4m3", "UTCQMMA", F_TC32, TC_IDESC_MXF8_E4M3,
                       "tcgen05.mma kind::mxf8f6f4.block_scale.1X 128x256x32 e4m3"),
            MMA(120, "rl_mb_mma_mxf8_e4m3_16832", "QMMA.SF.16832.F32.E4M3.E4M3.E8", F_16832,
                16 * 8, 16, MMA_IN_BYTES, RL_MB_CHECK_MMA_F32,
                "mma.sync.m16n8k32.kind::mxf8f6f4.block_scale.1X.e4m3.ue8m0")),
    COMPUTE("mxfp6", "fp6",
            "MXFP6 block-scaled Tensor Core MMA (E2M3, UE8M0 per 32), FP32 accumulate",
            TCGEN05_BS("rl_mb_tc05_mxf6_e2m3", "UTCQMMA", F_TC32, TC_IDESC_MXF6_E2M3,
                       "tcgen05.mma kind::mxf8f6f4.block_scale.1X 128x256x32 e2m3"),
            MMA(120, "rl_mb_mma_mxf6_e2m3_16832", "QMMA.SF.16832.F32.E2M3.E2M3.E8", F_16832,
                16 * 8, 16, MMA_IN_BYTES, RL_MB_CHECK_MMA_F32,
                "mma.sync.m16n8k32.kind::mxf8f6f4.block_scale.1X.e2m3.ue8m0")),
    COMPUTE("int8", "int8", "INT8 Tensor Core MMA, INT32 accumulate (ops, not FLOP)",
            TCGEN05("rl_mb_tc05_s8", "UTCIMMA", F_TC32, TC_IDESC_S8, RL_MB_CHECK_MMA_S32,
                    "tcgen05.mma.cta_group::1.kind::i8 128x256x32 s8", .no_sm103 = true),
            WGMMA("rl_mb_wgmma_s8", "IGMMA.64x256x32.S8.S8", F_WG32, 128, RL_MB_CHECK_MMA_S32,
                  "wgmma.mma_async.m64n256k32.s32.s8.s8"),
            MMA(80, "rl_mb_mma_s8_16832", "IMMA.16832.S8.S8", F_16832, 16 * 8, 16,
                MMA_IN_BYTES, RL_MB_CHECK_MMA_S32, "mma.sync.m16n8k32.s32.s8.s8")),
    /* ---- memory ---- */
    MEMORY("hbm-read", RL_MB_MEMORY, "dram", "read 16-byte vectors, 4 loads in flight",
           "rl_mb_stream_read", 4, 0, 1, 0, "LDG.E.EF.128", NULL),
    MEMORY("hbm-write", RL_MB_MEMORY, "dram", "write 16-byte vectors, 4 stores per iteration",
           "rl_mb_stream_write", 0, 4, 0, 1, NULL, "STG.E.EF.128"),
    MEMORY("hbm-copy", RL_MB_MEMORY, "dram", "b[i] = a[i], 16-byte vectors (read + write)",
           "rl_mb_stream_copy", 4, 4, 1, 1, "LDG.E.EF.128", "STG.E.EF.128"),
    MEMORY("hbm-triad", RL_MB_MEMORY, "dram", "a[i] = b[i] + s c[i], float4 (2 reads + 1 write)",
           "rl_mb_stream_triad", 8, 4, 2, 1, "LDG.E.EF.128", "STG.E.EF.128"),
    MEMORY("smem-read", RL_MB_SHARED, "l1", "shared-memory 16-byte loads, conflict-free",
           "rl_mb_smem_read", 12, 0, 1, 0, "LDS.128", NULL),
    MEMORY("cache-sweep", RL_MB_CACHE, NULL, "reads over growing working sets: L1, L2, DRAM",
           "rl_mb_cache_read", 4, 0, 1, 0, "LDG.E.128", NULL),
    MEMORY("h2d", RL_MB_TRANSFER, NULL, "host to device copy, pinned memory", NULL, 0, 0, 1,
           0, NULL, NULL),
    MEMORY("d2h", RL_MB_TRANSFER, NULL, "device to host copy, pinned memory", NULL, 0, 0, 1,
           0, NULL, NULL),
    /* ---- arithmetic-intensity sweeps ---- */
    SWEEP("sweep-fp64", "fp64", "K FP64 FMAs per element read and written", "rl_mb_sweep_f64",
          SWEEP_FMA("rl_mb_sweep_f64", "DFMA", 2, 2, RL_MB_CHECK_FMA_F64, "fma.rn.f64")),
    SWEEP("sweep-fp32", "fp32", "K FP32 FMAs per element read and written", "rl_mb_sweep_f32",
          SWEEP_FMA("rl_mb_sweep_f32", "FFMA", 4, 2, RL_MB_CHECK_FMA_F32, "fma.rn.f32")),
    SWEEP("sweep-fp16", "fp16-cuda", "K FP16 FMAs per element (half2)", "rl_mb_sweep_f16",
          SWEEP_FMA("rl_mb_sweep_f16", "HFMA2|HFMA2.MMA", 4, 4, RL_MB_CHECK_FMA_F16X2,
                    "fma.rn.f16x2")),
    SWEEP("sweep-bf16", "bf16-cuda", "K BF16 FMAs per element (bfloat162)", "rl_mb_sweep_bf16",
          SWEEP_FMA("rl_mb_sweep_bf16", "HFMA2.BF16_V2|HFMA2.MMA.BF16_V2", 4, 4,
                    RL_MB_CHECK_FMA_BF16X2, "fma.rn.bf16x2")),
    /* ---- the library ceiling ---- */
    LIBRARY("gemm-fp64", "fp64-tc", "cuBLASLt DGEMM"),
    LIBRARY("gemm-tf32", "tf32", "cuBLASLt SGEMM on TF32 Tensor Cores"),
    LIBRARY("gemm-fp16", "fp16", "cuBLASLt FP16 GEMM, FP32 accumulate"),
    LIBRARY("gemm-bf16", "bf16", "cuBLASLt BF16 GEMM, FP32 accumulate"),
    LIBRARY("gemm-fp8", "fp8", "cuBLASLt FP8 E4M3 GEMM, FP32 accumulate"),
    LIBRARY("gemm-int8", "int8", "cuBLASLt INT8 GEMM, INT32 accumulate"),
};

#define N_CATALOG (sizeof catalog / sizeof catalog[0])

const struct rl_mb_def *rl_mb_catalog(size_t *n)
{
    *n = N_CATALOG;
    return catalog;
}

const struct rl_mb_def *rl_mb_find(const char *name)
{
    for (size_t i = 0; i < N_CATALOG; i++)
        if (strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

static bool is_tensor(const struct rl_mb_def *d)
{
    return d->kind == RL_MB_COMPUTE && d->n_variants &&
           d->variants[d->n_variants - 1].issuer_threads > 1;
}

bool rl_mb_matches(const struct rl_mb_def *def, const char *name)
{
    if (strcmp(def->name, name) == 0)
        return true;
    if (strcmp(name, "compute") == 0)
        return def->kind == RL_MB_COMPUTE;
    if (strcmp(name, "tensor") == 0)
        return is_tensor(def);
    if (strcmp(name, "cuda") == 0)
        return def->kind == RL_MB_COMPUTE && !is_tensor(def);
    if (strcmp(name, "memory") == 0)
        return def->kind == RL_MB_MEMORY || def->kind == RL_MB_SHARED ||
               def->kind == RL_MB_CACHE || def->kind == RL_MB_TRANSFER;
    if (strcmp(name, "sweep") == 0)
        return def->kind == RL_MB_SWEEP;
    if (strcmp(name, "library") == 0)
        return def->kind == RL_MB_LIBRARY;
    return false;
}

static bool cc_at_least(int major, int minor, int want_major, int want_minor)
{
    return major > want_major || (major == want_major && minor >= want_minor);
}

/* FP64 Tensor Cores run at full rate only on the data-center chips
 * (GA100 8.0, GH100 9.0, GB100 10.0); elsewhere DMMA is absent or crawls. */
static bool has_fp64_tensor(int major, int minor)
{
    return (major == 8 && minor == 0) || (major == 9 && minor == 0) ||
           (major == 10 && minor == 0);
}

const struct rl_mb_variant *rl_mb_select(const struct rl_mb_def *def, int cc_major,
                                         int cc_minor, const char **why)
{
    static const char *const reasons[] = {
        /* parenthesized: one string over two lines, not a missing comma
         * (clang -Wstring-concatenation) */
        ("needs compute capability 8.0 or newer (this build targets sm_80, sm_89, sm_90a, "
         "sm_100a, sm_103a, sm_120a)"),
        "no FP64 Tensor Cores on this GPU (only compute capability 8.0, 9.0 and 10.0)",
        ("FP8 Tensor Cores need compute capability 8.9 or 12.0 (mma.sync), 9.0 (wgmma) or "
         "10.0 / 10.3 (tcgen05); FP8 through mma.sync on 9.0 is emulated, not measured"),
        "not a compute benchmark",
        "no INT8 tcgen05.mma on compute capability 10.3 (kind::i8 is not in sm_103a)",
        ("FP6 / FP4 Tensor Cores need compute capability 10.0 / 10.3 (tcgen05) or 12.0 "
         "(mma.sync kind::f8f6f4): Blackwell only"),
        ("block-scaled MMAs (MXFP8, MXFP4, NVFP4) need compute capability 10.0 / 10.3 "
         "(tcgen05) or 12.0 (mma.sync): Blackwell only")};
    if (why)
        *why = NULL;
    if (def->kind != RL_MB_COMPUTE) {
        if (why)
            *why = reasons[3];
        return NULL;
    }
    if (!cc_at_least(cc_major, cc_minor, 8, 0)) {
        if (why)
            *why = reasons[0];
        return NULL;
    }
    if (strcmp(def->name, "fp64-tc") == 0 && !has_fp64_tensor(cc_major, cc_minor)) {
        if (why)
            *why = reasons[1];
        return NULL;
    }
    for (int i = 0; i < def->n_variants; i++) {
        const struct rl_mb_variant *v = &def->variants[i];
        /* sm_100a / sm_103a / sm_120a code runs on exactly that CC. */
        if (v->sm == 100 && cc_major == 10 && cc_minor == 3 && v->no_sm103) {
            if (why)
                *why = reasons[4];
            return NULL;
        }
        if (v->sm == 100 && cc_major == 10 && (cc_minor == 0 || cc_minor == 3))
            return v;
        if (v->sm == 120 && cc_major == 12 && cc_minor == 0)
            return v;
        if (v->sm == 90 && cc_major == 9 && cc_minor == 0)
            return v;
        if (v->sm == 89 && cc_major == 8 && cc_minor == 9)
            return v;
        if (v->sm == 80)
            return v;
    }
    if (why)
        *why = def->variants[0].block_scaled ? reasons[6]
               : strcmp(def->roof, "fp6") == 0 || strcmp(def->roof, "fp4") == 0 ? reasons[5]
                                                                                : reasons[2];
    return NULL;
}

bool rl_mb_supported(const struct rl_mb_def *def, int cc_major, int cc_minor,
                     const char **why)
{
    if (def->kind == RL_MB_COMPUTE)
        return rl_mb_select(def, cc_major, cc_minor, why) != NULL;
    if (why)
        *why = NULL;
    if (!cc_at_least(cc_major, cc_minor, 8, 0)) {
        if (why)
            *why = "needs compute capability 8.0 or newer";
        return false;
    }
    if (strcmp(def->name, "gemm-fp8") == 0 && !cc_at_least(cc_major, cc_minor, 8, 9)) {
        if (why)
            *why = "FP8 GEMM needs compute capability 8.9 or newer";
        return false;
    }
    if (strcmp(def->name, "gemm-fp64") == 0 && !has_fp64_tensor(cc_major, cc_minor)) {
        /* DGEMM runs everywhere, but only these GPUs have an FP64 TC roof;
         * elsewhere it is still a useful library ceiling. */
        return true;
    }
    if (strcmp(def->name, "sweep-bf16") == 0 && !cc_at_least(cc_major, cc_minor, 8, 0)) {
        if (why)
            *why = "BF16 arithmetic needs compute capability 8.0 or newer";
        return false;
    }
    return true;
}

double rl_mb_launch_work(const struct rl_mb_variant *v, long long threads, long long iters)
{
    return (double)(threads / v->issuer_threads) * (double)iters * v->per_iter *
           v->flop_per_instr;
}

/* Each block takes static + dynamic + reserved bytes of the SM's shared
 * memory, so blocks_by_smem = smem_per_sm / that (the occupancy
 * calculator's rule; its 128-byte allocation unit divides every size
 * below). To hold exactly n blocks the footprint f must satisfy
 *     n f <= smem_per_sm < (n + 1) f,
 * i.e. smem_per_sm / (n + 1) < f <= smem_per_sm / n. f = smem_per_sm / n
 * rounded down to 1 KiB does it whenever smem_per_sm / (n (n + 1)) >= 1 KiB
 * (n = 2 on 228 KiB: 38 KiB). B200 (sm_100: 228 KiB = 233472 B per SM,
 * 1 KiB reserved per block, 227 KiB opt-in), a tcgen05 kernel of 12288 B
 * of tiles + 16 B of mbarriers + 4 B of TMEM slot = 12308 B static:
 *   n = 2 (256 TMEM columns each): f = 116736, dynamic = 116736 - 1024 -
 *     12308 = 103404; 2 x 116736 = 233472 fits, 3 x 116736 = 350208 does
 *     not;
 *   n = 1 (512 columns, block-scaled): f = 233472, dynamic = 233472 - 1024
 *     - 12308 = 220140 <= 232448 - 12308 (opt-in less static); 2 do not fit.
 * The runner reads the three sizes from the device and the kernel. */
long rl_mb_residency_smem_bytes(long smem_per_sm, long reserved_per_block, long static_bytes,
                                long max_dynamic, int ctas)
{
    if (ctas < 1 || smem_per_sm <= 0 || reserved_per_block < 0 || static_bytes < 0)
        return -1;
    long f = smem_per_sm / ctas / 1024 * 1024;
    long dyn = f - reserved_per_block - static_bytes;
    if (dyn < 0 || dyn > max_dynamic ||
        rl_mb_blocks_by_smem(smem_per_sm, reserved_per_block, static_bytes + dyn) != ctas)
        return -1;
    return dyn;
}

int rl_mb_blocks_by_smem(long smem_per_sm, long reserved_per_block, long per_block)
{
    long f = per_block + reserved_per_block;
    return f > 0 ? (int)(smem_per_sm / f) : 0;
}
