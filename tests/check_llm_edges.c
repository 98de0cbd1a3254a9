/* check_llm_edges.c - tests of `roofline llm` and `llm plan` at the edges of their inputs: the crossover on a layout, layouts too large to count, --params results, --measure on a GPU without CUDA. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/llm/layout.h"
#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/model/ceilings.h"
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

static cJSON *run_json(struct rl_run *r)
{
    ck_assert_msg(r->status == 0, "%s", r->err);
    cJSON *doc = cJSON_Parse(r->out);
    ck_assert_msg(doc != NULL, "%s", r->out);
    return doc;
}

START_TEST(crossover_on_the_layout)
{
    /* Llama-2-7B on an H100 SXM (989.4 TFLOP/s BF16, 3350 GB/s: ridge r
     * = 295.34 FLOP/B). A linear layer of K in, N out at T tokens, BF16
     * weights and activations: AI = T K N / (K N + T K + T N), compute-
     * bound from T >= r K N / (K N - r (K + N)). One GPU: the 4096 x 4096
     * projections bind, 295.34 x 16777216 / (16777216 - 295.34 x 8192) =
     * 345.1: 346 (docs/llm.md, the issue). */
    struct rl_llm_model m = load("llama-2-7b");
    struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h100-sxm"), NULL, NULL, false, false,
                                      NULL, err),
                     0);
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    ck_assert_int_eq(rl_llm_crossover_batch(&m, &bf16, 2048, &c, 65536), 346);
    ck_assert_int_eq(rl_llm_layout_crossover_batch(&m, &bf16, &l, 2048, &c, 65536), 346);
    /* DP 4: each GPU decodes ceil(b / 4) sequences; 346 of them from b =
     * 345 x 4 + 1 = 1381 (at b = 346 each GPU has 87: memory-bound). */
    l.dp = 4;
    ck_assert_int_eq(rl_llm_layout_crossover_batch(&m, &bf16, &l, 2048, &c, 65536), 1381);
    /* PP 2, M 2: a microbatch of ceil(b / 2) sequences, 346 from b = 691. */
    l = RL_LLM_LAYOUT_ONE;
    l.pp = 2;
    l.microbatches = 2;
    ck_assert_int_eq(rl_llm_layout_crossover_batch(&m, &bf16, &l, 2048, &c, 65536), 691);
    /* TP 8: one GPU's o_proj is 512 in x 4096 out, the narrowest: 295.34
     * x 2097152 / (2097152 - 295.34 x 4608) = 841.4: 842 (down_proj,
     * 1376 x 4096, needs 414; lm_head 4096 x 4000, 346). */
    l = RL_LLM_LAYOUT_ONE;
    l.tp = 8;
    ck_assert_int_eq(rl_llm_layout_crossover_batch(&m, &bf16, &l, 2048, &c, 65536), 842);
    ck_assert_int_eq(rl_llm_layout_crossover_batch(&m, &bf16, &l, 2048, &c, 841), 0);
    /* At the crossover one GPU's step has every linear layer
     * compute-bound; one batch before, not. */
    static struct rl_llm_step s;
    for (int b = 841; b <= 842; b++) {
        ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, b, 2048, &c, NULL, &s, err),
                         0);
        bool all = true;
        for (int i = 0; i < s.micro.n_ops; i++)
            all = all && (!s.micro.ops[i].linear || !s.micro.ops[i].memory_bound);
        ck_assert(all == (b == 842));
    }

    /* Through the command: DP 4's crossover is 1381, beyond the 228 that
     * fit (57 per GPU x 4). */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-2-7b", "--gpu", "h100-sxm",
                                  "--dp", "4", "--json", (const char *)NULL);
    cJSON *doc = run_json(&r);
    ck_assert_double_eq(rl_json_number(doc, "crossover_batch"), 1381);
    ck_assert_double_eq(rl_json_number(doc, "max_batch_that_fits"), 228);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "crossover_fits")));
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* TP 8: 842; the table says which layers are memory-bound either
     * side of it (o_proj alone at 841). */
    r = rl_test_cli(NULL, "llm", "--model", "llama-2-7b", "--gpu", "h100-sxm", "--tp", "8",
                    "--batch", "841,842", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "from batch 842 every decode linear layer"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "   841 ") && strstr(strstr(r.out, "   841 "), "1 of 5 memory"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "   842 ") && strstr(strstr(r.out, "   842 "), "0 of 5 memory"),
                  "%s", r.out);
    rl_run_release(&r);
}
END_TEST

START_TEST(layouts_too_large_to_count)
{
    /* TP 96 x PP 96 x DP 1e6 = 9.216e9 GPUs does not fit an int: the
     * count wrapped to 626065408 in the JSON (and UBSan reported the
     * overflow). A usage error now. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "gpt-3-175b", "--gpu", "h100-sxm",
                                  "--tp", "96", "--pp", "96", "--dp", "1000000", "--json",
                                  (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, "9216000000 GPUs"), "%s", r.err);
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
    /* At the bound it runs: TP 8 x PP 1 x DP 125000 = 1e6 GPUs. */
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tp", "8",
                    "--dp", "125000", "--json", (const char *)NULL);
    cJSON *doc = run_json(&r);
    ck_assert_double_eq(rl_json_number(cJSON_GetObjectItem(doc, "layout"), "gpus"), 1e6);
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

START_TEST(params_results_carry_every_key)
{
    /* Every llm result carries the keys; --params (no shape, no
     * step) too: the bubble of its layout, (P - 1) / (M + P - 1) = 3 / 11
     * at PP 4, M 8; no communication or bound known: null. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--params", "7.5e9", "--dp", "64", "--pp", "4",
                                  "--microbatches", "8", "--zero", "1", "--json",
                                  (const char *)NULL);
    cJSON *doc = run_json(&r);
    static const char *const keys[] = {"fits", "gpu_memory_bytes", "memory_per_gpu_bytes",
                                       "max_batch_that_fits", "min_gpus", "layout",
                                       "pipeline_bubble_fraction", "comm_ms_per_step",
                                       "model_state_bytes_per_gpu", "bound"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        ck_assert_msg(cJSON_GetObjectItem(doc, keys[k]), "no %s", keys[k]);
    ck_assert_double_eq_tol(rl_json_number(doc, "pipeline_bubble_fraction"), 3.0 / 11, 1e-9);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "comm_ms_per_step")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "bound")));
    /* ZeRO 1 over DP 64 of the 7.5e9 / 4 parameters a stage holds:
     * (2 + 2) x 1.875e9 + 12 x 1.875e9 / 64 = 7.5e9 + 0.3515625e9. */
    ck_assert_double_eq_tol(rl_json_number(doc, "model_state_bytes_per_gpu"), 7.8515625e9, 1);
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

START_TEST(params_accepts_train)
{
    /* --params already sizes training's model states: --train says the
     * same and gives the same result (the paper's 7.5e9 on DP 64, ZeRO 1:
     * 7.5e9 x (2 + 2) + 7.5e9 x 12 / 64 = 31.40625e9 bytes per GPU). What
     * needs a shape stays refused, with one usage line. */
    struct rl_run plain = rl_test_cli(NULL, "llm", "--params", "7.5e9", "--dp", "64", "--zero",
                                      "1", "--json", (const char *)NULL);
    struct rl_run train = rl_test_cli(NULL, "llm", "--params", "7.5e9", "--train", "--dp", "64",
                                      "--zero", "1", "--json", (const char *)NULL);
    ck_assert_msg(train.status == 0, "exit %d: %s", train.status, train.err);
    ck_assert_str_eq(train.out, plain.out);
    cJSON *doc = run_json(&train);
    ck_assert_double_eq_tol(rl_json_number(doc, "model_state_bytes_per_gpu"), 31.40625e9, 1);
    cJSON_Delete(doc);
    rl_run_release(&plain);
    rl_run_release(&train);
    struct rl_run re = rl_test_cli(NULL, "llm", "--params", "7.5e9", "--train", "--recompute",
                                   (const char *)NULL);
    ck_assert_int_eq(re.status, 2);
    ck_assert_msg(strstr(re.err, "--params sizes model states only: no --measure, --recompute"),
                  "%s", re.err);
    rl_run_release(&re);
}
END_TEST

START_TEST(measure_needs_an_nvidia_gpu)
{
    /* --measure runs the layers on this machine's GPU: an MI300X's
     * prediction beside an NVIDIA GPU's measurement would be two GPUs.
     * Refused as bench and trace refuse it, before anything runs. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "mi300x",
                                  "--measure", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.err, "AMD Instinct MI300X: llm --measure needs an NVIDIA GPU"), "%s",
                  r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
}
END_TEST

START_TEST(roofline_chart_marks_what_does_not_fit)
{
    /* Llama-2-7B on an H100: up to batch 57 fits (75 GB usable), so of
     * the default batches 1, 8, 64, 256 the last two cannot run; the
     * operator roofline drew their operators unmarked. Now "b64*" and
     * "b256*", the title saying what * is; batch 1 and 8 and the prefill
     * unmarked. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/marks", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-2-7b", "--gpu", "h100-sxm",
                                  "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/llm-roofline.kernels.dat", dir);
    char *dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(dat);
    ck_assert_msg(strstr(dat, "\"decode b256* gate_up_proj\""), "not in the kernels file");
    ck_assert_msg(strstr(dat, "\"decode b64* o_proj\""), "not in the kernels file");
    ck_assert_msg(strstr(dat, "\"decode b8 gate_up_proj\""), "not in the kernels file");
    ck_assert_msg(strstr(dat, "\"decode b1 gate_up_proj\""), "not in the kernels file");
    ck_assert_msg(strstr(dat, "\"prefill qkv_proj\""), "not in the kernels file");
    ck_assert(!strstr(dat, "b8*") && !strstr(dat, "b1*") && !strstr(dat, "prefill*"));
    free(dat);
    snprintf(path, sizeof path, "%s/llm-roofline.gp", dir);
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_msg(strstr(gp, "on NVIDIA H100 SXM5 80GB: * does not fit in 75 GB;"), "no note in the title");
    free(gp);
    /* A split step (its FLOPs against the link roof too) is marked the
     * same: Llama-2-7B at TP 2 holds some 127 sequences, not 512. */
    snprintf(dir, sizeof dir, "%s/marks-tp", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "--model", "llama-2-7b", "--gpu", "h100-sxm", "--tp", "2",
                    "--batch", "1,512", "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s/llm-roofline.kernels.dat", dir);
    dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(dat);
    ck_assert_msg(strstr(dat, "\"decode b512* step, TP 2 PP 1 DP 1 EP 1\""), "no marked step");
    ck_assert_msg(strstr(dat, "\"decode b1 step, TP 2 PP 1 DP 1 EP 1\""), "no step");
    free(dat);
    /* Llama-3-70B training on one H100: not even batch 8 fits, every
     * operator marked; on eight at ZeRO 3 it fits: none. */
    snprintf(dir, sizeof dir, "%s/marks-train", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--train",
                    "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s/llm-roofline.kernels.dat", dir);
    dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(dat);
    ck_assert_msg(strstr(dat, "\"train b8* qkv_proj\""), "not in the kernels file");
    ck_assert(!strstr(dat, "\"train b8 "));
    free(dat);
    snprintf(dir, sizeof dir, "%s/marks-fit", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--batch", "1",
                    "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s/llm-roofline.gp", dir);
    gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert(!strstr(gp, "does not fit") && !strstr(gp, "b1*"));
    free(gp);
}
END_TEST

START_TEST(plan_results_carry_every_key)
{
    /* Every llm result carries the keys: a plan's candidates had
     * no max_batch_that_fits, the plan no min_gpus. Llama-3-70B decode on
     * 8 H100s, batch 64 at 2048: TP 8's GPU holds 141.1 / 8 = 17.6 GB of
     * weights and 671.1 MB / 8 = 83.9 MB of KV cache per sequence (one of
     * the 8 KV heads), so (75 - 17.641 - 0.101 of activations) / 0.08389
     * = 682.6: 682 sequences; the fewest GPUs at batch 64 are 3 (PP 3: 47.0 GB of
     * weights + 64 x 671.1 MB / 3 = 14.3 GB of cache; TP 2 needs 70.6 +
     * 21.5 GB, over 75). */
    struct rl_run r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpu",
                                  "h100-sxm", "--gpus", "8", "--json", (const char *)NULL);
    cJSON *doc = run_json(&r);
    ck_assert_double_eq(rl_json_number(doc, "min_gpus"), 3);
    const cJSON *ml = cJSON_GetObjectItem(doc, "min_gpus_layout");
    ck_assert_double_eq(rl_json_number(ml, "pp"), 3);
    ck_assert_double_eq(rl_json_number(ml, "tp"), 1);
    const cJSON *c;
    int n = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        static const char *const keys[] = {"fits", "memory_per_gpu_bytes",
                                           "max_batch_that_fits", "layout",
                                           "pipeline_bubble_fraction", "comm_ms_per_step",
                                           "model_state_bytes_per_gpu", "bound"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            ck_assert_msg(cJSON_GetObjectItem(c, keys[k]), "no %s", keys[k]);
        const double mb = rl_json_number(c, "max_batch_that_fits");
        /* It fits at batch 64 exactly when it holds 64 or more. */
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "fits")) == (mb >= 64));
        const cJSON *l = cJSON_GetObjectItem(c, "layout");
        if (rl_json_number(l, "tp") == 8)
            ck_assert_double_eq(mb, 682);
        n++;
    }
    ck_assert_int_eq(n, 10);
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* On one GPU nothing fits: the text says how many would. */
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                    "--gpus", "1", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "fewest GPUs that hold it: 3 (TP 1 x PP 3 x DP 1 x EP 1)"), "%s",
                  r.out);
    rl_run_release(&r);
}
END_TEST

START_TEST(batch_lists_without_a_number)
{
    /* --batch "" gave no batch: the memory of batches[0] divided by a
     * zero microbatch count (SIGFPE, exit 136); "8," ended in an empty
     * entry and was taken as "8". Both usage errors, as ",8" and "8,,1"
     * were. */
    static const char *const bad[] = {"", "8,", ",8", "8,,1", ","};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h100-sxm",
                                      "--batch", bad[i], "--json", (const char *)NULL);
        ck_assert_msg(r.status == 2, "'%s': exit %d", bad[i], r.status);
        ck_assert_msg(strstr(r.err, "--batch: up to 16 whole numbers"), "%s", r.err);
        ck_assert_str_eq(r.out, "");
        rl_run_release(&r);
    }
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h100-sxm",
                                  "--batch", "8,1", "--json", (const char *)NULL);
    cJSON *doc = run_json(&r);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "batches")), 2);
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

START_TEST(counts_past_an_int)
{
    /* A config of 999,999,999 layers (the schema sets no maximum): M x L
     * x 2 TP all-reduces per step, 4 x 999999999 x 2 = 7,999,999,992,
     * was an int product: it wrapped negative and the all-reduces were
     * dropped (UBSan: signed overflow); the operator table's SHARE, 100 x
     * count x time, printed negative percentages. */
    struct rl_llm_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "deep");
    m.layers = 999999999;
    m.hidden = m.ffn = 64;
    m.heads = m.kv_heads = 2;
    m.head_dim = 32;
    m.vocab = 100;
    m.experts = m.experts_per_token = 1;
    m.gated = true;
    struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h100-sxm"), NULL, NULL, false, false,
                                      NULL, err),
                     0);
    struct rl_llm_net net = {.spec = rl_test_gpu("h100-sxm"), .gpus_per_node = 8,
                             .nic_gbps = NAN};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 2;
    l.microbatches = 4;
    static struct rl_llm_step s;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 4, 16, &c, &net, &s, err) == 0, "%s",
                  err);
    ck_assert_int_eq(s.n_comm, 1);
    ck_assert_str_eq(s.comm[0].name, "TP all-reduce");
    ck_assert_double_eq(s.comm[0].calls, 7999999992.0);

    /* The command's table: no share below zero. */
    char path[4096];
    snprintf(path, sizeof path, "%s/deep.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"schema_version\": 1, \"id\": \"deep\", \"name\": \"deep\", \"layers\": "
          "999999999, \"hidden_size\": 64, \"ffn_size\": 64, \"ffn_gating\": \"swiglu\", "
          "\"heads\": 2, \"kv_heads\": 2, \"head_dim\": 32, \"vocab_size\": 100, "
          "\"tied_embeddings\": true, \"experts\": 1, \"experts_per_token\": 1, "
          "\"qkv_bias\": false, \"source\": \"https://example.com\"}\n",
          f);
    fclose(f);
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", path, "--gpu", "h100-sxm", "--batch",
                                  "1", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    for (const char *p = strstr(r.out, "%  "); p; p = strstr(p + 1, "%  ")) {
        const char *q = p;
        while (q > r.out && q[-1] != ' ')
            q--;
        ck_assert_msg(*q != '-', "a negative share: %.40s", q);
    }
    rl_run_release(&r);
}
END_TEST

/* llm plan past a node with no NIC rate known (H100 PCIe: no system file):
 * the layouts whose groups cross nodes are left out and said, the rest
 * ranked. 16 GPUs, 8 a node, Llama-3-70B (64 heads, 80 layers), TP within
 * 8: TP 1 x PP 1..16 (5), TP 2 x PP 1..8 (4), TP 4 x PP 1..4 (3), TP 8 x
 * PP 1..2 (2) = 14 splits; in decode only PP's send/recv crosses nodes,
 * where TP x PP = 16 > 8: TP 1 PP 16, TP 2 PP 8, TP 4 PP 4, TP 8 PP 2, so 4
 * left out, 10 ranked. */
START_TEST(plan_skips_what_it_cannot_time)
{
    struct rl_run r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpu",
                                  "h100-pcie", "--gpus", "16", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"layouts\": 10,"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"layouts_skipped\": 4,"));
    ck_assert_ptr_nonnull(strstr(r.out, "no NIC rate for h100-pcie"));
    rl_run_release(&r);
    /* with a NIC rate, none left out */
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpu", "h100-pcie", "--gpus",
                    "16", "--nic-gbps", "400", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"layouts\": 14,"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"layouts_skipped\": 0,"));
    rl_run_release(&r);
}
END_TEST

static Suite *llm_edges_suite(void)
{
    Suite *s = suite_create("llm_edges");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, crossover_on_the_layout);
    tcase_add_test(core, roofline_chart_marks_what_does_not_fit);
    tcase_add_test(core, plan_results_carry_every_key);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, layouts_too_large_to_count);
    tcase_add_test(limits, batch_lists_without_a_number);
    tcase_add_test(limits, counts_past_an_int);
    tcase_add_test(limits, params_results_carry_every_key);
    tcase_add_test(limits, params_accepts_train);
    tcase_add_test(limits, measure_needs_an_nvidia_gpu);
    tcase_add_test(limits, plan_skips_what_it_cannot_time);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(llm_edges_suite()); }
