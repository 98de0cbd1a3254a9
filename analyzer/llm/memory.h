/* memory.h - LLM memory per GPU: weights, KV cache, activations, gradients and optimizer states of a parallel layout (ZeRO for training), against the GPU's memory less a reserve. */
#ifndef RL_LLM_MEMORY_H
#define RL_LLM_MEMORY_H

#include "analyzer/llm/llm.h"

#include <stdbool.h>

/* A parallel layout: tp x pp x ep GPUs hold one replica of the model, dp
 * replicas share the batch (tp x pp x dp x ep GPUs in all). */
struct rl_llm_layout {
    int tp, pp, dp, ep;
    int zero;               /* ZeRO stage 0..3 over dp (training) */
    int microbatches;       /* M: microbatches per step through the pipeline */
    bool train;             /* forward, backward and optimizer (else inference) */
    enum rl_llm_recompute recompute; /* training: activation recomputation */
    bool seq_parallel;      /* training: sequence parallelism over tp (llm.h) */
    bool unfused_attention; /* training: the scores through DRAM (llm.h) */
    /* Training: model chunks per pipeline stage (Megatron's interleaved
     * 1F1B, Narayanan et al. 2021 section 2.2.2); 0 or 1 none. */
    int virtual_stages;
    /* Training: collectives overlapped with compute (RL_LLM_OVERLAP_*). */
    unsigned overlap;
    /* Compute-bound operators at this fraction of the compute roof: 0 (or
     * 1), the roofline bound; else a prediction (layout.h). */
    double efficiency;
};

/* What overlaps compute (layout.c): the DP gradient reduction with the
 * backward (PyTorch FSDP's and DDP's default, Megatron-Core's
 * --overlap-grad-reduce), TP's collectives with the GEMMs (Megatron-Core's
 * --tp-comm-overlap, off by default there). */
#define RL_LLM_OVERLAP_DP 1u
#define RL_LLM_OVERLAP_TP 2u

#define RL_LLM_LAYOUT_ONE                                                                     \
    ((struct rl_llm_layout){.tp = 1, .pp = 1, .dp = 1, .ep = 1, .microbatches = 1})

static inline struct rl_llm_split rl_llm_layout_split(const struct rl_llm_layout *l)
{
    return (struct rl_llm_split){.tp = l->tp, .pp = l->pp, .ep = l->ep,
                                 .recompute = l->recompute, .seq_parallel = l->seq_parallel,
                                 .unfused_attention = l->unfused_attention};
}

static inline int rl_llm_layout_gpus(const struct rl_llm_layout *l)
{
    return l->tp * l->pp * l->dp * l->ep;
}

/* One GPU's memory, in bytes (the GPU of the largest pipeline stage). */
struct rl_llm_memory {
    double weights_bytes;      /* parameters; training: the 16-bit copy (ZeRO's 2 B) */
    double kv_cache_bytes;     /* inference */
    double activations_bytes;  /* inference: the live set of the largest operator;
                                * training: what the backward keeps */
    double gradients_bytes;    /* training: 2 B per parameter */
    double optimizer_bytes;    /* training: K = 12 B per parameter (Adam) */
    double total_bytes;
    double model_state_bytes;  /* weights + gradients + optimizer (ZeRO's model states) */
    double params;             /* parameters the GPU's stage and shard own (before ZeRO-3) */
    int sequences;             /* sequences per GPU: ceil(batch / (dp ep)) */
    int microbatch;            /* sequences per microbatch: ceil(sequences / M) */
    bool activations_counted;  /* false: a model of a parameter count alone */
};

/* The GPU's memory and what a run may use of it. */
struct rl_llm_capacity {
    double gpu_memory_bytes;   /* the datasheet's GB x 1e9 */
    double reserve_bytes;      /* RL_LLM_RESERVE_FIXED_BYTES + RL_LLM_RESERVE_FRACTION of it */
    double usable_bytes;
};

/* The reserve for the CUDA context, library workspaces (cuBLAS, NCCL
 * buffers) and the allocator's fragmentation; derivation in memory.c. */
#define RL_LLM_RESERVE_FIXED_BYTES 1e9
#define RL_LLM_RESERVE_FRACTION 0.05

void rl_llm_capacity_of(struct rl_llm_capacity *c, double memory_size_gb);

/* ZeRO (Rajbhandari et al. 2020, section 5, Figure 1) for mixed-precision
 * Adam: 2 B of parameters, 2 B of gradients, K = 12 B of optimizer state
 * per parameter; stage 1 partitions the optimizer state over dp, stage 2
 * also the gradients, stage 3 also the parameters. */
#define RL_ZERO_PARAM_BYTES 2.0
#define RL_ZERO_GRAD_BYTES 2.0
#define RL_ZERO_OPTIMIZER_BYTES 12.0
void rl_llm_zero_states(double params, int dp, int stage, double *weights_bytes,
                        double *gradients_bytes, double *optimizer_bytes);

/* Parameters on one GPU of the largest stage: ceil(layers / pp) layers,
 * each split over tp as rl_llm_phase_split splits it and its experts over
 * ep, plus the LM head (and the embedding without a pipeline). */
double rl_llm_params_per_gpu(const struct rl_llm_model *m, const struct rl_llm_split *sp);

/* Memory per GPU for `batch` sequences per step in all (over dp) of seq
 * tokens: context (inference) or length (training). The layout must pass
 * rl_llm_split_check. */
void rl_llm_memory_per_gpu(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                           const struct rl_llm_layout *lay, int batch, int seq,
                           struct rl_llm_memory *out);

static inline bool rl_llm_fits(const struct rl_llm_memory *mem, const struct rl_llm_capacity *c)
{
    return mem->total_bytes <= c->usable_bytes;
}

/* The largest batch (at most limit) whose memory fits; 0 when batch 1
 * does not. */
int rl_llm_max_batch(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                     const struct rl_llm_layout *lay, int seq, const struct rl_llm_capacity *c,
                     int limit);

/* The fewest GPUs that hold the model at this batch and seq: layouts of
 * tp' x pp' x dp x ep GPUs (ep, zero and microbatches as in lay; dp too,
 * except in training under ZeRO, where dp' is searched as well since it
 * partitions the states), tp' up to max_tp (a node), at each count the
 * most tp' first, then the fewest stages; 0 when none up to max_gpus.
 * *found (when not NULL) gets that layout. */
int rl_llm_min_gpus(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                    const struct rl_llm_layout *lay, int batch, int seq,
                    const struct rl_llm_capacity *c, int max_tp, int max_gpus,
                    struct rl_llm_layout *found);

#endif
