/* check_llm_step.c - the headline of a known LLM's step (report/llm-step.c): what each row moves (by its operator, or a graph replay's kernel name), the bound that holds most time, the parts largest first, the DRAM roof, the unknown tail and the layout note, on hand-built rows whose numbers are worked out in the comments. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/llm/llm.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/report/llm-step.h"
#include "analyzer/report/report.h"
#include "analyzer/report/step.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_ROWS 16

/* A report of hand-built rows and a step whose buckets the test sets. */
struct fixture {
    struct rl_report r;
    struct rl_report_row rows[MAX_ROWS];
    struct rl_report_step step;
    struct rl_ceilings c;
    struct rl_llm_model m;
};

/* L2 at 20 TB/s, then the datasheet's DRAM (5 TB/s), then a measured DRAM
 * (4.4 TB/s): the headline takes the last DRAM roof. */
static void setup(struct fixture *f, double gpu_time_ns)
{
    memset(f, 0, sizeof *f);
    f->r.rows = f->rows;
    f->r.step = &f->step;
    f->step.gpu_time_ns = gpu_time_ns;
    f->c.memory[0] = (struct rl_memory_roof){.level = RL_MEM_L2, .label = "L2",
                                             .bandwidth_gbs = 20000};
    f->c.memory[1] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM3",
                                             .bandwidth_gbs = 5000};
    f->c.memory[2] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM3 measured",
                                             .bandwidth_gbs = 4400};
    f->c.n_memory = 3;
    snprintf(f->m.id, sizeof f->m.id, "toy-moe");
    f->m.ffn = 2880;
    f->m.experts = 32;
}

/* A row: its operator and kernel name (either NULL), bound, time, DRAM
 * bytes and roof time. */
static struct rl_report_row *add(struct fixture *f, const char *op, const char *name,
                                 enum rl_bound bound, double time_ns, double dram,
                                 double roof_time_ns)
{
    ck_assert_uint_lt(f->r.n, MAX_ROWS);
    struct rl_report_row *w = &f->rows[f->r.n++];
    w->op = (char *)op;
    w->name = (char *)name;
    w->bound = bound;
    w->time_ns = time_ns;
    for (int l = 0; l < RL_MEM_COUNT; l++)
        w->bytes[l] = NAN;
    w->bytes[RL_MEM_DRAM] = dram;
    w->roof_time_ns = roof_time_ns;
    w->achieved_gbs = NAN;
    return w;
}

static const struct rl_report_llm_layout world8 = {.tp = 0, .ep = 0, .world_size = 8};

static void headline(struct fixture *f, const struct rl_report_llm_layout *lay)
{
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_report_llm_headline(&f->r, &f->c, &f->m, lay, err), RL_OK);
    ck_assert_str_eq(err, "");
}

/* Memory-bound: 10,000 ns of GPU time, 1000 (10%) in memory-bound rows
 * moving 3.5 MB: 3.5e6 / 1000 = 3500 GB/s, 3500 / 4400 = 79.5% of the
 * measured DRAM roof. Parts over the whole GPU time: the MoE 500 (5%),
 * attention 300 (3%), the dense GEMM 120 (1.2%), a memory point 80
 * (0.8%); the sentence puts them largest first. Rows that must not count:
 * a collective, a memory point without a bandwidth, an untimed row, one
 * without DRAM bytes, a compute-bound one. The tokens: the first MoE row's
 * shapes (row 0). Unknown: 100 / 10,000 = 1%. */
START_TEST(memory_bound_step)
{
    struct fixture f;
    setup(&f, 10000);
    add(&f, "vllm::fused_moe", "fused_moe_kernel", RL_BOUND_MEMORY, 500, 2.0e6, 100)->shapes =
        "512, 2880";
    struct rl_report_row *pt = add(&f, "aten::copy_", "copy", RL_BOUND_UNKNOWN, 80, 0.3e6, NAN);
    pt->memory_only = true;
    pt->achieved_gbs = 3750;
    add(&f, "aten::mm", "sm90_gemm", RL_BOUND_MEMORY, 120, 0.6e6, 10);
    add(&f, "moe_align", "align", RL_BOUND_MEMORY, 0, 1e6, NAN); /* untimed */
    add(&f, "vllm::unified_attention", "attn_kernel", RL_BOUND_MEMORY, 300, 0.6e6, 20);
    add(&f, "c10d::allreduce_", "ncclDevKernel", RL_BOUND_MEMORY, 100, 1e6, 10)->comm = true;
    struct rl_report_row *nb = add(&f, "aten::add", "add", RL_BOUND_MEMORY, 50, 1e6, NAN);
    nb->memory_only = true; /* a memory point without a bandwidth: not memory-bound */
    add(&f, "aten::neg", "neg", RL_BOUND_MEMORY, 40, NAN, NAN);          /* no DRAM bytes */
    add(&f, "aten::bmm", "bmm", RL_BOUND_COMPUTE, 400, 9e6, 200);
    f.step.bucket_ns[RL_STEP_MEMORY] = 1000;
    f.step.bucket_ns[RL_STEP_COMPUTE] = 400;
    f.step.bucket_ns[RL_STEP_LINK] = 300;
    f.step.bucket_ns[RL_STEP_NEITHER] = 200;
    f.step.bucket_ns[RL_STEP_UNKNOWN] = 100;
    snprintf(f.step.headline, sizeof f.step.headline, "old line");
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline,
                     "toy-moe step, 512 tokens a forward: memory-bound: 10% of GPU time moves "
                     "expert weights (5%), the KV cache (3%), dense weights (1.2%), activations "
                     "(0.8%) at 80% of the HBM3 measured roof (3.5 of 4.4 TB/s); 1% unknown\n"
                     "old line");
    /* tp is the world size (8) over ep (1): 2880 / 8 = 360 columns */
    ck_assert_ptr_nonnull(strstr(f.r.notes, "serving operators costed from the model toy-moe "));
    ck_assert_ptr_nonnull(strstr(f.r.notes,
                                 "one rank of tp 8 x ep 1 (tp the trace's world size "
                                 "(distributedInfo), ep 1: --tp / --ep to change), each holding "
                                 "360 of every expert's 2880 columns and 32 of its 32 experts;"));
}
END_TEST

/* Compute-bound: rows of 600 (MoE, roof 60), 200 (attention, 20), 100
 * (dense, 16) and 60 (the rest, roof 0): 960 ns, 48% of 2000, at
 * 96 / 960 = 10% of their roofs; parts 30%, 10%, 5%, 3%. Left out: a
 * collective, an untimed row (its roof time 50 would count), one without
 * a roof time. The unknown share, 9 / 2000 = 0.45%, is below the tail's
 * 0.5%. */
START_TEST(compute_bound_step)
{
    struct fixture f;
    setup(&f, 2000);
    add(&f, "aten::gelu", "gelu", RL_BOUND_COMPUTE, 60, NAN, 0);
    add(&f, "aten::linear", "gemm", RL_BOUND_COMPUTE, 100, NAN, 16);
    add(&f, "sglang::experts", "grouped_gemm", RL_BOUND_COMPUTE, 600, NAN, 60)->shapes =
        "[[16, 8]]";
    add(&f, "flash_attn::fwd", "fa3", RL_BOUND_COMPUTE, 200, NAN, 20);
    add(&f, "c10d::allgather_", "nccl", RL_BOUND_COMPUTE, 1000, NAN, 10)->comm = true;
    add(&f, "aten::mm", "mm", RL_BOUND_COMPUTE, 0, NAN, 50);
    add(&f, "aten::addmm", "addmm", RL_BOUND_COMPUTE, 70, NAN, NAN);
    f.step.bucket_ns[RL_STEP_COMPUTE] = 900;
    f.step.bucket_ns[RL_STEP_NEITHER] = 600;
    f.step.bucket_ns[RL_STEP_MEMORY] = 491;
    f.step.bucket_ns[RL_STEP_UNKNOWN] = 9;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline,
                     "toy-moe step: compute-bound: 48% of GPU time in the expert GEMMs (30%), "
                     "attention (10%), the dense GEMMs (5%), the rest (3%), at 10% of their "
                     "roofs\n");
}
END_TEST

/* The tokens a forward: the first MoE row whose shapes begin with a digit
 * (a "[[...]]" before it is passed over); 1 token is said, 0 is not, nor
 * a dense row's shapes. A row of 1 ns counts; two parts of equal time
 * keep the parts' order (the MoE, the KV cache, dense, the rest). */
START_TEST(tokens_and_ties)
{
    struct fixture f;
    setup(&f, 2000);
    add(&f, "vllm::moe_sum", "sum", RL_BOUND_MEMORY, 0, 1e6, NAN)->shapes = "[[512]]";
    add(&f, "vllm::fused_moe", "fused_moe_kernel", RL_BOUND_MEMORY, 1000, 2.2e6, 10)->shapes =
        "1, 2880";
    f.step.bucket_ns[RL_STEP_MEMORY] = 1000;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step, 1 tokens a forward: memory-bound: 50% of "
                                      "GPU time moves expert weights (50%) at 50% of the HBM3 "
                                      "measured roof (2.2 of 4.4 TB/s)\n");

    setup(&f, 2000);
    add(&f, "aten::mm", "mm", RL_BOUND_MEMORY, 0, 1e6, NAN)->shapes = "64, 64";
    add(&f, "vllm::fused_moe", "fused_moe_kernel", RL_BOUND_MEMORY, 1000, 2.2e6, 10)->shapes =
        "0, 2880";
    f.step.bucket_ns[RL_STEP_MEMORY] = 1000;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: memory-bound: 50% of GPU time moves expert "
                                      "weights (50%) at 50% of the HBM3 measured roof (2.2 of "
                                      "4.4 TB/s)\n");

    /* 1 ns moving 2200 bytes: 2200 GB/s */
    setup(&f, 2);
    add(&f, "aten::mm", "mm", RL_BOUND_MEMORY, 1, 2200, 0.5);
    f.step.bucket_ns[RL_STEP_MEMORY] = 1;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: memory-bound: 50% of GPU time moves dense "
                                      "weights (50%) at 50% of the HBM3 measured roof (2.2 of "
                                      "4.4 TB/s)\n");

    /* a tie: the KV cache and dense weights 300 ns each, the rest 400 */
    setup(&f, 2000);
    add(&f, "aten::add", "add", RL_BOUND_MEMORY, 400, 1.0e6, 10);
    add(&f, "aten::mm", "mm", RL_BOUND_MEMORY, 300, 1.0e6, 10);
    add(&f, "vllm::unified_attention", "attn", RL_BOUND_MEMORY, 300, 1.0e6, 10);
    f.step.bucket_ns[RL_STEP_MEMORY] = 1000;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: memory-bound: 50% of GPU time moves "
                                      "activations (20%), the KV cache (15%), dense weights "
                                      "(15%) at 68% of the HBM3 measured roof (3 of 4.4 "
                                      "TB/s)\n");
}
END_TEST

/* Whole shares: a bucket holding all the GPU time reads "100%" (not
 * %.2g's "1e+02%"), 99.6% keeps its third digit, 99.4% rounds to two. */
START_TEST(whole_shares)
{
    struct fixture f;
    setup(&f, 2000);
    f.step.bucket_ns[RL_STEP_LINK] = 2000;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: link-bound: 100% of GPU time\n");

    setup(&f, 10000);
    f.step.bucket_ns[RL_STEP_NEITHER] = 9960; /* 99.6% */
    f.step.bucket_ns[RL_STEP_UNKNOWN] = 40;   /* 0.4%: under the tail's 0.5 */
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: neither-bound: 99.6% of GPU time\n");

    setup(&f, 10000);
    f.step.bucket_ns[RL_STEP_NEITHER] = 9940; /* 99.4%: two digits, 99 */
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: neither-bound: 99% of GPU time\n");
}
END_TEST

/* The other sentences: unknown above every bound; link and neither on
 * top; memory or compute on top with no row of theirs to describe. */
START_TEST(other_bounds)
{
    struct fixture f;
    setup(&f, 2000);
    f.step.bucket_ns[RL_STEP_UNKNOWN] = 1200;
    f.step.bucket_ns[RL_STEP_MEMORY] = 800;
    add(&f, "aten::mm", "mm", RL_BOUND_MEMORY, 800, 1e6, 10);
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: 60% of the GPU time has no FLOPs or bytes "
                                      "known, more than any bound holds\n");

    setup(&f, 2000);
    f.step.bucket_ns[RL_STEP_LINK] = 900;
    f.step.bucket_ns[RL_STEP_NEITHER] = 500;
    f.step.bucket_ns[RL_STEP_COMPUTE] = 400;
    f.step.bucket_ns[RL_STEP_MEMORY] = 300;
    f.step.bucket_ns[RL_STEP_UNKNOWN] = 900; /* a tie with the top: still the tail */
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: link-bound: 45% of GPU time; 45% unknown\n");

    setup(&f, 2000);
    f.step.bucket_ns[RL_STEP_NEITHER] = 700;
    f.step.bucket_ns[RL_STEP_LINK] = 600;
    f.step.bucket_ns[RL_STEP_MEMORY] = 500;
    f.step.bucket_ns[RL_STEP_UNKNOWN] = 10; /* exactly 0.5%: the tail */
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: neither-bound: 35% of GPU time; 0.5% unknown\n");

    /* memory on top but no memory-bound row (the only one is compute-bound) */
    setup(&f, 2000);
    f.step.bucket_ns[RL_STEP_MEMORY] = 1500;
    add(&f, "aten::mm", "mm", RL_BOUND_COMPUTE, 0, 1e6, 10);
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: memory-bound: 75% of GPU time\n");

    /* compute on top, its only row without a roof time */
    setup(&f, 2000);
    f.step.bucket_ns[RL_STEP_COMPUTE] = 1000;
    f.step.bucket_ns[RL_STEP_MEMORY] = 999;
    add(&f, "aten::mm", "mm", RL_BOUND_COMPUTE, 1000, NAN, NAN);
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "toy-moe step: compute-bound: 50% of GPU time\n");
}
END_TEST

/* What each row moves, one memory-bound row of 1000 ns in 2000: by its
 * operator, or for a graph replay with nothing after its prefix by its
 * kernel's name. Every name is longer than the word it holds. */
START_TEST(what_a_row_moves)
{
    static const struct {
        const char *op, *name, *words;
    } cases[] = {
        {"(CUDA graph replay)", "fused_moe_kernel_bf16", "expert weights"},
        {"(CUDA graph replay)", "_matmul_ogs_NVFP4", "expert weights"},
        {"(CUDA graph replay)", "gemm_MxE2m1_bf16", "expert weights"},
        {"(HIP graph replay)", "topk_routing_kernel", "expert weights"},
        {"(CUDA graph replay)", "triton_finalize_matmul_x", "expert weights"},
        {"(CUDA graph replay)", "flash_attention_fwd", "the KV cache"},
        {"(CUDA graph replay)", "fmha_cutlass_fwd", "the KV cache"},
        {"(CUDA graph replay)", "reshape_and_cache_flash", "the KV cache"},
        {"(CUDA graph replay)", "vectorized_elementwise", "activations"},
        {"(CUDA graph replay)   aten::mm", "moe_kernel", "dense weights"},
        {"(HIP graph replay) fused MoE", "elementwise", "expert weights"},
        {"(CUDA graph replay)", NULL, "activations"},
        {NULL, "fused_moe_kernel", "activations"},
        {"vllm::moe_forward", "k", "expert weights"},
        {"sgl::MoE_gate", "k", "expert weights"},
        {"mixtral::experts_fwd", "k", "expert weights"},
        {"vllm::unified_attention", "k", "the KV cache"},
        {"_C_cache_ops::reshape_and_cache", "k", "the KV cache"},
        {"aten::_flash_attn_forward", "k", "the KV cache"},
        {"aten::addmm_", "k", "dense weights"},
        {"aten::mm_out", "k", "dense weights"},
        {"aten::linear_fwd", "k", "dense weights"},
        {"aten::matmul_", "k", "dense weights"},
        {"cutlass::gemm_op", "k", "dense weights"},
        {"aten::_scaled_mm_v2", "k", "dense weights"},
        {"aten::silu", "k", "activations"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fixture f;
        setup(&f, 2000);
        add(&f, cases[i].op, cases[i].name, RL_BOUND_MEMORY, 1000, 2.2e6, 10);
        f.step.bucket_ns[RL_STEP_MEMORY] = 1000;
        headline(&f, &world8);
        /* 2.2e6 / 1000 = 2200 GB/s: half the 4400 GB/s roof */
        char want[300];
        snprintf(want, sizeof want,
                 "toy-moe step: memory-bound: 50%% of GPU time moves %s (50%%) at 50%% of the "
                 "HBM3 measured roof (2.2 of 4.4 TB/s)\n",
                 cases[i].words);
        ck_assert_msg(strcmp(f.step.headline, want) == 0, "case %zu (%s, %s): %s", i,
                      cases[i].op ? cases[i].op : "NULL", cases[i].name ? cases[i].name : "NULL",
                      f.step.headline);
    }
}
END_TEST

/* The layout note: tp and ep given, ep only (tp the world size over ep),
 * neither with no world size, and a tp that rounds to 0. */
START_TEST(layout_note)
{
    static const struct {
        struct rl_report_llm_layout lay;
        const char *text;
    } cases[] = {
        {{2, 4, 0}, "one rank of tp 2 x ep 4 (--tp / --ep), each holding 1440 of every expert's "
                    "2880 columns and 8 of its 32 experts;"},
        {{0, 4, 16}, "one rank of tp 4 x ep 4 (--tp / --ep), each holding 720 of every expert's "
                     "2880 columns and 8 of its 32 experts;"},
        {{0, 0, 0}, "one rank of tp 1 x ep 1 (one GPU: no distributedInfo), each holding 2880 of "
                    "every expert's 2880 columns and 32 of its 32 experts;"},
        {{0, 0, 2}, "one rank of tp 2 x ep 1 (tp the trace's world size (distributedInfo), ep 1: "
                    "--tp / --ep to change), each holding 1440 of every expert's"},
        {{1, 0, 8}, "one rank of tp 1 x ep 1 (--tp / --ep), each holding 2880 of every expert's "
                    "2880 columns and 32 of its 32 experts;"},
        {{-1, 3, 2}, "one rank of tp 1 x ep 3 (--tp / --ep), each holding 2880 of every expert's "
                     "2880 columns and 10 of its 32 experts;"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fixture f;
        setup(&f, 2000);
        headline(&f, &cases[i].lay);
        ck_assert_msg(strstr(f.r.notes, cases[i].text), "case %zu: %s", i, f.r.notes);
    }
}
END_TEST

/* No step: RL_EINVAL. No GPU time: the note only, the headline as it was.
 * An old headline too long to keep: the new sentence alone. */
START_TEST(limits)
{
    struct fixture f;
    setup(&f, 2000);
    f.r.step = NULL;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_report_llm_headline(&f.r, &f.c, &f.m, &world8, err), RL_EINVAL);
    ck_assert_str_eq(err, "no step to put a headline on");
    ck_assert_str_eq(f.r.notes, "");

    setup(&f, 0);
    snprintf(f.step.headline, sizeof f.step.headline, "kept");
    f.step.bucket_ns[RL_STEP_MEMORY] = 1000;
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "kept");
    ck_assert_ptr_nonnull(strstr(f.r.notes, "costed from the model toy-moe"));

    setup(&f, NAN);
    snprintf(f.step.headline, sizeof f.step.headline, "kept");
    headline(&f, &world8);
    ck_assert_str_eq(f.step.headline, "kept");

    setup(&f, 2000);
    memset(f.step.headline, 'x', sizeof f.step.headline - 1);
    f.step.bucket_ns[RL_STEP_LINK] = 1900;
    headline(&f, &world8);
    const char *head = "toy-moe step: link-bound: 95% of GPU time";
    ck_assert_str_eq(f.step.headline, head);
    /* the new line, '\n' and the old one just fit (599 bytes and the NUL);
     * one byte more (600) does not: the new line alone */
    size_t len = strlen(head);
    for (size_t old = sizeof f.step.headline - len - 2; old <= sizeof f.step.headline - len - 1;
         old++) {
        setup(&f, 2000);
        memset(f.step.headline, 'x', old);
        f.step.bucket_ns[RL_STEP_LINK] = 1900;
        headline(&f, &world8);
        bool fits = len + 1 + old < sizeof f.step.headline;
        ck_assert_uint_eq(strlen(f.step.headline), fits ? len + 1 + old : len);
        ck_assert_int_eq(strncmp(f.step.headline, head, len), 0);
    }
}
END_TEST

static Suite *llm_step_suite(void)
{
    Suite *s = suite_create("llm_step");
    TCase *core = tcase_create("core");
    tcase_add_test(core, memory_bound_step);
    tcase_add_test(core, compute_bound_step);
    tcase_add_test(core, tokens_and_ties);
    tcase_add_test(core, whole_shares);
    tcase_add_test(core, other_bounds);
    tcase_add_test(core, what_a_row_moves);
    suite_add_tcase(s, core);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, layout_note);
    tcase_add_test(lim, limits);
    suite_add_tcase(s, lim);
    return s;
}

int main(void) { return rl_test_run(llm_step_suite()); }
