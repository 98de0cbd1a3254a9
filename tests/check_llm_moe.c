/* check_llm_moe.c - tests of the model maths for today's LLMs: parameter totals against the published ones (DeepSeek, gpt-oss, Qwen3, Llama 4, Kimi K2, Mixtral, Gemma 3), MLA and sliding-window KV caches, MLA's absorbed decode, the experts a batch reads, EP. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/llm/hfconfig.h"
#include "analyzer/llm/layout.h"
#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/llm/plan.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/util/error.h"
#include "analyzer/util/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char data[1024];

static void setup(void)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_data_dir(data, sizeof data, err), 0);
}

static struct rl_llm_model load(const char *id)
{
    struct rl_llm_model m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_model_load(&m, data, id, err) == 0, "%s: %s", id, err);
    return m;
}

static struct rl_llm_model parse(const char *json)
{
    struct rl_llm_model m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_hf_parse(&m, json, strlen(json), "t.json", "t", err) == 0, "%s", err);
    return m;
}

/* Within 2% of a published figure. */
#define NEAR_PUBLISHED(x, published)                                                           \
    ck_assert_msg(fabs((x) / (published) - 1) < 0.02, "%s = %.5g, published %.5g", #x, (x),  \
                  (double)(published))

/* Configs of models whose config.json no public repository we found
 * commits, written from their published config.json values (the keys
 * that matter). */
static const char mixtral[] =
    "{\"architectures\": [\"MixtralForCausalLM\"], \"model_type\": \"mixtral\", "
    "\"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, "
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000, "
    "\"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"sliding_window\": null, "
    "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"rope_theta\": 1e6}";
static const char scout[] =
    "{\"architectures\": [\"Llama4ForConditionalGeneration\"], \"model_type\": \"llama4\", "
    "\"vision_config\": {\"hidden_size\": 1408}, \"text_config\": {\"model_type\": "
    "\"llama4_text\", \"hidden_size\": 5120, \"intermediate_size\": 8192, "
    "\"intermediate_size_mlp\": 16384, \"num_hidden_layers\": 48, \"num_attention_heads\": 40, "
    "\"num_key_value_heads\": 8, \"head_dim\": 128, \"vocab_size\": 202048, "
    "\"num_local_experts\": 16, \"num_experts_per_tok\": 1, \"interleave_moe_layer_step\": 1, "
    "\"attention_chunk_size\": 8192, \"use_qk_norm\": true, \"tie_word_embeddings\": false, "
    "\"torch_dtype\": \"bfloat16\"}}";
static const char maverick[] =
    "{\"model_type\": \"llama4\", \"text_config\": {\"model_type\": \"llama4_text\", "
    "\"hidden_size\": 5120, \"intermediate_size\": 8192, \"intermediate_size_mlp\": 16384, "
    "\"num_hidden_layers\": 48, \"num_attention_heads\": 40, \"num_key_value_heads\": 8, "
    "\"head_dim\": 128, \"vocab_size\": 202048, \"num_local_experts\": 128, "
    "\"num_experts_per_tok\": 1, \"interleave_moe_layer_step\": 2, "
    "\"attention_chunk_size\": 8192, \"tie_word_embeddings\": false}}";
static const char deepseek_v2[] =
    "{\"model_type\": \"deepseek_v2\", \"hidden_size\": 5120, \"intermediate_size\": 12288, "
    "\"moe_intermediate_size\": 1536, \"num_hidden_layers\": 60, \"num_attention_heads\": 128, "
    "\"num_key_value_heads\": 128, \"n_routed_experts\": 160, \"n_shared_experts\": 2, "
    "\"num_experts_per_tok\": 6, \"first_k_dense_replace\": 1, \"moe_layer_freq\": 1, "
    "\"q_lora_rank\": 1536, \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, "
    "\"qk_rope_head_dim\": 64, \"v_head_dim\": 128, \"vocab_size\": 102400, "
    "\"topk_method\": \"group_limited_greedy\", \"tie_word_embeddings\": false}";
static const char kimi_k2[] =
    "{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"model_type\": \"kimi_k2\", "
    "\"hidden_size\": 7168, \"intermediate_size\": 18432, \"moe_intermediate_size\": 2048, "
    "\"num_hidden_layers\": 61, \"num_attention_heads\": 64, \"num_key_value_heads\": 64, "
    "\"n_routed_experts\": 384, \"n_shared_experts\": 1, \"num_experts_per_tok\": 8, "
    "\"first_k_dense_replace\": 1, \"moe_layer_freq\": 1, \"q_lora_rank\": 1536, "
    "\"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
    "\"v_head_dim\": 128, \"vocab_size\": 163840, \"num_nextn_predict_layers\": 0, "
    "\"topk_method\": \"noaux_tc\", \"tie_word_embeddings\": false, \"quantization_config\": "
    "{\"quant_method\": \"fp8\", \"weight_block_size\": [128, 128]}}";
static const char qwen3_235b[] =
    "{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"model_type\": \"qwen3_moe\", "
    "\"hidden_size\": 4096, \"intermediate_size\": 12288, \"moe_intermediate_size\": 1536, "
    "\"num_hidden_layers\": 94, \"num_attention_heads\": 64, \"num_key_value_heads\": 4, "
    "\"head_dim\": 128, \"num_experts\": 128, \"num_experts_per_tok\": 8, "
    "\"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"vocab_size\": 151936, "
    "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}";
static const char gemma3_27b[] =
    "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"model_type\": \"gemma3\", "
    "\"text_config\": {\"model_type\": \"gemma3_text\", \"hidden_size\": 5376, "
    "\"intermediate_size\": 21504, \"num_hidden_layers\": 62, \"num_attention_heads\": 32, "
    "\"num_key_value_heads\": 16, \"head_dim\": 128, \"vocab_size\": 262208, "
    "\"sliding_window\": 1024, \"sliding_window_pattern\": 6}, \"torch_dtype\": \"bfloat16\"}";

static const struct rl_llm_op *find_op(const struct rl_llm_phase_cost *p, const char *name)
{
    for (int i = 0; i < p->n_ops; i++)
        if (strcmp(p->ops[i].name, name) == 0)
            return &p->ops[i];
    ck_abort_msg("no operator %s", name);
    return NULL;
}

START_TEST(shipped_configs_count_their_published_parameters)
{
    /* DeepSeek-V3 (H 7168, V 129280, 128 heads; qr 1536, kvr 512, dn 128,
     * dr 64, dv 128): attention per layer 7168 x 1536 + 1536 x 128 x 192 +
     * 7168 x 576 + 512 x 128 x 256 + 128 x 128 x 7168 = 187,105,280 plus
     * norms 1536 + 512 + 2 x 7168 = 16,384; 3 dense layers of 3 x 7168 x
     * 18432 = 396,361,728; 58 MoE layers of 256 x 3 x 7168 x 2048 =
     * 11,274,289,152 routed, 3 x 7168 x 2048 shared + 7168 x 256 router +
     * 256 correction biases = 45,875,456; embedding and head 2 x 129280 x
     * 7168, final norm 7168: 671,026,419,200 (DeepSeek's 671B, the main
     * model without its MTP module; with it, 685B on Hugging Face counts
     * the module's 11.6B and its copies of embedding and head). */
    struct rl_llm_model m = load("deepseek-v3");
    ck_assert_double_eq(rl_llm_params(&m), 671026419200.0);
    /* Active: less the embedding (129280 x 7168) and 248 of 256 experts
     * of 58 layers: 36,625,618,432 (DeepSeek's 36.6B, "37B"). */
    ck_assert_double_eq(rl_llm_active_params(&m), 36625618432.0);
    NEAR_PUBLISHED(rl_llm_active_params(&m), 37e9);
    /* MTP: one MoE layer (187,105,280 + 16,384 + 11,274,289,152 +
     * 45,875,456) + eh_proj 2 x 7168^2 + 3 norms of 7168. */
    ck_assert_int_eq(m.mtp_layers, 1);
    ck_assert_double_eq(rl_llm_mtp_params(&m), 11610068224.0);

    /* gpt-oss-120b (H 2880, 36 layers, 64 heads and 8 KV of 64, 128
     * experts of 2880, top 4): attention 2880 x 80 x 64 + 4096 x 2880 +
     * biases 5120 + 2880, sinks 64, norms 5760; experts 128 x 3 x 2880^2
     * with biases 128 x (5760 + 2880); router 2880 x 128 + 128; embedding
     * and head 2 x 201088 x 2880: 116,829,156,672 (OpenAI's 116.83B). */
    m = load("gpt-oss-120b");
    ck_assert_double_eq(rl_llm_params(&m), 116829156672.0);
    /* Active: 4 of 128 experts, without the embedding: 5.13B (OpenAI's). */
    ck_assert_double_eq(rl_llm_active_params(&m), 5132849472.0);
    m = load("gpt-oss-20b"); /* 24 layers, 32 experts: 20.9B and 3.6B */
    ck_assert_double_eq(rl_llm_params(&m), 20914757184.0);
    ck_assert_double_eq(rl_llm_active_params(&m), 3608307264.0);

    /* Qwen3-30B-A3B: 48 layers of attention 2048 x 5120 + 4096 x 2048,
     * q/k norms 2 x 128, norms 2 x 2048, 128 experts of 3 x 2048 x 768,
     * router 2048 x 128; embedding and head 2 x 151936 x 2048:
     * 30,532,122,624 (30.5B). Qwen's "3.3B activated" counts the
     * embedding: 3,041,867,776 + 151936 x 2048 = 3,353,032,704. */
    m = load("qwen3-30b-a3b");
    ck_assert_double_eq(rl_llm_params(&m), 30532122624.0);
    ck_assert_double_eq(rl_llm_active_params(&m), 3041867776.0);
    NEAR_PUBLISHED(rl_llm_active_params(&m) + 151936.0 * 2048, 3.3e9);
    ck_assert_str_eq(m.unknown_keys, "");
    /* Dense ones: Llama-3.1-8B is Llama-3-8B's shape (8,030,261,248); Qwen3-32B
     * 64 x (5120 x 10240 + 8192 x 5120 + 3 x 5120 x 25600 + 2 x 5120 + 256)
     * + 2 x 151936 x 5120 + 5120 = 32,762,123,264 (Qwen's 32.8B). */
    m = load("llama-3.1-8b");
    ck_assert_double_eq(rl_llm_params(&m), 8030261248.0);
    ck_assert_double_eq(rl_llm_active_params(&m), 8030261248.0 - 128256.0 * 4096);
    m = load("qwen3-32b");
    ck_assert_double_eq(rl_llm_params(&m), 32762123264.0);
    NEAR_PUBLISHED(rl_llm_params(&m), 32.8e9);
}
END_TEST

START_TEST(held_out_architectures_match_their_published_totals)
{
    /* Mixtral from its config.json is the shipped mixtral-8x7b, exactly. */
    struct rl_llm_model m = parse(mixtral);
    ck_assert_double_eq(rl_llm_params(&m), 46702792704.0);
    NEAR_PUBLISHED(rl_llm_active_params(&m), 12.9e9);
    ck_assert_int_eq(m.sliding_window, 0); /* "sliding_window": null */
    /* Llama 4 Scout: 109B, 17B active (Meta counts the embedding; the
     * vision tower, about 1B, is not counted here). Every layer MoE (step
     * 1) with a shared expert of 8192; chunked attention of 8192 on 3 of
     * every 4 layers. */
    m = parse(scout);
    NEAR_PUBLISHED(rl_llm_params(&m), 109e9);
    NEAR_PUBLISHED(rl_llm_active_params(&m) + 202048.0 * 5120, 17e9);
    ck_assert_int_eq(rl_llm_moe_layers(&m), 48);
    ck_assert_int_eq(m.shared_ffn, 8192);
    ck_assert_int_eq(rl_llm_sliding_layers(&m), 36);
    ck_assert(rl_llm_layer_is_sliding(&m, 2) && !rl_llm_layer_is_sliding(&m, 3));
    /* Llama 4 Maverick: 400B, 17B active; MoE every 2nd layer (1, 3, ...),
     * the other 24 dense of intermediate_size_mlp 16384. */
    m = parse(maverick);
    NEAR_PUBLISHED(rl_llm_params(&m), 400e9);
    NEAR_PUBLISHED(rl_llm_active_params(&m) + 202048.0 * 5120, 17e9);
    ck_assert_int_eq(rl_llm_moe_layers(&m), 24);
    ck_assert(!rl_llm_layer_is_moe(&m, 0) && rl_llm_layer_is_moe(&m, 1));
    ck_assert_int_eq(rl_llm_layer_ffn(&m, 0), 16384);
    /* DeepSeek-V2: 236B, 21B active; 2 shared experts of 1536. */
    m = parse(deepseek_v2);
    NEAR_PUBLISHED(rl_llm_params(&m), 236e9);
    NEAR_PUBLISHED(rl_llm_active_params(&m), 21e9);
    ck_assert_int_eq(m.shared_ffn, 3072);
    ck_assert(!m.router_bias); /* no correction biases without noaux_tc */
    /* Kimi K2: 1.04T, 32B active (Moonshot, without the embedding). */
    m = parse(kimi_k2);
    NEAR_PUBLISHED(rl_llm_params(&m), 1.04e12);
    NEAR_PUBLISHED(rl_llm_active_params(&m), 32e9);
    ck_assert_int_eq(rl_llm_moe_layers(&m), 60);
    ck_assert_int_eq(m.mtp_layers, 0);
    /* Qwen3-235B-A22B: 235B, 22B active with the embedding (Qwen's way). */
    m = parse(qwen3_235b);
    NEAR_PUBLISHED(rl_llm_params(&m), 235e9);
    NEAR_PUBLISHED(rl_llm_active_params(&m) + 151936.0 * 4096, 22e9);
    /* Gemma 3 27B: tied embedding, 4 norms a layer, q/k norms; 27B. Every
     * 6th layer global, the rest windowed to 1024: 10 of 62 global. */
    m = parse(gemma3_27b);
    ck_assert(m.tied);
    NEAR_PUBLISHED(rl_llm_params(&m), 27e9);
    ck_assert_int_eq(rl_llm_sliding_layers(&m), 52);
    ck_assert(rl_llm_layer_is_sliding(&m, 4) && !rl_llm_layer_is_sliding(&m, 5));
}
END_TEST

START_TEST(kv_cache_per_token_and_sequence)
{
    char err[RL_ERRMSG_SIZE];
    (void)err;
    struct rl_llm_model m = load("deepseek-v3");
    const struct rl_llm_config fp8 = {.precision = RL_LLM_FP8_BLOCK, .kv = RL_LLM_KV_FP8};
    const struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    /* MLA: 61 layers x (512 + 64) values, 1 byte (FP8) or 2 (BF16). */
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&m, &fp8), 61 * 576.0);
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&m, &bf16), 61 * 576.0 * 2);
    ck_assert_double_eq(rl_llm_kv_bytes_per_sequence(&m, &bf16, 1000), 61 * 576.0 * 2 * 1000);
    /* The latent is every head's: every TP GPU holds it all: 4 sequences
     * of 1000 tokens at TP 8 keep 4 x 1000 x 61 x 576 bytes on each. */
    ck_assert_double_eq(rl_llm_kv_share_per_gpu(&m, 8), 1);
    struct rl_llm_layout tp8 = RL_LLM_LAYOUT_ONE;
    tp8.tp = 8;
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &fp8, &tp8, 4, 1000, &mem);
    ck_assert_double_eq(mem.kv_cache_bytes, 4 * 1000 * 61 * 576.0);
    /* gpt-oss-120b: 2 x 8 x 64 x 2 = 2048 B per layer per token; 18 full
     * layers keep 4096 tokens, 18 windowed 128. */
    m = load("gpt-oss-120b");
    ck_assert_double_eq(rl_llm_kv_bytes_per_token_layer(&m, &bf16), 2048);
    ck_assert_double_eq(rl_llm_kv_bytes_per_sequence(&m, &bf16, 4096),
                        18 * 2048.0 * 4096 + 18 * 2048.0 * 128);
    ck_assert_double_eq(rl_llm_kv_share_per_gpu(&m, 4), 0.25); /* 2 of 8 KV heads */
    /* Shorter than the window: every layer all of it. */
    ck_assert_double_eq(rl_llm_kv_bytes_per_sequence(&m, &bf16, 100), 36 * 2048.0 * 100);
    /* Decode at batch 2, context 4096: the 18 full layers read K of 4096
     * positions x 8 KV heads x 64 x 2 B per sequence, the 18 windowed 128. */
    static struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 2, 4096, &p);
    ck_assert_int_eq(find_op(&p, "attn_scores")->count, 18);
    ck_assert_double_eq(find_op(&p, "attn_scores")->kv_bytes, 2 * 4096 * 8 * 64 * 2.0);
    ck_assert_int_eq(find_op(&p, "swa_av")->count, 18);
    ck_assert_double_eq(find_op(&p, "swa_av")->kv_bytes, 2 * 128 * 8 * 64 * 2.0);
    ck_assert_double_eq(find_op(&p, "swa_scores")->keys, 128);
    /* Prefill of 4096: a windowed layer's pairs 128 x 129 / 2 + 3968 x 128. */
    rl_llm_phase(&m, &bf16, RL_LLM_PREFILL, 1, 4096, &p);
    ck_assert_double_eq(find_op(&p, "swa_av")->flops, 2 * (8256.0 + 507904) * 64 * 64);
}
END_TEST

START_TEST(mla_decode_in_absorbed_form)
{
    struct rl_llm_model m = load("deepseek-v3");
    const struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    static struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 1, 2048, &p);
    /* Scores over the latent: 2 P nh (kvr + dr) + 6 P nh, P = 2048 keys,
     * nh 128: 2 x 2048 x 128 x 576 + 6 x 2048 x 128; the latent cache read
     * once, 2048 x 576 x 2 bytes. */
    const struct rl_llm_op *s = find_op(&p, "attn_scores");
    ck_assert_double_eq(s->flops, 301989888.0 + 1572864.0);
    ck_assert_double_eq(s->kv_bytes, 2048 * 576 * 2.0);
    ck_assert_int_eq(s->count, 61);
    ck_assert_double_eq(find_op(&p, "attn_av")->flops, 2 * 2048 * 128 * 512.0);
    /* W_UK and W_UV: 128 heads of 128 x 512: 2 x 128 x 128 x 512 FLOPs. */
    ck_assert_double_eq(find_op(&p, "q_absorb")->flops, 2 * 128 * 128 * 512.0);
    ck_assert_double_eq(find_op(&p, "v_absorb")->weight_bytes, 128 * 512 * 128 * 2.0);
    /* The cache write: 576 values of 2 bytes per token. */
    ck_assert_double_eq(find_op(&p, "kv_a_proj")->kv_bytes, 576 * 2.0);
    /* Prefill expands K and V instead: kv_b_proj 2 T kvr nh (dn + dv). */
    rl_llm_phase(&m, &bf16, RL_LLM_PREFILL, 1, 16, &p);
    ck_assert_double_eq(find_op(&p, "kv_b_proj")->flops, 2 * 16 * 512 * 128 * 256.0);
    ck_assert_double_eq(find_op(&p, "attn_scores")->flops,
                        2 * 136 * 128 * 192.0 + 6 * 136 * 128.0); /* 136 = 16 x 17 / 2 pairs */
    /* Expanded, every head its own K and V: q and k of 16 tokens x 128
     * heads x (128 + 64) x 2 bytes each, 786,432 + 786,432; AV reads V and
     * writes out, 16 x 128 x 128 x 2 each: 524,288 + 524,288, and its
     * FLOPs 2 x 136 x 128 x 128. */
    s = find_op(&p, "attn_scores");
    ck_assert_double_eq(s->act_bytes, 786432.0 + 786432.0);
    ck_assert_double_eq(s->kv_heads, 128);
    const struct rl_llm_op *v = find_op(&p, "attn_av");
    ck_assert_double_eq(v->act_bytes, 524288.0 + 524288.0);
    ck_assert_double_eq(v->flops, 2 * 136 * 128 * 128.0);
    ck_assert_double_eq(v->kv_heads, 128);
    /* Decode, absorbed: one token's q in the latent space with its rope
     * part, 128 x 576 x 2 = 147,456 bytes; out in the latent space, 128 x
     * 512 x 2 = 131,072; one latent "KV head". */
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 1, 2048, &p);
    s = find_op(&p, "attn_scores");
    ck_assert_double_eq(s->act_bytes, 147456);
    ck_assert_double_eq(s->kv_heads, 1);
    ck_assert_double_eq(find_op(&p, "attn_av")->act_bytes, 131072);
    ck_assert_double_eq(find_op(&p, "attn_av")->kv_heads, 1);
}
END_TEST

START_TEST(moe_decode_reads_the_experts_the_batch_picks)
{
    /* E (1 - (1 - k / E)^B): 1 token picks k; 2 tokens 256 (1 - (31/32)^2)
     * = 15.75 of DeepSeek's 256 top-8; a large batch all of them. */
    ck_assert_double_eq(rl_llm_expected_experts(256, 8, 1), 8);
    ck_assert_double_eq(rl_llm_expected_experts(256, 8, 2), 15.75);
    ck_assert_double_eq_tol(rl_llm_expected_experts(256, 8, 4096), 256, 1e-9);
    ck_assert_double_eq(rl_llm_expected_experts(1, 1, 7), 1);
    struct rl_llm_model m = load("deepseek-v3");
    struct rl_llm_config cfg;
    rl_llm_config_of_model(&m, RL_LLM_KV_FP8, &cfg);
    static struct rl_llm_phase_cost p;
    /* Batch 1: 8 experts' gate and up, 2 x 7168 x 2048 each, at 1 + 4 /
     * 16384 bytes (FP8 and its block scales). */
    const double wb = 1 + 4.0 / 16384;
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
    ck_assert_double_eq_tol(find_op(&p, "gate_up_proj")->weight_bytes, 8 * 2 * 7168 * 2048 * wb,
                            1e-3);
    ck_assert_int_eq(find_op(&p, "gate_up_proj")->count, 58);
    /* The shared expert is read whole at every batch, and the 3 dense layers. */
    ck_assert_double_eq(find_op(&p, "shared_down")->weight_bytes, 2048 * 7168 * wb);
    ck_assert_int_eq(find_op(&p, "dense_down")->count, 3);
    ck_assert_double_eq(find_op(&p, "dense_down")->weight_bytes, 18432 * 7168 * wb);
    /* Batch 2: 15.75 experts. */
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 2, 2048, &p);
    ck_assert_double_eq_tol(find_op(&p, "down_proj")->weight_bytes, 15.75 * 2048 * 7168 * wb,
                            1e-3);
    /* Batch 1 reads about the active parameters: 36.6e9 at ~1 byte, plus
     * the KV cache (61 x 576 x 2048 bytes at FP8) and activations. */
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
    double weights = 0;
    for (int i = 0; i < p.n_ops; i++)
        weights += p.ops[i].count * p.ops[i].weight_bytes;
    ck_assert_msg(weights > 36.6e9 && weights < 38.5e9, "%.4g", weights);
}
END_TEST

START_TEST(mla_without_query_compression)
{
    /* DeepSeek-V2-Lite's shape in small: q_lora_rank null, one dense layer
     * first. H 64, 4 heads, kvr 16, dn 8, dr 4, dv 8: attention 64 x 4 x
     * 12 + 64 x 20 + 16 x 4 x 16 + 4 x 8 x 64 = 7424, norms 16 + 2 x 64;
     * layer 0 dense 3 x 64 x 32 = 6144; layer 1 MoE 4 x 3 x 64 x 16 +
     * shared 3 x 64 x 16 + router 64 x 4 = 15616; embedding and head 2 x
     * 10 x 64 + 64: 2 x 7568 + 6144 + 15616 + 1344 = 38240. */
    struct rl_llm_model m = parse(
        "{\"model_type\": \"deepseek_v2\", \"hidden_size\": 64, \"intermediate_size\": 32, "
        "\"moe_intermediate_size\": 16, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
        "\"num_key_value_heads\": 4, \"vocab_size\": 10, \"q_lora_rank\": null, "
        "\"kv_lora_rank\": 16, \"qk_nope_head_dim\": 8, \"qk_rope_head_dim\": 4, "
        "\"v_head_dim\": 8, \"n_routed_experts\": 4, \"n_shared_experts\": 1, "
        "\"num_experts_per_tok\": 2, \"first_k_dense_replace\": 1, \"topk_method\": "
        "\"greedy\"}");
    ck_assert_double_eq(rl_llm_params(&m), 38240);
    /* Less the embedding (640) and 2 of 4 experts (6144). */
    ck_assert_double_eq(rl_llm_active_params(&m), 31456);
    const struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    ck_assert_double_eq(rl_llm_kv_bytes_per_token_layer(&m, &bf16), (16 + 4) * 2);
    static struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 1, 10, &p);
    /* The query straight from the hidden state: 64 -> 4 x 12. */
    ck_assert_double_eq(find_op(&p, "q_b_proj")->in, 64);
    ck_assert_double_eq(find_op(&p, "q_b_proj")->out, 48);
    for (int i = 0; i < p.n_ops; i++)
        ck_assert_str_ne(p.ops[i].name, "q_a_proj");
    /* A TP that does not divide the dense width is refused. */
    char err[RL_ERRMSG_SIZE];
    m.dense_ffn = 30;
    const struct rl_llm_split tp4 = {.tp = 4, .pp = 1, .ep = 1};
    ck_assert_int_eq(rl_llm_split_check(&m, &tp4, err), RL_EINVAL);
    ck_assert_msg(strstr(err, "dense MLP width 30") != NULL, "%s", err);
}
END_TEST

START_TEST(plan_spreads_deepseek_over_experts)
{
    struct rl_llm_model m = load("deepseek-v3");
    struct rl_llm_config cfg;
    rl_llm_config_of_model(&m, RL_LLM_KV_FP8, &cfg);
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    const struct rl_gpu_spec *b200 = rl_test_gpu("b200");
    ck_assert_int_eq(rl_ceilings_init(&c, b200, NULL, NULL, false, false, NULL, err), 0);
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, b200->memory_size_gb);
    struct rl_llm_net net = {.spec = b200, .gpus_per_node = 8, .nic_gbps = 400};
    struct rl_llm_plan_request req = {.gpus = 16, .max_tp = 8, .phase = RL_LLM_DECODE,
                                      .batch = 64, .seq = 2048};
    struct rl_llm_plan plan;
    ck_assert_msg(rl_llm_plan_build(&m, &cfg, &req, &c, &net, &cap, &plan, err) == 0, "%s",
                  err);
    bool ep = false;
    for (size_t i = 0; i < plan.n_fit; i++)
        ep = ep || plan.c[i].step.layout.ep > 1;
    ck_assert_msg(plan.n_fit > 0 && ep, "%zu fit, none with EP", plan.n_fit);
    rl_llm_plan_release(&plan);
}
END_TEST

START_TEST(ep_all_to_all_only_in_moe_layers)
{
    struct rl_llm_model m = load("deepseek-v3");
    struct rl_llm_config cfg;
    rl_llm_config_of_model(&m, RL_LLM_KV_FP8, &cfg);
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    const struct rl_gpu_spec *b200 = rl_test_gpu("b200");
    ck_assert_int_eq(rl_ceilings_init(&c, b200, NULL, NULL, false, false, NULL, err), 0);
    struct rl_llm_net net = {.spec = b200, .gpus_per_node = 8, .nic_gbps = 400};
    struct rl_llm_layout lay = RL_LLM_LAYOUT_ONE;
    lay.ep = 8;
    static struct rl_llm_step st;
    ck_assert_msg(rl_llm_step(&m, &cfg, &lay, RL_LLM_DECODE, 8, 2048, &c, &net, &st, err) == 0,
                  "%s", err);
    /* Two all-to-alls (there and back) in each of the 58 MoE layers, of
     * one token x 8 experts x 7168 x 1 byte (FP8 activations). */
    bool found = false;
    for (int i = 0; i < st.n_comm; i++)
        if (strcmp(st.comm[i].name, "EP all-to-all") == 0) {
            ck_assert_double_eq(st.comm[i].calls, 116);
            ck_assert_double_eq(st.comm[i].bytes, 8 * 7168.0);
            found = true;
        }
    ck_assert(found);
}
END_TEST

static Suite *moe_suite(void)
{
    Suite *s = suite_create("llm_moe");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, shipped_configs_count_their_published_parameters);
    tcase_add_test(core, held_out_architectures_match_their_published_totals);
    tcase_add_test(core, kv_cache_per_token_and_sequence);
    tcase_add_test(core, mla_decode_in_absorbed_form);
    tcase_add_test(core, moe_decode_reads_the_experts_the_batch_picks);
    tcase_add_test(core, mla_without_query_compression);
    tcase_add_test(core, plan_spreads_deepseek_over_experts);
    tcase_add_test(core, ep_all_to_all_only_in_moe_layers);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(moe_suite()); }
