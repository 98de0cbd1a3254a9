/* plan.h - which parallel layout of N GPUs runs a model fastest: every TP x PP x DP (x EP) split that fits, ranked by predicted step time. */
#ifndef RL_LLM_PLAN_H
#define RL_LLM_PLAN_H

#include "analyzer/llm/layout.h"
#include "analyzer/util/error.h"
#include "analyzer/llm/memory.h"

#include <stddef.h>

/* What to plan for. */
struct rl_llm_plan_request {
    int gpus;                  /* N: tp x pp x dp x ep = N */
    int max_tp;                /* TP stays inside a scale-up domain (8 in a DGX node) */
    enum rl_llm_phase phase;   /* RL_LLM_DECODE, RL_LLM_PREFILL or RL_LLM_TRAIN */
    int batch, seq;            /* sequences per step over all GPUs; context or length */
    int zero;                  /* training: ZeRO stage */
    /* Training: as struct rl_llm_layout's (memory.h); virtual_stages
     * applies to the splits whose stages it divides the layers of (the
     * others run one chunk a stage), seq_parallel to those with TP. */
    enum rl_llm_recompute recompute;
    bool seq_parallel, unfused_attention;
    int virtual_stages;
    unsigned overlap;
    double efficiency;         /* 0: bound; else the step predicted at it */
};

/* One layout: its step (the best microbatch count that fits) and memory. */
struct rl_llm_candidate {
    struct rl_llm_step step;   /* step.layout is the layout */
    struct rl_llm_memory mem;
    bool fits;
    double tokens_per_s;
};

struct rl_llm_plan {
    struct rl_llm_candidate *c; /* those that fit, fastest first, then those that do not
                                 * (least memory first) */
    size_t n, n_fit;
    /* Layouts left out because the collective model cannot time them
     * (groups across nodes with no NIC rate known): how many, and why the
     * first was. */
    size_t n_skipped;
    char skipped_why[RL_ERRMSG_SIZE];
};

/* Enumerate every split of req->gpus GPUs (tp dividing heads, within
 * max_tp; pp at most the layers; ep dividing the experts of a MoE; dp the
 * rest) that rl_llm_split_check accepts; for each, the microbatch counts
 * M = 1 and pp x 2^k up to the sequences of a GPU, keeping the fastest
 * that fits (else the one of least memory); rank. A layout the collective
 * model refuses (nodes without a NIC rate) is skipped and counted. 0,
 * RL_ENOMEM, RL_EINVAL (no split of N exists, or every one was skipped:
 * the first reason) or another step error. The plan is released with
 * rl_llm_plan_release. */
int rl_llm_plan_build(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                      const struct rl_llm_plan_request *req, struct rl_ceilings *c,
                      const struct rl_llm_net *net, const struct rl_llm_capacity *cap,
                      struct rl_llm_plan *out, char *errmsg);
void rl_llm_plan_release(struct rl_llm_plan *p);

/* The fewest GPUs, at most max_gpus, whose plan (req at that count: the
 * same splits, microbatch counts and skips as rl_llm_plan_build) has a
 * layout that fits: *gpus gets the count, 0 when none; *best (when not
 * NULL) that plan's first candidate (the fastest that fits). 0, or
 * RL_ENOMEM or a step error with errmsg. */
int rl_llm_plan_min_gpus(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                         const struct rl_llm_plan_request *req, struct rl_ceilings *c,
                         const struct rl_llm_net *net, const struct rl_llm_capacity *cap,
                         int max_gpus, int *gpus, struct rl_llm_candidate *best, char *errmsg);

#endif
