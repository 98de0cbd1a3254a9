/* counts.h - the hardware-counter quantities roofline reads per kernel, and the FLOPs and bytes derived from them. */
#ifndef RL_COUNTS_H
#define RL_COUNTS_H

#include <stdbool.h>
#include <stddef.h>

/* What a kernel record needs, each read through one metric or a sum of
 * metrics; the chip decides which name exists. */
enum rl_q {
    RL_Q_TIME_NS,
    RL_Q_DADD, RL_Q_DMUL, RL_Q_DFMA,
    RL_Q_FADD, RL_Q_FMUL, RL_Q_FFMA,
    RL_Q_HADD, RL_Q_HMUL, RL_Q_HFMA,
    RL_Q_DRAM_READ, RL_Q_DRAM_WRITE, RL_Q_L2_BYTES, RL_Q_L1_BYTES,
    RL_Q_TENSOR_BF16, RL_Q_TENSOR_FP8, RL_Q_TENSOR_FP16, RL_Q_TENSOR_TF32,
    RL_Q_TENSOR_INT8, RL_Q_TENSOR_FP64, RL_Q_TENSOR_FP4,
    RL_Q_COUNT
};

#define RL_Q_MAX_CANDIDATES 3
#define RL_Q_MAX_TERMS 2

struct rl_q_def {
    const char *key;          /* "dram_read_bytes" */
    bool required;            /* in every set; else optional (tensor ops) */
    const char *roof;         /* tensor quantities: the roof they feed ("bf16") */
    /* Candidates, first valid wins; each a '+'-joined sum of metrics. */
    const char *candidates[RL_Q_MAX_CANDIDATES];
};

/* The quantity table; *n receives its length (RL_Q_COUNT). */
const struct rl_q_def *rl_q_defs(size_t *n);

/* FLOPs and bytes of a record, derived in one place. */
struct rl_kernel_counts {
    double flops;               /* total, NAN when nothing counted */
    double flops_fp64, flops_fp32, flops_fp16;
    double flops_tensor;        /* all Tensor Core FLOPs */
    double flops_tensor_by[RL_Q_COUNT]; /* per tensor quantity */
    const char *precision;      /* roof of the largest share: "bf16", "fp32", ... */
    double dram_read_bytes, dram_write_bytes, dram_bytes, l2_bytes, l1_bytes;
    double time_ns;             /* gpu__time_duration (NAN without counters) */
};

/* Derive counts from quantities. CUDA-core FLOPs: add + mul + 2 fma per
 * thread instruction; FP16 counters count paired (half2) instructions, so
 * FP16 FLOPs are twice that (an upper bound when scalar HADD/HFMA run).
 * Tensor FLOPs: ops x tensor_flops_per_op (calibrated at start-up). */
void rl_counts_derive(const double *q, double tensor_flops_per_op, struct rl_kernel_counts *out);

#endif
