/* layout.h - one LLM step on a parallel layout: one GPU's operators, the communication each split adds, the pipeline bubble, and what bounds the step. */
#ifndef RL_LLM_LAYOUT_H
#define RL_LLM_LAYOUT_H

#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/model/ceilings.h"

#define RL_LLM_MAX_COMM 8

struct rl_system;
struct rl_comm_results;

/* How the layout's GPUs are joined, for the collective model
 * (analyzer/comm/collective.h: rl_fabric_build over the GPU's datasheet
 * links, or a system of data/systems). Groups are placed as Megatron-LM
 * orders ranks, TP fastest, then EP, DP and PP: a group of n GPUs at
 * stride k spans ceil(n k / gpus_per_node) nodes. */
struct rl_llm_net {
    const struct rl_gpu_spec *spec;
    const struct rl_system *sys;   /* NULL: the GPU's own links */
    int gpus_per_node;             /* the system's, or 8 */
    double nic_gbps;               /* between nodes, Gb/s per NIC; NAN: the system's */
    int nics_per_node;             /* 0: one per GPU */
    /* Between nodes when neither sys nor nic_gbps says: the NICs of this
     * system (one of data/systems with this GPU); NULL none. */
    const struct rl_system *nic_system;
    /* Measured bus bandwidths (`roofline comm --measure`, --comm FILE):
     * a collective of a group of the GPU count and nodes measured is
     * timed on them, nccl-tests' bytes x factor / busbw at its size
     * (origin measured); others on the analytic model. NULL none. */
    const struct rl_comm_results *measured;
};

/* One collective a split adds, timed by the collective model. */
struct rl_llm_comm {
    char name[32];             /* "TP all-reduce", "PP send/recv", "DP gradients" */
    char collective[24];       /* "allreduce", "sendrecv", "alltoall", ... */
    int gpus;                  /* in its group */
    double bytes;              /* per call: nccl-tests' size */
    double calls;              /* per step, per GPU */
    bool in_pipeline;          /* part of each microbatch's stage time (TP, PP, EP);
                                * else once per step (DP) */
    double time_us;            /* per call */
    double nic_share;          /* of the node's NICs this group has (the rest carry
                                * the other groups' same collective); 1 inside a node */
    char link[96];             /* the link that binds it */
    double link_gbs;
    enum rl_origin origin;     /* analytic (the collective model), or measured (--comm) */
    enum rl_origin link_origin;
};

enum rl_llm_bound { RL_LLM_BOUND_COMPUTE, RL_LLM_BOUND_MEMORY, RL_LLM_BOUND_COMM, RL_LLM_BOUND_BUBBLE };

/* One step: a decode step (a token for each sequence), a prefill, or a
 * training step (forward, backward, optimizer) of `batch` sequences in all. */
struct rl_llm_step {
    enum rl_llm_phase phase;
    struct rl_llm_layout layout;
    int batch, seq;
    struct rl_llm_phase_cost micro;   /* one GPU, one microbatch, on the roofline */
    struct rl_llm_op optimizer;       /* training: the Adam step of the GPU's partition */
    struct rl_llm_comm comm[RL_LLM_MAX_COMM];
    int n_comm;
    /* The step, split (ns): operators compute-bound and memory-bound on
     * the roofline, communication, the pipeline's idle time. */
    double compute_ns, memory_ns, comm_ns, bubble_ns, time_ns;
    /* Communication hidden behind compute (layout.overlap): not in time_ns. */
    double comm_hidden_ns;
    double bubble_fraction;           /* (P - 1) / (v M + P - 1) */
    /* A prediction: compute at layout.efficiency of the roof (else the
     * roofline bound: every roof reached). */
    bool predicted;
    double flops_per_gpu;             /* the GPU's FLOPs of the step */
    double tokens;                    /* generated (decode) or processed per step */
    enum rl_llm_bound bound;
    char why[320];                    /* "TP 8 decode is bound by NVLink: 62% ..." */
};

const char *rl_llm_bound_name(enum rl_llm_bound b); /* "compute", "memory", "communication", "bubble" */

/* The roof of the step's compute-bound operators: the one of the operator
 * that takes the most time ("bf16"); NULL where none is compute-bound. */
const char *rl_llm_step_roof(const struct rl_llm_step *s);

/* A compute roof's label by its name ("BF16 Tensor Core"); the name where
 * c has no such roof, NULL for NULL. */
const char *rl_llm_roof_label(const struct rl_ceilings *c, const char *name);

/* What bounds the step, as every table says it: "memory (DRAM)",
 * "compute (BF16 Tensor Core)", "communication", "bubble". */
void rl_llm_step_bound_text(char *buf, size_t cap, const struct rl_llm_step *s,
                            const struct rl_ceilings *c);

/* The pipeline bubble of P stages and M microbatches (Narayanan et al.
 * 2021, section 2.2.1): (P - 1) / (M + P - 1). */
double rl_llm_bubble_fraction(int pp, int microbatches);
/* With v model chunks per stage (interleaved 1F1B, Narayanan et al. 2021
 * section 2.2.2): the bubble is (P - 1) / v microbatch times, a fraction
 * (P - 1) / (v M + P - 1) of the pipeline's time. */
double rl_llm_bubble_fraction_interleaved(int pp, int microbatches, int v);

/* The step on ceilings c, its collectives timed on net (NULL: none counted,
 * as on one GPU). The layout must pass rl_llm_split_check; 0, the
 * roofline's error (a roof the GPU lacks) or the collective model's (a
 * group across nodes without a NIC rate, a GPU without links). */
int rl_llm_step(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                const struct rl_llm_layout *lay, enum rl_llm_phase phase, int batch, int seq,
                struct rl_ceilings *c, const struct rl_llm_net *net, struct rl_llm_step *out,
                char *errmsg);

/* The smallest batch (sequences per step over all GPUs) from which every
 * decode linear layer of one GPU of the layout is compute-bound: its
 * shard's shapes at its microbatch as rl_llm_step cuts it (ceil(ceil(b /
 * (dp ep)) / M) sequences), so DP 4 needs 4 x the one-GPU crossover and
 * TP's narrower layers more still; 0 when none up to max_batch. One GPU:
 * rl_llm_crossover_batch's. */
int rl_llm_layout_crossover_batch(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                                  const struct rl_llm_layout *lay, int seq, struct rl_ceilings *c,
                                  int max_batch);

/* Nodes a group of n GPUs at rank stride `stride` spans, gpus_per_node to
 * a node (a divisor of n). */
int rl_llm_group_nodes(int n, int stride, int gpus_per_node);

#endif
