/* check_report_torch.c - the report of real PyTorch profiler traces (tests/data/torch-real, SOURCES.md) read as a user reads it: the roof a headline names, one basis for an operator's time, loss and % of roof, copies and fills apart from kernels, no bound without a cost, and one account per case in the notes (issue 32). */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/readers/torch.h"
#include "analyzer/readers/tracefile.h"
#include "analyzer/report/report.h"
#include "analyzer/report/step.h"
#include "analyzer/util/error.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[RL_ERRMSG_SIZE];

/* The report `roofline report --torch FILE --gpu GPU` builds: the groups,
 * judged, the step, the trace's notes. */
static void torch_report(const char *name, const char *gpu, struct rl_ceilings *c,
                         struct rl_report *r)
{
    static struct rl_torch_stats st;
    struct rl_trace_groups g;
    char path[4096];
    snprintf(path, sizeof path, "%s", rl_test_data(name));
    memset(&g, 0, sizeof g);
    memset(&st, 0, sizeof st);
    ck_assert_msg(rl_torch_load(&g, path, &st, err) == RL_OK, "%s", err);
    ck_assert_msg(rl_ceilings_init(c, rl_test_gpu(gpu), NULL, NULL, false, false, NULL, err) ==
                      RL_OK,
                  "%s", err);
    ck_assert_msg(rl_report_build(r, c, &g, err) == RL_OK, "%s", err);
    ck_assert_msg(rl_report_step_build(r, c, st.busy_ns, st.span_ns, err) == RL_OK, "%s", err);
    char text[3072];
    rl_torch_notes(&st, text, sizeof text);
    rl_report_note(r, text);
    rl_trace_groups_release(&g);
}

static const struct rl_report_op *find_op(const struct rl_report *r, const char *op)
{
    for (size_t i = 0; i < r->step->n_ops; i++)
        if (strcmp(r->step->ops[i].op, op) == 0)
            return &r->step->ops[i];
    ck_abort_msg("no operator '%s'", op);
    return NULL;
}

static char *render(int (*fn)(FILE *, const struct rl_report *, const struct rl_ceilings *),
                    const struct rl_report *r, const struct rl_ceilings *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(fn(f, r, c), 0);
    fclose(f);
    return buf;
}

static int md(FILE *f, const struct rl_report *r, const struct rl_ceilings *c)
{
    return rl_report_markdown(f, r, c, NULL);
}

#define V100 "torch-real/kineto_v100_resnet50__worker0.1623143089861.pt.trace.json.gz"
#define H100 "torch-real/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"

/* Every real trace with the GPU its deviceProperties name (the two without
 * any: the A100 they were recorded on, SOURCES.md). */
static const struct {
    const char *file, *gpu;
} traces[] = {
    {"torch-real/alexnet-benchmark_result_2869224_1695835535_trace.json.gz", "a100-sxm-40gb"},
    {"torch-real/amd-mi250_minitoy_train_ROCm6_2_kineto.json.gz", "mi210"},
    {"torch-real/kineto_2021-01_resnet50_profiler_api__worker0.pt.trace.json.gz", "v100-sxm2"},
    {V100, "v100-sxm2"},
    {"torch-real/negative_queue-rank0.json.gz", "a100-sxm-80gb"},
    {"torch-real/ns_resolution-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "v100-sxm2"},
    {"torch-real/trace_diff-control.json.gz", "a100-sxm-40gb"},
    {"torch-real/trace_diff-test.json.gz", "v100-sxm2"},
    {"torch-real/tracelens_b200_eager_trace.json.gz", "b200"},
    {H100, "h100-sxm"},
    {"torch-real/tracelens_mi300x_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "mi300x"},
    {"torch-real/tracelens_mi300x_resnet_act_checkpoint.json.gz", "mi300x"},
    {"torch-real/sampled-ranks/sampled_rank-1.json.gz", "a100-sxm-80gb"},
};

/* ---- 4: the roof named is the roof the verdict used --------------------------- */

START_TEST(headline_names_the_roof_used)
{
    /* H100 Qwen prefill: aten::mul's BF16 elementwise kernels (0.25 FLOP/B,
     * 160x left of the BF16-CUDA ridge) are memory-bound: their roof time is
     * their bytes over HBM3's 3.35 TB/s, so the loss is against the DRAM
     * roof. Today's code named the compute roof ("lost against the BF16
     * CUDA cores roof ... memory-bound"). */
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report(H100, "h100-sxm", &c, &r);
    const struct rl_report_op *o = &r.step->ops[0];
    ck_assert_str_eq(o->op, "aten::mul");
    ck_assert_str_eq(o->roof_text, "DRAM roof (HBM3)");
    ck_assert_str_eq(o->bound, "memory (DRAM)");
    const char *want = "biggest win, 6.59% of the 45.65 ms of GPU time: 3.01 ms lost against "
                       "the DRAM roof (HBM3), at 55.4% of it: aten::mul (16x16x559x64, "
                       "1x1x559x64, bf16), 6.753 ms in 220 launches (14.8% of GPU time), "
                       "bound: memory (DRAM)";
    ck_assert_msg(strncmp(r.step->headline, want, strlen(want)) == 0, "%s", r.step->headline);
    ck_assert_ptr_null(strstr(r.step->headline, "CUDA cores"));
    rl_report_release(&r);
}
END_TEST

/* Over every real trace: an operator's roof is the one its bound names (a
 * memory bound against a memory roof, a compute bound against its compute
 * roof), and a row's table, JSON and step words are rl_report_bound_text's. */
static void one_vocabulary(const struct rl_report *r, const struct rl_ceilings *c, int t)
{
    for (size_t i = 0; i < r->step->n_ops; i++) {
        const struct rl_report_op *o = &r->step->ops[i];
        if (strncmp(o->bound, "memory (", 8) == 0) {
            char want[16];
            snprintf(want, sizeof want, "%.*s roof (", (int)strcspn(o->bound + 8, ")"),
                     o->bound + 8);
            ck_assert_msg(strncmp(o->roof_text, want, strlen(want)) == 0, "%s: %s: %s / %s",
                          traces[t].file, o->op, o->bound, o->roof_text);
        } else if (strncmp(o->bound, "compute (", 9) == 0) {
            char want[96];
            snprintf(want, sizeof want, "%.*s roof", (int)strcspn(o->bound + 9, ")"),
                     o->bound + 9);
            ck_assert_str_eq(o->roof_text, want);
        }
        /* none of the words the old tables mixed in */
        ck_assert_msg(strcmp(o->bound, "memory") && strcmp(o->bound, "unknown") &&
                          strcmp(o->bound, "data movement"),
                      "%s: %s: %s", traces[t].file, o->op, o->bound);
    }
    char *j = render(rl_report_json, r, c);
    ck_assert_ptr_null(strstr(j, "\"bound_text\": \"data movement\""));
    ck_assert_ptr_null(strstr(j, "\"bound_text\": \"unknown\""));
    free(j);
}

/* ---- 5: one basis for time, loss and % of roof --------------------------------- */

START_TEST(one_basis_for_time_lost_and_pct)
{
    /* V100 ResNet-50 training: aten::cudnn_convolution_backward_weight took
     * 142,461 us (the durations of its 990 GPU activities, summed from the
     * trace with python: the kernels its External id links). The cost table
     * does not know it; its 306 fills carry their bytes: 365,707,920 B in
     * 528 us (same count). Judged on those 528 us alone: roof time
     * 365707920 B / 900 GB/s = 406,342.13 ns, lost 528,000 - 406,342.13 =
     * 121,657.87 ns, % of roof 406,342.13 / 528,000 = 76.958%. Today's code
     * set "lost" against the fills and "time" against all 142.5 ms, and
     * called the whole call memory-bound. */
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report(V100, "v100-sxm2", &c, &r);
    const struct rl_report_op *o = find_op(&r, "aten::cudnn_convolution_backward_weight");
    ck_assert_double_eq_tol(o->time_ns, 142461000, 1e-3);
    ck_assert_double_eq_tol(o->judged_ns, 528000, 1e-3);
    ck_assert_double_eq_tol(o->roof_time_ns, 365707920 / 900.0, 1e-3);
    ck_assert_double_eq_tol(o->lost_ns, 528000 - 365707920 / 900.0, 1e-3);
    ck_assert_double_eq_tol(o->pct_of_roof, 100.0 * 365707920 / 900 / 528000, 1e-9);
    ck_assert_str_eq(o->bound, "-"); /* 528 us of 142.5 ms: no bound for the whole */
    ck_assert_msg(strstr(o->sentence, "121.7 us lost against the DRAM roof (HBM2), at 77% of it, "
                                      "on the 528 us of its kernels with a cost: "),
                  "%s", o->sentence);
    ck_assert_msg(strstr(o->sentence, "142.5 ms in 990 launches (23.6% of GPU time); the other "
                                      "141.9 ms not judged (kernels with no FLOPs, bytes or "
                                      "precision known)"),
                  "%s", o->sentence);
    rl_report_release(&r);
}
END_TEST

START_TEST(no_loss_against_a_guessed_roof)
{
    /* The January 2021 V100 trace records no "Input type": its operators
     * have no dtype, so no precision, and the report judges their rows
     * against the V100's fastest roof (FP16 Tensor Core, 125 TFLOP/s).
     * aten::threshold_backward's elementwise kernels then "lost" 26.25 ms
     * at 0.0225% of that roof and headed the report. A roof that is a guess
     * sets no loss: the operator is not judged, and the one note on these
     * rows says so. */
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report("torch-real/kineto_2021-01_resnet50_profiler_api__worker0.pt.trace.json.gz",
                 "v100-sxm2", &c, &r);
    const struct rl_report_op *o = find_op(&r, "aten::threshold_backward");
    ck_assert(isnan(o->lost_ns) && isnan(o->roof_time_ns));
    ck_assert_str_eq(o->bound, "-");
    ck_assert_ptr_null(strstr(r.step->headline, "threshold_backward"));
    ck_assert_ptr_null(strstr(r.step->headline, "FP16 Tensor Core"));
    ck_assert_msg(strstr(r.notes, "no precision of their own: judged against the FP16 Tensor Core "
                                  "roof, the fastest this GPU has (FP4 and FP6 aside: the least "
                                  "% of roof); ") &&
                      strstr(r.notes, "ratio of the two roofs, so the operators' time lost "
                                      "leaves them out (not judged)"),
                  "%s", r.notes);
    rl_report_release(&r);
}
END_TEST

/* Over every real trace: lost = judged - roof (>= 0) and % of roof = roof /
 * judged over the same kernels, judged <= time, and the ranking by loss. */
static void one_basis(const struct rl_report *r)
{
    const struct rl_report_step *s = r->step;
    double lost = 0;
    for (size_t i = 0; i < s->n_ops; i++) {
        const struct rl_report_op *o = &s->ops[i];
        ck_assert(o->judged_ns <= o->time_ns * (1 + 1e-12) + 1e-6);
        if (isnan(o->lost_ns)) {
            ck_assert(isnan(o->roof_time_ns) && isnan(o->pct_of_roof));
            continue;
        }
        double want = o->judged_ns > o->roof_time_ns ? o->judged_ns - o->roof_time_ns : 0;
        ck_assert_double_eq_tol(o->lost_ns, want, 1e-6 * o->judged_ns + 1e-9);
        ck_assert_double_eq_tol(o->pct_of_roof, 100 * o->roof_time_ns / o->judged_ns, 1e-9);
        if (i)
            ck_assert(!(o->lost_ns > s->ops[i - 1].lost_ns));
        lost += o->lost_ns;
    }
    ck_assert_double_eq_tol(s->lost_ns, lost, 1e-6 * lost + 1e-9);
    /* no loss set against the default roof of a row without a precision */
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].default_roof && !r->rows[i].memory_only && !r->rows[i].comm)
            ck_assert(isnan(r->rows[i].roof_time_ns));
}

/* ---- 8: copies and fills are not kernels ------------------------------------------ */

START_TEST(copies_and_fills_have_their_own_kind)
{
    /* V100: 8772 kernels, 12 copies and 312 fills (facts.json: num_kernels,
     * num_memcpy, num_memset). Today's report called all 9096 kernels. */
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report(V100, "v100-sxm2", &c, &r);
    ck_assert_uint_eq(r.launches_of[RL_REPORT_KERNEL], 8772);
    ck_assert_uint_eq(r.launches_of[RL_REPORT_MEMCPY], 12);
    ck_assert_uint_eq(r.launches_of[RL_REPORT_MEMSET], 312);
    ck_assert_uint_eq(r.launches_of[RL_REPORT_COMM], 0);
    ck_assert_uint_eq(r.launches, 9096);
    char text[160];
    rl_report_launches_text(text, sizeof text, &r);
    char want[160];
    snprintf(want, sizeof want, "8772 kernel launches, 12 copies and 312 fills in %zu groups",
             r.n);
    ck_assert_str_eq(text, want);
    size_t memsets = 0;
    for (size_t i = 0; i < r.n; i++) {
        const struct rl_report_row *w = &r.rows[i];
        bool fill = strcmp(w->name, "Memset (Device)") == 0;
        ck_assert_int_eq(w->kind, fill ? RL_REPORT_MEMSET
                                  : strncmp(w->name, "Memcpy HtoD", 11) == 0 ? RL_REPORT_MEMCPY
                                                                             : RL_REPORT_KERNEL);
        memsets += fill ? w->launches : 0;
    }
    ck_assert_uint_eq(memsets, 312);
    char *j = render(rl_report_json, &r, &c);
    ck_assert_ptr_nonnull(strstr(j, "\"launches\": 9096, \"kernel_launches\": 8772, "
                                    "\"memcpy_launches\": 12, \"memset_launches\": 312"));
    ck_assert_ptr_nonnull(strstr(j, "{\"name\": \"Memset (Device)\""));
    ck_assert_ptr_nonnull(strstr(j, "\"kind\": \"memset\""));
    ck_assert_ptr_nonnull(strstr(j, "\"kind\": \"memcpy\""));
    free(j);
    char *csv = render(rl_report_csv, &r, &c);
    ck_assert_ptr_nonnull(strstr(csv, ",sentence,kind,collective,"));
    ck_assert_ptr_nonnull(strstr(csv, "\"Memset (Device)\","));
    ck_assert_ptr_nonnull(strstr(csv, ",memset,,"));
    ck_assert_ptr_nonnull(strstr(csv, ",memcpy,,"));
    free(csv);
    char *m = render(md, &r, &c);
    ck_assert_ptr_nonnull(strstr(m, ": 8772 kernel launches, 12 copies and 312 fills in "));
    free(m);
    rl_report_release(&r);
}
END_TEST

/* ---- 9: no bound without FLOPs or bytes ------------------------------------------- */

START_TEST(no_bound_without_a_cost)
{
    /* H100: 509 GPU activities link to no operator (facts.json:
     * link_C_unlinked); their groups are GEMMs, elementwise kernels and
     * fills with no cost but one fill group (73 fills, 292 B in 69.2 us).
     * Judged on 69.2 us of 13.74 ms, the group is bound by nothing the
     * fills say; today it read "memory". */
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report(H100, "h100-sxm", &c, &r);
    const struct rl_report_op *o = find_op(&r, "(no operator)");
    ck_assert_uint_eq(o->launches, 509);
    ck_assert_str_eq(o->bound, "-");
    ck_assert_int_eq(o->bucket, RL_STEP_UNKNOWN);
    ck_assert(o->judged_ns < 0.01 * o->time_ns);
    for (size_t i = 0; i < r.n; i++) {
        const struct rl_report_row *w = &r.rows[i];
        char words[80];
        rl_report_bound_text(words, sizeof words, w, &c);
        if (!w->counted && !w->memory_only && !w->compute_only && !w->comm) {
            ck_assert_str_eq(words, "-");
            ck_assert_msg(strstr(w->sentence, "not judged"), "%s", w->sentence);
        }
    }
    rl_report_release(&r);
}
END_TEST

/* ---- 10: one account per case in the notes ---------------------------------------- */

START_TEST(over_roof_has_one_account)
{
    /* V100: 7 groups beat the DRAM roof, every one with bytes that are a
     * lower bound on its DRAM traffic (6 analytic elementwise groups, 1
     * fill): one note says why (L2), none calls them wrong. Today: "7
     * kernel groups run above 100% ... a number is wrong", then a second
     * note explaining them as expected. */
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report(V100, "v100-sxm2", &c, &r);
    size_t over = 0;
    const struct rl_report_row *worst = NULL;
    double worst_pct = 0;
    for (size_t i = 0; i < r.n; i++) {
        const struct rl_report_row *w = &r.rows[i];
        double pct = w->memory_only ? w->pct_of_memory_roof : w->v.pct_of_roof;
        if (w->over_roof && (over++, pct > worst_pct))
            worst = w, worst_pct = pct;
    }
    ck_assert_uint_eq(over, 7);
    /* the worst: its DRAM bytes over its time against V100's 900 GB/s */
    double pct = 100 * worst->bytes[RL_MEM_DRAM] / worst->time_ns / 900;
    ck_assert(worst->counted == worst->launches); /* all its time is the judged time */
    ck_assert_double_eq_tol(pct, 143, 0.5);
    ck_assert_msg(strstr(r.notes, "7 groups run above 100% of the DRAM roof (up to 143%, "),
                  "%s", r.notes);
    ck_assert_ptr_nonnull(strstr(r.notes, "bounds, not measurements"));
    ck_assert_ptr_null(strstr(r.notes, "a number is wrong"));
    rl_report_release(&r);
}
END_TEST

/* Over every real trace: no note names a flag `report` does not have, nor
 * speaks of the L2 twice. */
static void one_account(const struct rl_report *r, int t)
{
    ck_assert_msg(!strstr(r->notes, "--precision"), "%s", r->notes);
    ck_assert_msg(!strstr(r->notes, "--tensor-flops-per-op"), "%s: %s", traces[t].file, r->notes);
    ck_assert_uint_le(rl_test_count(r->notes, "L2 cache"), 1);
    /* a PyTorch trace's message sizes come from record_param_comms: no note
     * or sentence blames NCCL's NVTX ranges (a roofline trace's source) */
    ck_assert_msg(!strstr(r->notes, "NVTX"), "%s", r->notes);
    for (size_t i = 0; i < r->n; i++)
        ck_assert_msg(!strstr(r->rows[i].sentence, "NVTX"), "%s", r->rows[i].sentence);
    size_t over = 0;
    for (size_t i = 0; i < r->n; i++)
        over += r->rows[i].over_roof;
    /* the two accounts' counts add up to the rows above their roof */
    size_t said = 0;
    for (const char *p = r->notes; *p;) {
        size_t k = strcspn(p, "\n"), n = 0;
        if (sscanf(p, "%zu", &n) == 1 && strstr(p, " above 100% of ") &&
            strstr(p, " above 100% of ") < p + k)
            said += n;
        p += k + (p[k] == '\n');
    }
    ck_assert_uint_eq(said, over);
}

/* Every real trace's report read as one: its words, its basis, its notes. */
START_TEST(every_trace_reads_consistently)
{
    static struct rl_ceilings c;
    static struct rl_report r;
    torch_report(traces[_i].file, traces[_i].gpu, &c, &r);
    one_vocabulary(&r, &c, _i);
    one_basis(&r);
    one_account(&r, _i);
    rl_report_release(&r);
}
END_TEST

START_TEST(the_command_says_it_once)
{
    /* `roofline report --torch` on the V100 trace: the summary counts
     * kernels apart from copies and fills (8772, 12, 312: facts.json), and
     * the over-roof rows get one note; today the command added a second,
     * "PyTorch traces: ... can beat the DRAM roof", after one that called
     * the same rows wrong. */
    char path[4096];
    snprintf(path, sizeof path, "%s", rl_test_data(V100));
    struct rl_run run = rl_test_cli(NULL, "report", "--torch", path, "--gpu", "v100-sxm2",
                                    "--rows", "3", (const char *)NULL);
    ck_assert_msg(run.status == 0, "%s", run.err);
    ck_assert_msg(strstr(run.out, ": 8772 kernel launches, 12 copies and 312 fills in "), "%s",
                  run.out);
    ck_assert_int_eq(rl_test_count(run.out, "L2 cache"), 1);
    ck_assert_ptr_null(strstr(run.out, "PyTorch traces: a row's bytes"));
    ck_assert_ptr_null(strstr(run.out, "a number is wrong"));
    ck_assert_ptr_null(strstr(run.out, "--precision"));
    rl_run_release(&run);
}
END_TEST

/* ---- limits: hand-built rows ------------------------------------------------------ */

static void launch(struct rl_trace_groups *g, const char *name, const char *op, double flops,
                   double dram, double time_ns)
{
    const uint32_t one[3] = {132, 1, 1}, block[3] = {128, 1, 1};
    struct rl_trace_launch l = {.name = name, .grid = one, .block = block,
                                .precision = flops > 0 ? "bf16" : NULL,
                                .origin = RL_ORIGIN_ANALYTIC, .launches = 1, .flops = flops,
                                .time_ns = time_ns, .comm_bytes = NAN, .op = op,
                                .dtype = op ? "bf16" : NULL};
    for (int m = 0; m < RL_MEM_COUNT; m++)
        l.bytes[m] = NAN;
    l.bytes[RL_MEM_DRAM] = dram;
    ck_assert_int_eq(rl_trace_groups_add_launch(g, &l), 0);
}

START_TEST(loss_nets_over_one_operator)
{
    /* H100 (3350 GB/s): aten::copy_'s two kernels, 0 FLOPs each:
     *   a  6.7e6 B in 1 us: roof 6.7e6 / 3350 = 2000 ns, above its roof
     *      (200%: an operand in L2), judged 1000 ns;
     *   b  3.35e6 B in 3 us: roof 1000 ns, judged 3000 ns;
     * the operator: judged 4000, roof 3000, lost 1000 ns, 75% of roof. Old
     * code: b's loss alone (2000) against judged = roof + lost per row
     * (2000 + 3000 = 5000 ns, more than the 4 us it took). A fill of no
     * operator, 1.675e6 B in 2 us: roof 500 ns, lost 1500. */
    static struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h100-sxm"), NULL, NULL, false, false, NULL,
                                      err),
                     RL_OK);
    struct rl_trace_groups g = {0};
    launch(&g, "copy_a", "aten::copy_", 0, 6.7e6, 1000);
    launch(&g, "copy_b", "aten::copy_", 0, 3.35e6, 3000);
    launch(&g, "Memset (Device)", NULL, NAN, 1.675e6, 2000);
    launch(&g, "Memcpy HtoD (Pageable -> Device)", NULL, NAN, NAN, 500);
    launch(&g, "Memsetter", NULL, NAN, NAN, 100); /* a kernel's name */
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), RL_OK);
    ck_assert_int_eq(rl_report_step_build(&r, &c, NAN, NAN, err), RL_OK);
    const struct rl_report_op *o = find_op(&r, "aten::copy_");
    ck_assert_double_eq_tol(o->judged_ns, 4000, 1e-9);
    ck_assert_double_eq_tol(o->roof_time_ns, 3000, 1e-9);
    ck_assert_double_eq_tol(o->lost_ns, 1000, 1e-9);
    ck_assert_double_eq_tol(o->pct_of_roof, 75, 1e-9);
    ck_assert_str_eq(o->bound, "memory (DRAM)");
    ck_assert_str_eq(o->roof_text, "DRAM roof (HBM3)");
    o = find_op(&r, "(no operator)");
    /* fill 2000 judged of 2600: roof 500, lost 1500 */
    ck_assert_double_eq_tol(o->judged_ns, 2000, 1e-9);
    ck_assert_double_eq_tol(o->lost_ns, 1500, 1e-9);
    ck_assert_double_eq_tol(r.step->lost_ns, 2500, 1e-9);
    /* the kinds and their words */
    ck_assert_uint_eq(r.launches_of[RL_REPORT_MEMSET], 1);
    ck_assert_uint_eq(r.launches_of[RL_REPORT_MEMCPY], 1);
    ck_assert_uint_eq(r.launches_of[RL_REPORT_KERNEL], 3);
    for (size_t i = 0; i < r.n; i++) {
        const struct rl_report_row *w = &r.rows[i];
        char words[80];
        rl_report_bound_text(words, sizeof words, w, &c);
        if (strcmp(w->name, "Memset (Device)") == 0) {
            ck_assert_int_eq(w->kind, RL_REPORT_MEMSET);
            ck_assert_str_eq(words, "memory (DRAM)");
            ck_assert_msg(strstr(w->sentence, "memory-bound (DRAM), a memory point: ") &&
                              strstr(w->sentence, "no FLOPs (a fill)"),
                          "%s", w->sentence);
        } else if (w->name[0] == 'M' && w->name[3] == 'c') {
            ck_assert_int_eq(w->kind, RL_REPORT_MEMCPY);
            ck_assert_str_eq(words, "-");
            ck_assert_msg(strstr(w->sentence, "not judged: a copy without DRAM bytes"), "%s",
                          w->sentence);
        } else if (strcmp(w->name, "Memsetter") == 0) {
            ck_assert_int_eq(w->kind, RL_REPORT_KERNEL);
            ck_assert_str_eq(words, "-");
        }
    }
    char text[160];
    rl_report_launches_text(text, sizeof text, &r);
    ck_assert_str_eq(text, "3 kernel launches, 1 copy and 1 fill in 5 groups");
    /* copy_a beats the DRAM roof with analytic bytes: the L2 account alone */
    ck_assert_ptr_nonnull(strstr(r.notes, "1 kernel group runs above 100% of the DRAM roof (up "
                                          "to 200%, copy_a): its bytes are the least DRAM "));
    ck_assert_ptr_null(strstr(r.notes, "a number is wrong"));
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(words_of_kinds)
{
    ck_assert_str_eq(rl_report_kind_name(RL_REPORT_KERNEL), "kernel");
    ck_assert_str_eq(rl_report_kind_name(RL_REPORT_MEMCPY), "memcpy");
    ck_assert_str_eq(rl_report_kind_name(RL_REPORT_MEMSET), "memset");
    ck_assert_str_eq(rl_report_kind_name(RL_REPORT_COMM), "communication");
    ck_assert_str_eq(rl_report_kind_name(RL_REPORT_KINDS), "kernel");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_KERNEL, 1), "kernel launch");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_KERNEL, 0), "kernel launches");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_MEMCPY, 1), "copy");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_MEMCPY, 2), "copies");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_MEMSET, 1), "fill");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_MEMSET, 2), "fills");
    ck_assert_str_eq(rl_report_kind_noun(RL_REPORT_COMM, 2), "collective launches");
}
END_TEST

START_TEST(precision_note_says_which_default)
{
    /* ceilings asked for FP32 first: the default roof is not the fastest,
     * and the note says so (not "--precision", a flag `report` lacks) */
    static struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h100-sxm"), NULL, "fp32,bf16", false, false,
                                      NULL, err),
                     RL_OK);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    struct rl_trace_launch l = {.name = "k", .grid = one, .block = one,
                                .origin = RL_ORIGIN_MEASURED, .launches = 1, .flops = 1e9,
                                .time_ns = 1e6, .comm_bytes = NAN};
    l.bytes[RL_MEM_DRAM] = 1e6;
    l.bytes[RL_MEM_L2] = l.bytes[RL_MEM_L1] = NAN;
    ck_assert_int_eq(rl_trace_groups_add_launch(&g, &l), 0);
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), RL_OK);
    ck_assert_msg(strstr(r.notes, "1 kernel group names no precision of its own: judged against "
                                  "the FP32 CUDA cores roof, the first precision these ceilings "
                                  "were asked for; "),
                  "%s", r.notes);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

Suite *report_torch_suite(void)
{
    Suite *s = suite_create("report_torch");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, headline_names_the_roof_used);
    tcase_add_test(core, one_basis_for_time_lost_and_pct);
    tcase_add_test(core, no_loss_against_a_guessed_roof);
    tcase_add_test(core, copies_and_fills_have_their_own_kind);
    tcase_add_test(core, no_bound_without_a_cost);
    tcase_add_test(core, over_roof_has_one_account);
    tcase_add_test(core, the_command_says_it_once);
    tcase_add_loop_test(core, every_trace_reads_consistently, 0,
                        (int)(sizeof traces / sizeof traces[0]));
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, loss_nets_over_one_operator);
    tcase_add_test(limits, words_of_kinds);
    tcase_add_test(limits, precision_note_says_which_default);
    suite_add_tcase(s, limits);
    return s;
}

int main(void)
{
    return rl_test_run(report_torch_suite());
}
