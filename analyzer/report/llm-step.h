/* llm-step.h - the headline of a serving or training step of a known LLM (report --torch --model): what bounds it, and what its memory-bound time reads. */
#ifndef RL_REPORT_LLM_STEP_H
#define RL_REPORT_LLM_STEP_H

#include "analyzer/llm/llm.h"
#include "analyzer/model/ceilings.h"

struct rl_report;

/* Put in front of r's step headline (rl_report_step_build first) one
 * sentence: the step's tokens a forward (the fused MoE's first dimension),
 * the bound that holds most of its GPU time, the share of the GPU time in
 * memory-bound kernels and what they read (expert weights, the KV cache,
 * activations), at what share of the DRAM roof, and the unknown share.
 * 0, or RL_EINVAL without a step. */
int rl_report_llm_headline(struct rl_report *r, const struct rl_ceilings *c,
                           const struct rl_llm_model *m, char *errmsg);

#endif
