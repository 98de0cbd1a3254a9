/* check_report.c - tests of the reporter: trace and Nsight Compute readers, bounds and sentences, outputs, the report and run commands. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/readers/ncu.h"
#include "analyzer/util/paths.h"
#include "analyzer/report/report.h"
#include "analyzer/profiler/trace.h"
#include "analyzer/readers/tracefile.h"

#include <malloc.h>
#include <math.h>
#include <stdint.h>
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
    ck_assert_int_eq(v->bound, RL_BOUND_MEMORY);
    ck_assert_int_eq(v->v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq_tol(v->v.ai_flop_per_byte[RL_MEM_DRAM], 1.0, 1e-12);
    ck_assert_double_eq_tol(v->achieved_gbs, 117.44e6 / 27300, 1e-9);
    ck_assert_double_eq_tol(v->v.pct_of_roof, 100 * (117.44e6 / 27300) / 4800, 1e-6);
    ck_assert_msg(strstr(v->sentence, "gemv 4096x14336 bf16: 1 FLOP/B (DRAM), 27.9x left of the "
                                      "BF16-CUDA ridge (27.9 FLOP/B): memory-bound (DRAM); "
                                      "4.3 TB/s = 89.6% of datasheet HBM3e"),
                  "%s", v->sentence);
    const struct rl_report_row *m = row(&r, "gemm 2048^3 bf16");
    ck_assert_int_eq(m->bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq_tol(m->v.achieved_tflops, 17.18e9 / 25000 / 1e3, 1e-9);
    ck_assert_ptr_nonnull(strstr(m->sentence, "compute-bound; 687 TFLOP/s = 69.5% of datasheet "
                                              "BF16 Tensor Core"));
    ck_assert_double_eq_tol(m->v.ai_flop_per_byte[RL_MEM_L2], 17.18e9 / 200e6, 1e-9);
    const struct rl_report_row *t = row(&r, "tiny");
    ck_assert_int_eq(t->bound, RL_BOUND_NEITHER);
    ck_assert_ptr_nonnull(strstr(t->evidence, "short launches (3 us each)"));
    ck_assert_ptr_nonnull(strstr(t->evidence, "only 1 blocks for 132 SMs"));
    ck_assert_ptr_nonnull(strstr(t->sentence, "bound by neither roof"));
    const struct rl_report_row *z = row(&r, "registers only");
    ck_assert_int_eq(z->bound, RL_BOUND_COMPUTE);
    ck_assert(isinf(z->v.ai_flop_per_byte[RL_MEM_DRAM]));
    const struct rl_report_row *u = row(&r, "memcpy");
    ck_assert_int_eq(u->bound, RL_BOUND_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(u->sentence, "not judged"));
    rl_report_release(&r);
}
END_TEST

/* ---- verdicts at their boundaries, sentences word for word ------------------------ */

/* 1000 TFLOP/s BF16, 5000 GB/s DRAM: the ridge at 200 FLOP/B. */
static void toy_ceilings(struct rl_ceilings *c)
{
    memset(c, 0, sizeof *c);
    c->compute[0] = (struct rl_compute_roof){.name = "bf16", .label = "BF16 Tensor Core",
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
    ck_assert_int_eq(a->bound, RL_BOUND_COMPUTE);
    ck_assert_str_eq(a->evidence, "");
    ck_assert_str_eq(a->sentence, "at10: 1M FLOP/B (DRAM), 5000x right of the BF16 ridge (200 "
                                  "FLOP/B): compute-bound; 100 TFLOP/s = 10% of datasheet BF16 "
                                  "Tensor Core");
    const struct rl_report_row *b = row(&r, "below10");
    ck_assert_int_eq(b->bound, RL_BOUND_NEITHER);
    /* 10.001 us per launch is not short; 132 blocks fill 132 SMs. */
    ck_assert_str_eq(b->sentence,
                     "below10: 1M FLOP/B (DRAM), 100 TFLOP/s = 10% of the 1 PFLOP/s attainable "
                     "at that intensity: bound by neither roof; neither bandwidth nor compute is "
                     "saturated: latency (dependent accesses, low occupancy, synchronisation) is "
                     "the likely limit");
    const struct rl_report_row *s = row(&r, "short");
    ck_assert_int_eq(s->bound, RL_BOUND_NEITHER);
    ck_assert_str_eq(s->evidence,
                     "short launches (9 us each): launch overhead and latency dominate");
    const struct rl_report_row *t = row(&r, "thin");
    ck_assert_int_eq(t->bound, RL_BOUND_NEITHER);
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
                     "gemm: 2.06k FLOP/B (DRAM), 10x right of the BF16 ridge (206 FLOP/B): "
                     "compute-bound; 500 TFLOP/s = 50.5% of datasheet BF16 Tensor Core");
    ck_assert_str_eq(row(&r, "gemm untimed")->sentence,
                     "gemm untimed: 2.06k FLOP/B (DRAM), 10x right of the BF16 ridge (206 FLOP/B): "
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
    ck_assert_str_eq(w->sentence, "copy: 1 FLOP/B (DRAM), 247x left of the BF16 ridge (247 FLOP/B): "
                                  "memory-bound (DRAM); 2 TB/s = 50% of measured HBM3e");
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
    ck_assert_str_eq(w->sentence, "copy: 1 FLOP/B (DRAM), 247x left of the BF16 ridge (247 FLOP/B): "
                                  "memory-bound (DRAM); 2 TB/s = 50% of measured HBM3e");
    const struct rl_report_row *m = row(&r, "mixed");
    ck_assert(isnan(m->v.achieved_tflops));
    ck_assert_str_eq(m->sentence, "mixed: 1 FLOP/B (DRAM), 247x left of the BF16 ridge (247 FLOP/B): "
                                  "memory-bound (DRAM), at best 4 TFLOP/s (analytic: no time)");
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

/* ---- every output, field by field ------------------------------------------------ */

static void add_full(struct rl_trace_groups *g, const char *name, const uint32_t grid[3],
                     const uint32_t block[3], const char *precision, enum rl_origin origin,
                     uint64_t launches, double flops, const double bytes[3], double time_ns)
{
    ck_assert_int_eq(rl_trace_groups_add(g, name, grid, block, precision, origin, launches, flops,
                                         bytes, time_ns),
                     0);
}

/* got == want, or the first line where they differ (Check's messages are
 * too short for whole outputs). */
static void text_eq(const char *got, const char *want)
{
    size_t line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++;
        g++, w++;
    }
    if (*g == *w)
        return;
    while (g > got && g[-1] != '\n' && w > want && w[-1] != '\n')
        g--, w--;
    ck_abort_msg("line %zu: got '%.*s', want '%.*s'", line, (int)strcspn(g, "\n"), g,
                 (int)strcspn(w, "\n"), w);
}

static char *table_text(const struct rl_report *r, const struct rl_ceilings *c, size_t rows)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    rl_report_table(f, r, c, rows);
    fclose(f);
    return buf;
}

/* One line of the terminal table, laid out as the table lays it out; the
 * values are written by hand in the tests. */
/* The KERNEL column is as wide as the longest name shown (at least
 * "KERNEL"): table_w, set by each test for the rows it shows. */
static int table_w = 6;

static void table_line(char *b, size_t n, const char *name, const char *share, unsigned launches,
                       const char *ai, const char *ach, const char *att, const char *pct,
                       const char *bound)
{
    snprintf(b, n, "%-*s %6s %7u %9s %11s %11s %7s  %s\n", table_w, name, share, launches, ai,
             ach, att, pct, bound);
}

static void table_head(char *b, size_t n)
{
    snprintf(b, n, "%-*s %6s %7s %9s %11s %11s %7s  %s\n", table_w, "KERNEL", "TIME%", "LAUNCH",
             "AI(DRAM)", "ACHIEVED", "ROOF", "%ROOF", "BOUND");
}

/* On the toy ceilings (1000 TFLOP/s BF16, 5000 GB/s: ridge 200 FLOP/B), 4 ms
 * in all:
 *   comp     1e12 FLOPs, 1e9 DRAM + 2e9 L2 bytes, 2 ms: AI 1000 (L2 500),
 *            5x right of the ridge, 500 TFLOP/s = 50%, 500 GB/s; share 0.5
 *   copy"q   timing only, 1.6 ms: share 0.4
 *   mem|a    1e10 FLOPs, 1e9 bytes, 0.4 ms, grid 4x5x3, block 128x2x1: AI 10,
 *            20x left, 25 of 50 TFLOP/s = 50%, 2500 GB/s; share 0.1
 *   untimed  1e9 FLOPs, 1e7 bytes, analytic, no time: AI 100, at best 500
 *            TFLOP/s; sorted last (at least 1e9 / 500e3 = 2000 ns). */
static void four_kernels(struct rl_report *r, struct rl_ceilings *c)
{
    toy_ceilings(c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1}, blk[3] = {128, 1, 1}, grid[3] = {4, 5, 3},
                   blk2[3] = {128, 2, 1};
    const double b_comp[3] = {1e9, 2e9, NAN}, b_mem[3] = {1e9, NAN, NAN},
                 b_un[3] = {1e7, NAN, NAN}, none[3] = {NAN, NAN, NAN};
    add_full(&g, "mem|a", grid, blk2, "", RL_ORIGIN_MEASURED, 1, 1e10, b_mem, 4e5);
    add_full(&g, "untimed", one, blk, "", RL_ORIGIN_ANALYTIC, 1, 1e9, b_un, NAN);
    add_full(&g, "copy\"q", one, blk, "", RL_ORIGIN_MEASURED, 1, NAN, none, 1.6e6);
    add_full(&g, "comp", one, blk, "", RL_ORIGIN_MEASURED, 1, 1e12, b_comp, 2e6);
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_report_build(r, c, &g, err) == 0, "%s", err);
    snprintf(r->source_kind, sizeof r->source_kind, "trace");
    snprintf(r->source_path, sizeof r->source_path, "k.json");
    rl_trace_groups_release(&g);
}

#define S_COMP                                                                                   \
    "comp: 1k FLOP/B (DRAM), 5x right of the BF16 ridge (200 FLOP/B): compute-bound; 500 TFLOP/s = " \
    "50% of datasheet BF16 Tensor Core"
#define S_COPY                                                                                   \
    "copy\"q: 40% of GPU time, not judged: no FLOPs or bytes were counted (see the notes)"
#define S_MEM                                                                                    \
    "mem|a: 10 FLOP/B (DRAM), 20x left of the BF16 ridge (200 FLOP/B): memory-bound (DRAM); 2.5 "    \
    "TB/s = 50% of datasheet HBM3"
#define S_UNTIMED                                                                                \
    "untimed: 100 FLOP/B (DRAM), 2x left of the BF16 ridge (200 FLOP/B): memory-bound (DRAM), at "   \
    "best 500 TFLOP/s (analytic: no time)"

START_TEST(rows_and_sentences)
{
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    ck_assert_uint_eq(r.n, 4);
    ck_assert_uint_eq(r.launches, 4);
    ck_assert_double_eq(r.time_ns, 4e6);
    static const char *const order[] = {"comp", "copy\"q", "mem|a", "untimed"};
    static const char *const sentences[] = {S_COMP, S_COPY, S_MEM, S_UNTIMED};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_str_eq(r.rows[i].name, order[i]);
        ck_assert_str_eq(r.rows[i].sentence, sentences[i]);
        ck_assert_str_eq(r.rows[i].evidence, "");
    }
    const struct rl_report_row *m = &r.rows[2];
    ck_assert_int_eq(m->roof, 0);
    ck_assert_double_eq_tol(m->time_share, 0.1, 1e-15);
    ck_assert_double_eq_tol(m->achieved_gbs, 2500, 1e-9);
    const struct rl_report_row *t = &r.rows[1];
    ck_assert_int_eq(t->roof, -1);
    ck_assert_int_eq(t->bound, RL_BOUND_UNKNOWN);
    for (int l = 0; l < RL_MEM_COUNT; l++)
        ck_assert(isnan(t->v.ai_flop_per_byte[l]));
    ck_assert(isnan(t->v.achieved_tflops) && isnan(t->v.attainable_tflops));
    rl_report_release(&r);
}
END_TEST

START_TEST(table_fields_and_rows)
{
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    char head[200], l1[200], l2[200], l3[200], l4[200], want[1200];
    table_w = 7; /* "untimed" */
    table_head(head, sizeof head);
    table_line(l1, sizeof l1, "comp", "50", 1, "1k", "500 TFLOP/s", "1 PFLOP/s", "50",
               "compute (BF16 Tensor Core)");
    table_line(l2, sizeof l2, "copy\"q", "40", 1, "-", "-", "-", "-", "-");
    table_line(l3, sizeof l3, "mem|a", "10", 1, "10", "25 TFLOP/s", "50 TFLOP/s", "50",
               "memory (DRAM)");
    table_line(l4, sizeof l4, "untimed", "-", 1, "100", "-", "500 TFLOP/s", "-",
               "memory (DRAM)");
    /* Every row: no "more" line. */
    char *all = table_text(&r, &c, 0);
    snprintf(want, sizeof want, "%s%s%s%s%s", head, l1, l2, l3, l4);
    text_eq(all, want);
    free(all);
    /* As many rows as there are groups: the same table. */
    all = table_text(&r, &c, 4);
    text_eq(all, want);
    free(all);
    /* The top 2, and how many are left out: the column as wide as
     * "copy\"q" and "KERNEL" (6). */
    table_w = 6;
    table_head(head, sizeof head);
    table_line(l1, sizeof l1, "comp", "50", 1, "1k", "500 TFLOP/s", "1 PFLOP/s", "50",
               "compute (BF16 Tensor Core)");
    table_line(l2, sizeof l2, "copy\"q", "40", 1, "-", "-", "-", "-", "-");
    char *top = table_text(&r, &c, 2);
    snprintf(want, sizeof want, "%s%s%s... 2 more kernel groups (report.csv has them all)\n",
             head, l1, l2);
    text_eq(top, want);
    free(top);
    rl_report_release(&r);
}
END_TEST

START_TEST(csv_fields)
{
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    char *csv = render(rl_report_csv, &r, &c);
    text_eq(
        csv,
        "name,grid,block,launches,counted,time_ns,time_share,flops,dram_bytes,l2_bytes,l1_bytes,"
        "ai_dram_flop_per_byte,ai_l2_flop_per_byte,ai_l1_flop_per_byte,achieved_tflops,"
        "achieved_dram_gbs,attainable_tflops,pct_of_roof,ridge_flop_per_byte,ridge_level,"
        "pct_of_memory_roof,flags,roof,roof_origin,"
        "origin,bound,limiter,sentence\n"
        "\"comp\",1x1x1,128x1x1,1,1,2000000,0.5,1e+12,1e+09,2e+09,,1000,500,,500,500,1000,50,200,dram,,,"
        "bf16,datasheet,measured,compute,,\"" S_COMP "\"\n"
        "\"copy\"\"q\",1x1x1,128x1x1,1,0,1600000,0.4,,,,,,,,,,,,,,,,,,measured,unknown,,"
        "\"copy\"\"q: 40% of GPU time, not judged: no FLOPs or bytes were counted (see the "
        "notes)\"\n"
        "\"mem|a\",4x5x3,128x2x1,1,1,400000,0.1,1e+10,1e+09,,,10,,,25,2500,50,50,200,dram,,,bf16,"
        "datasheet,measured,memory,dram,\"" S_MEM "\"\n"
        "\"untimed\",1x1x1,128x1x1,1,1,,,1e+09,10000000,,,100,,,,,500,,200,dram,,,bf16,datasheet,analytic,"
        "memory,dram,\"" S_UNTIMED "\"\n");
    free(csv);
    rl_report_release(&r);
}
END_TEST

static void json_num_is(const cJSON *o, const char *key, double want)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(v, "no key %s", key);
    if (isnan(want)) {
        ck_assert_msg(cJSON_IsNull(v), "%s is not null", key);
    } else {
        ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", key);
        ck_assert_msg(fabs(v->valuedouble - want) <= 1e-9 * fabs(want), "%s: %.17g, not %.17g",
                      key, v->valuedouble, want);
    }
}

static void json_str_is(const cJSON *o, const char *key, const char *want)
{
    const char *s = rl_json_string(o, key);
    ck_assert_msg(s, "no string %s", key);
    ck_assert_str_eq(s, want);
}

static void json_triple_is(const cJSON *o, const char *key, double a, double b, double d)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_int_eq(cJSON_GetArraySize(v), 3);
    ck_assert_double_eq(cJSON_GetArrayItem(v, 0)->valuedouble, a);
    ck_assert_double_eq(cJSON_GetArrayItem(v, 1)->valuedouble, b);
    ck_assert_double_eq(cJSON_GetArrayItem(v, 2)->valuedouble, d);
}

START_TEST(json_fields)
{
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    char *json = render(rl_report_json, &r, &c);
    cJSON *doc = cJSON_Parse(json);
    ck_assert_msg(doc, "%s", json);
    json_num_is(doc, "schema_version", 1);
    json_str_is(doc, "format", "roofline-report");
    json_str_is(doc, "gpu", "toy");
    const cJSON *src = cJSON_GetObjectItem(doc, "source");
    json_str_is(src, "kind", "trace");
    json_str_is(src, "path", "k.json");
    json_num_is(src, "launches", 4);
    json_num_is(src, "time_ns", 4e6);
    const cJSON *ceil = cJSON_GetObjectItem(doc, "ceilings");
    ck_assert_int_eq(cJSON_GetArraySize(ceil), 2);
    const cJSON *cc = cJSON_GetArrayItem(ceil, 0), *cm = cJSON_GetArrayItem(ceil, 1);
    json_str_is(cc, "kind", "compute");
    json_str_is(cc, "name", "bf16");
    json_str_is(cc, "label", "BF16 Tensor Core");
    json_num_is(cc, "tflops", 1000);
    json_str_is(cc, "origin", "datasheet");
    json_str_is(cm, "kind", "memory");
    json_str_is(cm, "name", "dram");
    json_str_is(cm, "label", "HBM3");
    json_num_is(cm, "gbs", 5000);
    json_str_is(cm, "origin", "datasheet");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "notes")), 0);
    const cJSON *ks = cJSON_GetObjectItem(doc, "kernels");
    ck_assert_int_eq(cJSON_GetArraySize(ks), 4);
    const cJSON *k = cJSON_GetArrayItem(ks, 0);
    json_str_is(k, "name", "comp");
    json_triple_is(k, "grid", 1, 1, 1);
    json_triple_is(k, "block", 128, 1, 1);
    json_num_is(k, "launches", 1);
    json_num_is(k, "counted", 1);
    json_num_is(k, "time_ns", 2e6);
    json_num_is(k, "time_share", 0.5);
    json_num_is(k, "flops", 1e12);
    json_num_is(k, "dram_bytes", 1e9);
    json_num_is(k, "l2_bytes", 2e9);
    json_num_is(k, "l1_bytes", NAN);
    json_num_is(k, "ai_dram_flop_per_byte", 1000);
    json_num_is(k, "ai_l2_flop_per_byte", 500);
    json_num_is(k, "ai_l1_flop_per_byte", NAN);
    json_num_is(k, "achieved_tflops", 500);
    json_num_is(k, "achieved_dram_gbs", 500);
    json_num_is(k, "attainable_tflops", 1000);
    json_num_is(k, "pct_of_roof", 50);
    json_num_is(k, "ridge_flop_per_byte", 200);
    json_str_is(k, "roof", "bf16");
    json_str_is(k, "roof_origin", "datasheet");
    json_str_is(k, "origin", "measured");
    json_str_is(k, "bound", "compute");
    ck_assert_ptr_null(cJSON_GetObjectItem(k, "limiter"));
    ck_assert_ptr_null(cJSON_GetObjectItem(k, "evidence"));
    json_str_is(k, "sentence", S_COMP);
    k = cJSON_GetArrayItem(ks, 1); /* timing only: no roof, every figure null */
    json_str_is(k, "name", "copy\"q");
    json_num_is(k, "counted", 0);
    json_num_is(k, "time_share", 0.4);
    static const char *const nulls[] = {"flops", "dram_bytes", "l2_bytes", "l1_bytes",
                                        "ai_dram_flop_per_byte", "ai_l2_flop_per_byte",
                                        "ai_l1_flop_per_byte", "achieved_tflops",
                                        "achieved_dram_gbs", "attainable_tflops", "pct_of_roof",
                                        "ridge_flop_per_byte"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        json_num_is(k, nulls[i], NAN);
    json_str_is(k, "roof", "");
    json_str_is(k, "roof_origin", "");
    json_str_is(k, "bound", "unknown");
    ck_assert_ptr_null(cJSON_GetObjectItem(k, "limiter"));
    json_str_is(k, "sentence", S_COPY);
    k = cJSON_GetArrayItem(ks, 2);
    json_str_is(k, "name", "mem|a");
    json_triple_is(k, "grid", 4, 5, 3);
    json_triple_is(k, "block", 128, 2, 1);
    json_num_is(k, "achieved_dram_gbs", 2500);
    json_num_is(k, "pct_of_roof", 50);
    json_str_is(k, "roof", "bf16");
    json_str_is(k, "roof_origin", "datasheet");
    json_str_is(k, "bound", "memory");
    json_str_is(k, "limiter", "dram");
    json_str_is(k, "sentence", S_MEM);
    k = cJSON_GetArrayItem(ks, 3);
    json_str_is(k, "name", "untimed");
    json_num_is(k, "time_ns", NAN);
    json_num_is(k, "time_share", NAN);
    json_num_is(k, "achieved_tflops", NAN);
    json_num_is(k, "attainable_tflops", 500);
    json_str_is(k, "origin", "analytic");
    json_str_is(k, "limiter", "dram");
    cJSON_Delete(doc);
    free(json);
    rl_report_release(&r);
}
END_TEST

START_TEST(markdown_fields)
{
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    char *m = render(md, &r, &c);
    text_eq(
        m, "# Roofline report: toy\n\n"
           "Kernels from `k.json` (trace): 4 launches in 4 kernel groups, 4 ms of GPU time. Ceilings: "
           "datasheet. Every figure is labelled measured, datasheet or analytic.\n\n"
           "![roofline of toy](roofline.svg)\n\n"
           "## Ceilings\n\n| ceiling | value | origin |\n|---|---|---|\n"
           "| BF16 Tensor Core | 1 PFLOP/s | datasheet |\n"
           "| HBM3 | 5 TB/s | datasheet |\n"
           "\n## Kernels\n\n"
           "| kernel | time | launches | AI (FLOP/DRAM byte) | achieved | roof at its AI | % of roof | "
           "bound |\n|---|---:|---:|---:|---:|---:|---:|---|\n"
           "| comp | 50% | 1 | 1k | 500 TFLOP/s | 1 PFLOP/s | 50 | compute (BF16 Tensor Core) |\n"
           "| copy\"q | 40% | 1 | - | - | - | - | - |\n"
           "| mem\\|a | 10% | 1 | 10 | 25 TFLOP/s | 50 TFLOP/s | 50 | memory (DRAM) |\n"
           "| untimed | - | 1 | 100 | - | 500 TFLOP/s | - | memory (DRAM) |\n"
           "\n## What bounds each kernel\n\n"
           "- " S_COMP "\n"
           "- " S_COPY "\n"
           "- mem\\|a: 10 FLOP/B (DRAM), 20x left of the BF16 ridge (200 FLOP/B): memory-bound "
           "(DRAM); 2.5 TB/s = 50% of datasheet HBM3\n"
           "- " S_UNTIMED "\n");
    free(m);
    rl_report_release(&r);
}
END_TEST

static char *chart_points(const struct rl_report *r, const struct rl_ceilings *c,
                          const char *base)
{
    char svg[512], dat[512], err[RL_ERRMSG_SIZE];
    snprintf(svg, sizeof svg, "%s/%s.svg", rl_test_tmpdir(), base);
    ck_assert_msg(rl_report_chart(r, c, "t", svg, 12, err) == 0, "%s", err);
    snprintf(dat, sizeof dat, "%s/%s.kernels.dat", rl_test_tmpdir(), base);
    char *text = rl_test_slurp(dat);
    ck_assert_ptr_nonnull(text);
    char *body = strchr(text, '\n'); /* past the header comment */
    ck_assert_ptr_nonnull(body);
    memmove(text, body + 1, strlen(body + 1) + 1);
    return text;
}

START_TEST(chart_points_from_verdicts)
{
    /* One point per judged group (timing only is left out): intensity, the
     * achieved rate (the attainable one, open, without time), marker scale
     * 0.5 + 2.5 sqrt(share / largest share): comp 3, mem|a 0.5 + 2.5
     * sqrt(0.2) = 1.62, untimed 1; L2 and L1 intensities where DRAM's is
     * known. */
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    char *dat = chart_points(&r, &c, "four");
    text_eq(dat, "1000 5e+14 measured 3 \"comp\" 500 NaN NaN\n"
                          "10 2.5e+13 measured 1.62 \"mem|a\" NaN NaN NaN\n"
                          "100 5e+14 analytic 1 \"untimed\" NaN NaN NaN\n");
    free(dat);
    /* An image format the chart cannot draw: the error, not 0. */
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_ne(rl_report_chart(&r, &c, "t", "chart.bmp", 12, err), 0);
    rl_report_release(&r);
}
END_TEST

START_TEST(number_formats)
{
    /* Every unit switch at its boundary, as the Markdown ceilings table and
     * the JSON ceilings show them. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    static const double tflops[] = {1, 0.999, 0.5};
    for (size_t i = 0; i < 3; i++) {
        c.compute[i] = c.compute[0];
        snprintf(c.compute[i].label, sizeof c.compute[i].label, "c%zu", i);
        c.compute[i].peak_tflops = tflops[i];
    }
    c.compute[3] = c.compute[0];
    snprintf(c.compute[3].name, sizeof c.compute[3].name, "int8");
    snprintf(c.compute[3].label, sizeof c.compute[3].label, "INT8");
    c.compute[3].ops = true;
    c.compute[3].peak_tflops = 2;
    c.compute[3].origin = RL_ORIGIN_MEASURED;
    c.n_compute = 4;
    /* m4: three significant digits between 1 and 1000 GB/s */
    static const double gbs[] = {1000, 1, 0.999, 0.5, 123.4};
    for (size_t i = 0; i < 5; i++) {
        c.memory[i] = c.memory[0];
        c.memory[i].level = (enum rl_mem_level)(i % RL_MEM_COUNT);
        snprintf(c.memory[i].label, sizeof c.memory[i].label, "m%zu", i);
        c.memory[i].bandwidth_gbs = gbs[i];
    }
    c.n_memory = 5;
    struct rl_trace_groups g = {0};
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *m = render(md, &r, &c);
    ck_assert_msg(strstr(m, "|---|---|---|\n"
                            "| c0 | 1 TFLOP/s | datasheet |\n"
                            "| c1 | 999 GFLOP/s | datasheet |\n"
                            "| c2 | 500 GFLOP/s | datasheet |\n"
                            "| INT8 | 2 TOP/s | measured |\n"
                            "| m0 | 1 TB/s | datasheet |\n"
                            "| m1 | 1 GB/s | datasheet |\n"
                            "| m2 | 999 MB/s | datasheet |\n"
                            "| m3 | 500 MB/s | datasheet |\n"
                            "| m4 | 123 GB/s | datasheet |\n\n"),
                  "%s", m);
    /* No kernel and no time: no "ms of GPU time", no "first 100". */
    ck_assert_ptr_nonnull(strstr(m, "Kernels from `` (): 0 launches in 0 kernel groups. Ceilings: "
                                    "datasheet, measured."));
    ck_assert_ptr_nonnull(strstr(m, "\n## Kernels\n\n| kernel |"));
    free(m);
    char *json = render(rl_report_json, &r, &c);
    cJSON *doc = cJSON_Parse(json);
    ck_assert_msg(doc, "%s", json);
    const cJSON *ceil = cJSON_GetObjectItem(doc, "ceilings");
    ck_assert_int_eq(cJSON_GetArraySize(ceil), 9);
    json_str_is(cJSON_GetArrayItem(ceil, 0), "label", "c0");
    json_str_is(cJSON_GetArrayItem(ceil, 3), "name", "int8");
    json_str_is(cJSON_GetArrayItem(ceil, 3), "origin", "measured");
    json_num_is(cJSON_GetArrayItem(ceil, 3), "tflops", 2);
    json_str_is(cJSON_GetArrayItem(ceil, 4), "label", "m0");
    json_str_is(cJSON_GetArrayItem(ceil, 5), "name", "l2");
    json_str_is(cJSON_GetArrayItem(ceil, 7), "label", "m3");
    json_num_is(cJSON_GetArrayItem(ceil, 7), "gbs", 0.5);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "kernels")), 0);
    cJSON_Delete(doc);
    free(json);
    rl_report_release(&r);
}
END_TEST

/* A name (69 characters) longer than the KERNEL column's 56 characters is cut to fit it:
 * its first 53 characters and "...", then the next column. */
START_TEST(long_name_cut_to_the_column)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double bytes[3] = {1e9, NAN, NAN};
    const char *name = "a_kernel_name_of_sixty_eight_characters_which_the_table_must_cut_0123";
    ck_assert_uint_eq(strlen(name), 69);
    add_full(&g, name, one, one, "", RL_ORIGIN_MEASURED, 1, 2e12, bytes, 2e6);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *t = table_text(&r, &c, 0);
    char want[64]; /* the first row, after the header's newline */
    snprintf(want, sizeof want, "\n%.53s... ", name);
    ck_assert_msg(strstr(t, want) != NULL, "%s", t);
    free(t);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(integer_roof_in_ops)
{
    /* An INT8 roof (TOP/s, 2000) as the first roof: the rates say OP/s. 2e12
     * ops over 1e9 bytes (AI 2000 > ridge 400) in 2 ms: 1000 TOP/s = 50%. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    snprintf(c.compute[0].name, sizeof c.compute[0].name, "int8");
    snprintf(c.compute[0].label, sizeof c.compute[0].label, "INT8 Tensor Core");
    c.compute[0].ops = true;
    c.compute[0].peak_tflops = 2000;
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double bytes[3] = {1e9, NAN, NAN};
    add_full(&g, "igemm", one, one, "", RL_ORIGIN_MEASURED, 1, 2e12, bytes, 2e6);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_str_eq(r.rows[0].sentence,
                     "igemm: 2k FLOP/B (DRAM), 5x right of the INT8 ridge (400 FLOP/B): "
                     "compute-bound; 1 POP/s = 50% of datasheet INT8 Tensor Core");
    char line[200], head[200], want[400];
    table_w = 6;
    table_head(head, sizeof head);
    table_line(line, sizeof line, "igemm", "100", 1, "2k", "1 POP/s", "2 POP/s", "50",
               "compute (INT8 Tensor Core)");
    snprintf(want, sizeof want, "%s%s", head, line);
    char *t = table_text(&r, &c, 0);
    text_eq(t, want);
    free(t);
    char *m = render(md, &r, &c);
    ck_assert_ptr_nonnull(
        strstr(m, "| igemm | 100% | 1 | 2k | 1 POP/s | 2 POP/s | 50 | compute (INT8 Tensor Core) |\n"));
    free(m);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(sorted_by_time_then_name)
{
    /* Largest time first; kernels without a time by the least time the roof
     * allows (u: 1e9 FLOPs at 500 TFLOP/s = 2000 ns), no time at all last;
     * equal times by name. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double none[3] = {NAN, NAN, NAN}, b_u[3] = {1e7, NAN, NAN};
    add_full(&g, "z none", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, NAN);
    add_full(&g, "b same", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 1000);
    add_full(&g, "tiny t", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 0.5);
    add_full(&g, "a same", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 1000);
    add_full(&g, "u", one, one, "", RL_ORIGIN_ANALYTIC, 1, 1e9, b_u, NAN);
    add_full(&g, "t", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 1500);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    static const char *const order[] = {"u", "t", "a same", "b same", "tiny t", "z none"};
    ck_assert_uint_eq(r.n, 6);
    for (size_t i = 0; i < 6; i++)
        ck_assert_str_eq(r.rows[i].name, order[i]);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(memory_hierarchy)
{
    /* DRAM twice at 5000 GB/s (datasheet first, then measured) and L2 at
     * 10000 GB/s (ridge 100 FLOP/B). */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    c.memory[1] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM",
                                          .bandwidth_gbs = 5000, .origin = RL_ORIGIN_MEASURED};
    c.memory[2] = (struct rl_memory_roof){.level = RL_MEM_L2, .label = "L2",
                                          .bandwidth_gbs = 10000,
                                          .origin = RL_ORIGIN_DATASHEET};
    c.n_memory = 3;
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    /* Equal DRAM roofs: the first one is named. */
    const double b_dram[3] = {1e9, NAN, NAN};
    add_full(&g, "dram", one, one, "", RL_ORIGIN_MEASURED, 1, 1e10, b_dram, 4e5);
    /* 1e9 FLOPs: DRAM AI 1000 (5000 TFLOP/s), L2 AI 1 (10 TFLOP/s): L2
     * limits, 100x left of its ridge; in 200 us 5 TFLOP/s = 50%, 5 TB/s of
     * L2, 5 GB/s of DRAM. */
    const double b_l2[3] = {1e6, 1e9, NAN};
    add_full(&g, "l2bound", one, one, "", RL_ORIGIN_MEASURED, 1, 1e9, b_l2, 2e5);
    /* No DRAM bytes: the sentence and the chart use the L2 intensity (1e6,
     * 1e4x right of the L2 ridge), not L1's (1e7). */
    const double b_nodram[3] = {NAN, 1e6, 1e5};
    add_full(&g, "noDram", one, one, "", RL_ORIGIN_MEASURED, 1, 1e12, b_nodram, 2e6);
    const double b_copy[3] = {2e9, 0, NAN};
    add_full(&g, "copy", one, one, "", RL_ORIGIN_MEASURED, 1, 0, b_copy, 1e6);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_str_eq(row(&r, "dram")->sentence,
                     "dram: 10 FLOP/B (DRAM), 20x left of the BF16 ridge (200 FLOP/B): memory-bound "
                     "(DRAM); 2.5 TB/s = 50% of datasheet HBM3");
    const struct rl_report_row *l = row(&r, "l2bound");
    ck_assert_int_eq(l->v.limiter, RL_MEM_L2);
    ck_assert_double_eq_tol(l->achieved_gbs, 5, 1e-12);
    ck_assert_str_eq(l->sentence, "l2bound: 1 FLOP/B (L2), 100x left of the BF16 ridge (100 FLOP/B): "
                                  "memory-bound (L2); 5 TB/s = 50% of datasheet L2");
    const struct rl_report_row *n = row(&r, "noDram");
    ck_assert_double_eq_tol(n->v.ai_flop_per_byte[RL_MEM_L1], 1e7, 1e-3);
    /* A copy (no FLOPs): intensity 0 where it moved bytes, none where it
     * moved 0 (its L2 here) or was not measured (L1). */
    const struct rl_report_row *cp = row(&r, "copy");
    ck_assert(cp->memory_only);
    ck_assert_double_eq(cp->v.ai_flop_per_byte[RL_MEM_DRAM], 0);
    ck_assert(isnan(cp->v.ai_flop_per_byte[RL_MEM_L2]));
    ck_assert(isnan(cp->v.ai_flop_per_byte[RL_MEM_L1]));
    ck_assert_str_eq(n->sentence, "noDram: 1M FLOP/B (L2), 10000x right of the BF16 ridge (100 "
                                  "FLOP/B): compute-bound; 500 TFLOP/s = 50% of datasheet BF16 "
                                  "Tensor Core");
    char *dat = chart_points(&r, &c, "hierarchy");
    text_eq(dat, "1000000 5e+14 measured 3 \"noDram\" NaN NaN NaN\n"
                          "10 2.5e+13 measured 1.62 \"dram\" NaN NaN NaN\n"
                          "1000 5e+12 measured 1.29 \"l2bound\" 1 NaN NaN\n");
    free(dat);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The AI(DRAM) column of the table row of `name` (its fourth field). */
static void table_ai(const char *table, const char *name, char *ai, size_t n)
{
    char want[48];
    snprintf(want, sizeof want, "\n%s ", name);
    const char *line = strstr(table, want);
    ck_assert_msg(line, "no row '%s' in\n%s", name, table);
    char nm[64], share[16], launches[16], v[32];
    ck_assert_int_eq(sscanf(line + 1, "%63s %15s %15s %31s", nm, share, launches, v), 4);
    snprintf(ai, n, "%s", v);
}

/* Values at the edges of the number formatting and of the verdicts, on the
 * toy ceilings (1000 TFLOP/s, 5000 GB/s), four kernels of 10 us each (a
 * quarter of the 40 us each):
 *   giga     2e9 FLOPs over 1 DRAM byte: AI 2e9, past 1e9: 2e9 / 1e9 = "2G"
 *   gig1     1e9 FLOPs over 1 byte: AI 1e9 exactly, the first "G": "1G"
 *            (not 1e9 / 1e6 = "1e+03M")
 *   milli    1 FLOP over 1000 bytes: AI 1 / 1000 = 0.001 exactly, the
 *            smallest plain number: "0.001" (below it "%.2e")
 *   onebyte  0 FLOPs, 1 DRAM byte (L2 and L1 not measured): it moved data
 *            (1 byte > 0), so a memory point; AI 0 prints "0" (0 is no small
 *            number: not "0.00e+00"); 1 byte in 10000 ns = 1e-4 GB/s =
 *            100 x 1e-4 / 5000 = 2e-6 % of the roof; 25% of GPU time
 *            (100 x 0.25, not 100 / 0.25 = 400). */
START_TEST(number_and_verdict_edges)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    add(&g, "giga", 1, 1, 2e9, 1, 1e4);
    add(&g, "gig1", 1, 1, 1e9, 1, 1e4);
    add(&g, "milli", 1, 1, 1, 1000, 1e4);
    add(&g, "onebyte", 1, 1, 0, 1, 1e4);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const char *s = row(&r, "giga")->sentence;
    ck_assert_msg(strncmp(s, "giga: 2G FLOP/B (DRAM)", 22) == 0, "%s", s);
    s = row(&r, "gig1")->sentence;
    ck_assert_msg(strncmp(s, "gig1: 1G FLOP/B (DRAM)", 22) == 0, "%s", s);
    const struct rl_report_row *o = row(&r, "onebyte");
    ck_assert(o->memory_only);
    ck_assert_double_eq_tol(o->achieved_gbs, 1e-4, 1e-16);
    ck_assert_double_eq_tol(o->pct_of_memory_roof, 2e-6, 1e-18);
    /* no FLOPs, counted: a data-movement kernel, memory-bound at DRAM */
    ck_assert_msg(strncmp(o->sentence,
                          "onebyte: 25% of GPU time, memory-bound (DRAM), a memory point: ",
                          63) == 0,
                  "%s", o->sentence);
    char *t = table_text(&r, &c, 0);
    char ai[32];
    table_ai(t, "giga", ai, sizeof ai);
    ck_assert_str_eq(ai, "2G");
    table_ai(t, "gig1", ai, sizeof ai);
    ck_assert_str_eq(ai, "1G");
    table_ai(t, "milli", ai, sizeof ai);
    ck_assert_str_eq(ai, "0.001");
    table_ai(t, "onebyte", ai, sizeof ai);
    ck_assert_str_eq(ai, "0");
    free(t);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
    /* 3e11 FLOPs over 1 byte: AI 3e11, 3e11 / 200 = 1.5e9 x right of the
     * ridge: in plain digits, never an exponent ("1.5e+09"). */
    add(&g, "far", 1, 1, 3e11, 1, 1e6);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_msg(strstr(row(&r, "far")->sentence, "1500000000x right of the BF16 ridge"), "%s",
                  row(&r, "far")->sentence);
    rl_report_release(&r);
    /* A measured DRAM roof exactly at its datasheet one (5000 of 5000 GB/s,
     * 100%) is not over it. */
    c.memory[1] = c.memory[0];
    c.memory[0].origin = RL_ORIGIN_MEASURED;
    c.n_memory = 2;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *json = render(rl_report_json, &r, &c);
    ck_assert_msg(strstr(json, "\"pct_of_datasheet\": 100, \"over_datasheet\": false"), "%s",
                  json);
    free(json);
    rl_report_release(&r);
    /* 5025 of 5000 GB/s: 100 x 5025 / 5000 = 100.5%, over it. */
    c.memory[0].bandwidth_gbs = 5025;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    json = render(rl_report_json, &r, &c);
    ck_assert_msg(strstr(json, "\"pct_of_datasheet\": 100.5, \"over_datasheet\": true"), "%s",
                  json);
    free(json);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The link roof (NVLink 4, 450 GB/s a direction) is drawn only when a
 * kernel communicates, and a FLOP kernel's communicated bytes are in the
 * JSON from the first byte on (1 byte > 0). */
START_TEST(link_roof_only_when_communicating)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    c.has_link = true;
    c.link = (struct rl_link_roof){.label = "NVLink 4", .bandwidth_gbs = 450,
                                   .origin = RL_ORIGIN_DATASHEET};
    const uint32_t one[3] = {1, 1, 1};
    const double b[3] = {1e6, NAN, NAN};
    struct rl_trace_groups g = {0};
    add(&g, "local", 1, 1, 1e9, 1e6, 1e4);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE], path[512];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    free(chart_points(&r, &c, "nolink"));
    snprintf(path, sizeof path, "%s/nolink.gp", rl_test_tmpdir());
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(strstr(gp, "HBM3"));
    ck_assert_msg(!strstr(gp, "(link)"), "%s", gp);
    free(gp);
    rl_report_release(&r);
    /* 1e9 FLOPs and 1 byte over the link: AI(link) 1e9 > 0, drawn. */
    ck_assert_int_eq(rl_trace_groups_add_comm(&g, "onecomm", one, one, "", RL_ORIGIN_MEASURED, 1,
                                              1e9, b, 1e4, 1),
                     0);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_double_eq(row(&r, "onecomm")->comm_bytes, 1);
    char *json = render(rl_report_json, &r, &c);
    ck_assert_msg(strstr(json, "\"comm_bytes\": 1,"), "%s", json);
    free(json);
    free(chart_points(&r, &c, "onelink"));
    snprintf(path, sizeof path, "%s/onelink.gp", rl_test_tmpdir());
    gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(strstr(gp, "NVLink 4 (link)"));
    free(gp);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The link judges work that communicates only when every launch of the
 * group carries its message bytes and the ceilings have a link: "mixed"
 * (1e9 FLOPs, 1e6 DRAM bytes, AI 1000: compute-bound on the toy's 1000
 * TFLOP/s) has 1 of its 2 launches with 1e6 message bytes; on a 450 GB/s
 * link its AI(link) 1e9 / 1e6 = 1000 would give 450 TFLOP/s < 1000, so a
 * link verdict would show. "whole" has all its launches' bytes but the
 * ceilings no link. Neither is link-judged: no comm_bytes, compute-bound. */
START_TEST(link_needs_every_launch_and_a_link)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    c.has_link = true;
    c.link = (struct rl_link_roof){.label = "NVLink 4", .bandwidth_gbs = 450,
                                   .origin = RL_ORIGIN_DATASHEET};
    const uint32_t one[3] = {1, 1, 1};
    const double b[3] = {5e5, NAN, NAN};
    struct rl_trace_groups g = {0};
    ck_assert_int_eq(rl_trace_groups_add_comm(&g, "mixed", one, one, "", RL_ORIGIN_MEASURED, 1,
                                              5e8, b, 5e3, 1e6),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "mixed", one, one, "", RL_ORIGIN_MEASURED, 1, 5e8, b,
                                         5e3),
                     0);
    ck_assert_uint_eq(g.n, 1);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "mixed");
    ck_assert(isnan(w->comm_bytes));
    ck_assert_int_eq(w->bound, RL_BOUND_COMPUTE);
    rl_report_release(&r);
    rl_trace_groups_release(&g);

    memset(&g, 0, sizeof g);
    ck_assert_int_eq(rl_trace_groups_add_comm(&g, "whole", one, one, "", RL_ORIGIN_MEASURED, 1,
                                              1e9, (const double[3]){1e6, NAN, NAN}, 1e4, 1e6),
                     0);
    c.has_link = false;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    w = row(&r, "whole");
    ck_assert(isnan(w->comm_bytes));
    ck_assert_int_eq(w->bound, RL_BOUND_COMPUTE);
    rl_report_release(&r);
    /* the same with the link: judged by it */
    c.has_link = true;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    w = row(&r, "whole");
    ck_assert_double_eq(w->comm_bytes, 1e6);
    ck_assert_int_eq(w->bound, RL_BOUND_LINK);
    /* 1e9 FLOPs over 1e6 bytes sent: 1000 FLOP/B, left of the BF16 ridge
     * against the link (1000 TFLOP/s / 450 GB/s = 2222 FLOP/B, 2.22x); in
     * 1e4 ns: 100 TFLOP/s of the 1000 x 450 GB/s = 450 TFLOP/s the link
     * allows, 22.2% (three digits) */
    ck_assert_str_eq(w->sentence, "whole: 1k FLOP per byte communicated, 2.22x left of the BF16 "
                                  "ridge against the link (2.22k FLOP/B): bound by NVLink 4 (450 "
                                  "GB/s per direction, datasheet), not by DRAM; 100 TFLOP/s = "
                                  "22.2% of that roof");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* Markdown escapes each of | < * _ ` in a kernel's name (one backslash
 * before each), and writes a control character as a space. */
START_TEST(markdown_escapes_every_mark)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    add(&g, "a`b|c<d*e_f\tg", 1, 1, 1e9, 1e6, 1e4);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *m = render(md, &r, &c);
    ck_assert_msg(strstr(m, "a\\`b\\|c\\<d\\*e\\_f g"), "%s", m);
    free(m);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(intensity_without_a_roof)
{
    /* Only an L2 roof: the DRAM intensity still comes from the DRAM bytes,
     * 1e6 FLOPs over 0 bytes (infinite), 1 byte (1e6) and 4 bytes (2.5e5).
     * 0 FLOPs over 0 bytes: no intensity, no attainable rate. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    c.memory[0] = (struct rl_memory_roof){.level = RL_MEM_L2, .label = "L2",
                                          .bandwidth_gbs = 10000,
                                          .origin = RL_ORIGIN_DATASHEET};
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double b0[3] = {0, 1e9, NAN}, b1[3] = {1, 1e9, NAN}, b4[3] = {4, 1e9, NAN},
                 bn[3] = {0, 0, NAN};
    add_full(&g, "nothing", one, one, "", RL_ORIGIN_MEASURED, 1, 0, bn, 1000);
    add_full(&g, "zero bytes", one, one, "", RL_ORIGIN_MEASURED, 1, 1e6, b0, NAN);
    add_full(&g, "one byte", one, one, "", RL_ORIGIN_MEASURED, 1, 1e6, b1, NAN);
    add_full(&g, "four bytes", one, one, "", RL_ORIGIN_MEASURED, 1, 1e6, b4, NAN);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert(isinf(row(&r, "zero bytes")->v.ai_flop_per_byte[RL_MEM_DRAM]));
    ck_assert_double_eq(row(&r, "one byte")->v.ai_flop_per_byte[RL_MEM_DRAM], 1e6);
    ck_assert_double_eq(row(&r, "four bytes")->v.ai_flop_per_byte[RL_MEM_DRAM], 2.5e5);
    ck_assert_double_eq_tol(row(&r, "four bytes")->v.ai_flop_per_byte[RL_MEM_L2], 1e-3, 1e-15);
    const struct rl_report_row *z = row(&r, "nothing");
    ck_assert_int_eq(z->bound, RL_BOUND_UNKNOWN);
    ck_assert(isnan(z->v.attainable_tflops));
    ck_assert_str_eq(z->sentence, "nothing: not judged: no intensity (no FLOPs and no bytes)");
    /* The roof in words needs both a roof and a bound: a row with a
     * compute roof but no verdict names none, and neither does one with a
     * verdict but no roof. */
    char rt[96];
    ck_assert_int_ge(z->roof, 0);
    rl_report_roof_text(rt, sizeof rt, z, &c);
    ck_assert_str_eq(rt, "");
    struct rl_report_row judged = *row(&r, "one byte");
    rl_report_roof_text(rt, sizeof rt, &judged, &c);
    ck_assert_str_ne(rt, "");
    judged.roof = -1;
    rl_report_roof_text(rt, sizeof rt, &judged, &c);
    ck_assert_str_eq(rt, "");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(neither_evidence_boundaries)
{
    /* Exactly 10 us a launch (2 launches in 20 us) is not short; a 4x5x3 grid
     * is 60 blocks. 1e8 FLOPs against the 1000 TFLOP/s roof: 1%. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    g.sum.sm_count = 132;
    const uint32_t full[3] = {132, 1, 1}, grid[3] = {4, 5, 3}, blk[3] = {128, 1, 1};
    const double bytes[3] = {1e3, NAN, NAN};
    add_full(&g, "ten us", full, blk, "", RL_ORIGIN_MEASURED, 2, 2e8, bytes, 2e4);
    add_full(&g, "sixty", grid, blk, "", RL_ORIGIN_MEASURED, 1, 1e8, bytes, 2e4);
    /* Both reasons, of equal length (64 characters each): both said. */
    const uint32_t hundred[3] = {100, 1, 1};
    add_full(&g, "both", hundred, blk, "", RL_ORIGIN_MEASURED, 1, 1e8, bytes, 3000);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *t = row(&r, "ten us");
    ck_assert_int_eq(t->bound, RL_BOUND_NEITHER);
    ck_assert_str_eq(t->evidence,
                     "neither bandwidth nor compute is saturated: latency (dependent accesses, low "
                     "occupancy, synchronisation) is the likely limit");
    ck_assert_str_eq(row(&r, "sixty")->evidence,
                     "only 60 blocks for 132 SMs: the GPU is not filled (occupancy)");
    ck_assert_str_eq(row(&r, "both")->evidence,
                     "short launches (3 us each): launch overhead and latency dominate; only 100 "
                     "blocks for 132 SMs: the GPU is not filled (occupancy)");
    char *json = render(rl_report_json, &r, &c);
    cJSON *doc = cJSON_Parse(json);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "kernels"), 0);
    json_str_is(k, "name", "sixty");
    json_str_is(k, "bound", "neither");
    json_str_is(k, "evidence", "only 60 blocks for 132 SMs: the GPU is not filled (occupancy)");
    cJSON_Delete(doc);
    free(json);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(infinite_intensity_sentence)
{
    /* Zero bytes: infinite intensity, compute-bound, no finite distance. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double b0[3] = {0, NAN, NAN};
    add_full(&g, "regs", one, one, "", RL_ORIGIN_MEASURED, 1, 1e12, b0, 2e6);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    /* Said plainly: no "inf FLOP/B, -x right of the ridge". */
    ck_assert_str_eq(r.rows[0].sentence, "regs: 1 TFLOP and 0 DRAM bytes counted: its "
                                         "intensity is unbounded, so it is compute-bound (not "
                                         "drawn on a chart); 500 TFLOP/s = 50% of datasheet "
                                         "BF16 Tensor Core");
    ck_assert(r.rows[0].zero_bytes);
    ck_assert_ptr_nonnull(strstr(r.notes, "1 kernel group counted FLOPs and 0 DRAM bytes (regs): "
                                          "intensity unbounded, judged compute-bound, not drawn "
                                          "on a chart"));
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(times_at_zero)
{
    /* A time of 0 is no time: no rate, no bandwidth, no share. Half a
     * nanosecond is a time: the whole 0.5 ns, 1e3 bytes / 0.5 ns = 2000 GB/s. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double b[3] = {1e3, NAN, NAN}, none[3] = {NAN, NAN, NAN};
    add_full(&g, "zero", one, one, "", RL_ORIGIN_MEASURED, 1, 1e3, b, 0);
    add_full(&g, "half", one, one, "", RL_ORIGIN_MEASURED, 1, 1e3, b, 0.5);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *z = row(&r, "zero"), *h = row(&r, "half");
    ck_assert(isnan(z->time_ns) && isnan(z->time_share));
    ck_assert(isnan(z->achieved_gbs) && isnan(z->v.achieved_tflops));
    ck_assert_double_eq(h->time_ns, 0.5);
    ck_assert_double_eq(h->time_share, 1);
    ck_assert_double_eq_tol(h->achieved_gbs, 2000, 1e-9);
    char *m = render(md, &r, &c);
    ck_assert_ptr_nonnull(strstr(m, "2 launches in 2 kernel groups, 0.0000005 ms of GPU time."));
    free(m);
    rl_report_release(&r);
    /* Times that add up to 0 (a clock that went backwards): no share. */
    rl_trace_groups_release(&g);
    memset(&g, 0, sizeof g);
    add_full(&g, "back", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, -5);
    add_full(&g, "fwd", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 5);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert(isnan(row(&r, "fwd")->time_share));
    m = render(md, &r, &c);
    ck_assert_ptr_nonnull(strstr(m, "2 launches in 2 kernel groups. Ceilings"));
    free(m);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(precisions_and_notes)
{
    /* Each kernel judged against its precision's roof; no precision: the
     * default roof; an unknown one: the default roof, and a note. Then the
     * trace's own notes, in order. One-character texts: the first character
     * decides, not the second. */
    static struct rl_ceilings c;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), 0);
    const char *def = c.compute[c.default_roof].name;
    ck_assert_int_ne(c.default_roof, 0);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double b[3] = {1e6, NAN, NAN};
    add_full(&g, "p-fp64", one, one, "fp64", RL_ORIGIN_MEASURED, 1, 1e6, b, 1000);
    add_full(&g, "p-fp32", one, one, "fp32", RL_ORIGIN_MEASURED, 1, 1e6, b, 1000);
    add_full(&g, "p-none", one, one, "", RL_ORIGIN_MEASURED, 1, 1e6, b, 1000);
    add_full(&g, "p-x", one, one, "x", RL_ORIGIN_MEASURED, 1, 1e6, b, 1000);
    snprintf(g.sum.counters_status, sizeof g.sum.counters_status, "off");
    snprintf(g.sum.counters_reason, sizeof g.sum.counters_reason, "?");
    snprintf(g.sum.tensor_not_counted, sizeof g.sum.tensor_not_counted, "8");
    g.sum.incomplete = true;
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_str_eq(c.compute[row(&r, "p-fp64")->roof].name, "fp64");
    ck_assert_int_eq(row(&r, "p-fp64")->roof, 0);
    ck_assert_str_eq(c.compute[row(&r, "p-fp32")->roof].name, "fp32");
    ck_assert_str_eq(c.compute[row(&r, "p-none")->roof].name, def);
    ck_assert_str_eq(c.compute[row(&r, "p-x")->roof].name, def);
    /* The first note is the unknown precision's, ending in the roof used. */
    const char *nl = strchr(r.notes, '\n');
    ck_assert_ptr_nonnull(nl);
    char first[600], tail[200];
    snprintf(first, sizeof first, "%.*s", (int)(nl - r.notes), r.notes);
    snprintf(tail, sizeof tail, ": kernels of this precision are judged against the %s roof",
             def);
    ck_assert_ptr_nonnull(strstr(first, "'x'"));
    ck_assert_str_eq(first + strlen(first) - strlen(tail), tail);
    /* Then the one that names no precision ('x' counts as named): the roof
     * that judged it. */
    char second[300];
    snprintf(second, sizeof second,
             "1 kernel group names no precision of its own: judged against the %s roof, the "
             "fastest this GPU has (FP4 and FP6 aside: the least %% of roof); a roof of another "
             "precision than the one it ran at puts its %% of roof off by the ratio of the two "
             "roofs",
             c.compute[c.default_roof].label);
    const char *nl2 = strchr(nl + 1, '\n');
    ck_assert_ptr_nonnull(nl2);
    ck_assert_int_eq((int)(nl2 - (nl + 1)), (int)strlen(second));
    ck_assert(strncmp(nl + 1, second, strlen(second)) == 0);
    ck_assert_str_eq(nl2 + 1, "counters off: ?\n"
                              "Tensor Core work of types 8 was not counted (trace with --metrics "
                              "full)\n"
                              "the trace is incomplete: the program ended on a signal");
    char *json = render(rl_report_json, &r, &c);
    cJSON *doc = cJSON_Parse(json);
    ck_assert_msg(doc, "%s", json);
    const cJSON *notes = cJSON_GetObjectItem(doc, "notes");
    ck_assert_int_eq(cJSON_GetArraySize(notes), 5);
    ck_assert_str_eq(cJSON_GetArrayItem(notes, 0)->valuestring, first);
    ck_assert_str_eq(cJSON_GetArrayItem(notes, 1)->valuestring, second);
    ck_assert_str_eq(cJSON_GetArrayItem(notes, 2)->valuestring, "counters off: ?");
    ck_assert_str_eq(cJSON_GetArrayItem(notes, 4)->valuestring,
                     "the trace is incomplete: the program ended on a signal");
    cJSON_Delete(doc);
    free(json);
    char *m = render(md, &r, &c);
    char want[1200];
    snprintf(want, sizeof want,
             "Notes:\n\n- %s\n- %s\n- counters off: ?\n- Tensor Core work of types 8 was not "
             "counted (trace with --metrics full)\n- the trace is incomplete: the program ended "
             "on a signal\n\n## Ceilings",
             first, second);
    ck_assert_msg(strstr(m, want), "%s", m);
    free(m);
    rl_report_release(&r);
    /* Counters "ok" and nothing else: no note. */
    memset(&g.sum, 0, sizeof g.sum);
    snprintf(g.sum.counters_status, sizeof g.sum.counters_status, "ok");
    for (size_t i = 0; i < g.n; i++)
        snprintf(g.v[i].precision, sizeof g.v[i].precision, "fp64");
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_str_eq(r.notes, "");
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(exactly_the_groups_given)
{
    /* Only g->n groups are read, however many the array holds. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_group v[2];
    memset(v, 0, sizeof v);
    v[0].name = "only";
    v[0].launches = 3;
    v[0].time_ns = 1000;
    v[1].name = "beyond";
    v[1].launches = 7;
    v[1].time_ns = 1e9;
    for (int l = 0; l < RL_MEM_COUNT; l++)
        v[0].bytes[l] = v[1].bytes[l] = NAN;
    v[0].flops = v[1].flops = NAN;
    struct rl_trace_groups g = {0};
    g.v = v;
    g.n = 1;
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.launches, 3);
    ck_assert_double_eq(r.time_ns, 1000);
    ck_assert_str_eq(r.rows[0].name, "only");
    rl_report_release(&r);
}
END_TEST

START_TEST(release_frees_everything)
{
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c); /* warm the allocator up once */
    rl_report_release(&r);
    size_t before = mallinfo2().uordblks;
    four_kernels(&r, &c);
    rl_report_release(&r);
    ck_assert_uint_eq(mallinfo2().uordblks, before);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_ptr_null(r.rows);
    rl_report_release(&r); /* released twice: nothing to free */
}
END_TEST

START_TEST(write_errors)
{
    /* A stream that cannot be written: every writer says so. */
    static struct rl_ceilings c;
    struct rl_report r;
    four_kernels(&r, &c);
    FILE *f = fopen("/dev/null", "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(rl_report_csv(f, &r, &c), -1);
    ck_assert_int_eq(rl_report_json(f, &r, &c), -1);
    ck_assert_int_eq(rl_report_markdown(f, &r, &c, NULL), -1);
    fclose(f);
    rl_report_release(&r);
}
END_TEST


START_TEST(out_of_memory_for_a_name)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double none[3] = {NAN, NAN, NAN};
    add_full(&g, "first", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 1000);
    add_full(&g, "second", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, none, 1000);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    rl_test_strdup_fail_for = "second";
    int rc = rl_report_build(&r, &c, &g, err);
    rl_test_strdup_fail_for = NULL;
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_str_eq(err, "out of memory");
    rl_report_release(&r); /* what was built is released */
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(out_of_memory)
{
#ifndef __SANITIZE_ADDRESS__ /* ASan aborts on an impossible allocation */
    /* More groups than memory can hold: RL_ENOMEM, not a report. */
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    g.n = SIZE_MAX / 2;
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), RL_ENOMEM);
    ck_assert_str_eq(err, "out of memory");
    rl_report_release(&r);
    struct rl_report big = {0};
    big.n = SIZE_MAX / 2;
    char svg[512];
    snprintf(svg, sizeof svg, "%s/never.svg", rl_test_tmpdir());
    ck_assert_int_eq(rl_report_chart(&big, &c, "t", svg, 12, err), RL_ENOMEM);
#endif
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
    ck_assert_ptr_nonnull(strstr(r.out, "memory-bound (DRAM)"));
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
    /* A short first line; no column that is "-" on every row (no time in
     * an analytic set: TIME%, ACHIEVED, %ROOF); names whole; the sentences
     * in report.md, not on the terminal. */
    ck_assert_msg(strncmp(r.out, "roofline run: no GPU here: ", 27) == 0, "%.80s", r.out);
    ck_assert_int_le(strcspn(r.out, "\n"), 100);
    ck_assert_ptr_nonnull(strstr(r.out, "\nKERNEL "));
    ck_assert_ptr_null(strstr(r.out, "TIME%"));
    ck_assert_ptr_null(strstr(r.out, "ACHIEVED"));
    ck_assert_ptr_null(strstr(r.out, "%ROOF"));
    ck_assert_ptr_null(strstr(r.out, "FLOP/B (DRAM), "));
    ck_assert_ptr_null(strstr(r.out, "(ours)"));
    ck_assert_ptr_nonnull(strstr(r.out, "prefill down GEMM 4096x2048x14336 bf16 (cuBLASLt)"));
    snprintf(file, sizeof file, "%s/report.md", dir);
    char *md = rl_test_slurp(file);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "decode down GEMV 14336->4096 bf16 (built-in): 1 FLOP/B (DRAM), 27.9x "
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

/* The unit prefixes switch at their value: an AI of exactly 1e3 FLOP/B is
 * "1k" (1e3 / 1e3), exactly 1e6 is "1M", in the table and the sentence. */
START_TEST(number_prefixes_at_their_value)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    add(&g, "kilo", 1, 1, 1e3, 1, 1e4);
    add(&g, "mega", 1, 1, 1e6, 1, 1e4);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *t = table_text(&r, &c, 0);
    char ai[32];
    table_ai(t, "kilo", ai, sizeof ai);
    ck_assert_str_eq(ai, "1k");
    table_ai(t, "mega", ai, sizeof ai);
    ck_assert_str_eq(ai, "1M");
    free(t);
    ck_assert_msg(strncmp(row(&r, "kilo")->sentence, "kilo: 1k FLOP/B (DRAM)", 22) == 0, "%s",
                  row(&r, "kilo")->sentence);
    ck_assert_msg(strncmp(row(&r, "mega")->sentence, "mega: 1M FLOP/B (DRAM)", 22) == 0, "%s",
                  row(&r, "mega")->sentence);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The guards at zero: 0 L2 bytes under 1000 DRAM bytes is fewer L2 than
 * DRAM bytes (every DRAM byte passes through L2: flagged); a counted
 * kernel of 0 FLOPs and 0 DRAM bytes has no FLOPs to call unbounded (not
 * zero_bytes). */
START_TEST(guards_at_zero)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    struct rl_trace_groups g = {0};
    const uint32_t grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
    const double l2_none[3] = {1000, 0, NAN}, nothing[3] = {0, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "nol2", grid, block, "", RL_ORIGIN_MEASURED, 1, 1e6,
                                         l2_none, 1e4),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "idle", grid, block, "", RL_ORIGIN_MEASURED, 1, 0,
                                         nothing, 1e4),
                     0);
    /* 1e7 FLOPs over 1 byte in 10 ns: 1e7 / 10 x 1e-3 = 1000 TFLOP/s,
     * exactly 100% of the 1000 roof: at the roof, not above it */
    add(&g, "atroof", 1, 1, 1e7, 1, 10);
    /* two at 2e7 / 10 x 1e-3 = 2000 TFLOP/s, 200%: a tie, the note names
     * the first in the report's order (same time, then by name) */
    add(&g, "over1", 1, 1, 2e7, 1, 10);
    add(&g, "over2", 1, 1, 2e7, 1, 10);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert(row(&r, "nol2")->l2_below_dram);
    ck_assert_ptr_nonnull(strstr(r.notes, "1 kernel group has fewer L2 than DRAM bytes (nol2)"));
    ck_assert(!row(&r, "idle")->zero_bytes);
    ck_assert_ptr_null(strstr(r.notes, "FLOPs and 0 DRAM bytes"));
    ck_assert_double_eq(row(&r, "atroof")->v.pct_of_roof, 100);
    ck_assert(!row(&r, "atroof")->over_roof);
    ck_assert_msg(strstr(r.notes, "2 kernel groups run above 100% of their roof (up to 200%, "
                                  "over1)"),
                  "%s", r.notes);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* A measured compute roof exactly at its datasheet one (1000 of 1000
 * TFLOP/s: 100 x 1000 / 1000 = 100%) is not over it. */
START_TEST(measured_compute_roof_at_its_datasheet)
{
    static struct rl_ceilings c;
    toy_ceilings(&c);
    c.compute[1] = c.compute[0];
    c.compute[0].origin = RL_ORIGIN_MEASURED;
    c.n_compute = 2;
    struct rl_trace_groups g = {0};
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *json = render(rl_report_json, &r, &c);
    ck_assert_msg(strstr(json, "\"pct_of_datasheet\": 100, \"over_datasheet\": false"), "%s",
                  json);
    ck_assert_ptr_null(strstr(json, "\"over_datasheet\": true"));
    free(json);
    rl_report_release(&r);
}
END_TEST

/* rl_report_note: one line per note, each kept once. A note is a whole
 * line: "a" is not "ab" (a prefix), nor is "abc" (longer); empty lines
 * add nothing; a text of several lines adds the ones not there yet. */
START_TEST(notes_are_whole_lines_kept_once)
{
    static struct rl_report r;
    memset(&r, 0, sizeof r);
    rl_report_note(&r, "ab\nc");
    ck_assert_str_eq(r.notes, "ab\nc");
    rl_report_note(&r, "a");
    ck_assert_str_eq(r.notes, "ab\nc\na");
    rl_report_note(&r, "c\n\nab\nd\n");
    ck_assert_str_eq(r.notes, "ab\nc\na\nd");
    rl_report_note(&r, "");
    rl_report_note(&r, "\n");
    ck_assert_str_eq(r.notes, "ab\nc\na\nd");
    rl_report_note(&r, "abc\nd");
    ck_assert_str_eq(r.notes, "ab\nc\na\nd\nabc");
    rl_report_note(&r, "d\nabc\nc");
    ck_assert_str_eq(r.notes, "ab\nc\na\nd\nabc");
    /* A note that does not fit is cut at the buffer's end (4095 bytes and
     * the NUL): 4000 x's, then "\n" and 94 of 200 y's; nothing after the
     * buffer is written (the fields after it stay 0), and a note after
     * that adds nothing. */
    memset(&r, 0, sizeof r);
    char x[4001], y[201];
    memset(x, 'x', 4000);
    x[4000] = 0;
    memset(y, 'y', 200);
    y[200] = 0;
    rl_report_note(&r, x);
    rl_report_note(&r, y);
    ck_assert_uint_eq(strlen(r.notes), 4095);
    ck_assert_int_eq(r.notes[4000], '\n');
    ck_assert_int_eq(r.notes[4094], 'y');
    ck_assert_uint_eq(r.label_max, 0);
    ck_assert_double_eq(r.chart_w, 0);
    ck_assert_double_eq(r.chart_h, 0);
    rl_report_note(&r, "z");
    ck_assert_uint_eq(strlen(r.notes), 4095);
    ck_assert_uint_eq(r.label_max, 0);
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
    tcase_add_test(core, rows_and_sentences);
    tcase_add_test(core, table_fields_and_rows);
    tcase_add_test(core, csv_fields);
    tcase_add_test(core, json_fields);
    tcase_add_test(core, markdown_fields);
    tcase_add_test(core, chart_points_from_verdicts);
    tcase_add_test(core, sorted_by_time_then_name);
    tcase_add_test(core, memory_hierarchy);
    tcase_add_test(core, precisions_and_notes);
    tcase_add_test(core, release_frees_everything);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, ncu_bad_input);
    tcase_add_test(limits, trace_bad_input);
    tcase_add_test(limits, neither_below_ten_percent);
    tcase_add_test(limits, compute_bound_distance);
    tcase_add_test(limits, lowest_memory_roof_judges);
    tcase_add_test(limits, uncounted_launches_keep_one_basis);
    tcase_add_test(limits, number_formats);
    tcase_add_test(limits, integer_roof_in_ops);
    tcase_add_test(limits, long_name_cut_to_the_column);
    tcase_add_test(limits, intensity_without_a_roof);
    tcase_add_test(limits, number_and_verdict_edges);
    tcase_add_test(limits, link_roof_only_when_communicating);
    tcase_add_test(limits, link_needs_every_launch_and_a_link);
    tcase_add_test(limits, markdown_escapes_every_mark);
    tcase_add_test(limits, neither_evidence_boundaries);
    tcase_add_test(limits, infinite_intensity_sentence);
    tcase_add_test(limits, times_at_zero);
    tcase_add_test(limits, exactly_the_groups_given);
    tcase_add_test(limits, write_errors);
    tcase_add_test(limits, out_of_memory);
    tcase_add_test(limits, out_of_memory_for_a_name);
    tcase_add_test(limits, number_prefixes_at_their_value);
    tcase_add_test(limits, guards_at_zero);
    tcase_add_test(limits, measured_compute_roof_at_its_datasheet);
    tcase_add_test(limits, notes_are_whole_lines_kept_once);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(report_suite()); }
