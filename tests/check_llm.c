/* check_llm.c - tests of the LLM model: configs, parameter and KV counts, decode and prefill on the roofline, the crossover batch, the llm command. */
#define _GNU_SOURCE
#include "test_util.h"

#include "ceilings.h"
#include "error.h"
#include "json.h"
#include "llm.h"
#include "paths.h"

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
                 {"mixtral-8x7b", 46702792704.0}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        struct rl_llm_model m = load(known[i].id);
        ck_assert_msg(rl_llm_params(&m) == known[i].params, "%s: %.0f parameters", known[i].id,
                      rl_llm_params(&m));
    }
    /* Weight bytes: BF16 2 per parameter; FP8 1 per linear weight, the
     * embedding, LM head and norms staying 16-bit. */
    struct rl_llm_model m = load("llama-2-7b");
    struct rl_llm_config bf16 = {RL_LLM_BF16, RL_LLM_KV_BF16}, fp8 = {RL_LLM_FP8, RL_LLM_KV_FP8};
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
    struct rl_llm_config bf16 = {RL_LLM_BF16, RL_LLM_KV_BF16}, fp8 = {RL_LLM_BF16, RL_LLM_KV_FP8};
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
    struct rl_llm_config cfg = {RL_LLM_BF16, RL_LLM_KV_BF16};
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
    struct rl_llm_config f8 = {RL_LLM_FP8, RL_LLM_KV_BF16};
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
    struct rl_llm_config cfg = {RL_LLM_BF16, RL_LLM_KV_BF16};
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
    struct rl_llm_config cfg = {RL_LLM_BF16, RL_LLM_KV_BF16};
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
    struct rl_llm_config cfg = {RL_LLM_BF16, RL_LLM_KV_BF16};
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &cfg, 2048, &c, 65536), 230);
    /* FP8 weights and activations double the intensity at every batch and
     * the FP8 peak doubles the ridge (1978.9 / 4.8 = 412.3): the same 230.
     * 4-bit weights with BF16 activations raise the intensity only: the
     * crossover comes sooner. */
    struct rl_llm_config f8 = {RL_LLM_FP8, RL_LLM_KV_BF16}, w4 = {RL_LLM_W4A16, RL_LLM_KV_BF16};
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
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, bad_configs);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(llm_suite()); }
