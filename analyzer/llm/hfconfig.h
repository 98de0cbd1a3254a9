/* hfconfig.h - a Hugging Face config.json read into an LLM model: Llama 3/4, Qwen2.5/3 (dense and MoE), DeepSeek-V2/V3/R1 and Kimi K2 (MLA), gpt-oss, Mixtral, Mistral, Gemma 2/3, and the checkpoint's weight format. */
#ifndef RL_LLM_HFCONFIG_H
#define RL_LLM_HFCONFIG_H

#include "analyzer/llm/llm.h"

#include <stddef.h>

/* Parse a config.json held in text (len bytes); `what` names it in errors
 * (its path), id becomes m->id. Keys under "text_config" are the model's
 * when present (Llama 4, Gemma 3); quantization_config and torch_dtype (or
 * dtype) give m->quant. Keys it does not use nor know to be irrelevant to
 * cost are listed in m->unknown_keys. Returns 0; RL_EPARSE for malformed
 * JSON ("'<what>': line L, column C: ..."); RL_EUNSUPPORTED for a config
 * it cannot model, naming the key ("'<what>': is_encoder_decoder: an
 * encoder-decoder model is not modelled", "model_type 'mamba': a
 * state-space model ..."); RL_ESCHEMA for a size missing or out of range,
 * naming the key. */
int rl_llm_hf_parse(struct rl_llm_model *m, const char *text, size_t len, const char *what,
                    const char *id, char *errmsg);

#endif
