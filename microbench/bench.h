/* bench.h - the microbenchmark catalog: what each benchmark runs, counts and checks.
 *
 * The catalog is data (BabelStream's habit): a benchmark's FLOP or byte
 * count is derived from its entry, in one place (rl_mb_launch_work()), and
 * the same entry tells the SASS test which instruction must sit in the
 * kernel's loop and how many times. microbench/README.md writes the
 * derivations out. Plain C: used by the CLI, the CUDA plugin and the tests.
 */
#ifndef RL_MB_BENCH_H
#define RL_MB_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rl_mb_kind {
    RL_MB_COMPUTE,  /* a peak-FLOP/s kernel: chains of FMAs or MMAs */
    RL_MB_MEMORY,   /* an HBM stream kernel: read, write, copy, triad */
    RL_MB_SHARED,   /* shared-memory loads */
    RL_MB_CACHE,    /* working-set sweep: L1, L2, DRAM plateaus */
    RL_MB_TRANSFER, /* host <-> device copies over pinned memory */
    RL_MB_SWEEP,    /* arithmetic-intensity sweep: K FMAs per element */
    RL_MB_LIBRARY   /* cuBLASLt GEMM: the best algorithm on a large shape */
};

/* How a compute kernel's output is checked (microbench/README.md). */
enum rl_mb_check {
    RL_MB_CHECK_NONE,
    RL_MB_CHECK_FMA_F64,   /* x = fma(x, a, b) chains, simulated on the host */
    RL_MB_CHECK_FMA_F32,
    RL_MB_CHECK_FMA_F16X2,
    RL_MB_CHECK_FMA_BF16X2,
    RL_MB_CHECK_MMA_F32,   /* D(n) = C0 + n P: linear in the MMA count */
    RL_MB_CHECK_MMA_F16,   /* FP16 accumulators: linear at small n only */
    RL_MB_CHECK_MMA_F64,
    RL_MB_CHECK_MMA_S32,
    RL_MB_CHECK_MMA_F16_WIDE /* FP16 accumulators one per 32-bit word, in its low
                                half (tcgen05 F16 D: one TMEM column each) */
};

/* One way to run a compute benchmark on one architecture family. */
struct rl_mb_variant {
    int sm;                /* 80: sm_80 and newer (mma.sync, FMA); 89: Ada only;
                              90: sm_90a only (wgmma); 100: sm_100a and
                              sm_103a (tcgen05); 120: sm_120a only */
    const char *kernel;    /* extern "C" symbol in microbench/compute.cu */
    const char *sass;      /* opcodes counted in the kernel loop, exact, "A|B" for
                              either (HFMA2|HFMA2.MMA) */
    int per_iter;          /* such instructions per loop iteration, per issuer */
    int issuer_threads;    /* threads per instruction issued: 1 (FMA), 32
                              (mma.sync warp), 128 (wgmma warpgroup; tcgen05:
                              one thread issues for its 128-thread CTA) */
    double flop_per_instr; /* FLOP (or integer ops) per instruction per issuer */
    int k;                 /* MMA: products summed per output (the K of MxNxK);
                              FMA: 1 */
    int block_threads;     /* threads per block */
    int out_per_thread;    /* output elements per thread (chains or accumulators) */
    int in_bytes;          /* bytes of the input operand buffer */
    int a_bytes;           /* shared-memory tiles (wgmma, tcgen05): the first
                              a_bytes of it are A, the rest B; 0 otherwise */
    int max_blocks_per_sm; /* a cap on resident blocks (tcgen05: TMEM columns),
                              0: as many as occupancy allows */
    unsigned idesc;        /* tcgen05: the instruction descriptor (shape and
                              types) the SASS test finds feeding the MMA; 0 */
    bool no_sm103;         /* tcgen05 kind absent from sm_103a (kind::i8) */
    bool block_scaled;     /* tcgen05 .block_scale: the MMA reads scale factors
                              from TMEM (a third tmem operand in SASS) */
    enum rl_mb_check check;
    const char *ptx;       /* the PTX instruction, for the record */
};

#define RL_MB_MAX_VARIANTS 4

struct rl_mb_def {
    const char *name;      /* "bf16", "hbm-copy", "sweep-fp32", "gemm-fp8" */
    enum rl_mb_kind kind;
    const char *roof;      /* compute roof (rl_roof_from_spec name) or memory
                              level ("dram", "l2", "l1") it measures; NULL */
    const char *summary;
    struct rl_mb_variant variants[RL_MB_MAX_VARIANTS]; /* most specific first */
    int n_variants;
    /* Memory kernels: 16-byte accesses per loop iteration per thread, and
     * arrays read and written per element (bytes = (reads + writes) x n x 16). */
    const char *mem_kernel;
    int loads_per_iter, stores_per_iter;
    int reads, writes;
    const char *load_sass, *store_sass; /* their SASS opcodes */
};

/* Groups accepted by --only besides names. */
#define RL_MB_GROUPS "compute, tensor, cuda, memory, sweep, library"

/* Catalog */

/* Every benchmark, in run order; *n receives the count. */
const struct rl_mb_def *rl_mb_catalog(size_t *n);

/* A benchmark by name, or NULL. */
const struct rl_mb_def *rl_mb_find(const char *name);

/* Does def belong to group ("compute", "tensor", "cuda", "memory", "sweep",
 * "library") or have this name? */
bool rl_mb_matches(const struct rl_mb_def *def, const char *name_or_group);

/* Architecture rules */

/* The variant to run on a device of compute capability major.minor, or NULL
 * when the device lacks the instruction. *why then says why ("FP8 Tensor
 * Cores need compute capability 8.9 or 9.0: this GPU is 8.0"). Only for
 * kind RL_MB_COMPUTE. */
const struct rl_mb_variant *rl_mb_select(const struct rl_mb_def *def, int cc_major,
                                         int cc_minor, const char **why);

/* Is a non-compute benchmark possible on this device? (FP8 GEMM needs
 * 8.9+, ...). Same contract as rl_mb_select. */
bool rl_mb_supported(const struct rl_mb_def *def, int cc_major, int cc_minor,
                     const char **why);

/* Residency */

/* Dynamic shared memory per block that lets exactly `ctas` blocks share an
 * SM (so the hardware, not the grid, keeps CTAs that would find no TMEM
 * columns off it): smem_per_sm bytes per SM, reserved_per_block kept by the
 * system per block, static_bytes the kernel's own, max_dynamic the most a
 * block may ask for. Returns the bytes, or -1 when no size does it. */
long rl_mb_residency_smem_bytes(long smem_per_sm, long reserved_per_block, long static_bytes,
                                long max_dynamic, int ctas);

/* Blocks that fit an SM by shared memory alone, each taking per_block
 * bytes (static + dynamic) plus reserved_per_block. */
int rl_mb_blocks_by_smem(long smem_per_sm, long reserved_per_block, long per_block);

/* Accounting */

/* FLOPs of one launch of a compute variant: threads / issuer_threads x
 * iterations x per_iter x flop_per_instr. */
double rl_mb_launch_work(const struct rl_mb_variant *v, long long threads,
                         long long iters);

#ifdef __cplusplus
}
#endif

#endif
