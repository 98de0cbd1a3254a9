/* hfconfig.c - a Hugging Face config.json read into an LLM model: Llama 3/4, Qwen2.5/3 (dense and MoE), DeepSeek-V2/V3/R1 and Kimi K2 (MLA), gpt-oss, Mixtral, Mistral, Gemma 2/3, and the checkpoint's weight format.
 *
 * Which layers have experts, and which attend through a window, follow each
 * architecture's transformers code (the file named per family below); the
 * keys and their meaning are in data/models/README.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/llm/hfconfig.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const families[] = {
    "llama", "llama4", "llama4_text", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3",
    "qwen3_moe", "deepseek_v2", "deepseek_v3", "kimi_k2", "gpt_oss", "gemma", "gemma2",
    "gemma3", "gemma3_text", NULL};

/* Not a decoder-only transformer: state-space or hybrid recurrent layers,
 * encoder-decoders, encoders. */
static const char *const state_space[] = {
    "mamba", "mamba2", "falcon_mamba", "jamba", "bamba", "zamba", "zamba2", "falcon_h1",
    "nemotron_h", "granitemoehybrid", "rwkv", "rwkv5", "rwkv6", "rwkv7", "recurrent_gemma",
    "xlstm", "lfm2", "qwen3_next", NULL};
static const char *const encoder_decoder[] = {
    "t5", "mt5", "umt5", "longt5", "bart", "mbart", "pegasus", "marian", "whisper",
    "switch_transformers", "t5gemma", "seamless_m4t", "encoder-decoder", NULL};
static const char *const encoder_only[] = {"bert", "roberta", "xlm-roberta", "deberta",
                                           "deberta-v2", "distilbert", "electra",
                                           "modernbert", NULL};

/* Keys the model reads. */
static const char *const used[] = {
    "architectures", "model_type", "num_hidden_layers", "hidden_size", "intermediate_size",
    "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size",
    "tie_word_embeddings", "hidden_act", "hidden_activation", "num_local_experts",
    "num_experts", "n_routed_experts", "num_experts_per_tok", "experts_per_token",
    "moe_intermediate_size", "shared_expert_intermediate_size", "n_shared_experts",
    "first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers",
    "interleave_moe_layer_step", "moe_layers", "intermediate_size_mlp", "q_lora_rank",
    "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    "num_nextn_predict_layers", "layer_types", "sliding_window", "use_sliding_window",
    "max_window_layers", "sliding_window_pattern", "attention_chunk_size", "no_rope_layers",
    "no_rope_layer_interval", "attention_bias", "mlp_bias", "topk_method", "torch_dtype",
    "dtype", "quantization_config", "text_config", "is_encoder_decoder", "use_qk_norm",
    "_name_or_path", NULL};

/* Keys that change no FLOP nor byte: numerics, positions, tokens, routing
 * rules, training-only settings, the vision tower of a multimodal config
 * (not counted). */
static const char *const irrelevant[] = {
    "attention_dropout", "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range",
    "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
    "rope_parameters", "rope_local_base_freq", "transformers_version", "use_cache",
    "pretraining_tp", "auto_map", "output_router_logits", "router_aux_loss_coef",
    "aux_loss_alpha", "norm_topk_prob", "n_group", "topk_group", "routed_scaling_factor",
    "scoring_func", "ep_size", "seq_aux", "swiglu_limit", "initial_context_length",
    "attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar",
    "cache_implementation", "router_jitter_noise", "attn_temperature_tuning", "attn_scale",
    "floor_scale", "for_llm_compressor", "use_mrope", "vision_config", "boi_token_index",
    "eoi_token_index", "image_token_index", "image_token_id", "mm_tokens_per_image",
    "vision_feature_layer", "vision_feature_select_strategy", "projector_hidden_act",
    "multi_modal_projector_bias", "initializer_factor", "tokenizer_class", "rope_interleave",
    "router_z_loss_coef", "torchscript", "output_attentions", "output_hidden_states",
    "rope_type", "partial_rotary_factor", "embedding_multiplier", "max_seq_len",
    "attn_implementation", "bos_token", "eos_token", "chunk_size_feed_forward", NULL};

static bool in_list(const char *const *list, const char *s)
{
    for (; s && *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

/* A key's integer value; dflt when absent or null; -2 when not a whole
 * number in [0, 1e9). */
static int get_int(const cJSON *o, const char *key, int dflt)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it || cJSON_IsNull(it))
        return dflt;
    if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble >= 1e9 ||
        it->valuedouble != (double)(int)it->valuedouble)
        return -2;
    return (int)it->valuedouble;
}

static bool get_bool(const cJSON *o, const char *key, bool dflt)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(it) ? cJSON_IsTrue(it) : dflt;
}

static void set_bit(unsigned char *mask, int i)
{
    if (i >= 0 && i < RL_LLM_MAX_LAYERS)
        mask[i / 8] |= (unsigned char)(1u << (i % 8));
}

static void note_unknown(struct rl_llm_model *m, const char *key)
{
    size_t u = strlen(m->unknown_keys);
    snprintf(m->unknown_keys + u, sizeof m->unknown_keys - u, "%s%s", u ? ", " : "", key);
}

static void scan_keys(struct rl_llm_model *m, const cJSON *o, const char *prefix)
{
    for (const cJSON *it = o ? o->child : NULL; it; it = it->next) {
        if (in_list(used, it->string) || in_list(irrelevant, it->string))
            continue;
        char key[96];
        snprintf(key, sizeof key, "%s%s", prefix, it->string);
        note_unknown(m, key);
    }
}

/* A size that must be present and at least 1. */
static int need(int v, const char *key, const char *what, char *errmsg)
{
    if (v >= 1)
        return RL_OK;
    return rl_fail(errmsg, RL_ESCHEMA, "'%s': %s %s", what, key,
                   v == -2 ? "is not a whole number" : "is missing or below 1");
}

/* ---- the weight format ---------------------------------------------------------------- */

/* 4-bit integers with an FP16 scale (and a 4-bit zero point when
 * asymmetric) per group of g: 0.5 + (2 + 0.5) / g bytes (g <= 0: one scale
 * per output row, about 0.5). */
static double int4_bytes(int g, bool zero)
{
    return g > 0 ? 0.5 + (2 + (zero ? 0.5 : 0)) / g : 0.5;
}

static bool list_has(const cJSON *list, const char *needle)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        if (cJSON_IsString(it) && strstr(it->valuestring, needle))
            return true;
    }
    return false;
}

static void quant_of(struct rl_llm_model *m, const cJSON *q, const char *dtype)
{
    struct rl_llm_quant *w = &m->quant;
    m->has_quant = true;
    w->precision = dtype && strcmp(dtype, "float16") == 0 ? RL_LLM_FP16 : RL_LLM_BF16;
    snprintf(w->what, sizeof w->what, "%s (torch_dtype)",
             dtype ? (strcmp(dtype, "float32") == 0 ? "float32, served as bf16" : dtype)
                   : "bfloat16 by default");
    const char *method = rl_json_string(q, "quant_method");
    if (!method)
        return;
    const cJSON *skip = cJSON_GetObjectItemCaseSensitive(q, "modules_to_not_convert");
    if (strcmp(method, "fp8") == 0) {
        const cJSON *block = cJSON_GetObjectItemCaseSensitive(q, "weight_block_size");
        const cJSON *b0 = cJSON_GetArrayItem(block, 0), *b1 = cJSON_GetArrayItem(block, 1);
        if (cJSON_IsNumber(b0) && cJSON_IsNumber(b1) && b0->valuedouble * b1->valuedouble >= 1) {
            /* One FP32 scale per block. */
            w->precision = RL_LLM_FP8_BLOCK;
            w->weight_bytes = 1 + 4 / (b0->valuedouble * b1->valuedouble);
            snprintf(w->what, sizeof w->what,
                     "fp8 with an fp32 scale per %.0f x %.0f block (quantization_config)",
                     b0->valuedouble, b1->valuedouble);
        } else {
            w->precision = RL_LLM_FP8;
            snprintf(w->what, sizeof w->what, "fp8 (quantization_config)");
        }
    } else if (strcmp(method, "mxfp4") == 0) {
        w->precision = RL_LLM_MXFP4;
        w->experts_only = list_has(skip, "self_attn");
        snprintf(w->what, sizeof w->what, "mxfp4%s (quantization_config)",
                 w->experts_only ? " experts, the rest bf16" : "");
    } else if (strcmp(method, "modelopt") == 0) {
        const cJSON *inner = cJSON_GetObjectItemCaseSensitive(q, "quantization");
        const char *algo = rl_json_string(q, "quant_algo") ? rl_json_string(q, "quant_algo")
                                                           : rl_json_string(inner, "quant_algo");
        if (algo && strcasecmp(algo, "NVFP4") == 0) {
            w->precision = RL_LLM_NVFP4;
            snprintf(w->what, sizeof w->what, "nvfp4 (quantization_config, modelopt)");
        } else if (algo && strncasecmp(algo, "FP8", 3) == 0) {
            w->precision = RL_LLM_FP8;
            snprintf(w->what, sizeof w->what, "fp8 (quantization_config, modelopt)");
        } else {
            note_unknown(m, "quantization_config.quant_algo");
        }
    } else if (strcmp(method, "awq") == 0 || strcmp(method, "gptq") == 0) {
        const int bits = get_int(q, "bits", get_int(q, "w_bit", 4));
        /* group_size -1 (GPTQ): one scale per output row. */
        const cJSON *gs = cJSON_GetObjectItemCaseSensitive(q, "group_size");
        const int g = cJSON_IsNumber(gs) && gs->valuedouble < 0
                          ? 0
                          : get_int(q, "group_size", get_int(q, "q_group_size", 128));
        const bool zero = strcmp(method, "awq") == 0 ? get_bool(q, "zero_point", true)
                                                      : !get_bool(q, "sym", true);
        if (bits == 4) {
            w->precision = RL_LLM_W4A16;
            w->weight_bytes = int4_bytes(g, zero);
            char per[32] = "output row";
            if (g > 0)
                snprintf(per, sizeof per, "group of %d", g);
            snprintf(w->what, sizeof w->what,
                     "int4 (%s) with an fp16 scale%s per %s (quantization_config)", method,
                     zero ? " and a 4-bit zero" : "", per);
        } else {
            note_unknown(m, "quantization_config.bits");
        }
    } else if (strcmp(method, "compressed-tensors") == 0) {
        const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups");
        const cJSON *wq = cJSON_GetObjectItemCaseSensitive(groups ? groups->child : NULL,
                                                           "weights");
        const int bits = get_int(wq, "num_bits", 0), g = get_int(wq, "group_size", 0);
        const char *type = rl_json_string(wq, "type");
        const cJSON *ignore = cJSON_GetObjectItemCaseSensitive(q, "ignore");
        w->experts_only = list_has(ignore, "self_attn");
        if (bits == 4 && type && strcmp(type, "float") == 0) {
            w->precision = RL_LLM_NVFP4;
        } else if (bits == 4) {
            w->precision = RL_LLM_W4A16;
            w->weight_bytes = int4_bytes(g, !get_bool(wq, "symmetric", true));
        } else if (bits == 8 && type && strcmp(type, "float") == 0) {
            w->precision = RL_LLM_FP8;
        } else {
            w->experts_only = false;
            note_unknown(m, "quantization_config.config_groups");
            return;
        }
        snprintf(w->what, sizeof w->what, "%s%s (quantization_config, compressed-tensors)",
                 rl_llm_precision_name(w->precision), w->experts_only ? " experts" : "");
    } else {
        char key[96];
        snprintf(key, sizeof key, "quantization_config.quant_method '%.40s'", method);
        note_unknown(m, key);
    }
}

/* ---- layers ---------------------------------------------------------------------------- */

/* layer_types: "sliding_attention" / "chunked_attention" windowed, others
 * full. Returns the count windowed, or -1 when there is no list. */
static int layer_types(struct rl_llm_model *m, const cJSON *c)
{
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(c, "layer_types");
    if (!cJSON_IsArray(types))
        return -1;
    int i = 0, windowed = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, types)
    {
        const char *t = cJSON_IsString(it) ? it->valuestring : "";
        if (strstr(t, "sliding") || strstr(t, "chunked"))
            windowed++;
        else
            set_bit(m->full_mask, i);
        i++;
    }
    return windowed;
}

/* Which layers attend through a window, per family. */
static void windows(struct rl_llm_model *m, const cJSON *c, const char *type)
{
    int W = get_int(c, "sliding_window", 0);
    if (strncmp(type, "llama4", 6) == 0) /* chunked attention: a query sees its chunk */
        W = get_int(c, "attention_chunk_size", 0);
    if (W < 1)
        return;
    m->sliding_window = W;
    const int listed = layer_types(m, c);
    if (listed == 0) {
        m->sliding_window = 0;
        memset(m->full_mask, 0, sizeof m->full_mask);
    }
    if (listed >= 0)
        return;
    if (strcmp(type, "gemma2") == 0) { /* modeling_gemma2: even layers windowed */
        for (int i = 1; i < m->layers; i += 2)
            set_bit(m->full_mask, i);
    } else if (strncmp(type, "gemma3", 6) == 0) { /* every p-th layer global */
        const int p = get_int(c, "sliding_window_pattern", 6);
        for (int i = 0; p > 0 && i < m->layers; i++)
            if ((i + 1) % p == 0)
                set_bit(m->full_mask, i);
    } else if (strncmp(type, "llama4", 6) == 0) { /* no_rope_layers[i] 0: full (NoPE) */
        const cJSON *nope = cJSON_GetObjectItemCaseSensitive(c, "no_rope_layers");
        const int every = get_int(c, "no_rope_layer_interval", 4);
        for (int i = 0; i < m->layers; i++) {
            const cJSON *f = cJSON_GetArrayItem(nope, i);
            if (f ? cJSON_IsNumber(f) && f->valuedouble == 0 : every > 0 && (i + 1) % every == 0)
                set_bit(m->full_mask, i);
        }
    } else if (strncmp(type, "qwen", 4) == 0) { /* layers from max_window_layers windowed */
        if (!get_bool(c, "use_sliding_window", false)) {
            m->sliding_window = 0;
            return;
        }
        const int from = get_int(c, "max_window_layers", 0);
        for (int i = 0; i < from && i < m->layers; i++)
            set_bit(m->full_mask, i);
    } else if (strcmp(type, "gemma") == 0 || strncmp(type, "deepseek", 8) == 0 ||
               strcmp(type, "kimi_k2") == 0) {
        m->sliding_window = 0; /* no windowed attention in these families */
    } /* mistral, mixtral, llama: every layer */
}

/* Which layers have experts, per family; their widths. */
static int experts(struct rl_llm_model *m, const cJSON *c, const char *type, const char *what,
                   char *errmsg)
{
    const int F = get_int(c, "intermediate_size", -1);
    const bool deepseek = strncmp(type, "deepseek", 8) == 0 || strcmp(type, "kimi_k2") == 0;
    const bool qwen_moe = strstr(type, "qwen") && strstr(type, "_moe");
    const bool llama4 = strncmp(type, "llama4", 6) == 0;
    int E = get_int(c, deepseek ? "n_routed_experts" : qwen_moe ? "num_experts"
                                                                : "num_local_experts", 0);
    int k = get_int(c, "num_experts_per_tok", get_int(c, "experts_per_token", 1));
    m->ffn = F;
    m->experts = m->experts_per_token = 1;
    if (E == -2 || k == -2)
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': the experts' count is not a whole number",
                       what);
    if (E <= 1)
        return need(F, "intermediate_size", what, errmsg);
    if (k < 1 || k > E)
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': num_experts_per_tok %d is not in 1..%d",
                       what, k, E);
    m->experts = E;
    m->experts_per_token = k;
    if (deepseek || qwen_moe) { /* modeling_deepseek_v3, modeling_qwen3_moe */
        m->ffn = get_int(c, "moe_intermediate_size", -1);
        m->dense_ffn = F > 0 ? F : 0;
        const double shared = (double)get_int(c, "n_shared_experts", 0) * m->ffn;
        m->shared_ffn = !deepseek ? get_int(c, "shared_expert_intermediate_size", 0)
                        : shared < 1e9 ? (int)shared
                                       : -2;
        const int first = get_int(c, "first_k_dense_replace", 0);
        const int freq = get_int(c, "moe_layer_freq", 1);
        const int step = get_int(c, "decoder_sparse_step", 1);
        const cJSON *only = cJSON_GetObjectItemCaseSensitive(c, "mlp_only_layers"), *it;
        for (int i = 0; i < m->layers; i++)
            if (deepseek ? i < first || (freq > 0 && i % freq != 0)
                         : step > 0 && (i + 1) % step != 0)
                set_bit(m->dense_mask, i);
        cJSON_ArrayForEach(it, only)
        {
            if (cJSON_IsNumber(it))
                set_bit(m->dense_mask, (int)it->valuedouble);
        }
    } else if (llama4) { /* modeling_llama4: a shared expert of the routed width */
        m->dense_ffn = get_int(c, "intermediate_size_mlp", 0);
        m->shared_ffn = F;
        const cJSON *listed = cJSON_GetObjectItemCaseSensitive(c, "moe_layers"), *it;
        const int step = get_int(c, "interleave_moe_layer_step", 1);
        for (int i = 0; i < m->layers; i++)
            if (cJSON_IsArray(listed) || (step > 0 && (i + 1) % step != 0))
                set_bit(m->dense_mask, i);
        cJSON_ArrayForEach(it, listed)
        {
            if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble < RL_LLM_MAX_LAYERS)
                m->dense_mask[(int)it->valuedouble / 8] &=
                    (unsigned char)~(1u << ((int)it->valuedouble % 8));
        }
    }
    if (m->shared_ffn < 0 || m->dense_ffn < 0)
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': a shared or dense MLP width is not a whole "
                       "number", what);
    if (m->dense_ffn == 0 && rl_llm_moe_layers(m) < m->layers)
        return need(0, "intermediate_size (of the dense layers)", what, errmsg);
    return need(m->ffn, deepseek || qwen_moe ? "moe_intermediate_size" : "intermediate_size",
                what, errmsg);
}

/* ---- the config ---------------------------------------------------------------------------- */

static int refuse(const cJSON *doc, const cJSON *c, const char *type, const char *what,
                  char *errmsg)
{
    if (get_bool(doc, "is_encoder_decoder", false) || get_bool(c, "is_encoder_decoder", false))
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "'%s': is_encoder_decoder: an encoder-decoder model is not modelled "
                       "(decoder-only transformers are)", what);
    if (!type)
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "'%s': model_type is missing: not a Hugging Face model config", what);
    if (in_list(state_space, type))
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "'%s': model_type '%s': a state-space or recurrent model is not "
                       "modelled (decoder-only transformers are)", what, type);
    if (in_list(encoder_decoder, type) || in_list(encoder_only, type))
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "'%s': model_type '%s': an encoder%s model is not modelled "
                       "(decoder-only transformers are)", what, type,
                       in_list(encoder_only, type) ? "-only" : "-decoder");
    if (!in_list(families, type))
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "'%s': model_type '%s' is not modelled (llama, llama4, mistral, "
                       "mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, "
                       "kimi_k2, gpt_oss, gemma, gemma2, gemma3 are)", what, type);
    return RL_OK;
}

int rl_llm_hf_parse(struct rl_llm_model *m, const char *text, size_t len, const char *what,
                    const char *id, char *errmsg)
{
    memset(m, 0, sizeof *m);
    cJSON *doc;
    int rc = rl_json_parse(text, len, what, &doc, errmsg);
    if (rc)
        return rc;
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': a config.json is a JSON object", what);
    }
    const cJSON *text_config = cJSON_GetObjectItemCaseSensitive(doc, "text_config");
    const cJSON *c = cJSON_IsObject(text_config) ? text_config : doc;
    const char *type = rl_json_string(c, "model_type") ? rl_json_string(c, "model_type")
                                                       : rl_json_string(doc, "model_type");
    if ((rc = refuse(doc, c, type, what, errmsg))) {
        cJSON_Delete(doc);
        return rc;
    }
    snprintf(m->model_type, sizeof m->model_type, "%s", type);
    snprintf(m->id, sizeof m->id, "%s", id ? id : type);
    const char *named = rl_json_string(doc, "_name_or_path");
    snprintf(m->name, sizeof m->name, "%s", named && named[0] ? named : m->id);
    snprintf(m->source, sizeof m->source, "%s", what);
    scan_keys(m, c, c == doc ? "" : "text_config.");
    if (c != doc)
        scan_keys(m, doc, "");

    const bool mla = get_int(c, "kv_lora_rank", 0) > 0;
    const bool gemma = strncmp(type, "gemma", 5) == 0;
    m->layers = get_int(c, "num_hidden_layers", -1);
    m->hidden = get_int(c, "hidden_size", -1);
    m->heads = get_int(c, "num_attention_heads", -1);
    m->kv_heads = mla ? m->heads : get_int(c, "num_key_value_heads", m->heads);
    m->vocab = get_int(c, "vocab_size", -1);
    m->tied = get_bool(c, "tie_word_embeddings", get_bool(doc, "tie_word_embeddings", gemma));
    m->gated = true; /* SwiGLU (Llama, Qwen, Mistral, DeepSeek, gpt-oss), GeGLU (Gemma) */
    if ((rc = need(m->layers, "num_hidden_layers", what, errmsg)) ||
        (rc = need(m->hidden, "hidden_size", what, errmsg)) ||
        (rc = need(m->heads, "num_attention_heads", what, errmsg)) ||
        (rc = need(m->kv_heads, "num_key_value_heads", what, errmsg)) ||
        (rc = need(m->vocab, "vocab_size", what, errmsg)))
        goto out;
    if (m->layers > RL_LLM_MAX_LAYERS) {
        rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': num_hidden_layers %d is above %d", what,
                     m->layers, RL_LLM_MAX_LAYERS);
        goto out;
    }
    if (m->heads % m->kv_heads) {
        rc = rl_fail(errmsg, RL_ESCHEMA,
                     "'%s': num_attention_heads %d is not a multiple of num_key_value_heads %d",
                     what, m->heads, m->kv_heads);
        goto out;
    }
    if (mla) { /* modeling_deepseek_v3: MLA */
        m->q_lora_rank = get_int(c, "q_lora_rank", 0);
        m->kv_lora_rank = get_int(c, "kv_lora_rank", 0);
        m->qk_nope_dim = get_int(c, "qk_nope_head_dim", -1);
        m->qk_rope_dim = get_int(c, "qk_rope_head_dim", -1);
        m->v_head_dim = get_int(c, "v_head_dim", -1);
        if ((rc = need(m->qk_nope_dim, "qk_nope_head_dim", what, errmsg)) ||
            (rc = need(m->qk_rope_dim, "qk_rope_head_dim", what, errmsg)) ||
            (rc = need(m->v_head_dim, "v_head_dim", what, errmsg)) ||
            (rc = m->q_lora_rank < 0 ? need(-2, "q_lora_rank", what, errmsg) : RL_OK))
            goto out;
        m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
    } else {
        const int d = get_int(c, "head_dim", 0);
        m->head_dim = d > 0 ? d : m->hidden / m->heads;
        if ((rc = need(m->head_dim, "head_dim", what, errmsg)))
            goto out;
    }
    m->mtp_layers = get_int(c, "num_nextn_predict_layers", 0) > 0
                        ? get_int(c, "num_nextn_predict_layers", 0)
                        : 0;
    if ((rc = experts(m, c, type, what, errmsg)))
        goto out;
    windows(m, c, type);
    const bool bias = get_bool(c, "attention_bias", false);
    m->qkv_bias = strncmp(type, "qwen2", 5) == 0 || (bias && !mla); /* qwen2: q, k, v biased */
    m->o_bias = bias && !mla;
    m->mlp_bias = get_bool(c, "mlp_bias", false) || strcmp(type, "gpt_oss") == 0;
    m->router_bias = strcmp(type, "gpt_oss") == 0 ||
                     (rl_json_string(c, "topk_method") &&
                      strcmp(rl_json_string(c, "topk_method"), "noaux_tc") == 0);
    m->attn_sinks = strcmp(type, "gpt_oss") == 0;
    m->shared_gate = strcmp(type, "qwen2_moe") == 0 && m->shared_ffn > 0;
    m->qk_norm = strncmp(type, "qwen3", 5) == 0 || strncmp(type, "gemma3", 6) == 0;
    m->norms_per_layer = strcmp(type, "gemma2") == 0 || strncmp(type, "gemma3", 6) == 0 ? 4 : 2;
    {
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(doc, "quantization_config");
        const char *dtype = rl_json_string(c, "torch_dtype") ? rl_json_string(c, "torch_dtype")
                            : rl_json_string(c, "dtype")     ? rl_json_string(c, "dtype")
                            : rl_json_string(doc, "torch_dtype");
        quant_of(m, q ? q : cJSON_GetObjectItemCaseSensitive(c, "quantization_config"), dtype);
    }
out:
    cJSON_Delete(doc);
    return rc;
}
