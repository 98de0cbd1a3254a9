/* check_llm.c - tests of the LLM model: configs, parameter and KV counts, decode and prefill on the roofline, the crossover batch, the llm command. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/llm/llm.h"
#include "analyzer/util/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char data[1024];
static const struct rl_gpu_spec *h200;

static void setup(void)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_data_dir(data, sizeof data, err), 0);
    h200 = rl_test_gpu("h200");
}

static struct rl_llm_model load(const char *id)
{
    struct rl_llm_model m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_model_load(&m, data, id, err) == 0, "%s: %s", id, err);
    return m;
}

START_TEST(every_config_and_its_parameters)
{
    /* The published parameter counts (Hugging Face model cards), exact. */
    static const struct {
        const char *id;
        double params;
    } known[] = {{"llama-2-7b", 6738415616.0},   {"llama-2-13b", 13015864320.0},
                 {"llama-3-8b", 8030261248.0},   {"llama-3-70b", 70553706496.0},
                 {"mistral-7b", 7241732096.0},   {"qwen2.5-7b", 7615616512.0},
                 {"mixtral-8x7b", 46702792704.0},
                 /* Narayanan et al. 2021's 174.6 B: 96 x (12 h^2 + 5 h) + V h + h
                  * with h 12288, V 51200 (tied), QKV biases. */
                 {"gpt-3-175b", 96 * (12.0 * 12288 * 12288 + 5.0 * 12288) + 51200.0 * 12288 +
                                    12288}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        struct rl_llm_model m = load(known[i].id);
        ck_assert_msg(rl_llm_params(&m) == known[i].params, "%s: %.0f parameters", known[i].id,
                      rl_llm_params(&m));
    }
    /* Weight bytes: BF16 2 per parameter; FP8 1 per linear weight, the
     * embedding, LM head and norms staying 16-bit. */
    struct rl_llm_model m = load("llama-2-7b");
    struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16}, fp8 = {.precision = RL_LLM_FP8, .kv = RL_LLM_KV_FP8};
    ck_assert_double_eq(rl_llm_weights_bytes(&m, &bf16), 2 * 6738415616.0);
    double linear = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
    ck_assert_double_eq(rl_llm_weights_bytes(&m, &fp8), 2 * 6738415616.0 - linear);
}
END_TEST

START_TEST(kv_cache_counts_kv_heads)
{
    /* Llama-2-7B has no GQA: 32 KV heads; Llama-3-8B has 8. The classic bug
     * counts query heads for both. */
    struct rl_llm_model l2 = load("llama-2-7b"), l3 = load("llama-3-8b");
    struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16}, fp8 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_FP8};
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&l2, &bf16), 2.0 * 32 * 32 * 128 * 2); /* 512 KiB */
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&l3, &bf16), 2.0 * 32 * 8 * 128 * 2);  /* 128 KiB */
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&l3, &fp8), 2.0 * 32 * 8 * 128);
    /* Decode attention reads the cache of the KV heads once. */
    struct rl_llm_phase_cost p;
    rl_llm_phase(&l3, &bf16, RL_LLM_DECODE, 4, 1000, &p);
    ck_assert_str_eq(p.ops[2].name, "attn_scores");
    ck_assert_double_eq(p.ops[2].kv_bytes, 4.0 * 1000 * 8 * 128 * 2);
    /* Training: 16 bytes per parameter plus activations sbh(34 + 5as/h). */
    ck_assert_double_eq(rl_llm_training_bytes(&l3, 1, 2048),
                        16 * 8030261248.0 +
                            32.0 * 2048 * 4096 * (34 + 5.0 * 32 * 2048 / 4096));
}
END_TEST

START_TEST(decode_is_bytes_over_bandwidth)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
    ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), 0);
    /* At batch 1 every operator is memory-bound: the step is its bytes over
     * 4.8 TB/s. Those bytes are the weights read once (the embedding table
     * only for one row) plus the KV cache, within 2%. */
    for (int i = 0; i < p.n_ops; i++)
        ck_assert_msg(p.ops[i].memory_bound, "%s is compute-bound at batch 1", p.ops[i].name);
    ck_assert_double_eq_tol(p.time_ns, p.bytes / 4800.0, 1e-6 * p.time_ns);
    double weights = rl_llm_weights_bytes(&m, &cfg) - 2.0 * 128256 * 4096; /* embedding unread */
    double kv = rl_llm_kv_bytes_per_token(&m, &cfg) * 2048;
    ck_assert_double_le(fabs(p.bytes - (weights + kv)) / p.bytes, 0.02);
    /* A GEMV is 1 FLOP/byte in BF16. */
    ck_assert_str_eq(p.ops[4].name, "o_proj");
    ck_assert_double_eq_tol(p.ops[4].ai_flop_per_byte, 1.0, 1e-3);
    /* Prefill of 2048 tokens: the linear layers are compute-bound. */
    rl_llm_phase(&m, &cfg, RL_LLM_PREFILL, 1, 2048, &p);
    ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), 0);
    for (int i = 0; i < p.n_ops; i++)
        if (p.ops[i].linear && strcmp(p.ops[i].name, "lm_head") != 0)
            ck_assert_msg(!p.ops[i].memory_bound, "%s", p.ops[i].name);
    /* Causal attention: S (S + 1) / 2 query-key pairs. */
    ck_assert_double_eq(p.ops[3].flops, 2.0 * 2048 * 2049 / 2 * 32 * 128);
    /* A GPU without FP8 cannot run an FP8 model: said, not zero. */
    struct rl_llm_config f8 = {.precision = RL_LLM_FP8, .kv = RL_LLM_KV_BF16};
    static struct rl_ceilings a100;
    ck_assert_int_eq(rl_ceilings_init(&a100, rl_test_gpu("a100-sxm-80gb"), NULL, NULL,
                                      false, false, NULL, err),
                     0);
    rl_llm_phase(&m, &f8, RL_LLM_DECODE, 1, 2048, &p);
    ck_assert_int_ne(rl_llm_evaluate(&p, &a100, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "FP8"));
}
END_TEST

START_TEST(moe_decode_reads_k_experts)
{
    /* Mixtral 8x7B, batch 1: the token picks k = 2 of 8 experts, so a decode
     * step reads 2 experts' FFN weights: gate/up 2 x 4096 x 14336 x 2
     * matrices x 2 bytes = 469,762,048 bytes; down half that. */
    struct rl_llm_model m = load("mixtral-8x7b");
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
    ck_assert_str_eq(p.ops[8].name, "gate_up_proj");
    ck_assert_double_eq(p.ops[8].weight_bytes, 2.0 * 4096 * 14336 * 2 * 2);
    ck_assert_str_eq(p.ops[10].name, "down_proj");
    ck_assert_double_eq(p.ops[10].weight_bytes, 2.0 * 14336 * 4096 * 2);
    /* Batch 2: 8 (1 - (1 - 2/8)^2) = 8 x 0.4375 = 3.5 experts touched. */
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 2, 2048, &p);
    ck_assert_double_eq_tol(p.ops[10].weight_bytes, 3.5 * 14336 * 4096 * 2, 1e-3);
    /* Batch 64: nearly all 8 (8 (1 - 0.75^64) = 7.99999...). */
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 64, 2048, &p);
    ck_assert_double_eq_tol(p.ops[10].weight_bytes, 8 * (1 - pow(0.75, 64)) * 14336 * 4096 * 2,
                            1e-3);
    /* On an H200 (4.8 TB/s), batch 1, context 2048: every operator
     * memory-bound, 186.2 tokens/s, as `roofline llm --model mixtral-8x7b`
     * prints it. */
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
    ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), 0);
    ck_assert_double_eq_tol(1e9 / p.time_ns, 186.2, 0.05);
    ck_assert_double_eq_tol(p.time_ns, p.bytes / 4800.0, 1e-6 * p.time_ns);
    /* A dense model touches its one FFN whatever the batch. */
    struct rl_llm_model d = load("llama-3-8b");
    rl_llm_phase(&d, &cfg, RL_LLM_DECODE, 64, 2048, &p);
    ck_assert_double_eq(p.ops[9].weight_bytes, 14336.0 * 4096 * 2);
}
END_TEST

START_TEST(measured_bandwidth_is_preferred)
{
    /* With a bench file, the measured DRAM roof prices the bytes, lower or
     * higher than the datasheet's 4800 GB/s: at batch 1 every operator is
     * memory-bound, so the step is its bytes over that bandwidth. */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    static const double measured[] = {4000, 5200};
    for (size_t i = 0; i < 2; i++) {
        static struct rl_bench_ceilings bench;
        memset(&bench, 0, sizeof bench);
        bench.memory[0] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM",
                                                  .bandwidth_gbs = measured[i],
                                                  .origin = RL_ORIGIN_MEASURED};
        bench.n_memory = 1;
        static struct rl_ceilings c;
        char err[RL_ERRMSG_SIZE];
        ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench, NULL, false, false, NULL, err), 0);
        ck_assert_uint_eq(c.n_memory, 3); /* datasheet HBM3e and L1, measured HBM */
        struct rl_llm_phase_cost p;
        rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
        ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), 0);
        ck_assert_double_eq_tol(p.time_ns, p.bytes / measured[i], 1e-6 * p.time_ns);
    }
    /* No DRAM roof at all: said. */
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, "l1", err), 0);
    struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 1, 2048, &p);
    ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "no DRAM bandwidth among the ceilings");
}
END_TEST

START_TEST(crossover_of_square_layers)
{
    /* A K x N linear in BF16 at batch B: 2BKN FLOP over 2KN + 2B(K + N)
     * bytes. With the H200's ridge 989.4 / 4.8 = 206.125 FLOP/B it turns
     * compute-bound at B >= 206.125 KN / (KN - 206.125 (K + N)): for the
     * square 4096 x 4096 output projection 229.2, so 230; the other
     * Llama-3-8B linears cross sooner (qkv 225, gate/up 219, down 221,
     * LM head 218). */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &cfg, 2048, &c, 65536), 230);
    /* FP8 weights and activations double the intensity at every batch and
     * the FP8 peak doubles the ridge (1978.9 / 4.8 = 412.3): the same 230.
     * 4-bit weights with BF16 activations raise the intensity only: the
     * crossover comes sooner. */
    struct rl_llm_config f8 = {.precision = RL_LLM_FP8, .kv = RL_LLM_KV_BF16}, w4 = {.precision = RL_LLM_W4A16, .kv = RL_LLM_KV_BF16};
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &f8, 2048, &c, 65536), 230);
    ck_assert_int_lt(rl_llm_crossover_batch(&m, &w4, 2048, &c, 65536), 230);
}
END_TEST

START_TEST(bad_configs)
{
    char err[RL_ERRMSG_SIZE], path[512];
    struct rl_llm_model m;
    ck_assert_int_eq(rl_llm_model_load(&m, data, "gpt-5", err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "llama-3-8b"));
    snprintf(path, sizeof path, "%s/bad-model.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fputs("{\"schema_version\": 1, \"id\": \"x\", \"name\": \"X\", \"layers\": 2,\n"
          " \"hidden_size\": \"big\"}\n", f);
    fclose(f);
    ck_assert_int_eq(rl_llm_model_load(&m, data, path, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "bad-model.json': line "));
}
END_TEST


START_TEST(llm_command)
{
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h200",
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_test_golden(r.out, "llm-llama-3-8b-h200.txt");
    rl_run_release(&r);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/llm", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "--model", "mixtral-8x7b", "--batch", "1,16", "--precision",
                    "fp8", "--json", "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    static const char *const keys[] = {"decode_ms_per_token", "tokens_per_s", "prefill_ms",
                                       "crossover_batch", "weights_bytes", "kv_cache_bytes",
                                       "operators"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(cJSON_GetObjectItem(doc, keys[i]), "no %s", keys[i]);
    ck_assert_str_eq(rl_json_string(doc, "origin"), "analytic");
    cJSON_Delete(doc);
    static const char *const files[] = {"llm.json", "llm-roofline.svg", "llm-batch.svg",
                                        "llm-batch.gp", "llm-batch.dat"};
    for (size_t i = 0; i < 5; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        ck_assert_msg(access(p, F_OK) == 0, "no %s", p);
    }
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "a100-sxm-80gb",
                    "--precision", "fp8", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--batch", "0", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    /* --measure without a GPU: one line, nothing else. */
    static const char *const env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    r = rl_test_cli(env, "llm", "--model", "llama-3-8b", "--measure", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(strstr(r.err, "--measure needs a GPU") || strstr(r.err, "without CUDA"), "%s",
                  r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
}
END_TEST

/* ---- hand-worked operators of a tiny model --------------------------------- */

/* A model small enough to work every number by hand: H 8, F 16, 4 query
 * heads and 2 KV heads of dimension 2 (qkv = (4 + 2 x 2) x 2 = 16), vocab
 * 10, 3 layers, one SwiGLU FFN. */
static struct rl_llm_model tiny(void)
{
    struct rl_llm_model m = {.layers = 3, .hidden = 8, .ffn = 16, .heads = 4, .kv_heads = 2,
                             .head_dim = 2, .vocab = 10, .experts = 1, .experts_per_token = 1,
                             .gated = true};
    snprintf(m.id, sizeof m.id, "tiny");
    return m;
}

struct want_op {
    const char *name;
    int count;
    bool linear;
    const char *roof;
    double flops, weight_bytes, act_bytes, kv_bytes;
};

static void check_ops(const struct rl_llm_phase_cost *p, const struct want_op *w, int n)
{
    ck_assert_int_eq(p->n_ops, n);
    for (int i = 0; i < n; i++) {
        const struct rl_llm_op *o = &p->ops[i];
        ck_assert_str_eq(o->name, w[i].name);
        ck_assert_msg(o->count == w[i].count, "%s: count %d", o->name, o->count);
        ck_assert_msg(o->linear == w[i].linear, "%s: linear", o->name);
        ck_assert_str_eq(o->roof, w[i].roof);
        ck_assert_msg(o->flops == w[i].flops, "%s: %g FLOPs", o->name, o->flops);
        ck_assert_msg(o->weight_bytes == w[i].weight_bytes, "%s: %g weight bytes", o->name,
                      o->weight_bytes);
        ck_assert_msg(o->act_bytes == w[i].act_bytes, "%s: %g act bytes", o->name, o->act_bytes);
        ck_assert_msg(o->kv_bytes == w[i].kv_bytes, "%s: %g KV bytes", o->name, o->kv_bytes);
    }
}

START_TEST(decode_operators_by_hand)
{
    /* BF16 (wb = ab = kvb = 2), decode: B 2 sequences of S 5 cached tokens,
     * T = 2 tokens, P = B S = 10 query-key pairs. */
    struct rl_llm_model m = tiny();
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &cfg, RL_LLM_DECODE, 2, 5, &p);
    ck_assert_int_eq(p.phase, RL_LLM_DECODE);
    ck_assert_int_eq(p.batch, 2);
    ck_assert_int_eq(p.seq, 5);
    static const struct want_op w[] = {
        /* norm: 4TH = 64 FLOPs; 2H = 16 B of weights; 2 T H ab = 64 B */
        {"attn_norm", 3, false, "bf16-cuda", 64, 16, 64, 0},
        /* 2 T H qkv = 512; H qkv wb = 256; T H ab + T nh d ab = 32 + 32;
         * T 2 nkv d kvb = 32 */
        {"qkv_proj", 3, true, "bf16", 512, 256, 64, 32},
        /* 2 P nh d + 6 P nh = 160 + 240; q: T nh d ab = 32; K: B S nkv d kvb = 80 */
        {"attn_scores", 3, false, "bf16", 400, 0, 32, 80},
        {"attn_av", 3, false, "bf16", 160, 0, 32, 80},
        /* 2 T nh d H = 256; nh d H wb = 128; 32 + T H ab = 32 */
        {"o_proj", 3, true, "bf16", 256, 128, 64, 0},
        /* 2 T H = 32; 2 x 3 T H ab = 192 */
        {"residual_add", 3, false, "bf16-cuda", 32, 0, 192, 0},
        {"ffn_norm", 3, false, "bf16-cuda", 64, 16, 64, 0},
        /* 2 T k H F 2 = 1024; H F 2 wb = 512; T H ab + T F 2 ab = 32 + 128 */
        {"gate_up_proj", 3, true, "bf16", 1024, 512, 160, 0},
        /* 5 T F = 160; 3 T F ab = 192 */
        {"silu_mul", 3, false, "bf16-cuda", 160, 0, 192, 0},
        /* 2 T F H = 512; F H wb = 256; T F ab + T H ab = 64 + 32 */
        {"down_proj", 3, true, "bf16", 512, 256, 96, 0},
        /* T rows of 16-bit embedding: T H 2 = 32; T H ab = 32 */
        {"embedding", 1, false, "bf16-cuda", 0, 32, 32, 0},
        {"final_norm", 1, false, "bf16-cuda", 64, 16, 64, 0},
        /* B positions: 2 B H V = 320; V H 2 = 160; B H ab + B V 2 = 32 + 40 */
        {"lm_head", 1, true, "bf16", 320, 160, 72, 0},
    };
    check_ops(&p, w, 13);
    /* Per layer 3184 FLOPs and 2336 bytes, x 3 layers, + 384 FLOPs and 376
     * bytes once. */
    ck_assert_double_eq(p.flops, 3 * 3184 + 384);
    ck_assert_double_eq(p.bytes, 3 * 2336 + 376);
    ck_assert_double_eq(p.time_ns, 0);
}
END_TEST

START_TEST(prefill_operators_by_hand)
{
    /* Prefill of B 2 sequences of S 5 tokens: T = 10, causal P = B S (S + 1) / 2 = 30. */
    struct rl_llm_model m = tiny();
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &cfg, RL_LLM_PREFILL, 2, 5, &p);
    ck_assert_int_eq(p.phase, RL_LLM_PREFILL);
    static const struct want_op w[] = {
        {"attn_norm", 3, false, "bf16-cuda", 320, 16, 320, 0},
        {"qkv_proj", 3, true, "bf16", 2560, 256, 320, 160},
        /* 2 x 30 x 4 x 2 + 6 x 30 x 4 = 480 + 720; the cache B S nkv d kvb = 80 */
        {"attn_scores", 3, false, "bf16", 1200, 0, 160, 80},
        {"attn_av", 3, false, "bf16", 480, 0, 160, 80},
        {"o_proj", 3, true, "bf16", 1280, 128, 320, 0},
        {"residual_add", 3, false, "bf16-cuda", 160, 0, 960, 0},
        {"ffn_norm", 3, false, "bf16-cuda", 320, 16, 320, 0},
        {"gate_up_proj", 3, true, "bf16", 5120, 512, 800, 0},
        {"silu_mul", 3, false, "bf16-cuda", 800, 0, 960, 0},
        {"down_proj", 3, true, "bf16", 2560, 256, 480, 0},
        {"embedding", 1, false, "bf16-cuda", 0, 160, 160, 0},
        {"final_norm", 1, false, "bf16-cuda", 320, 16, 320, 0},
        /* logits of the last position of each sequence only: B, not T */
        {"lm_head", 1, true, "bf16", 320, 160, 72, 0},
    };
    check_ops(&p, w, 13);
    /* Per layer 14800 FLOPs and 6304 bytes; once 640 and 888. */
    ck_assert_double_eq(p.flops, 3 * 14800 + 640);
    ck_assert_double_eq(p.bytes, 3 * 6304 + 888);
}
END_TEST

START_TEST(ffn_variants_and_formats_by_hand)
{
    struct rl_llm_phase_cost p;
    /* A plain GELU FFN with a QKV bias, FP16, an FP8 cache: decode B 2, S 5. */
    struct rl_llm_model m = tiny();
    m.gated = false;
    m.qkv_bias = true;
    struct rl_llm_config f16 = {.precision = RL_LLM_FP16, .kv = RL_LLM_KV_FP8};
    rl_llm_phase(&m, &f16, RL_LLM_DECODE, 2, 5, &p);
    ck_assert_int_eq(p.n_ops, 13);
    /* qkv: 512 + the bias T qkv = 32; 256 + 16 bias values x 2 B = 32; KV
     * at 1 byte: T 2 nkv d = 16. */
    ck_assert_str_eq(p.ops[0].roof, "fp16-cuda");
    ck_assert_double_eq(p.ops[1].flops, 544);
    ck_assert_double_eq(p.ops[1].weight_bytes, 288);
    ck_assert_double_eq(p.ops[1].kv_bytes, 16);
    ck_assert_str_eq(p.ops[2].roof, "fp16");
    ck_assert_double_eq(p.ops[2].kv_bytes, 40);
    /* up: 2 T H F = 512; H F wb = 256; T H ab + T F ab = 32 + 64.
     * gelu: 9 T F = 288; 2 T F ab = 128. */
    ck_assert_str_eq(p.ops[7].name, "up_proj");
    ck_assert_double_eq(p.ops[7].flops, 512);
    ck_assert_double_eq(p.ops[7].weight_bytes, 256);
    ck_assert_double_eq(p.ops[7].act_bytes, 96);
    ck_assert_str_eq(p.ops[8].name, "gelu");
    ck_assert_str_eq(p.ops[8].roof, "fp16-cuda");
    ck_assert_double_eq(p.ops[8].flops, 288);
    ck_assert_double_eq(p.ops[8].act_bytes, 128);

    /* Mixture of experts, E 4, k 2, decode of B 2: T 2 tokens touch
     * 4 (1 - (1 - 2/4)^2) = 3 experts. */
    m = tiny();
    m.experts = 4;
    m.experts_per_token = 2;
    struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 2, 5, &p);
    static const struct want_op moe[] = {
        /* 2 T H E = 128; H E 2 = 64; T H ab + T E 2 = 32 + 16 */
        {"router", 3, false, "bf16", 128, 64, 48, 0},
        /* 2 T k H F 2 = 2048; 3 H F 2 wb = 1536; T k H ab + T k F 2 ab = 64 + 256 */
        {"gate_up_proj", 3, true, "bf16", 2048, 1536, 320, 0},
        /* 5 T k F = 320; 3 T k F ab = 384 */
        {"silu_mul", 3, false, "bf16-cuda", 320, 0, 384, 0},
        /* 2 T k F H = 1024; 3 F H wb = 768; T k F ab + T k H ab = 128 + 64 */
        {"down_proj", 3, true, "bf16", 1024, 768, 192, 0},
    };
    ck_assert_int_eq(p.n_ops, 14);
    ck_assert_str_eq(p.ops[6].name, "ffn_norm");
    struct rl_llm_phase_cost q = p;
    memmove(q.ops, q.ops + 7, 4 * sizeof q.ops[0]);
    q.n_ops = 4;
    check_ops(&q, moe, 4);
    /* One token touches exactly its k = 2 experts: 4 (1 - 1/2) = 2. */
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 1, 5, &p);
    ck_assert_double_eq(p.ops[10].weight_bytes, 2.0 * 16 * 8 * 2);

    /* FP8: linears on the FP8 roof, 1-byte weights and activations; the
     * CUDA-core operators and attention on BF16. */
    m = tiny();
    struct rl_llm_config f8 = {.precision = RL_LLM_FP8, .kv = RL_LLM_KV_BF16};
    rl_llm_phase(&m, &f8, RL_LLM_DECODE, 2, 5, &p);
    ck_assert_str_eq(p.ops[0].roof, "bf16-cuda");
    ck_assert_str_eq(p.ops[1].roof, "fp8");
    ck_assert_str_eq(p.ops[2].roof, "bf16");
    ck_assert_double_eq(p.ops[1].weight_bytes, 128);
    ck_assert_double_eq(p.ops[1].act_bytes, 32);
    ck_assert_str_eq(p.ops[12].roof, "bf16"); /* the LM head stays 16-bit */
    ck_assert_double_eq(p.ops[12].weight_bytes, 160);
}
END_TEST

START_TEST(params_and_memory_by_hand)
{
    /* Per layer: linear H qkv + nh d H + 3 H F = 128 + 64 + 384 = 576,
     * norms 2H = 16; embedding and LM head V H = 80 each, final norm H = 8:
     * 3 x 592 + 160 + 8 = 1944 parameters. */
    struct rl_llm_model m = tiny();
    ck_assert_double_eq(rl_llm_params(&m), 1944);
    struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    struct rl_llm_config w4 = {.precision = RL_LLM_W4A16, .kv = RL_LLM_KV_FP8};
    ck_assert_double_eq(rl_llm_weights_bytes(&m, &bf16), 2 * 1944);
    /* A model known by its parameter count: that many weights of the
     * format, 2 B each in BF16, 0.5 + 2/128 in 4 bits. */
    struct rl_llm_model given;
    rl_llm_model_of_params(&given, 1e9);
    ck_assert_double_eq(rl_llm_weights_bytes(&given, &bf16), 2e9);
    ck_assert_double_eq(rl_llm_weights_bytes(&given, &w4), 1e9 * (0.5 + 2.0 / 128));
    /* 4-bit: 576 x (0.5 + 2/128) = 297 B per layer's linears, the rest 2 B:
     * 3 x (297 + 32) + 2 x (160 + 8) = 1323. */
    ck_assert_double_eq(rl_llm_weights_bytes(&m, &w4), 1323);
    /* K and V: 2 x 3 layers x 2 KV heads x 2 dims x 2 B = 48; FP8 24. */
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&m, &bf16), 48);
    ck_assert_double_eq(rl_llm_kv_bytes_per_token(&m, &w4), 24);
    /* Training, batch 2, sequence 4: 16 x 1944 + 3 x 4 x 2 x 8 x (34 + 5 x 4 x 4 / 8)
     * = 31104 + 192 x 44 = 39552. */
    ck_assert_double_eq(rl_llm_training_bytes(&m, 2, 4), 39552);
    /* Tied embeddings: the LM head is the embedding: 1944 - 80. */
    m.tied = true;
    ck_assert_double_eq(rl_llm_params(&m), 1864);
    ck_assert_double_eq(rl_llm_weights_bytes(&m, &bf16), 2 * 1864);
    /* A QKV bias adds qkv = 16 per layer. */
    m = tiny();
    m.qkv_bias = true;
    ck_assert_double_eq(rl_llm_params(&m), 1944 + 3 * 16);
    /* 4 experts: 3 x 4 H F = 1536 linear, a router of H E = 32:
     * 3 x (128 + 64 + 1536 + 16 + 32) + 168 = 5496. */
    m = tiny();
    m.experts = 4;
    ck_assert_double_eq(rl_llm_params(&m), 5496);
    /* Not gated: 2 H F per expert: 3 x (576 - 128 + 16) + 168 = 1560. */
    m = tiny();
    m.gated = false;
    ck_assert_double_eq(rl_llm_params(&m), 1560);
}
END_TEST

START_TEST(number_formats)
{
    /* Every format: fp8-block's FP32 scale per 128 x 128 block is 1 +
     * 4/16384 B a weight; MXFP4's 8-bit scale per 32, 0.5 + 1/32; NVFP4's
     * FP8 scale per 16, 0.5 + 1/16 (weights and activations). */
    static const char *const names[] = {"bf16", "fp16", "fp8", "w8a8", "w4a16",
                                        "fp8-block", "mxfp4", "nvfp4"};
    static const double wb[] = {2, 2, 1, 1, 0.515625, 1.000244140625, 0.53125, 0.5625},
                        ab[] = {2, 2, 1, 1, 2, 1, 2, 0.5625};
    static const char *const roofs[] = {"bf16", "fp16", "fp8", "int8", "bf16",
                                        "fp8", "bf16", "fp4"};
    ck_assert_int_eq(RL_LLM_N_PRECISIONS, 8);
    for (int i = 0; i < RL_LLM_N_PRECISIONS; i++) {
        ck_assert_int_eq(rl_llm_precision_parse(names[i]), i);
        ck_assert_str_eq(rl_llm_precision_name(i), names[i]);
        ck_assert_double_eq(rl_llm_weight_bytes(i), wb[i]);
        ck_assert_double_eq(rl_llm_act_bytes(i), ab[i]);
        ck_assert_str_eq(rl_llm_linear_roof(i), roofs[i]);
    }
    ck_assert_int_eq(rl_llm_precision_parse("int4"), -1);
    ck_assert_int_eq(rl_llm_precision_parse(""), -1);
    ck_assert_int_eq(rl_llm_kv_parse("fp16"), RL_LLM_KV_FP16);
    ck_assert_int_eq(rl_llm_kv_parse("bf16"), RL_LLM_KV_BF16);
    ck_assert_int_eq(rl_llm_kv_parse("fp8"), RL_LLM_KV_FP8);
    ck_assert_int_eq(rl_llm_kv_parse("int8"), -1);
    ck_assert_double_eq(rl_llm_kv_bytes(RL_LLM_KV_FP16), 2);
    ck_assert_double_eq(rl_llm_kv_bytes(RL_LLM_KV_BF16), 2);
    ck_assert_double_eq(rl_llm_kv_bytes(RL_LLM_KV_FP8), 1);
}
END_TEST

/* Ceilings built by hand: bf16 1 TFLOP/s, bf16-cuda 0.5 TFLOP/s (from a
 * bench, no datasheet), and the DRAM roofs given. */
static struct rl_bench_ceilings hand_bench;

static void hand_ceilings(struct rl_ceilings *c, const struct rl_memory_roof *mem, size_t n)
{
    memset(&hand_bench, 0, sizeof hand_bench);
    hand_bench.compute[0] = (struct rl_compute_roof){.name = "bf16", .peak_tflops = 1,
                                                     .origin = RL_ORIGIN_MEASURED};
    hand_bench.compute[1] = (struct rl_compute_roof){.name = "bf16-cuda", .peak_tflops = 0.5,
                                                     .origin = RL_ORIGIN_MEASURED};
    hand_bench.n_compute = 2;
    memset(c, 0, sizeof *c);
    c->bench = &hand_bench;
    for (size_t i = 0; i < n; i++)
        c->memory[i] = mem[i];
    c->n_memory = n;
}

static struct rl_llm_op hand_op(int count, const char *roof, double flops, double w, double a,
                                double kv)
{
    struct rl_llm_op o = {.count = count, .roof = roof, .flops = flops, .weight_bytes = w,
                          .act_bytes = a, .kv_bytes = kv};
    snprintf(o.name, sizeof o.name, "op");
    return o;
}

START_TEST(evaluate_by_hand)
{
    static const struct rl_memory_roof mem[] = {
        {.level = RL_MEM_L2, .bandwidth_gbs = 100000, .origin = RL_ORIGIN_DATASHEET},
        {.level = RL_MEM_DRAM, .bandwidth_gbs = 1000, .origin = RL_ORIGIN_DATASHEET},
    };
    static struct rl_ceilings c;
    hand_ceilings(&c, mem, 2);
    char err[RL_ERRMSG_SIZE];
    struct rl_llm_phase_cost p;
    memset(&p, 0, sizeof p);
    p.time_ns = 999;
    /* DRAM 1 TB/s (the L2 is not the DRAM): a byte costs 1 ps. */
    p.ops[0] = hand_op(2, "bf16", 3e6, 1e6, 0, 0);      /* 3000 ns compute, 1000 memory */
    p.ops[1] = hand_op(1, "bf16", 1e6, 1e6, 1e6, 2e6);  /* 1000 compute, 4000 memory */
    p.ops[2] = hand_op(1, "bf16", 2e6, 0, 2e6, 0);      /* 2000 and 2000: at the ridge */
    p.ops[3] = hand_op(1, "bf16-cuda", 5e5, 0, 0, 0);   /* 1000 at 0.5 TFLOP/s, no bytes */
    p.ops[4] = hand_op(1, "bf16", 1, 0, 0.5, 0);        /* 1 fs compute, 0.5 fs memory */
    p.n_ops = 5;
    ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), 0);
    ck_assert_double_eq_tol(p.ops[0].time_ns, 3000, 1e-9);
    ck_assert(!p.ops[0].memory_bound);
    ck_assert_double_eq_tol(p.ops[0].ai_flop_per_byte, 3, 1e-12);
    ck_assert_double_eq_tol(p.ops[1].time_ns, 4000, 1e-9);
    ck_assert(p.ops[1].memory_bound);
    ck_assert_double_eq_tol(p.ops[1].ai_flop_per_byte, 0.25, 1e-12);
    ck_assert_double_eq_tol(p.ops[2].time_ns, 2000, 1e-9);
    ck_assert(!p.ops[2].memory_bound); /* at the ridge: compute-bound, as rl_classify rules */
    ck_assert_double_eq_tol(p.ops[3].time_ns, 1000, 1e-9);
    ck_assert(!p.ops[3].memory_bound);
    ck_assert(isinf(p.ops[3].ai_flop_per_byte) && p.ops[3].ai_flop_per_byte > 0);
    /* Half a byte is still bytes: 1 FLOP / 0.5 B = 2 FLOP/B, not infinite. */
    ck_assert_double_eq_tol(p.ops[4].ai_flop_per_byte, 2, 1e-12);
    ck_assert_double_eq_tol(p.ops[4].time_ns, 0.001, 1e-12);
    ck_assert(!p.ops[4].memory_bound);
    /* 2 x 3000 + 4000 + 2000 + 1000 + 0.001, the 999 before forgotten. */
    ck_assert_double_eq_tol(p.time_ns, 13000.001, 1e-9);
    /* A roof the ceilings lack: the judge's message, no time. */
    p.ops[1].roof = "fp8";
    ck_assert_int_eq(rl_llm_evaluate(&p, &c, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "no ceiling for precision 'fp8' in the datasheet or the bench file");
}
END_TEST

START_TEST(dram_roof_measured_first)
{
    /* The first measured DRAM roof binds, before and after datasheet ones;
     * a second measured one does not replace it; without any measured one,
     * the first datasheet one. One op of 1e6 bytes: 1e6 / bandwidth s. */
    static const struct rl_memory_roof mem[] = {
        {.level = RL_MEM_DRAM, .bandwidth_gbs = 2000, .origin = RL_ORIGIN_DATASHEET},
        {.level = RL_MEM_L1, .bandwidth_gbs = 50000, .origin = RL_ORIGIN_MEASURED},
        {.level = RL_MEM_DRAM, .bandwidth_gbs = 500, .origin = RL_ORIGIN_MEASURED},
        {.level = RL_MEM_DRAM, .bandwidth_gbs = 250, .origin = RL_ORIGIN_MEASURED},
        {.level = RL_MEM_DRAM, .bandwidth_gbs = 4000, .origin = RL_ORIGIN_DATASHEET},
    };
    static const struct {
        size_t first, n;
        double ns;
    } cases[] = {{0, 5, 2000}, {0, 2, 500}, {1, 1, 0}, {4, 1, 250}, {1, 2, 2000}, {2, 3, 2000}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static struct rl_ceilings c;
        hand_ceilings(&c, mem + cases[i].first, cases[i].n);
        struct rl_llm_phase_cost p;
        memset(&p, 0, sizeof p);
        p.ops[0] = hand_op(1, "bf16", 0, 1e6, 0, 0);
        p.n_ops = 1;
        char err[RL_ERRMSG_SIZE];
        int rc = rl_llm_evaluate(&p, &c, err);
        if (cases[i].ns == 0) {
            ck_assert_int_eq(rc, RL_EUNSUPPORTED); /* only an L1 roof */
            ck_assert_str_eq(err, "no DRAM bandwidth among the ceilings");
            continue;
        }
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(fabs(p.time_ns - cases[i].ns) < 1e-6, "case %zu: %g ns", i, p.time_ns);
    }
}
END_TEST

/* ---- configs ------------------------------------------------------------------ */

static int parse_model(struct rl_llm_model *m, const char *extra, char *err)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"id\": \"t\", \"layers\": 2, \"hidden_size\": 8, \"ffn_size\": 16, \"heads\": 4,"
             " \"kv_heads\": 2, \"head_dim\": 2, \"vocab_size\": 10%s}",
             extra);
    return rl_llm_model_parse(m, NULL, text, strlen(text), "t.json", err);
}

START_TEST(config_fields_and_defaults)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_llm_model m;
    /* experts default to none: say 1 of 1. */
    ck_assert_int_eq(parse_model(&m, "", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': a size is missing or below 1");
    ck_assert_msg(parse_model(&m, ", \"experts\": 1, \"experts_per_token\": 1", err) == 0, "%s",
                  err);
    ck_assert_str_eq(m.id, "t");
    ck_assert_str_eq(m.name, "t"); /* no name: the id */
    ck_assert_str_eq(m.source, "");
    ck_assert_int_eq(m.layers, 2);
    ck_assert_int_eq(m.hidden, 8);
    ck_assert_int_eq(m.ffn, 16);
    ck_assert_int_eq(m.heads, 4);
    ck_assert_int_eq(m.kv_heads, 2);
    ck_assert_int_eq(m.head_dim, 2);
    ck_assert_int_eq(m.vocab, 10);
    ck_assert_int_eq(m.experts, 1);
    ck_assert_int_eq(m.experts_per_token, 1);
    ck_assert(m.gated); /* SwiGLU unless said */
    ck_assert(!m.tied);
    ck_assert(!m.qkv_bias);
    ck_assert_msg(parse_model(&m,
                              ", \"experts\": 8, \"experts_per_token\": 8, \"name\": \"Tee\","
                              " \"source\": \"hf\", \"ffn_gating\": \"gelu\","
                              " \"tied_embeddings\": true, \"qkv_bias\": true",
                              err) == 0,
                  "%s", err);
    ck_assert_str_eq(m.name, "Tee");
    ck_assert_str_eq(m.source, "hf");
    ck_assert_int_eq(m.experts, 8);
    ck_assert_int_eq(m.experts_per_token, 8); /* k = E is allowed */
    ck_assert(!m.gated);
    ck_assert(m.tied);
    ck_assert(m.qkv_bias);
    ck_assert_msg(parse_model(&m, ", \"experts\": 1, \"experts_per_token\": 1,"
                                  " \"ffn_gating\": \"swiglu\", \"tied_embeddings\": false",
                              err) == 0,
                  "%s", err);
    ck_assert(m.gated);
    ck_assert(!m.tied);
    /* The largest size taken is 999,999,999; 1e9 reads as missing. */
    ck_assert_msg(parse_model(&m, ", \"experts\": 999999999, \"experts_per_token\": 1", err) ==
                      0,
                  "%s", err);
    ck_assert_int_eq(m.experts, 999999999);
}
END_TEST

START_TEST(config_sizes_refused)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_llm_model m;
    static const char *const bad[] = {
        ", \"experts\": 0, \"experts_per_token\": 1",
        ", \"experts\": 1, \"experts_per_token\": 0",
        ", \"experts\": 1e9, \"experts_per_token\": 1",
        ", \"experts\": -2, \"experts_per_token\": 1",
        ", \"experts\": \"2\", \"experts_per_token\": 1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parse_model(&m, bad[i], err) == RL_ESCHEMA, "%s accepted", bad[i]);
        ck_assert_str_eq(err, "'t.json': a size is missing or below 1");
    }
    /* Every size is checked: the base has each at its smallest, 1. */
    static const char *const one =
        "{\"layers\": 1, \"hidden_size\": 1, \"ffn_size\": 1, \"heads\": 1, \"kv_heads\": 1,"
        " \"head_dim\": 1, \"vocab_size\": 1, \"experts\": 1, \"experts_per_token\": 1}";
    ck_assert_int_eq(rl_llm_model_parse(&m, NULL, one, strlen(one), "one.json", err), 0);
    static const char *const keys[] = {"layers",   "hidden_size", "ffn_size",
                                       "heads",    "kv_heads",    "head_dim",
                                       "vocab_size", "experts",   "experts_per_token"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char text[512], key[40];
        snprintf(key, sizeof key, "\"%s\": 1", keys[i]);
        snprintf(text, sizeof text, "%s", one);
        char *at = strstr(text, key);
        ck_assert_ptr_nonnull(at);
        at[strlen(key) - 1] = '0';
        ck_assert_msg(rl_llm_model_parse(&m, NULL, text, strlen(text), "one.json", err) ==
                          RL_ESCHEMA,
                      "%s 0 accepted", keys[i]);
        ck_assert_str_eq(err, "'one.json': a size is missing or below 1");
    }
    /* GQA groups must divide; k at most E. */
    static const char *const gqa =
        "{\"layers\": 1, \"hidden_size\": 1, \"ffn_size\": 1, \"heads\": 6, \"kv_heads\": 4,"
        " \"head_dim\": 1, \"vocab_size\": 1, \"experts\": 1, \"experts_per_token\": 1}";
    ck_assert_int_eq(rl_llm_model_parse(&m, NULL, gqa, strlen(gqa), "t.json", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': heads must be a multiple of kv_heads, experts_per_token at "
                          "most experts");
    ck_assert_int_eq(parse_model(&m, ", \"experts\": 2, \"experts_per_token\": 3", err),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': heads must be a multiple of kv_heads, experts_per_token at "
                          "most experts");
    /* Not JSON: the parser's error, line and all. */
    static const char *const broken = "{\n\"id\": }";
    ck_assert_int_eq(rl_llm_model_parse(&m, NULL, broken, strlen(broken), "t.json", err),
                     RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "'t.json': line 2"));
}
END_TEST

START_TEST(model_names_and_paths)
{
    char err[RL_ERRMSG_SIZE], want[2048];
    struct rl_llm_model m;
    ck_assert_int_eq(rl_llm_model_load(&m, data, "gpt-5", err), RL_ENOTFOUND);
    /* Far from every name: the folder's own list, sorted. */
    snprintf(want, sizeof want,
             "unknown model 'gpt-5' in %s/models (gpt-3-175b, llama-2-13b, llama-2-7b, "
             "llama-3-70b, "
             "llama-3-8b, mistral-7b, mixtral-8x7b, qwen2.5-7b, deepseek-v3, gpt-oss-120b, "
             "gpt-oss-20b, llama-3.1-8b, qwen3-30b-a3b, qwen3-32b; or a config.json path or "
             "folder)",
             data);
    ck_assert_str_eq(err, want);
    /* Near one: that one. */
    ck_assert_int_eq(rl_llm_model_load(&m, data, "llama-3-9b", err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown model 'llama-3-9b' (did you mean 'llama-3-8b'?)");
    /* Names are looked up without regard to case, by id, name or Hugging
     * Face id: Mistral-7B is mistral-7b (7.24 B parameters, 32 layers). */
    ck_assert_int_eq(rl_llm_model_load(&m, data, "Mistral-7B", err), RL_OK);
    ck_assert_int_eq(m.layers, 32);
    ck_assert_int_eq(rl_llm_model_load(&m, data, "mistralai/Mistral-7B-v0.1", err), RL_OK);
    ck_assert_int_eq(m.layers, 32);
    ck_assert_int_eq(rl_llm_model_load(&m, data, "Mistral-8B", err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown model 'Mistral-8B' (did you mean 'mistral-7b'?)");
    /* Near the first name in the folder's sorted list (gpt-3-175b): that one too. */
    ck_assert_int_eq(rl_llm_model_load(&m, data, "gpt-3-175", err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown model 'gpt-3-175' (did you mean 'gpt-3-175b'?)");
    /* A path that does not exist: the file's own error, not a model list. */
    ck_assert_int_eq(rl_llm_model_load(&m, data, "no/such.json", err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot open 'no/such.json'"));
    /* ORG/REPO that is no shipped model's Hugging Face id: the model list. */
    ck_assert_int_eq(rl_llm_model_load(&m, data, "no/such", err), RL_ENOTFOUND);
    ck_assert_msg(strncmp(err, "unknown model 'no/such' in ", 27) == 0, "%s", err);
    /* ".json" alone is a name in data/models, not a path: none such. */
    ck_assert_int_eq(rl_llm_model_load(&m, data, ".json", err), RL_ENOTFOUND);
    ck_assert_msg(strncmp(err, "unknown model '.json' in ", 25) == 0, "%s", err);
    /* A shipped model by path. */
    char path[2048];
    snprintf(path, sizeof path, "%s/models/llama-3-8b.json", data);
    ck_assert_msg(rl_llm_model_load(&m, data, path, err) == 0, "%s", err);
    ck_assert_int_eq(m.layers, 32);
    /* A data folder without models: none found, the folder named. */
    ck_assert_int_eq(rl_llm_model_load(&m, "/nonexistent", "llama-3-8b", err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown model 'llama-3-8b' in /nonexistent/models (or a config.json "
                          "path or folder)");
}
END_TEST

START_TEST(crossover_bounds)
{
    /* 230 (see crossover_of_square_layers): found with max_batch 230, not
     * with 229; a GPU without the roof: none. */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_config cfg = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &cfg, 2048, &c, 230), 230);
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &cfg, 2048, &c, 229), 0);
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &cfg, 2048, &c, 0), 0);
    static struct rl_ceilings a100;
    ck_assert_int_eq(rl_ceilings_init(&a100, rl_test_gpu("a100-sxm-80gb"), NULL, NULL, false,
                                      false, NULL, err),
                     0);
    struct rl_llm_config f8 = {.precision = RL_LLM_FP8, .kv = RL_LLM_KV_BF16};
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &f8, 2048, &a100, 65536), 0);
    /* The tiny model on the hand ceilings (ridge 1 FLOP/B for bf16): at
     * batch 1 the QKV projection does 256 FLOPs on 304 bytes; at batch 2
     * every linear is right of the ridge (qkv 512 on 352, o 256 on 192,
     * gate/up 1024 on 672, down 512 on 352, LM head 320 on 232). */
    static const struct rl_memory_roof mem[] = {
        {.level = RL_MEM_DRAM, .bandwidth_gbs = 1000, .origin = RL_ORIGIN_DATASHEET}};
    hand_ceilings(&c, mem, 1);
    struct rl_llm_model t = tiny();
    ck_assert_int_eq(rl_llm_crossover_batch(&t, &cfg, 5, &c, 10), 2);
    ck_assert_int_eq(rl_llm_crossover_batch(&t, &cfg, 5, &c, 1), 0);
}
END_TEST

static Suite *llm_suite(void)
{
    Suite *s = suite_create("llm");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 60);
    tcase_add_test(core, every_config_and_its_parameters);
    tcase_add_test(core, kv_cache_counts_kv_heads);
    tcase_add_test(core, decode_is_bytes_over_bandwidth);
    tcase_add_test(core, crossover_of_square_layers);
    tcase_add_test(core, moe_decode_reads_k_experts);
    tcase_add_test(core, measured_bandwidth_is_preferred);
    tcase_add_test(core, llm_command);
    tcase_add_test(core, decode_operators_by_hand);
    tcase_add_test(core, prefill_operators_by_hand);
    tcase_add_test(core, ffn_variants_and_formats_by_hand);
    tcase_add_test(core, params_and_memory_by_hand);
    tcase_add_test(core, number_formats);
    tcase_add_test(core, evaluate_by_hand);
    tcase_add_test(core, dram_roof_measured_first);
    tcase_add_test(core, config_fields_and_defaults);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, bad_configs);
    tcase_add_test(limits, config_sizes_refused);
    tcase_add_test(limits, model_names_and_paths);
    tcase_add_test(limits, crossover_bounds);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(llm_suite()); }
