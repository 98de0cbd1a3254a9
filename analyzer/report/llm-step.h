/* llm-step.h - the headline of a serving or training step of a known LLM (report --torch --model): what bounds it, and what its memory-bound time reads. */
#ifndef RL_REPORT_LLM_STEP_H
#define RL_REPORT_LLM_STEP_H

#include "analyzer/llm/llm.h"
#include "analyzer/model/ceilings.h"

struct rl_report;

/* How one rank held the model: tp ranks share each expert's width, ep
 * the experts (0: from the trace, tp its world size, ep 1). */
struct rl_report_llm_layout {
    int tp, ep, world_size;     /* world_size: the trace's; <= 0 not given */
};

/* Put in front of r's step headline (rl_report_step_build first) one
 * sentence: the step's tokens a forward (the fused MoE's first dimension),
 * the bound that holds most of its GPU time, the share of the GPU time in
 * memory-bound kernels and what they read (expert weights, the KV cache,
 * activations), at what share of the DRAM roof, and the unknown share;
 * and a note saying the layout the MoE was costed on. 0, or RL_EINVAL
 * without a step. */
int rl_report_llm_headline(struct rl_report *r, const struct rl_ceilings *c,
                           const struct rl_llm_model *m, const struct rl_report_llm_layout *lay,
                           char *errmsg);

#endif
