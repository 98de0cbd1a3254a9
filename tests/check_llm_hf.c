/* check_llm_hf.c - tests of the Hugging Face config.json reader: which layers have experts or windows in each family, the stored weight format and --precision over it, files, folders and shipped ids, keys not understood, and configs that cannot be modelled. */
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

/* A small config of a family: H 64, 4 layers, 4 heads, vocab 10, plus extra. */
static struct rl_llm_model small(const char *type, const char *extra)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"model_type\": \"%s\", \"hidden_size\": 64, \"intermediate_size\": 32, "
             "\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"vocab_size\": 10%s%s}",
             type, extra[0] ? ", " : "", extra);
    return parse(json);
}

START_TEST(layers_of_each_kind)
{
    struct rl_llm_model m = load("deepseek-v3");
    /* first_k_dense_replace 3: layers 0-2 dense (18432 wide), 3-60 MoE. */
    ck_assert(!rl_llm_layer_is_moe(&m, 2) && rl_llm_layer_is_moe(&m, 3));
    ck_assert(rl_llm_layer_is_moe(&m, 60) && !rl_llm_layer_is_moe(&m, 61));
    ck_assert_int_eq(rl_llm_layer_ffn(&m, 0), 18432);
    ck_assert_int_eq(rl_llm_layer_ffn(&m, 3), 2048);
    ck_assert_int_eq(rl_llm_moe_layers(&m), 58);
    ck_assert_int_eq(m.shared_ffn, 2048);
    ck_assert(rl_llm_is_mla(&m));
    ck_assert_int_eq(m.head_dim, 192);
    /* gpt-oss: layer_types alternate, sliding first; window 128. */
    m = load("gpt-oss-120b");
    ck_assert_int_eq(m.sliding_window, 128);
    ck_assert(rl_llm_layer_is_sliding(&m, 0) && !rl_llm_layer_is_sliding(&m, 1));
    ck_assert_int_eq(rl_llm_sliding_layers(&m), 18);
    ck_assert(m.attn_sinks && m.mlp_bias && m.router_bias && m.o_bias && m.qkv_bias);
    /* Qwen MoE: decoder_sparse_step 2: MoE where i + 1 is even (layers 1
     * and 3), less mlp_only_layers [3]: layer 1 alone. */
    m = parse("{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"intermediate_size\": 256,"
              " \"moe_intermediate_size\": 32, \"shared_expert_intermediate_size\": 128,"
              " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"num_experts\": 8,"
              " \"num_experts_per_tok\": 2, \"decoder_sparse_step\": 2,"
              " \"mlp_only_layers\": [3], \"vocab_size\": 100}");
    ck_assert(!rl_llm_layer_is_moe(&m, 0) && rl_llm_layer_is_moe(&m, 1));
    ck_assert(!rl_llm_layer_is_moe(&m, 2) && !rl_llm_layer_is_moe(&m, 3));
    ck_assert_int_eq(m.shared_ffn, 128);
    ck_assert(m.qkv_bias && !m.o_bias); /* Qwen2: q, k, v biased */
    /* H 64, d 16: per layer attention 64 x 192 + 64 x 64 + qkv biases 192
     * + norms 128 = 16,704; 1 MoE layer of 8 x 3 x 64 x 32 + 3 x 64 x 128
     * + router 64 x 8 + shared-expert gate 64 = 74,304; 3 dense of 3 x 64 x
     * 256 = 49,152; V H x 2 + H = 12,864: 66,816 + 74,304 + 147,456 +
     * 12,864. */
    ck_assert(m.shared_gate);
    ck_assert_double_eq(rl_llm_params(&m), 301440.0);
    /* Llama 4 with moe_layers listed: those only. */
    m = parse("{\"model_type\": \"llama4_text\", \"hidden_size\": 64, \"intermediate_size\": "
              "32, \"intermediate_size_mlp\": 128, \"num_hidden_layers\": 4, "
              "\"num_attention_heads\": 4, \"num_local_experts\": 4, \"num_experts_per_tok\":"
              " 1, \"moe_layers\": [1, 3], \"vocab_size\": 100}");
    ck_assert(!rl_llm_layer_is_moe(&m, 0) && rl_llm_layer_is_moe(&m, 1));
    ck_assert(!rl_llm_layer_is_moe(&m, 2) && rl_llm_layer_is_moe(&m, 3));
    ck_assert_int_eq(rl_llm_layer_ffn(&m, 0), 128);
    ck_assert_int_eq(rl_llm_layer_ffn(&m, 1), 32);
}
END_TEST

START_TEST(weight_formats_from_the_config)
{
    /* DeepSeek-V3: FP8 with an FP32 scale per 128 x 128 block, everything
     * linear; the default of --precision. */
    struct rl_llm_model m = load("deepseek-v3");
    struct rl_llm_config cfg;
    char line[512];
    rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
    ck_assert_int_eq(cfg.precision, RL_LLM_FP8_BLOCK);
    ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, true), 1 + 4.0 / 16384);
    ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, false), 1 + 4.0 / 16384);
    rl_llm_weights_text(line, sizeof line, &m, &cfg, false);
    ck_assert_str_eq(line, "weights as config.json stores them: fp8 with an fp32 scale per 128 "
                           "x 128 block (quantization_config); --precision overrides");
    cfg.precision = RL_LLM_BF16; /* --precision bf16 */
    rl_llm_weights_text(line, sizeof line, &m, &cfg, true);
    ck_assert_str_eq(line, "weights bf16 by --precision, over config.json's fp8 with an fp32 "
                           "scale per 128 x 128 block (quantization_config)");
    /* gpt-oss-120b: MXFP4 experts (0.5 + 1/32 B), attention, router,
     * embedding and head BF16 (modules_to_not_convert): 36 x 26,542,080
     * attention weights x 2 + 36 x 3,185,049,600 expert weights x
     * 0.53125 + the 16-bit rest x 2 = 65,248,815,744 bytes. */
    m = load("gpt-oss-120b");
    rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
    ck_assert_int_eq(cfg.precision, RL_LLM_MXFP4);
    ck_assert(cfg.experts_only);
    ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, false), 2);
    ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, true), 0.53125);
    ck_assert_double_eq(rl_llm_weights_bytes(&m, &cfg), 65248815744.0);
    /* A config without quantization_config: its torch_dtype. */
    m = parse("{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
              " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 10,"
              " \"torch_dtype\": \"float16\"}");
    rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
    ck_assert_int_eq(cfg.precision, RL_LLM_FP16);
    /* AWQ INT4, group 128 with zero points: 0.5 + (2 + 0.5) / 128 bytes;
     * GPTQ symmetric, group 64: 0.5 + 2 / 64; NVFP4 (ModelOpt); FP8 per
     * tensor: 1. */
    static const struct {
        const char *q;
        enum rl_llm_precision p;
        double wb;
    } formats[] = {
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, \"zero_point\": true}",
         RL_LLM_W4A16, 0.5 + 2.5 / 128},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 64, \"sym\": true}",
         RL_LLM_W4A16, 0.5 + 2.0 / 64},
        {"{\"quant_method\": \"modelopt\", \"quant_algo\": \"NVFP4\"}", RL_LLM_NVFP4,
         0.5 + 1.0 / 16},
        {"{\"quant_method\": \"fp8\", \"activation_scheme\": \"dynamic\"}", RL_LLM_FP8, 1},
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": "
         "{\"weights\": {\"num_bits\": 4, \"type\": \"int\", \"group_size\": 32, "
         "\"symmetric\": true}}}, \"ignore\": [\"model.layers.0.self_attn\"]}",
         RL_LLM_W4A16, 0.5 + 2.0 / 32},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model_type\": \"mixtral\", \"hidden_size\": 64, \"intermediate_size\": "
                 "128, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                 "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"vocab_size\": 10, "
                 "\"quantization_config\": %s}",
                 formats[i].q);
        m = parse(json);
        rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
        ck_assert_msg(cfg.precision == formats[i].p, "%zu: %d", i, cfg.precision);
        ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, true), formats[i].wb);
        ck_assert_str_eq(m.unknown_keys, "");
    }
    /* The compressed-tensors one leaves attention in BF16 (ignore). */
    ck_assert(cfg.experts_only);
}
END_TEST

START_TEST(loads_a_folder_and_a_path)
{
    char path[2048], err[RL_ERRMSG_SIZE];
    struct rl_llm_model m;
    snprintf(path, sizeof path, "%s/models/hf/gpt-oss-20b", data);
    ck_assert_msg(rl_llm_model_load(&m, data, path, err) == 0, "%s", err);
    ck_assert_str_eq(m.id, "gpt-oss-20b");
    ck_assert_str_eq(m.model_type, "gpt_oss");
    snprintf(path, sizeof path, "%s/models/hf/deepseek-v3/config.json", data);
    ck_assert_msg(rl_llm_model_load(&m, data, path, err) == 0, "%s", err);
    ck_assert_str_eq(m.id, "deepseek-v3");
    ck_assert_int_eq(m.layers, 61);
    /* EP splits its experts: 256 over 8, 32 each; the plan finds it. */
    const struct rl_llm_split ep8 = {.tp = 1, .pp = 1, .ep = 8};
    ck_assert_int_eq(rl_llm_split_check(&m, &ep8, err), 0);
    double linear, expert, other;
    rl_llm_stage_params(&m, &ep8, &linear, &expert, &other);
    ck_assert_double_eq(expert, 58 * 32 * 3 * 7168.0 * 2048);
}
END_TEST

START_TEST(windows_of_each_family)
{
    /* Gemma 2: even layers windowed; 4 norms a layer; tied. */
    struct rl_llm_model m = small("gemma2", "\"sliding_window\": 4096");
    ck_assert(rl_llm_layer_is_sliding(&m, 0) && !rl_llm_layer_is_sliding(&m, 1));
    ck_assert(rl_llm_layer_is_sliding(&m, 2) && !rl_llm_layer_is_sliding(&m, 3));
    ck_assert_int_eq(m.norms_per_layer, 4);
    ck_assert(m.tied && !m.qk_norm);
    /* Gemma 3 with pattern 2: layers 1 and 3 global. */
    m = small("gemma3_text", "\"sliding_window\": 512, \"sliding_window_pattern\": 2");
    ck_assert(rl_llm_layer_is_sliding(&m, 0) && !rl_llm_layer_is_sliding(&m, 1));
    ck_assert(m.qk_norm);
    /* Qwen2: windowed from max_window_layers when use_sliding_window. */
    m = small("qwen2", "\"sliding_window\": 100, \"use_sliding_window\": true, "
                       "\"max_window_layers\": 2");
    ck_assert(!rl_llm_layer_is_sliding(&m, 1) && rl_llm_layer_is_sliding(&m, 2));
    ck_assert_int_eq(rl_llm_sliding_layers(&m), 2);
    m = small("qwen2", "\"sliding_window\": 131072, \"use_sliding_window\": false");
    ck_assert_int_eq(m.sliding_window, 0);
    /* Mistral: every layer. */
    m = small("mistral", "\"sliding_window\": 4096");
    ck_assert_int_eq(rl_llm_sliding_layers(&m), 4);
    /* Llama 4: chunks where no_rope_layers says RoPE (1). */
    m = small("llama4_text", "\"attention_chunk_size\": 8192, \"no_rope_layers\": [1, 0, 1, 1]");
    ck_assert_int_eq(m.sliding_window, 8192);
    ck_assert(rl_llm_layer_is_sliding(&m, 0) && !rl_llm_layer_is_sliding(&m, 1));
    ck_assert_int_eq(rl_llm_sliding_layers(&m), 3);
    /* layer_types all full: no window at all. */
    m = small("gpt_oss", "\"sliding_window\": 128, \"layer_types\": [\"full_attention\", "
                         "\"full_attention\", \"full_attention\", \"full_attention\"]");
    ck_assert_int_eq(m.sliding_window, 0);
    ck_assert(!rl_llm_layer_is_sliding(&m, 0));
    /* DeepSeek has none whatever the key says. */
    m = small("deepseek_v3", "\"sliding_window\": 64");
    ck_assert_int_eq(m.sliding_window, 0);
    /* A dense model: no MoE layer, its MLP width everywhere, no MTP. */
    ck_assert_int_eq(rl_llm_moe_layers(&m), 0);
    ck_assert(!rl_llm_layer_is_moe(&m, 0));
    ck_assert_int_eq(rl_llm_layer_ffn(&m, 2), 32);
    ck_assert_double_eq(rl_llm_mtp_params(&m), 0);
    ck_assert_double_eq(rl_llm_kv_share_per_gpu(&m, 2), 0.5);
}
END_TEST

START_TEST(the_llm_command_takes_a_config_json)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/models/hf/gpt-oss-120b/config.json", data);
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", path, "--gpu", "b200", "--batch", "1",
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "mxfp4 weights"));
    ck_assert_ptr_nonnull(strstr(r.out, "parameters 116.8 B (5.133 B active per token)"));
    ck_assert_ptr_nonnull(strstr(r.out, "weights as config.json stores them: mxfp4 experts, "
                                        "the rest bf16 (quantization_config); --precision "
                                        "overrides"));
    ck_assert_ptr_nonnull(strstr(r.out, "18 of the layers at most 128 tokens per sequence"));
    ck_assert_ptr_nonnull(strstr(r.out, "\nswa_scores "));
    rl_run_release(&r);
    /* --precision wins, and says so; the JSON names where it came from. */
    r = rl_test_cli(NULL, "llm", "--model", "deepseek-v3", "--gpu", "b200", "--precision",
                    "nvfp4", "--tp", "8", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"precision\": \"nvfp4\""));
    ck_assert_ptr_nonnull(strstr(r.out, "\"precision_from\": \"--precision\""));
    ck_assert_ptr_nonnull(strstr(r.out, "\"active_parameters\": 36625618432"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"mtp_parameters\": 11610068224"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "deepseek-v3", "--gpu", "b200", "--precision",
                    "bf16", "--tp", "8", (const char *)NULL);
    ck_assert_ptr_nonnull(strstr(r.out, "weights bf16 by --precision, over config.json's fp8"));
    ck_assert_ptr_nonnull(strstr(r.out, "note: 1 multi-token prediction module"));
    rl_run_release(&r);
    /* The stored FP8 on an A100 (no FP8 rate): read as BF16 at FP8's bytes. */
    r = rl_test_cli(NULL, "llm", "--model", "deepseek-v3", "--gpu", "a100-sxm-80gb", "--tp",
                    "8", "--pp", "2", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"precision\": \"bf16\""));
    ck_assert_ptr_nonnull(strstr(r.out, "\"weights_dequantized\": true"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"weights_bytes\": 673150575280"));
    rl_run_release(&r);
    /* Keys not understood: one note; a Mamba config: one error. */
    snprintf(path, sizeof path, "%s/config.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128, "
          "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 10, "
          "\"magic\": 1}",
          f);
    fclose(f);
    r = rl_test_cli(NULL, "llm", "--model", rl_test_tmpdir(), "--gpu", "b200",
                    (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(
        strstr(r.out, "note: config.json keys not understood (left out of the model): magic\n"));
    rl_run_release(&r);
    f = fopen(path, "w");
    fputs("{\"model_type\": \"mamba\", \"hidden_size\": 768}", f);
    fclose(f);
    r = rl_test_cli(NULL, "llm", "plan", "--model", path, "--gpus", "2", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "roofline: error: '"));
    ck_assert_ptr_nonnull(strstr(r.err, "model_type 'mamba': a state-space or recurrent model"));
    rl_run_release(&r);
}
END_TEST

START_TEST(configs_it_cannot_model)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_llm_model m;
#define REFUSED(json, rc, needle)                                                             \
    do {                                                                                       \
        ck_assert_int_eq(rl_llm_hf_parse(&m, json, strlen(json), "c.json", "c", err), rc);     \
        ck_assert_msg(strstr(err, needle) != NULL, "%s", err);                                 \
    } while (0)
    REFUSED("{\"model_type\": \"t5\", \"is_encoder_decoder\": true, \"d_model\": 512}",
            RL_EUNSUPPORTED, "'c.json': is_encoder_decoder: an encoder-decoder model");
    REFUSED("{\"model_type\": \"mamba\", \"hidden_size\": 768, \"state_size\": 16}",
            RL_EUNSUPPORTED, "'c.json': model_type 'mamba': a state-space or recurrent model");
    REFUSED("{\"model_type\": \"bert\"}", RL_EUNSUPPORTED, "model_type 'bert': an encoder-only");
    REFUSED("{\"model_type\": \"bart\"}", RL_EUNSUPPORTED,
            "model_type 'bart': an encoder-decoder");
    REFUSED("{\"model_type\": \"nonesuch\"}", RL_EUNSUPPORTED,
            "model_type 'nonesuch' is not modelled");
    REFUSED("{\"hidden_size\": 8}", RL_EUNSUPPORTED, "model_type is missing");
    REFUSED("[1, 2]", RL_ESCHEMA, "a JSON object");
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_attention_heads\": 4}",
            RL_ESCHEMA, "'c.json': num_hidden_layers is missing or below 1");
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 64.5, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"vocab_size\": 10, \"intermediate_size\": 8}",
            RL_ESCHEMA, "hidden_size is not a whole number");
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 1e9, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"vocab_size\": 10, \"intermediate_size\": 8}",
            RL_ESCHEMA, "hidden_size is not a whole number");
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"vocab_size\": -10, \"intermediate_size\": 8}",
            RL_ESCHEMA, "vocab_size is not a whole number");
    /* every other key there: a missing vocab_size is refused, not taken as 1 */
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"intermediate_size\": 8}",
            RL_ESCHEMA, "'c.json': vocab_size is missing or below 1");
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"num_key_value_heads\": 3, \"vocab_size\": 10, "
            "\"intermediate_size\": 8}",
            RL_ESCHEMA, "num_attention_heads 4 is not a multiple of num_key_value_heads 3");
    REFUSED("{\"model_type\": \"mixtral\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"vocab_size\": 10, \"intermediate_size\": 8, "
            "\"num_local_experts\": 4, \"num_experts_per_tok\": 5}",
            RL_ESCHEMA, "num_experts_per_tok 5 is not in 1..4");
    REFUSED("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 300, "
            "\"num_attention_heads\": 4, \"vocab_size\": 10, \"intermediate_size\": 8}",
            RL_ESCHEMA, "num_hidden_layers 300 is above 256");
    REFUSED("{\"model_type\": \"deepseek_v3\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
            " \"num_attention_heads\": 4, \"vocab_size\": 10, \"intermediate_size\": 8, "
            "\"kv_lora_rank\": 16, \"qk_rope_head_dim\": 8, \"v_head_dim\": 8}",
            RL_ESCHEMA, "qk_nope_head_dim is missing");
#undef REFUSED
}
END_TEST

START_TEST(keys_not_understood_are_listed)
{
    struct rl_llm_model m = parse(
        "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128, "
        "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 10, "
        "\"rope_theta\": 10000, \"fancy_gate\": true, \"text_bits\": 3, "
        "\"quantization_config\": {\"quant_method\": \"bitsandbytes\"}}");
    ck_assert_str_eq(m.unknown_keys,
                     "fancy_gate, text_bits, quantization_config.quant_method 'bitsandbytes'");
    /* Under text_config, named so; the multimodal top level's vision keys
     * are known (not counted). */
    m = parse("{\"model_type\": \"gemma3\", \"vision_config\": {}, \"odd\": 1, \"text_config\":"
              " {\"model_type\": \"gemma3_text\", \"hidden_size\": 64, \"intermediate_size\": "
              "128, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 10, "
              "\"weird\": 2}}");
    ck_assert_str_eq(m.unknown_keys, "text_config.weird, odd");
    ck_assert(m.tied); /* Gemma ties by default */
    /* Every key of the shipped configs is understood. */
    const char *ids[] = {"deepseek-v3", "gpt-oss-120b", "gpt-oss-20b",
                         "llama-3.1-8b", "qwen3-30b-a3b", "qwen3-32b"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        m = load(ids[i]);
        ck_assert_msg(m.unknown_keys[0] == 0, "%s: %s", ids[i], m.unknown_keys);
    }
}
END_TEST

START_TEST(a_malformed_file_names_file_and_line)
{
    char path[4096], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/config.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": ,\n}\n", f);
    fclose(f);
    struct rl_llm_model m;
    ck_assert_int_eq(rl_llm_model_load(&m, data, path, err), RL_EPARSE);
    char want[4200];
    snprintf(want, sizeof want, "'%s': line 3", path);
    ck_assert_msg(strstr(err, want) != NULL, "%s", err);
    /* Its folder holds it too; a folder without one says so. */
    ck_assert_int_eq(rl_llm_model_load(&m, data, rl_test_tmpdir(), err), RL_EPARSE);
    snprintf(path, sizeof path, "%s/models", data);
    ck_assert_int_eq(rl_llm_model_load(&m, data, path, err), RL_ENOTFOUND);
    snprintf(want, sizeof want, "no config.json in folder '%s'", path);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(more_weight_formats)
{
    struct rl_llm_config cfg;
    static const struct {
        const char *extra;
        enum rl_llm_precision p;
        double wb;
        const char *what;
    } cases[] = {
        {"\"torch_dtype\": \"float32\"", RL_LLM_BF16, 2, "float32, served as bf16 (torch_dtype)"},
        {"\"dtype\": \"float16\"", RL_LLM_FP16, 2, "float16 (torch_dtype)"},
        {"\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": "
         "128, \"zero_point\": false}",
         RL_LLM_W4A16, 0.5 + 2.0 / 128,
         "int4 (awq) with an fp16 scale per group of 128 (quantization_config)"},
        {"\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": "
         "-1, \"sym\": false}",
         RL_LLM_W4A16, 0.5,
         "int4 (gptq) with an fp16 scale and a 4-bit zero per output row (quantization_config)"},
        {"\"quantization_config\": {\"quant_method\": \"modelopt\", \"quantization\": "
         "{\"quant_algo\": \"FP8\"}}",
         RL_LLM_FP8, 1, "fp8 (quantization_config, modelopt)"},
        {"\"quantization_config\": {\"quant_method\": \"compressed-tensors\", "
         "\"config_groups\": {\"g\": {\"weights\": {\"num_bits\": 4, \"type\": \"float\"}}}}",
         RL_LLM_NVFP4, 0.5 + 1.0 / 16, "nvfp4 (quantization_config, compressed-tensors)"},
        {"\"quantization_config\": {\"quant_method\": \"compressed-tensors\", "
         "\"config_groups\": {\"g\": {\"weights\": {\"num_bits\": 8, \"type\": \"float\"}}}}",
         RL_LLM_FP8, 1, NULL},
        {"\"quantization_config\": {\"quant_method\": \"fp8\", \"weight_block_size\": [64, "
         "32]}",
         RL_LLM_FP8_BLOCK, 1 + 4.0 / 2048,
         "fp8 with an fp32 scale per 64 x 32 block (quantization_config)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rl_llm_model m = small("llama", cases[i].extra);
        rl_llm_config_of_model(&m, RL_LLM_KV_FP8, &cfg);
        ck_assert_msg(cfg.precision == cases[i].p, "%zu: %d", i, cfg.precision);
        ck_assert_msg(rl_llm_linear_weight_bytes(&cfg, false) == cases[i].wb, "%zu: %g", i,
                      rl_llm_linear_weight_bytes(&cfg, false));
        ck_assert(!cfg.experts_only && cfg.kv == RL_LLM_KV_FP8);
        if (cases[i].what)
            ck_assert_str_eq(m.quant.what, cases[i].what);
    }
    /* Formats it cannot cost: said, and the weights taken as BF16. */
    struct rl_llm_model m =
        small("llama", "\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 8}");
    ck_assert_str_eq(m.unknown_keys, "quantization_config.bits");
    rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
    ck_assert_int_eq(cfg.precision, RL_LLM_BF16);
    m = small("llama", "\"quantization_config\": {\"quant_method\": \"modelopt\", "
                       "\"quant_algo\": \"W4A8_AWQ\"}");
    ck_assert_str_eq(m.unknown_keys, "quantization_config.quant_algo");
    m = small("llama", "\"quantization_config\": {\"quant_method\": \"compressed-tensors\"}");
    ck_assert_str_eq(m.unknown_keys, "quantization_config.config_groups");
    /* A schema config has no stored format: BF16, and no line about it. */
    char line[256] = "x";
    m = load("llama-3-8b");
    ck_assert(!m.has_quant);
    rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
    ck_assert_int_eq(cfg.precision, RL_LLM_BF16);
    rl_llm_weights_text(line, sizeof line, &m, &cfg, false);
    ck_assert_str_eq(line, "");
    /* A format the GPU has no rate for: dequantized, bytes kept. */
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE], note[256];
    ck_assert_int_eq(
        rl_ceilings_init(&c, rl_test_gpu("h100-sxm"), NULL, NULL, false, false, NULL, err), 0);
    cfg = (struct rl_llm_config){.precision = RL_LLM_NVFP4, .kv = RL_LLM_KV_BF16};
    ck_assert(rl_llm_config_fit_roofs(&cfg, &c, note, sizeof note));
    ck_assert_int_eq(cfg.precision, RL_LLM_BF16);
    ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, false), 0.5625);
    ck_assert_str_eq(note, "the GPU database holds no FP4 Tensor Core rate for NVIDIA H100 SXM5 "
                           "80GB: the nvfp4 weights are dequantized to bf16 as they are read (weight-only kernels), at "
                           "their own bytes");
    cfg = (struct rl_llm_config){.precision = RL_LLM_FP8_BLOCK, .kv = RL_LLM_KV_BF16};
    ck_assert(!rl_llm_config_fit_roofs(&cfg, &c, note, sizeof note));
    ck_assert_int_eq(cfg.precision, RL_LLM_FP8_BLOCK);
    /* the same where FP8's is the first roof (`--precisions fp8`): its
     * index 0 is a roof found, not a failure */
    static struct rl_ceilings fresh;
    ck_assert_int_eq(
        rl_ceilings_init(&fresh, rl_test_gpu("h100-sxm"), NULL, "fp8", false, false, NULL, err), 0);
    cfg = (struct rl_llm_config){.precision = RL_LLM_FP8_BLOCK, .kv = RL_LLM_KV_BF16};
    ck_assert(!rl_llm_config_fit_roofs(&cfg, &fresh, note, sizeof note));
    ck_assert_int_eq(cfg.precision, RL_LLM_FP8_BLOCK);
    /* Experts-only storage means nothing for a dense model. */
    m = small("llama", "\"quantization_config\": {\"quant_method\": \"mxfp4\", "
                       "\"modules_to_not_convert\": [\"model.layers.*.self_attn\"]}");
    ck_assert(m.quant.experts_only);
    rl_llm_config_of_model(&m, RL_LLM_KV_BF16, &cfg);
    ck_assert(!cfg.experts_only);
    ck_assert_double_eq(rl_llm_linear_weight_bytes(&cfg, false), 0.53125);
}
END_TEST

static Suite *hf_suite(void)
{
    Suite *s = suite_create("llm_hf");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, layers_of_each_kind);
    tcase_add_test(core, weight_formats_from_the_config);
    tcase_add_test(core, loads_a_folder_and_a_path);
    tcase_add_test(core, windows_of_each_family);
    tcase_add_test(core, the_llm_command_takes_a_config_json);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, configs_it_cannot_model);
    tcase_add_test(limits, keys_not_understood_are_listed);
    tcase_add_test(limits, a_malformed_file_names_file_and_line);
    tcase_add_test(limits, more_weight_formats);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(hf_suite()); }
