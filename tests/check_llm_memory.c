/* check_llm_memory.c - tests of LLM memory per GPU: ZeRO's model states, the split of weights and KV cache over TP/PP, sliding windows, activations, what fits, the fewest GPUs; and the llm command's memory keys and charts. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/llm/layout.h"
#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
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

static const struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};

static struct rl_llm_layout tp(int n)
{
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = n;
    return l;
}

START_TEST(zero_paper_example)
{
    /* Rajbhandari et al. 2020, Figure 1: 7.5B parameters, DP 64, K = 12:
     * baseline (2 + 2 + K) x 7.5e9 = 120 GB; stage 1 2 x 7.5 + 2 x 7.5 +
     * 12 x 7.5 / 64 = 30 + 1.40625 = 31.4 GB; stage 2 15 + 14 x 7.5 / 64 =
     * 16.640625 = 16.6 GB; stage 3 16 x 7.5 / 64 = 1.875 = 1.9 GB. The
     * paper's GB are 1e9 bytes: in GiB (2^30) the baseline would read
     * 111.8, not 120. */
    static const double want[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
    for (int stage = 0; stage <= 3; stage++) {
        double w, g, o;
        rl_llm_zero_states(7.5e9, 64, stage, &w, &g, &o);
        ck_assert_double_eq_tol(w + g + o, want[stage], 1);
    }
    double w, g, o;
    rl_llm_zero_states(7.5e9, 64, 1, &w, &g, &o);
    ck_assert_double_eq_tol(w, 15e9, 1);
    ck_assert_double_eq_tol(g, 15e9, 1);
    ck_assert_double_eq_tol(o, 90e9 / 64, 1);
    /* The paper's rounded figures, one decimal. */
    rl_llm_zero_states(7.5e9, 64, 1, &w, &g, &o);
    ck_assert_double_eq_tol((w + g + o) / 1e9, 31.4, 0.05);
    rl_llm_zero_states(7.5e9, 64, 2, &w, &g, &o);
    ck_assert_double_eq_tol((w + g + o) / 1e9, 16.6, 0.05);
    rl_llm_zero_states(7.5e9, 64, 3, &w, &g, &o);
    ck_assert_double_eq_tol((w + g + o) / 1e9, 1.9, 0.05);
    /* Through the command: --params, memory only. */
    static const char *const stages[] = {"0", "1", "2", "3"};
    for (int stage = 0; stage <= 3; stage++) {
        struct rl_run r = rl_test_cli(NULL, "llm", "--params", "7.5e9", "--dp", "64", "--zero",
                                      stages[stage], "--gpu", "a100-sxm-80gb", "--json",
                                      (const char *)NULL);
        ck_assert_msg(r.status == 0, "%s", r.err);
        cJSON *doc = cJSON_Parse(r.out);
        ck_assert_ptr_nonnull(doc);
        ck_assert_double_eq_tol(rl_json_number(doc, "model_state_bytes_per_gpu"), want[stage], 1);
        const cJSON *mem = cJSON_GetObjectItem(doc, "memory_per_gpu_bytes");
        ck_assert_double_eq_tol(rl_json_number(mem, "total"), want[stage], 1);
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(mem, "activations"))); /* not counted */
        /* 80 GB less 1 GB and 5%: 75 GB usable; 120 GB does not fit. */
        ck_assert_double_eq(rl_json_number(doc, "gpu_memory_bytes"), 80e9);
        ck_assert_double_eq(rl_json_number(doc, "reserve_bytes"), 5e9);
        ck_assert(cJSON_IsBool(cJSON_GetObjectItem(doc, "fits")));
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "fits")) == (stage > 0));
        cJSON_Delete(doc);
        rl_run_release(&r);
    }
}
END_TEST

START_TEST(bubble_by_hand)
{
    /* Narayanan et al. 2021: (P - 1) / (M + P - 1); P 4, M 8: 3 / 11. */
    ck_assert_double_eq_tol(rl_llm_bubble_fraction(4, 8), 3.0 / 11, 1e-15);
    ck_assert_double_eq(rl_llm_bubble_fraction(1, 8), 0);
    ck_assert_double_eq_tol(rl_llm_bubble_fraction(8, 1), 7.0 / 8, 1e-15);
}
END_TEST

START_TEST(llama_3_70b_fits_at_tp_4)
{
    struct rl_llm_model m = load("llama-3-70b");
    struct rl_llm_capacity h100, mi300x;
    rl_llm_capacity_of(&h100, 80);
    /* MI300X: 192 GB HBM3 (AMD Instinct MI300X datasheet; data/gpus/mi300x.json,
     * through the command below). */
    rl_llm_capacity_of(&mi300x, 192);
    ck_assert_double_eq(h100.usable_bytes, 75e9);          /* 80 - 1 - 4 */
    ck_assert_double_eq(mi300x.usable_bytes, 181.4e9);     /* 192 - 1 - 9.6 */
    struct rl_llm_memory mem;
    /* TP 1, batch 1, context 2048: every weight, 2 x 70,553,706,496 B;
     * KV 2 x 80 layers x 8 heads x 128 x 2 B = 327,680 B per token, x 2048
     * = 671,088,640. */
    struct rl_llm_layout l = tp(1);
    rl_llm_memory_per_gpu(&m, &bf16, &l, 1, 2048, &mem);
    ck_assert_double_eq(mem.weights_bytes, 2 * 70553706496.0);
    ck_assert_double_eq(mem.kv_cache_bytes, 671088640.0);
    ck_assert(!rl_llm_fits(&mem, &h100));
    ck_assert(rl_llm_fits(&mem, &mi300x));
    ck_assert_int_eq(rl_llm_max_batch(&m, &bf16, &l, 2048, &h100, 65536), 0);
    /* TP 4: per layer q 16 heads, KV 2 heads: H (16 + 2 x 2) 128 =
     * 20,971,520, o 16 x 128 x H = 16,777,216, MLP 3 H F / 4 = 176,160,768,
     * norms 2H = 16,384: 213,925,888 x 80 = 17,114,071,040; embedding and
     * LM head V / 4 x H each, 262,668,288 x 2, final norm 8192:
     * 17,639,415,808 parameters, 35,278,831,616 B. KV 2 heads of 8:
     * 167,772,160. Activations: the prefill's gate/up projection, 2048 x
     * (8192 + 2 x 7168) x 2 = 92,274,688, beside the residual stream 2048 x
     * 8192 x 2 = 33,554,432: 125,829,120. */
    l = tp(4);
    rl_llm_memory_per_gpu(&m, &bf16, &l, 1, 2048, &mem);
    ck_assert_double_eq(mem.params, 17639415808.0);
    ck_assert_double_eq(mem.weights_bytes, 35278831616.0);
    ck_assert_double_eq(mem.kv_cache_bytes, 167772160.0);
    ck_assert_double_eq(mem.activations_bytes, 125829120.0);
    ck_assert_double_eq(mem.total_bytes, 35278831616.0 + 167772160.0 + 125829120.0);
    ck_assert(rl_llm_fits(&mem, &h100));
    /* The fewest H100s: TP 2 (70.56 GB of weights, 71.1 GB in all). */
    struct rl_llm_layout found;
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 1, 2048, &h100, 8, 4096, &found), 2);
    ck_assert_int_eq(found.tp, 2);
    ck_assert_int_eq(found.pp, 1);
    l = tp(1);
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 1, 2048, &mi300x, 8, 4096, &found), 1);
    /* TP 2 x PP 2: a stage of 40 layers of TP 2 and, on the last stage, the
     * LM head (V / 2 rows) and final norm. */
    l = tp(2);
    l.pp = 2;
    struct rl_llm_memory pp2;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 1, 2048, &pp2);
    /* 40 layers x (H (32 + 2 x 4) 128 + 32 x 128 H + 3 H 14336 + 2H) +
     * V / 2 x H + H = 40 x 427,835,392 + 525,344,768 = 17,638,760,448. */
    ck_assert_double_eq(pp2.params, 40 * 427835392.0 + 128256.0 / 2 * 8192 + 8192);
}
END_TEST

START_TEST(sliding_window_halves_mistral_kv)
{
    /* Mistral-7B v0.1: sliding_window 4096 (its config.json). At 8k
     * context the cache keeps 4096 tokens of 2 x 32 x 8 x 128 x 2 =
     * 131,072 B: 536,870,912 B, half the 1,073,741,824 of 8192 tokens. */
    struct rl_llm_model m = load("mistral-7b");
    ck_assert_int_eq(m.sliding_window, 4096);
    ck_assert_double_eq(rl_llm_kv_bytes_per_sequence(&m, &bf16, 8192), 536870912.0);
    struct rl_llm_model full = m;
    full.sliding_window = 0;
    ck_assert_double_eq(rl_llm_kv_bytes_per_sequence(&full, &bf16, 8192), 1073741824.0);
    ck_assert_double_eq(rl_llm_kv_bytes_per_sequence(&m, &bf16, 2048), 268435456.0);
    /* Decode at 8k reads 4096 cached positions: K 4096 x 8 x 128 x 2 B =
     * 8,388,608 per layer; scores 2 x 4096 x 32 x 128 + 6 x 4096 x 32. */
    struct rl_llm_phase_cost p;
    rl_llm_phase(&m, &bf16, RL_LLM_DECODE, 1, 8192, &p);
    ck_assert_str_eq(p.ops[2].name, "attn_scores");
    ck_assert_double_eq(p.ops[2].kv_bytes, 8388608.0);
    ck_assert_double_eq(p.ops[2].flops, 2.0 * 4096 * 32 * 128 + 6.0 * 4096 * 32);
    /* Prefill of 8192: pairs 4096 x 4097 / 2 + 4096 x 4096 = 25,167,872
     * (not 8192 x 8193 / 2 = 33,558,528). */
    rl_llm_phase(&m, &bf16, RL_LLM_PREFILL, 1, 8192, &p);
    ck_assert_double_eq(p.ops[3].flops, 2.0 * 25167872 * 32 * 128);
    rl_llm_phase(&full, &bf16, RL_LLM_PREFILL, 1, 8192, &p);
    ck_assert_double_eq(p.ops[3].flops, 2.0 * 33558528 * 32 * 128);
    /* The memory per GPU carries it: 8192 tokens of context, batch 2. */
    struct rl_llm_layout l = tp(1);
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 2, 8192, &mem);
    ck_assert_double_eq(mem.kv_cache_bytes, 2 * 536870912.0);
    /* Through the command. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "mistral-7b", "--seq", "8192",
                                  "--batch", "1", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_double_eq(rl_json_number(doc, "kv_cache_bytes"), 536870912.0);
    ck_assert_double_eq(
        rl_json_number(cJSON_GetObjectItem(doc, "memory_per_gpu_bytes"), "kv_cache"),
        536870912.0);
    ck_assert_double_eq(rl_json_number(doc, "sliding_window"), 4096);
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

/* H 8, F 16, 4 heads and 2 KV heads of 2, vocab 10, 3 layers (check_llm.c's). */
static struct rl_llm_model tiny(void)
{
    struct rl_llm_model m = {.layers = 3, .hidden = 8, .ffn = 16, .heads = 4, .kv_heads = 2,
                             .head_dim = 2, .vocab = 10, .experts = 1, .experts_per_token = 1,
                             .gated = true};
    snprintf(m.id, sizeof m.id, "tiny");
    snprintf(m.name, sizeof m.name, "tiny");
    return m;
}

/* Edges of the phase model on the tiny model, by hand. */
START_TEST(phase_edges_by_hand)
{
    struct rl_llm_model m = tiny();
    struct rl_llm_phase_cost p, t;
    /* Prefill of B 2 sequences of S 5: T = 10 tokens, 5 x 6 / 2 = 15
     * causal pairs a sequence, P = 30: a query sees P / T = 3 keys on
     * average (not P / B = 15). */
    rl_llm_phase_split(&m, &bf16, NULL, RL_LLM_PREFILL, 2, 5, &p);
    ck_assert_str_eq(p.ops[2].name, "attn_scores");
    ck_assert_double_eq(p.ops[2].keys, 3);
    ck_assert_str_eq(p.ops[3].name, "attn_av"); /* the same keys weigh the values */
    ck_assert_double_eq(p.ops[3].keys, 3);
    /* Training is the forward and two backward products, 3 passes: every
     * op's weight bytes 3 x the forward's (qkv: H 8 x (4 + 2 x 2) heads x
     * 2 = 16 columns x 2 B = 256 forward, 768 in training). */
    rl_llm_phase_split(&m, &bf16, NULL, RL_LLM_TRAIN, 2, 5, &t);
    ck_assert_int_eq(t.n_ops, p.n_ops);
    ck_assert_str_eq(t.ops[1].name, "qkv_proj");
    ck_assert_double_eq(t.ops[1].weight_bytes, 3 * 8 * 16 * 2);
    for (int i = 0; i < p.n_ops; i++)
        ck_assert_msg(t.ops[i].weight_bytes == 3 * p.ops[i].weight_bytes, "%s: %g vs 3 x %g",
                      t.ops[i].name, t.ops[i].weight_bytes, p.ops[i].weight_bytes);
    /* A sliding window of 1 position attends 1 of 10 (the window is > 0);
     * none (0) attends all 10. */
    m.sliding_window = 1;
    ck_assert_int_eq(rl_llm_attended(&m, 10), 1);
    m.sliding_window = 0;
    ck_assert_int_eq(rl_llm_attended(&m, 10), 10);
    /* A model given by its size: 7e9 parameters read "7 B" (7e9 / 1e9). */
    rl_llm_model_of_params(&m, 7e9);
    ck_assert_str_eq(m.name, "a model of 7 B parameters");
    ck_assert_double_eq(m.given_params, 7e9);
}
END_TEST

START_TEST(tp_shapes_by_hand)
{
    /* TP 2 of the tiny model, decode B 2, S 5: 2 heads and 1 KV head per
     * GPU, qkv (2 + 2) x 2 = 8 columns, F / 2 = 8, V / 2 = 5. */
    struct rl_llm_model m = tiny();
    struct rl_llm_split sp = {.tp = 2, .pp = 1, .ep = 1};
    struct rl_llm_phase_cost p;
    rl_llm_phase_split(&m, &bf16, &sp, RL_LLM_DECODE, 2, 5, &p);
    /* qkv: 2 T H 8 = 256 FLOPs; H 8 x 2 B = 128; x in T H ab 32 + q T 2 2 ab 16 */
    ck_assert_str_eq(p.ops[1].name, "qkv_proj");
    ck_assert_double_eq(p.ops[1].flops, 256);
    ck_assert_double_eq(p.ops[1].weight_bytes, 128);
    ck_assert_double_eq(p.ops[1].act_bytes, 48);
    ck_assert_double_eq(p.ops[1].kv_bytes, 16); /* T 2 x 1 head x 2 x 2 B */
    /* scores: P 10 pairs x 2 heads: 2 x 10 x 2 x 2 + 6 x 10 x 2 = 200;
     * K B S 1 head 2 dims 2 B = 40 */
    ck_assert_double_eq(p.ops[2].flops, 200);
    ck_assert_double_eq(p.ops[2].kv_bytes, 40);
    /* o: rows split: 2 T (2 x 2) H = 128; 4 x 8 x 2 B = 64 */
    ck_assert_double_eq(p.ops[4].flops, 128);
    ck_assert_double_eq(p.ops[4].weight_bytes, 64);
    /* gate/up: 2 T H 8 x 2 = 512; 8 x 8 x 2 x 2 B = 256; down 2 T 8 H = 256 */
    ck_assert_double_eq(p.ops[7].flops, 512);
    ck_assert_double_eq(p.ops[7].weight_bytes, 256);
    ck_assert_double_eq(p.ops[9].flops, 256);
    /* LM head V / 2 = 5 rows: 2 B H 5 = 160; 5 x 8 x 2 = 80 */
    ck_assert_str_eq(p.ops[12].name, "lm_head");
    ck_assert_double_eq(p.ops[12].flops, 160);
    ck_assert_double_eq(p.ops[12].weight_bytes, 80);
    /* TP 4 > 2 KV heads: one KV head per GPU, replicated: qkv (1 + 2) x 2. */
    ck_assert_int_eq(rl_llm_kv_heads_per_gpu(&m, 4), 1);
    ck_assert_int_eq(rl_llm_kv_heads_per_gpu(&m, 2), 1);
    ck_assert_int_eq(rl_llm_kv_heads_per_gpu(&m, 1), 2);
    sp.tp = 4;
    rl_llm_phase_split(&m, &bf16, &sp, RL_LLM_DECODE, 2, 5, &p);
    ck_assert_double_eq(p.ops[1].weight_bytes, 8 * 3 * 2 * 2);
    /* PP 3: one layer per stage, no embedding on the binding stage. */
    sp.tp = 1;
    sp.pp = 3;
    rl_llm_phase_split(&m, &bf16, &sp, RL_LLM_DECODE, 2, 5, &p);
    ck_assert_int_eq(p.ops[0].count, 1);
    ck_assert_int_eq(p.n_ops, 12);
    ck_assert_str_eq(p.ops[10].name, "final_norm");
    /* Splits that cannot hold the model. */
    char err[RL_ERRMSG_SIZE];
    struct rl_llm_split bad = {.tp = 3, .pp = 1, .ep = 1};
    ck_assert_int_eq(rl_llm_split_check(&m, &bad, err), RL_EINVAL);
    ck_assert_str_eq(err, "TP 3 does not divide tiny's 4 heads and MLP width 16");
    bad = (struct rl_llm_split){.tp = 1, .pp = 4, .ep = 1};
    ck_assert_int_eq(rl_llm_split_check(&m, &bad, err), RL_EINVAL);
    ck_assert_str_eq(err, "PP 4 is more stages than tiny's 3 layers");
    bad = (struct rl_llm_split){.tp = 1, .pp = 1, .ep = 2};
    ck_assert_int_eq(rl_llm_split_check(&m, &bad, err), RL_EINVAL);
    ck_assert_str_eq(err, "EP 2 does not divide tiny's 1 experts (a dense model: EP 1)");
    /* The shapes one GPU runs: TP 2, decode of 2: qkv 2 tokens x 8 -> 8,
     * o 2 x 4 -> 8, gate/up 2 x 8 -> 16, down 2 x 8 -> 8, LM head 2 x 8 ->
     * 5; attention 2 heads, 1 KV head, 5 keys. */
    sp = (struct rl_llm_split){.tp = 2, .pp = 1, .ep = 1};
    rl_llm_phase_split(&m, &bf16, &sp, RL_LLM_DECODE, 2, 5, &p);
    static const double shapes[][3] = {{0}, {2, 8, 8}, {0}, {0}, {2, 4, 8}, {0}, {0},
                                       {2, 8, 16}, {0}, {2, 8, 8}, {0}, {0}, {2, 8, 5}};
    for (int i = 0; i < p.n_ops; i++) {
        ck_assert_msg(p.ops[i].tokens == shapes[i][0] && p.ops[i].in == shapes[i][1] &&
                          p.ops[i].out == shapes[i][2],
                      "%s: %g x %g -> %g", p.ops[i].name, p.ops[i].tokens, p.ops[i].in,
                      p.ops[i].out);
    }
    ck_assert_double_eq(p.ops[2].heads, 2);
    ck_assert_double_eq(p.ops[2].kv_heads, 1);
    ck_assert_double_eq(p.ops[2].keys, 5);
}
END_TEST

START_TEST(training_memory_by_hand)
{
    /* The tiny model, training, batch 4 of 4 tokens, DP 2, M 2: 2
     * sequences per GPU, microbatch 1. Params 1944 (check_llm.c). ZeRO 0:
     * 2 + 2 + 12 B each: 31,104. Activations per layer (Korthikanti, t =
     * 1): s b h (34 + 5 a s / h) = 4 x 1 x 8 x (34 + 5 x 4 x 4 / 8) = 1408;
     * 3 layers, one microbatch in flight (no pipeline): 4224. */
    struct rl_llm_model m = tiny();
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.train = true;
    l.dp = 2;
    l.microbatches = 2;
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 4, 4, &mem);
    ck_assert_int_eq(mem.sequences, 2);
    ck_assert_int_eq(mem.microbatch, 1);
    ck_assert_double_eq(mem.model_state_bytes, 16 * 1944);
    ck_assert_double_eq(mem.activations_bytes, 3 * 1408);
    ck_assert_double_eq(mem.kv_cache_bytes, 0);
    /* ZeRO 2 over DP 2: 2 x 1944 + (2 + 12) x 1944 / 2 = 17,496. */
    l.zero = 2;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 4, 4, &mem);
    ck_assert_double_eq(mem.model_state_bytes, 2 * 1944 + 14 * 1944 / 2.0);
    /* Full recomputation: 2 s b h per layer = 64, x 3, plus one layer's
     * 1408 while its backward runs: 1600. */
    l.recompute = true;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 4, 4, &mem);
    ck_assert_double_eq(mem.activations_bytes, 3 * 64 + 1408);
    /* TP 2 (t = 2): s b h (10 + 24 / 2 + 5 a s / (h 2)) = 32 x (22 + 5) =
     * 864 per layer. PP 3 with M 2: each stage 1 layer, min(3, 2) = 2
     * microbatches in flight: 1728. */
    l.recompute = false;
    l.zero = 0;
    l.tp = 2;
    l.pp = 3;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 4, 4, &mem);
    ck_assert_double_eq(mem.activations_bytes, 2 * 864);
    /* The old one-GPU formula (rl_llm_training_bytes) is the same case. */
    l = RL_LLM_LAYOUT_ONE;
    l.train = true;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 2, 4, &mem);
    ck_assert_double_eq(mem.total_bytes, rl_llm_training_bytes(&m, 2, 4));
}
END_TEST

START_TEST(largest_batch_that_fits)
{
    /* Llama-3-8B on an H200 (141 GB; usable 141 - 1 - 7.05 = 132.95 GB),
     * context 2048: 16,060,522,496 B of weights plus 268,435,456 B of KV
     * per sequence and the prefill's 193 MB of activations: (132.95e9 -
     * 16.06e9 - 0.19e9) / 0.2684e9 = 434.7, so 434. */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_capacity h200;
    rl_llm_capacity_of(&h200, 141);
    struct rl_llm_layout l = tp(1);
    ck_assert_int_eq(rl_llm_max_batch(&m, &bf16, &l, 2048, &h200, 65536), 434);
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 434, 2048, &mem);
    ck_assert(rl_llm_fits(&mem, &h200));
    rl_llm_memory_per_gpu(&m, &bf16, &l, 435, 2048, &mem);
    ck_assert(!rl_llm_fits(&mem, &h200));
    ck_assert_int_eq(rl_llm_max_batch(&m, &bf16, &l, 2048, &h200, 100), 100);
    /* Llama-2-7B on an H100 (the case): the crossover (346)
     * needs far more than fits: (75e9 - 13.48e9 - 0.19e9) / 1.0737e9
     * = 57.1, so 57. */
    struct rl_llm_model l2 = load("llama-2-7b");
    struct rl_llm_capacity h100;
    rl_llm_capacity_of(&h100, 80);
    ck_assert_int_eq(rl_llm_max_batch(&l2, &bf16, &l, 2048, &h100, 65536), 57);
}
END_TEST

START_TEST(llm_command_memory_keys)
{
    /* Llama-3-70B on an H100: does not fit at TP 1, fits at TP 4. */
    static const char *const tps[] = {"1", "4"};
    for (int i = 0; i < 2; i++) {
        struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu",
                                      "h100-sxm", "--tp", tps[i], "--json", (const char *)NULL);
        ck_assert_msg(r.status == 0, "%s", r.err);
        cJSON *doc = cJSON_Parse(r.out);
        ck_assert_ptr_nonnull(doc);
        static const char *const keys[] = {"fits", "gpu_memory_bytes", "memory_per_gpu_bytes",
                                           "max_batch_that_fits", "min_gpus", "layout",
                                           "pipeline_bubble_fraction", "comm_ms_per_step",
                                           "model_state_bytes_per_gpu", "bound",
                                           "reserve_bytes"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            ck_assert_msg(cJSON_GetObjectItem(doc, keys[k]), "no %s", keys[k]);
        static const char *const mem_keys[] = {"weights", "kv_cache", "activations",
                                               "gradients", "optimizer", "total"};
        const cJSON *mem = cJSON_GetObjectItem(doc, "memory_per_gpu_bytes");
        for (size_t k = 0; k < 6; k++)
            ck_assert_msg(cJSON_IsNumber(cJSON_GetObjectItem(mem, mem_keys[k])), "no %s",
                          mem_keys[k]);
        static const char *const lay_keys[] = {"tp", "pp", "dp", "ep", "zero", "microbatches"};
        const cJSON *lay = cJSON_GetObjectItem(doc, "layout");
        for (size_t k = 0; k < 6; k++)
            ck_assert_msg(cJSON_IsNumber(cJSON_GetObjectItem(lay, lay_keys[k])), "no %s",
                          lay_keys[k]);
        ck_assert_double_eq(rl_json_number(lay, "tp"), i ? 4 : 1);
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "fits")) == (i == 1));
        ck_assert_double_eq(rl_json_number(doc, "min_gpus"), 2);
        /* TP 4: (75e9 - 35,278,831,616 of weights - 125,829,120 of
         * activations) / 167,772,160 of KV per sequence = 236.006: 236. */
        ck_assert_double_eq(rl_json_number(doc, "max_batch_that_fits"), i ? 236 : 0);
        /* each batch says whether it fits */
        const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "batches"), 0);
        ck_assert(cJSON_IsBool(cJSON_GetObjectItem(b, "fits")));
        cJSON_Delete(doc);
        rl_run_release(&r);
    }
    /* A 192 GB MI300X holds it on one GPU (the datasheet's memory). */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "mi300x",
                                  "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_double_eq(rl_json_number(doc, "gpu_memory_bytes"), 192e9);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "fits")));
    ck_assert_double_eq(rl_json_number(doc, "min_gpus"), 1);
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* The text says it too. */
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "= 142.16 GB of 80.00 GB (reserve 5.00 GB: 1 GB + 5%; "
                                        "usable 75.00 GB): does NOT fit"));
    ck_assert_ptr_nonnull(strstr(r.out, "fewest GPUs that hold it: 2 (TP 2 x PP 1"));
    rl_run_release(&r);
    /* Bad layouts are usage errors. */
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--tp", "3", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "TP 3 does not divide"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--recompute", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--zero", "2", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--params", "7e9", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--params", "x", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--zero", "4", "--train",
                    (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
}
END_TEST

START_TEST(batch_chart_cut_where_it_stops_fitting)
{
    /* Llama-2-7B on an H100: the curve ends at batch 57, the largest that
     * fits; the batches beyond are shaded, and the crossover (346) said to
     * lie there. */
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/llm-cut", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-2-7b", "--gpu", "h100-sxm",
                                  "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s/llm-batch.gp", dir);
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_msg(strstr(gp, "\"batch > 57: over 75 GB\""), "%s", gp);
    ck_assert_msg(strstr(gp, "\"crossover 346 does not fit\""), "%s", gp);
    /* shaded to twice the crossover (692), past 57^(1/0.72) = 279 */
    ck_assert_msg(strstr(gp, "set object 1 rect from 57, graph 0 to 692, graph 1"), "%s", gp);
    free(gp);
    /* Llama-3-70B on 4 H100s fits up to 236: the shade ends at 236^(1/0.72)
     * = 1975.7 (28% of the log axis), past twice the crossover (722); it
     * ran to 236^(1/0.6) = 9012.7, 40% of the chart. */
    char dir70[512], path70[700];
    snprintf(dir70, sizeof dir70, "%s/llm-cut70", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "4",
                    "-o", dir70, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path70, sizeof path70, "%s/llm-batch.gp", dir70);
    gp = rl_test_slurp(path70);
    ck_assert_ptr_nonnull(gp);
    ck_assert_msg(strstr(gp, "set object 1 rect from 236, graph 0 to 1975.655, graph 1"), "%s", gp);
    free(gp);
    snprintf(path, sizeof path, "%s/llm-batch.dat", dir);
    char *dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(dat);
    /* 1, 2, 4, ..., 32 and 57; nothing past it. */
    ck_assert_ptr_nonnull(strstr(dat, "\n57 "));
    ck_assert_ptr_null(strstr(dat, "\n64 "));
    free(dat);
    /* The JSON: the crossover does not fit. */
    snprintf(path, sizeof path, "%s/llm.json", dir);
    char *js = rl_test_slurp(path);
    cJSON *doc = cJSON_Parse(js);
    ck_assert_ptr_nonnull(doc);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "crossover_fits")));
    ck_assert_double_eq(rl_json_number(doc, "crossover_batch"), 346);
    ck_assert_double_eq(rl_json_number(doc, "max_batch_that_fits"), 57);
    cJSON_Delete(doc);
    free(js);
}
END_TEST

/* The fewest GPUs for inference keep the layout's DP: Llama-3-8B, 64
 * sequences of 8192 tokens, on H100s (75e9 usable), TP at most 1, DP 1.
 * KV: 2 x 32 layers x 8 heads x 128 x 2 B = 131,072 B a token, 2^30 a
 * sequence, 64 GiB = 68,719,476,736 in all. One GPU: 16.06e9 of weights
 * and the KV do not fit. Two: DP 2 would halve the KV per GPU (16.06e9 +
 * 34.36e9 fit) but the layout's DP is 1, so PP 2 it is: a stage of 16
 * layers of 4096 x (32 + 2 x 8) x 128 + 32 x 128 x 4096 + 3 x 4096 x
 * 14336 + 2 x 4096 = 218,112,000 (3,489,792,000) and one of the embedding
 * or LM head, 128,256 x 4096, and the final norm, 4096: 4,015,132,672
 * parameters; the KV of its 16 layers, 34,359,738,368; with activations
 * under 1 GB, about 43.2e9. */
START_TEST(min_gpus_keep_the_dp_asked)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_capacity h100;
    rl_llm_capacity_of(&h100, 80);
    struct rl_llm_layout l = tp(1), found;
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 64, 8192, &mem);
    ck_assert_double_eq(mem.kv_cache_bytes, 68719476736.0);
    ck_assert(!rl_llm_fits(&mem, &h100));
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 64, 8192, &h100, 1, 64, &found), 2);
    ck_assert_int_eq(found.tp, 1);
    ck_assert_int_eq(found.pp, 2);
    ck_assert_int_eq(found.dp, 1);
    rl_llm_memory_per_gpu(&m, &bf16, &found, 64, 8192, &mem);
    ck_assert_double_eq(mem.params, 4015132672.0);
    ck_assert_double_eq(mem.kv_cache_bytes, 34359738368.0);
    ck_assert_double_lt(mem.activations_bytes, 1e9);
    ck_assert(rl_llm_fits(&mem, &h100));
    /* A ZeRO stage on an inference layout changes nothing (ZeRO partitions
     * training's states): DP stays as asked. */
    l.zero = 1;
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 64, 8192, &h100, 1, 64, &found), 2);
    ck_assert_int_eq(found.pp, 2);
    ck_assert_int_eq(found.dp, 1);
    l.zero = 0;
    /* At most 2 GPUs: still 2 (the limit itself is searched). */
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 64, 8192, &h100, 1, 2, &found), 2);
    /* DP 2 asked: GPUs by 2, each replica's GPU with 32 sequences: 16.06e9
     * of weights + 34.36e9 of KV fit on one, so 2 GPUs at TP 1, PP 1. */
    l.dp = 2;
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 64, 8192, &h100, 1, 64, &found), 2);
    ck_assert_int_eq(found.tp, 1);
    ck_assert_int_eq(found.pp, 1);
    ck_assert_int_eq(found.dp, 2);
}
END_TEST

/* With EP the fewest GPUs come by EP x DP, each replica's share of n GPUs
 * n / EP: Mixtral-8x7B (8 experts) at EP 2 on H100s, batch 1 of 2048:
 * each GPU holds the attention and 4 of the 8 experts of every layer:
 * 4096 x (32 + 2 x 8) x 128 + 32 x 128 x 4096 + 4 x 3 x 4096 x 14336 +
 * 2 x 4096 + 8 x 4096 (norms, router) = 746,627,072 a layer, x 32, and
 * the embedding and LM head 2 x 32000 x 4096 and final norm 4096:
 * 24,154,214,400 parameters (48.3 GB), which fit: 2 GPUs, TP 1 x PP 1 x
 * EP 2. */
START_TEST(min_gpus_by_ep)
{
    struct rl_llm_model m = load("mixtral-8x7b");
    struct rl_llm_capacity h100;
    rl_llm_capacity_of(&h100, 80);
    struct rl_llm_layout l = tp(1), found;
    l.ep = 2;
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 1, 2048, &h100, 8, 64, &found), 2);
    ck_assert_int_eq(found.tp, 1);
    ck_assert_int_eq(found.pp, 1);
    ck_assert_int_eq(found.ep, 2);
    ck_assert_int_eq(found.dp, 1);
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &bf16, &found, 1, 2048, &mem);
    ck_assert_double_eq(mem.params, 24154214400.0);
    ck_assert(rl_llm_fits(&mem, &h100));
}
END_TEST

/* PP goes up to the model's every layer, one a stage: the tiny model (3
 * layers of 592 parameters, embedding and LM head 80 each, final norm 8)
 * at batch 1 of 4 tokens on GPUs of 2000 usable bytes, TP at most 1. Per
 * GPU: weights 2 B a parameter, KV 2 x 2 heads x 2 x 2 B x 4 tokens = 64 B
 * a layer, activations 448 B:
 *   PP 1: 3 x 592 + 160 + 8 = 1944 parameters: 3888 + 192 + 448 = 4528;
 *   PP 2: 2 layers a stage, one of the embedding or the head: 1272: 2544
 *         + 128 + 448 = 3120;
 *   PP 3: 1 layer: 680: 1360 + 64 + 448 = 1872, the one that fits: 3 GPUs. */
START_TEST(min_gpus_up_to_a_layer_a_stage)
{
    struct rl_llm_model m = tiny();
    struct rl_llm_capacity small = {.gpu_memory_bytes = 2000, .usable_bytes = 2000};
    struct rl_llm_layout l = tp(1), found;
    struct rl_llm_memory mem;
    l.pp = 2;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 1, 4, &mem);
    ck_assert_double_eq(mem.total_bytes, 3120);
    l.pp = 3;
    rl_llm_memory_per_gpu(&m, &bf16, &l, 1, 4, &mem);
    ck_assert_double_eq(mem.total_bytes, 1872);
    l.pp = 1;
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 1, 4, &small, 1, 8, &found), 3);
    ck_assert_int_eq(found.pp, 3);
    ck_assert_int_eq(found.dp, 1);
}
END_TEST

/* Training with ZeRO searches DP too (it partitions the states over it):
 * 5e9 parameters, ZeRO-1 (the optimizer's 12 B a parameter over DP), TP
 * at most 1, on H100s (75e9 usable). One GPU: 16 x 5e9 = 80e9, over. Two:
 * PP 1 x DP 2 first, 2 x 5e9 + 2 x 5e9 + 12 x 5e9 / 2 = 50e9: it fits. */
START_TEST(min_gpus_with_zero_search_dp)
{
    struct rl_llm_model m;
    rl_llm_model_of_params(&m, 5e9);
    struct rl_llm_capacity h100;
    rl_llm_capacity_of(&h100, 80);
    struct rl_llm_layout l = tp(1), found;
    l.train = true;
    l.zero = 1;
    ck_assert_int_eq(rl_llm_min_gpus(&m, &bf16, &l, 8, 2048, &h100, 1, 64, &found), 2);
    ck_assert_int_eq(found.pp, 1);
    ck_assert_int_eq(found.dp, 2);
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(&m, &bf16, &found, 8, 2048, &mem);
    ck_assert_double_eq(mem.model_state_bytes, 50e9);
}
END_TEST

static Suite *llm_memory_suite(void)
{
    Suite *s = suite_create("llm_memory");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 60);
    tcase_add_test(core, zero_paper_example);
    tcase_add_test(core, bubble_by_hand);
    tcase_add_test(core, llama_3_70b_fits_at_tp_4);
    tcase_add_test(core, sliding_window_halves_mistral_kv);
    tcase_add_test(core, tp_shapes_by_hand);
    tcase_add_test(core, phase_edges_by_hand);
    tcase_add_test(core, training_memory_by_hand);
    tcase_add_test(core, largest_batch_that_fits);
    tcase_add_test(core, llm_command_memory_keys);
    tcase_add_test(core, batch_chart_cut_where_it_stops_fitting);
    tcase_add_test(core, min_gpus_keep_the_dp_asked);
    tcase_add_test(core, min_gpus_with_zero_search_dp);
    tcase_add_test(core, min_gpus_by_ep);
    tcase_add_test(core, min_gpus_up_to_a_layer_a_stage);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(llm_memory_suite()); }
