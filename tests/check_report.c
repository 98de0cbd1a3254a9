/* check_report.c - tests of the reporter: trace and Nsight Compute readers, bounds and sentences, outputs, the report and run commands. */
#define _GNU_SOURCE
#include "test_util.h"

#include "ceilings.h"
#include "error.h"
#include "json.h"
#include "ncu.h"
#include "paths.h"
#include "report.h"
#include "trace.h"
#include "tracefile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct rl_gpu_spec *h200;

static void setup(void) { h200 = rl_test_gpu("h200"); }

static const struct rl_trace_group *group(const struct rl_trace_groups *g, const char *part)
{
    for (size_t i = 0; i < g->n; i++)
        if (strstr(g->v[i].name, part))
            return &g->v[i];
    ck_abort_msg("no group '%s'", part);
    return NULL;
}

/* ---- Nsight Compute ---------------------------------------------------------- */

START_TEST(ncu_long_form)
{
    struct rl_trace_groups g = {0};
    struct rl_ncu_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-long.csv"), NAN, &st, err) == 0, "%s", err);
    ck_assert_str_eq(st.form, "long");
    ck_assert_uint_eq(st.kernels, 3);
    ck_assert_uint_eq(g.n, 3);
    /* GEMV 4096 -> 14336 BF16: 2 FLOP per FFMA, thousands separators gone. */
    const struct rl_trace_group *v = group(&g, "gemv_kernel");
    ck_assert_double_eq(v->flops, 2.0 * 58720256);
    ck_assert_double_eq_tol(v->bytes[RL_MEM_DRAM], 117.47e6 + 28.67e3, 1e-3);
    ck_assert_double_eq_tol(v->bytes[RL_MEM_L2], 130.10e6, 1e-3);
    ck_assert(isnan(v->bytes[RL_MEM_L1]));
    ck_assert_double_eq_tol(v->time_ns, 27300, 1e-6);
    ck_assert_uint_eq(v->grid[0], 1792);
    ck_assert_uint_eq(v->block[0], 256);
    ck_assert_str_eq(v->precision, "fp32");
    /* The GEMM's Tensor Core ops without a factor: no FLOPs, said so. */
    ck_assert_uint_eq(st.tensor_unknown, 1);
    ck_assert_uint_eq(group(&g, "xmma_gemm")->counted, 0);
    /* The fill kernel has only a time. */
    const struct rl_trace_group *fill = group(&g, "FillFunctor");
    ck_assert_uint_eq(fill->counted, 0);
    ck_assert_double_eq(fill->time_ns, 1984);
    ck_assert_uint_eq(st.without_counts, 2);
    rl_trace_groups_release(&g);
    /* With the factor: 2 FLOP per op. */
    ck_assert_int_eq(rl_ncu_load(&g, rl_test_data("ncu-long.csv"), 2, &st, err), 0);
    const struct rl_trace_group *m = group(&g, "xmma_gemm");
    ck_assert_double_eq(m->flops, 2.0 * 8589934592.0);
    ck_assert_str_eq(m->precision, "bf16");
    ck_assert_double_eq_tol(m->bytes[RL_MEM_DRAM], 25.17e6 + 8.39e6, 1e-3);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(ncu_wide_form)
{
    struct rl_trace_groups g = {0};
    struct rl_ncu_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-wide.csv"), NAN, &st, err) == 0, "%s", err);
    ck_assert_str_eq(st.form, "wide");
    ck_assert_uint_eq(st.kernels, 2);
    ck_assert_uint_eq(g.n, 1); /* two launches of one kernel and shape */
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_double_eq(g.v[0].flops, 2 * 2.0 * 58720256);
    ck_assert_double_eq_tol(g.v[0].time_ns, 27300 + 27700, 1e-6);
    rl_trace_groups_release(&g);
}
END_TEST

static int ncu_text(const char *text, char *err)
{
    struct rl_trace_groups g = {0};
    int rc = rl_ncu_parse(&g, text, strlen(text), "x.csv", NAN, NULL, err);
    rl_trace_groups_release(&g);
    return rc;
}

START_TEST(ncu_bad_input)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(ncu_text("name,flops\ngemv,1\n", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "no Nsight Compute CSV header"));
    ck_assert_int_eq(ncu_text("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric "
                              "Value\"\n\"0\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"12x\"\n",
                              err),
                     RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "x.csv': line 2"));
    ck_assert_ptr_nonnull(strstr(err, "'12x' is not a number"));
    ck_assert_int_eq(ncu_text("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"k,"
                              "\"gpu__time_duration.sum\",\"1\"\n",
                              err),
                     RL_EPARSE);
    ck_assert_int_eq(ncu_text("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"k\"\n",
                              err),
                     RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "2 columns, the header has 4"));
    ck_assert_int_eq(ncu_text("", err), RL_ESCHEMA);
    /* A header and no kernel. */
    ck_assert_int_eq(ncu_text("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n", err),
                     RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "no kernel"));
}
END_TEST

/* ---- trace files ----------------------------------------------------------- */

/* Write a small trace; returns its path. */
static const char *small_trace(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", rl_test_tmpdir(), name);
    struct rl_trace_kernel k[3];
    memset(k, 0, sizeof k);
    for (int i = 0; i < 3; i++) {
        k[i].name = i < 2 ? "gemv" : "memset";
        k[i].grid[0] = k[i].grid[1] = k[i].grid[2] = 1;
        k[i].block[0] = k[i].block[1] = k[i].block[2] = 1;
        k[i].start_ns = 100 + 1000 * (uint64_t)i;
        k[i].end_ns = k[i].start_ns + 500;
        k[i].step = -1;
        for (int q = 0; q < RL_Q_COUNT; q++)
            k[i].q[q] = i < 2 ? 0 : NAN;
        if (i < 2) {
            k[i].counts = RL_COUNTS_COUNTERS;
            k[i].q[RL_Q_FFMA] = 1000;
            k[i].q[RL_Q_DRAM_READ] = 4000;
        }
    }
    struct rl_trace_meta m = {.tool = "t", .created = "2026-11-29T00:00:00Z", .program = "p \"q\"",
                              .gpu_name = "NVIDIA H200", .chip = "GH100", .sm_count = 132,
                              .counters_mode = "default", .counters_status = "ok",
                              .tensor_flops_per_op = 2};
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(rl_trace_write(f, &m, k, 3, NULL, 0), 0);
    fclose(f);
    return path;
}

START_TEST(trace_reader)
{
    struct rl_trace_groups g = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_trace_groups_load(&g, small_trace("small.json"), err) == 0, "%s", err);
    ck_assert_uint_eq(g.sum.kernels, 3);
    ck_assert_str_eq(g.sum.gpu_name, "NVIDIA H200");
    ck_assert_int_eq(g.sum.sm_count, 132);
    ck_assert_str_eq(g.sum.counters_status, "ok");
    ck_assert_uint_eq(g.n, 2);
    const struct rl_trace_group *v = group(&g, "gemv");
    ck_assert_uint_eq(v->launches, 2);
    ck_assert_uint_eq(v->counted, 2);
    ck_assert_double_eq(v->flops, 4000);
    ck_assert_double_eq(v->bytes[RL_MEM_DRAM], 8000);
    ck_assert_double_eq(v->time_ns, 1000);
    ck_assert_uint_eq(group(&g, "memset")->counted, 0);
    rl_trace_groups_release(&g);
}
END_TEST

static int trace_text(const char *text, char *err)
{
    struct rl_trace_groups g = {0};
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = rl_trace_groups_read(&g, f, "t.json", err);
    fclose(f);
    rl_trace_groups_release(&g);
    return rc;
}

START_TEST(trace_bad_input)
{
    char err[RL_ERRMSG_SIZE];
    /* Truncated in the middle: the file and the line where it stops. */
    char *text = rl_test_slurp(small_trace("cut.json"));
    size_t len = strlen(text);
    text[len * 2 / 3] = 0;
    ck_assert_int_eq(trace_text(text, err), RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "t.json': line "));
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    free(text);
    ck_assert_int_eq(trace_text("{\"kernels\": []}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "not a roofline trace"));
    ck_assert_int_eq(trace_text("[1, 2]", err), RL_ESCHEMA);
    ck_assert_int_eq(trace_text("{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": "
                                "\"k\",\n \"flops\": \"many\", \"dram_bytes\": 1}]}",
                                err),
                     RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "t.json': line 2: 'flops' must be a number"));
    ck_assert_int_eq(trace_text("{\"format\": \"roofline-trace\", \"kernels\": [{\"flops\": 1}]}",
                                err),
                     RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "has no 'name'"));
    ck_assert_int_eq(trace_text("{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": \"k\","
                                " \"registers\": 12x}]}",
                                err),
                     RL_EPARSE);
    ck_assert_int_eq(trace_text("{\"format\": \"roofline-trace\", \"kernels\": []} {}", err),
                     RL_EPARSE);
    ck_assert_int_eq(trace_text("{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": "
                                "\"\\u00e9\\ud83d\\ude00\"}]}",
                                err),
                     RL_OK);
    ck_assert_int_eq(trace_text("{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": "
                                "\"\\ud83d\"}]}",
                                err),
                     RL_EPARSE);
}
END_TEST

/* ---- the report -------------------------------------------------------------- */

static const struct rl_report_row *row(const struct rl_report *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].name, name) == 0)
            return &r->rows[i];
    ck_abort_msg("no row '%s'", name);
    return NULL;
}

static void build_report(struct rl_report *r, struct rl_ceilings *c)
{
    struct rl_trace_groups g = {0};
    g.sum.sm_count = 132;
    const uint32_t big[3] = {1792, 1, 1}, one[3] = {1, 1, 1}, blk[3] = {256, 1, 1};
    double b_gemv[3] = {117.44e6, NAN, NAN}, b_gemm[3] = {33.55e6, 200e6, NAN},
           b_tiny[3] = {1e6, NAN, NAN}, b_zero[3] = {0, NAN, NAN}, b_none[3] = {NAN, NAN, NAN};
    /* GEMV 14336x4096 BF16 at 4.3 TB/s: memory-bound, 90% of HBM. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemv 4096x14336 bf16", big, blk, "bf16-cuda",
                                         RL_ORIGIN_MEASURED, 1, 117.44e6, b_gemv, 27300),
                     0);
    /* GEMM 2048^3 BF16 in 25 us: 687 TFLOP/s, compute-bound. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemm 2048^3 bf16", big, blk, "bf16",
                                         RL_ORIGIN_MEASURED, 1, 17.18e9, b_gemm, 25000),
                     0);
    /* A tiny launch far below both roofs: latency. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "tiny", one, blk, "fp32", RL_ORIGIN_MEASURED, 10,
                                         1e6, b_tiny, 30000),
                     0);
    /* Zero bytes: infinite intensity, compute-bound, never divided by. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "registers only", big, blk, "fp32",
                                         RL_ORIGIN_MEASURED, 1, 1e9, b_zero, 20000),
                     0);
    /* Timing only. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "memcpy", one, blk, "", RL_ORIGIN_MEASURED, 1, NAN,
                                         b_none, 5000),
                     0);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(c, h200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_report_build(r, c, &g, err), 0);
    rl_trace_groups_release(&g);
}

START_TEST(bounds_and_sentences)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build_report(&r, &c);
    ck_assert_uint_eq(r.n, 5);
    ck_assert_double_eq(r.time_ns, 27300 + 25000 + 30000 + 20000 + 5000);
    ck_assert_str_eq(r.rows[0].name, "tiny"); /* sorted by time */
    ck_assert_str_eq(r.rows[4].name, "memcpy");
    const struct rl_report_row *v = row(&r, "gemv 4096x14336 bf16");
    ck_assert_int_eq(v->bound, RL_RB_MEMORY);
    ck_assert_int_eq(v->v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq_tol(v->v.ai_flop_per_byte[RL_MEM_DRAM], 1.0, 1e-12);
    ck_assert_double_eq_tol(v->achieved_gbs, 117.44e6 / 27300, 1e-9);
    ck_assert_double_eq_tol(v->v.pct_of_roof, 100 * (117.44e6 / 27300) / 4800, 1e-6);
    ck_assert_msg(strstr(v->sentence, "gemv 4096x14336 bf16: 1 FLOP/B, 27.9x left of the "
                                      "BF16-CUDA ridge (27.9 FLOP/B): bandwidth-bound (dram); "
                                      "4.3 TB/s = 89.6% of datasheet HBM3e"),
                  "%s", v->sentence);
    const struct rl_report_row *m = row(&r, "gemm 2048^3 bf16");
    ck_assert_int_eq(m->bound, RL_RB_COMPUTE);
    ck_assert_double_eq_tol(m->v.achieved_tflops, 17.18e9 / 25000 / 1e3, 1e-9);
    ck_assert_ptr_nonnull(strstr(m->sentence, "compute-bound; 687 TFLOP/s = 69.5% of datasheet "
                                              "BF16 Tensor Core"));
    ck_assert_double_eq_tol(m->v.ai_flop_per_byte[RL_MEM_L2], 17.18e9 / 200e6, 1e-9);
    const struct rl_report_row *t = row(&r, "tiny");
    ck_assert_int_eq(t->bound, RL_RB_NEITHER);
    ck_assert_ptr_nonnull(strstr(t->evidence, "short launches (3 us each)"));
    ck_assert_ptr_nonnull(strstr(t->evidence, "only 1 blocks for 132 SMs"));
    ck_assert_ptr_nonnull(strstr(t->sentence, "bound by neither roof"));
    const struct rl_report_row *z = row(&r, "registers only");
    ck_assert_int_eq(z->bound, RL_RB_COMPUTE);
    ck_assert(isinf(z->v.ai_flop_per_byte[RL_MEM_DRAM]));
    const struct rl_report_row *u = row(&r, "memcpy");
    ck_assert_int_eq(u->bound, RL_RB_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(u->sentence, "timing only"));
    rl_report_release(&r);
}
END_TEST

/* ---- verdicts at their boundaries, sentences word for word ------------------------ */

/* 1000 TFLOP/s BF16, 5000 GB/s DRAM: the ridge at 200 FLOP/B. */
static void toy_ceilings(struct rl_ceilings *c)
{
    memset(c, 0, sizeof *c);
    c->compute[0] = (struct rl_compute_roof){.name = "bf16", .label = "BF16 Tensor Core (dense)",
                                             .precision = RL_PREC_BF16,
                                             .unit = RL_UNIT_TENSOR,
                                             .peak_tflops = 1000,
                                             .origin = RL_ORIGIN_DATASHEET};
    c->n_compute = 1;
    c->memory[0] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM3",
                                           .bandwidth_gbs = 5000, .origin = RL_ORIGIN_DATASHEET};
    c->n_memory = 1;
    snprintf(c->gpu_name, sizeof c->gpu_name, "toy");
}

static void add(struct rl_trace_groups *g, const char *name, uint32_t blocks, uint64_t launches,
                double flops, double dram_bytes, double time_ns)
{
    const uint32_t grid[3] = {blocks, 1, 1}, block[3] = {128, 1, 1};
    const double bytes[3] = {dram_bytes, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(g, name, grid, block, "", RL_ORIGIN_MEASURED, launches,
                                         flops, bytes, time_ns),
                     0);
}

START_TEST(neither_below_ten_percent)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    g.sum.sm_count = 132;
    /* 1e9 FLOPs over 1e3 bytes: AI 1e6, compute-bound, attainable 1000.
     * In 10 us: 1e9 / 1e4 ns = 100 TFLOP/s = exactly 10% of the roof: still
     * compute-bound. In 10.001 us: 99.99 TFLOP/s, 9.999%: neither. */
    add(&g, "at10", 132, 1, 1e9, 1e3, 1e4);
    add(&g, "below10", 132, 1, 1e9, 1e3, 10001);
    /* 1e8 FLOPs in 9 us: 11.1 TFLOP/s = 1.11%, short launches. */
    add(&g, "short", 132, 1, 1e8, 1e3, 9000);
    /* 131 blocks on 132 SMs, 1e8 FLOPs in 20 us: 0.5%. */
    add(&g, "thin", 131, 1, 1e8, 1e3, 20000);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *a = row(&r, "at10");
    ck_assert_double_eq(a->v.pct_of_roof, 10);
    ck_assert_int_eq(a->bound, RL_RB_COMPUTE);
    ck_assert_str_eq(a->evidence, "");
    ck_assert_str_eq(a->sentence, "at10: 1e+06 FLOP/B, 5e+03x right of the BF16 ridge (200 "
                                  "FLOP/B): compute-bound; 100 TFLOP/s = 10% of datasheet BF16 "
                                  "Tensor Core (dense)");
    const struct rl_report_row *b = row(&r, "below10");
    ck_assert_int_eq(b->bound, RL_RB_NEITHER);
    /* 10.001 us per launch is not short; 132 blocks fill 132 SMs. */
    ck_assert_str_eq(b->sentence,
                     "below10: 1e+06 FLOP/B, 100 TFLOP/s = 10% of the 1e+03 TFLOP/s attainable "
                     "at that intensity: bound by neither roof; neither bandwidth nor compute is "
                     "saturated: latency (dependent accesses, low occupancy, synchronisation) is "
                     "the likely limit");
    const struct rl_report_row *s = row(&r, "short");
    ck_assert_int_eq(s->bound, RL_RB_NEITHER);
    ck_assert_str_eq(s->evidence,
                     "short launches (9 us each): launch overhead and latency dominate");
    const struct rl_report_row *t = row(&r, "thin");
    ck_assert_int_eq(t->bound, RL_RB_NEITHER);
    ck_assert_str_eq(t->evidence,
                     "only 131 blocks for 132 SMs: the GPU is not filled (occupancy)");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(compute_bound_distance)
{
    /* H200 BF16: ridge 989.4 / 4.8 = 206.125 FLOP/B. 2.06125e9 FLOPs over
     * 1e6 bytes: AI 2061.25, 10x right of the ridge. In 4122.5 ns: 500
     * TFLOP/s = 50.5% of 989.4. */
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double bytes[3] = {1e6, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemm", one, one, "bf16", RL_ORIGIN_MEASURED, 1,
                                         2.06125e9, bytes, 4122.5),
                     0);
    /* Without a time: the roof it could reach, analytic. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemm untimed", one, one, "bf16",
                                         RL_ORIGIN_ANALYTIC, 1, 2.06125e9, bytes, NAN),
                     0);
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_str_eq(row(&r, "gemm")->sentence,
                     "gemm: 2.06e+03 FLOP/B, 10x right of the BF16 ridge (206 FLOP/B): "
                     "compute-bound; 500 TFLOP/s = 50.5% of datasheet BF16 Tensor Core (dense)");
    ck_assert_str_eq(row(&r, "gemm untimed")->sentence,
                     "gemm untimed: 2.06e+03 FLOP/B, 10x right of the BF16 ridge (206 FLOP/B): "
                     "compute-bound, at best 989 TFLOP/s (analytic: no time)");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The H200 datasheet (4800 GB/s) and a measured DRAM roof of 4000 GB/s. */
static void measured_ceilings(struct rl_ceilings *c)
{
    static struct rl_bench_ceilings bench;
    memset(&bench, 0, sizeof bench);
    snprintf(bench.gpu_name, sizeof bench.gpu_name, "NVIDIA H200");
    bench.memory[0] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM",
                                              .bandwidth_gbs = 4000,
                                              .origin = RL_ORIGIN_MEASURED};
    bench.n_memory = 1;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_ceilings_init(c, h200, &bench, NULL, false, false, NULL, err) == 0, "%s",
                  err);
}

START_TEST(lowest_memory_roof_judges)
{
    /* 1e9 FLOPs over 1e9 bytes (AI 1) in 500 us: 2 TB/s and 2 TFLOP/s. The
     * measured 4000 GB/s is the lower roof: attainable 4 TFLOP/s, 50%;
     * ridge 989.4 / 4.0 = 247.35 FLOP/B. */
    static struct rl_ceilings c;
    measured_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double bytes[3] = {1e9, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "copy", one, one, "bf16", RL_ORIGIN_MEASURED, 1, 1e9,
                                         bytes, 5e5),
                     0);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "copy");
    ck_assert_double_eq_tol(w->v.pct_of_roof, 50, 1e-9);
    ck_assert_str_eq(w->sentence, "copy: 1 FLOP/B, 247x left of the BF16 ridge (247 FLOP/B): "
                                  "bandwidth-bound (dram); 2 TB/s = 50% of measured HBM3e");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(uncounted_launches_keep_one_basis)
{
    /* One counted launch (1e9 FLOPs, 1e9 bytes, 500 us) and one of the same
     * kernel without counters (500 us). The rate and the bandwidth are the
     * counted launch's: 2 TFLOP/s = 50% of 4 TFLOP/s, 2 TB/s; its share of
     * the time is both launches' 1 ms. */
    static struct rl_ceilings c;
    measured_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double bytes[3] = {1e9, NAN, NAN}, none[3] = {NAN, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "copy", one, one, "bf16", RL_ORIGIN_MEASURED, 1, 1e9,
                                         bytes, 5e5),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "copy", one, one, "", RL_ORIGIN_MEASURED, 1, NAN,
                                         none, 5e5),
                     0);
    /* A counted launch without a time and a timed one without counters: no
     * rate at all rather than one over the wrong time. */
    ck_assert_int_eq(rl_trace_groups_add(&g, "mixed", one, one, "bf16", RL_ORIGIN_MEASURED, 1,
                                         1e9, bytes, NAN),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "mixed", one, one, "", RL_ORIGIN_MEASURED, 1, NAN,
                                         none, 5e5),
                     0);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "copy");
    ck_assert_double_eq(w->time_ns, 1e6);
    ck_assert_double_eq_tol(w->v.achieved_tflops, 2, 1e-12);
    ck_assert_double_eq_tol(w->achieved_gbs, 2000, 1e-9);
    ck_assert_double_eq_tol(w->v.pct_of_roof, 50, 1e-9);
    ck_assert_str_eq(w->sentence, "copy: 1 FLOP/B, 247x left of the BF16 ridge (247 FLOP/B): "
                                  "bandwidth-bound (dram); 2 TB/s = 50% of measured HBM3e");
    const struct rl_report_row *m = row(&r, "mixed");
    ck_assert(isnan(m->v.achieved_tflops));
    ck_assert_str_eq(m->sentence, "mixed: 1 FLOP/B, 247x left of the BF16 ridge (247 FLOP/B): "
                                  "bandwidth-bound (dram), at best 4 TFLOP/s (analytic: no time)");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

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
    return rl_report_markdown(f, r, c, "roofline.svg");
}

START_TEST(outputs)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build_report(&r, &c);
    snprintf(r.source_kind, sizeof r.source_kind, "trace");
    char *json = render(rl_report_json, &r, &c);
    cJSON *doc = cJSON_Parse(json);
    ck_assert_ptr_nonnull(doc);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "kernels"), 0);
    static const char *const keys[] = {"name", "time_ns", "flops", "dram_bytes",
                                       "ai_dram_flop_per_byte", "achieved_tflops",
                                       "attainable_tflops", "pct_of_roof", "bound", "sentence"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(cJSON_GetObjectItem(k, keys[i]), "no key %s", keys[i]);
    const cJSON *z;
    cJSON_ArrayForEach(z, cJSON_GetObjectItem(doc, "kernels"))
    {
        if (strcmp(rl_json_string(z, "name"), "registers only") == 0) /* infinite intensity */
            ck_assert(cJSON_IsNull(cJSON_GetObjectItem(z, "ai_dram_flop_per_byte")));
    }
    cJSON_Delete(doc);
    free(json);
    char *csv = render(rl_report_csv, &r, &c);
    ck_assert_ptr_nonnull(strstr(csv, "name,grid,block,launches,"));
    ck_assert_uint_eq(rl_test_count(csv, "\n"), 6);
    ck_assert_ptr_nonnull(strstr(csv, "\"gemv 4096x14336 bf16\",1792x1x1,256x1x1,1,1,27300,"));
    free(csv);
    char *m = render(md, &r, &c);
    ck_assert_ptr_nonnull(strstr(m, "![roofline of NVIDIA H200 SXM 141GB](roofline.svg)"));
    ck_assert_ptr_nonnull(strstr(m, "| gemm 2048^3 bf16 |"));
    ck_assert_ptr_nonnull(strstr(m, "## What bounds each kernel"));
    free(m);
    char svg[512], err[RL_ERRMSG_SIZE];
    snprintf(svg, sizeof svg, "%s/report-chart.svg", rl_test_tmpdir());
    ck_assert_msg(rl_report_chart(&r, &c, "t", svg, 12, err) == 0, "%s", err);
    ck_assert_int_eq(access(svg, F_OK), 0);
    rl_report_release(&r);
}
END_TEST

START_TEST(ten_thousand_groups)
{
    /* A serving trace's worth of distinct kernels: the chart stays drawable,
     * the top 12 labelled, every group in the JSON. */
    struct rl_trace_groups g = {0};
    for (int i = 0; i < 10000; i++) {
        char name[64];
        snprintf(name, sizeof name, "kernel_%05d", i);
        const uint32_t grid[3] = {(uint32_t)(1 + i % 512), 1, 1}, block[3] = {128, 1, 1};
        double ai = pow(10, -1 + 4.0 * (i % 997) / 997.0);
        double bytes[3] = {1e6 * (1 + i % 13), NAN, NAN};
        ck_assert_int_eq(rl_trace_groups_add(&g, name, grid, block, i % 3 ? "bf16" : "fp32",
                                             RL_ORIGIN_MEASURED, 1 + i % 5, ai * bytes[0],
                                             bytes, 1000.0 + i),
                         0);
    }
    static struct rl_ceilings c;
    struct rl_report r;
    char err[RL_ERRMSG_SIZE], svg[512];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_uint_eq(r.n, 10000);
    snprintf(svg, sizeof svg, "%s/ten-thousand.svg", rl_test_tmpdir());
    ck_assert_msg(rl_report_chart(&r, &c, "10,000 groups", svg, 12, err) == 0, "%s", err);
    char dat[512];
    snprintf(dat, sizeof dat, "%s/ten-thousand.kernels.dat", rl_test_tmpdir());
    char *text = rl_test_slurp(dat);
    ck_assert_uint_eq(rl_test_count(text, "\n"), 10001); /* a header and every group */
    free(text);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* ---- commands -------------------------------------------------------------- */

START_TEST(report_command)
{
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/rep", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "report", "--ncu", rl_test_data("ncu-long.csv"),
                                  "--gpu", "h200", "--tensor-flops-per-op", "2", "-o", dir,
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "bandwidth-bound (dram)"));
    static const char *const files[] = {"report.md", "report.json", "report.csv",
                                        "roofline.svg", "roofline.gp"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(file, sizeof file, "%s/%s", dir, files[i]);
        ck_assert_msg(access(file, F_OK) == 0, "no %s", file);
    }
    rl_run_release(&r);
    /* A trace works, and the trace's GPU gives the ceilings. */
    r = rl_test_cli(NULL, "report", "--trace", small_trace("cli.json"), "-o", dir, "--json",
                    (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(rl_json_string(doc, "gpu"), "NVIDIA H200 SXM 141GB");
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* Bad input: one line naming the file and line; nothing written. */
    char cut[512];
    snprintf(cut, sizeof cut, "%s/cut.json", rl_test_tmpdir());
    FILE *f = fopen(cut, "w");
    fputs("{\"format\": \"roofline-trace\",\n\"kernels\": [{\"name\": \"k\", \"flops\": 1", f);
    fclose(f);
    char dir2[512];
    snprintf(dir2, sizeof dir2, "%s/never", rl_test_tmpdir());
    r = rl_test_cli(NULL, "report", "--trace", cut, "--gpu", "h200", "-o", dir2,
                    (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "cut.json': line 2: truncated"));
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    ck_assert_int_ne(access(dir2, F_OK), 0);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--gpu", "h200", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--ncu", rl_test_data("ncu-long.csv"), "--gpu", "h999",
                    "-o", dir2, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    rl_run_release(&r);
}
END_TEST

START_TEST(run_without_a_gpu)
{
    static const char *const env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/run", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(env, "run", "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "no GPU measured"));
    ck_assert_ptr_nonnull(strstr(r.out, "prefill down GEMM 4096x2048x14336 bf16 (cuBLASLt)"));
    snprintf(file, sizeof file, "%s/report.md", dir);
    char *md = rl_test_slurp(file);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "decode down GEMV 14336->4096 bf16 (ours): 1 FLOP/B, 27.9x "
                                     "left of the BF16-CUDA ridge"));
    ck_assert_ptr_nonnull(strstr(md, "analytic"));
    ck_assert_ptr_nonnull(strstr(md, "![roofline"));
    free(md);
    snprintf(file, sizeof file, "%s/report.json", dir);
    char *js = rl_test_slurp(file);
    cJSON *doc = cJSON_Parse(js);
    const cJSON *k;
    int n = 0;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(doc, "kernels"))
    {
        ck_assert_str_eq(rl_json_string(k, "origin"), "analytic");
        n++;
    }
    ck_assert_int_eq(n, 22);
    cJSON_Delete(doc);
    free(js);
    rl_run_release(&r);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 60);
    tcase_add_test(core, ncu_long_form);
    tcase_add_test(core, ncu_wide_form);
    tcase_add_test(core, trace_reader);
    tcase_add_test(core, bounds_and_sentences);
    tcase_add_test(core, outputs);
    tcase_add_test(core, ten_thousand_groups);
    tcase_add_test(core, report_command);
    tcase_add_test(core, run_without_a_gpu);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, ncu_bad_input);
    tcase_add_test(limits, trace_bad_input);
    tcase_add_test(limits, neither_below_ten_percent);
    tcase_add_test(limits, compute_bound_distance);
    tcase_add_test(limits, lowest_memory_roof_judges);
    tcase_add_test(limits, uncounted_launches_keep_one_basis);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(report_suite()); }
