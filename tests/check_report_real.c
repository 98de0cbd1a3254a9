/* check_report_real.c - tests of the reporter's words on real exports: compute points (FLOPs without bytes), one memory level per sentence and JSON row, long names that never cut the verdict. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/readers/ncu.h"
#include "analyzer/readers/tracefile.h"
#include "analyzer/report/report.h"
#include "analyzer/util/error.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[RL_ERRMSG_SIZE];

static const struct rl_report_row *row(const struct rl_report *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].name, name) == 0)
            return &r->rows[i];
    ck_abort_msg("no row '%s'", name);
    return NULL;
}

static void ceilings(struct rl_ceilings *c, const char *gpu)
{
    ck_assert_msg(rl_ceilings_init(c, rl_test_gpu(gpu), NULL, NULL, false, false, NULL, err) == 0,
                  "%s", err);
}

/* The report's JSON document, parsed. */
static cJSON *report_json(const struct rl_report *r, const struct rl_ceilings *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_json(f, r, c), 0);
    fclose(f);
    cJSON *doc = cJSON_Parse(buf);
    ck_assert_msg(doc != NULL, "report.json does not parse");
    free(buf);
    return doc;
}

static const cJSON *json_kernel(const cJSON *doc, const char *name)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(doc, "kernels"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring, name) == 0)
            return k;
    }
    ck_abort_msg("no kernel '%s' in the JSON", name);
    return NULL;
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ---- FLOPs without bytes: compute points ------------------------------------- */

#define NONLINEAR "void nonlinear_term_kernel<double>(const double *, double *, int)"

START_TEST(flops_without_bytes_are_a_compute_point)
{
    /* tests/data/ncu-fp64-no-bytes.csv, in the style of NERSC's Summit
     * recipe (nv-nsight-cu-cli's 12-column header, sm__ cycles and FP64
     * instruction counters, no dram__bytes; crafted, not a real export):
     * dadd 2.5e8 + dmul 2.5e8 + 2 x dfma 1e9 = 2.5e9 FLOPs in 1,530,000
     * cycles at 1.53e9 cycle/s = 1e6 ns: 2.5 TFLOP/s = 32.05% of the V100's
     * 7.8 TFLOP/s FP64. Not "timing only": no FLOPs were lost. */
    struct rl_trace_groups g = {0};
    struct rl_ncu_stats st;
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-fp64-no-bytes.csv"), NAN, &st, err) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.flops_only, 1);
    ck_assert_uint_eq(st.timing_only, 1); /* the kernel that counted 0 FLOPs and no bytes */
    static struct rl_ceilings c;
    ceilings(&c, "v100-sxm2");
    struct rl_report r;
    char notes[2048];
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    rl_report_note(&r, notes);
    const struct rl_report_row *w = row(&r, NONLINEAR);
    ck_assert(w->compute_only);
    ck_assert(!w->memory_only);
    ck_assert_int_eq(w->bound, RL_BOUND_UNKNOWN);
    ck_assert_double_eq(w->flops, 2.5e9);
    ck_assert_double_eq_tol(w->time_ns, 1e6, 1e-6);
    ck_assert_double_eq_tol(w->v.achieved_tflops, 2.5, 1e-9);
    ck_assert_double_eq_tol(w->v.pct_of_roof, 100 * 2.5 / 7.8, 1e-9);
    ck_assert(isnan(w->v.ai_flop_per_byte[RL_MEM_DRAM]));
    ck_assert_str_eq(w->sentence,
                     NONLINEAR ": 99% of GPU time, compute point: 2.5 TFLOP/s = 32.1% of the FP64 "
                               "roof (datasheet FP64 CUDA cores); no byte counters in this export "
                               "(see the notes for the metrics to add), so no intensity");
    ck_assert_ptr_null(strstr(w->sentence, "timing only"));
    /* The note names the metrics to add, as the bytes-only one does. */
    ck_assert_msg(strstr(r.notes, "1 of 2 kernels have FLOPs but no byte counters in this export: "
                                  "shown as compute points") &&
                      strstr(r.notes, "add `--metrics dram__bytes_read.sum,dram__bytes_write.sum,"
                                      "lts__t_bytes.sum,l1tex__t_bytes.sum` to the ncu command"),
                  "%s", r.notes);
    /* JSON: the FLOPs kept, flagged a compute point, nothing drawn. */
    cJSON *doc = report_json(&r, &c);
    const cJSON *k = json_kernel(doc, NONLINEAR);
    ck_assert_double_eq(jnum(k, "flops"), 2.5e9);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "compute_only")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(k, "ai_dram_flop_per_byte")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(k, "ridge_level")));
    ck_assert_double_eq_tol(jnum(k, "pct_of_roof"), 100 * 2.5 / 7.8, 1e-6);
    cJSON_Delete(doc);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(real_export_without_its_byte_rows)
{
    /* A real A100 export (gardenia-a100-long-hfma.csv, NERSC's smsp__ list)
     * with its dram__bytes, lts__t_bytes and l1tex__t_bytes rows taken out:
     * gemm_v1 keeps the FLOPs worked out in expected.json, 77,316,122,214,400,
     * timed from cycles (33,477,741,504 ns): 2.309 TFLOP/s against the
     * A100's 19.5 TFLOP/s FP32, 11.84%. */
    char *text = rl_test_slurp(rl_test_data("ncu-real/gardenia-a100-long-hfma.csv"));
    ck_assert_ptr_nonnull(text);
    size_t n = 0;
    for (char *line = text, *next; *line; line = next) {
        next = line + strcspn(line, "\n");
        next += *next == '\n';
        bool bytes = false;
        static const char *const drop[] = {"\"dram__bytes", "\"lts__t_bytes", "\"l1tex__t_bytes"};
        for (size_t i = 0; i < 3; i++)
            bytes |= memmem(line, (size_t)(next - line), drop[i], strlen(drop[i])) != NULL;
        if (!bytes) {
            memmove(text + n, line, (size_t)(next - line));
            n += (size_t)(next - line);
        }
    }
    text[n] = 0;
    struct rl_trace_groups g = {0};
    struct rl_ncu_stats st;
    ck_assert_msg(rl_ncu_parse(&g, text, n, "hfma-no-bytes.csv", NAN, &st, err) == 0, "%s", err);
    free(text);
    ck_assert_uint_eq(st.kernels, 3);
    ck_assert_uint_eq(st.flops_only, 3);
    ck_assert_uint_eq(st.timing_only, 0);
    static struct rl_ceilings c;
    ceilings(&c, "a100-sxm-80gb");
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const char *gemm = "void gemm_v1<float>(float *, float *, float *, int, int, int)";
    const struct rl_report_row *w = row(&r, gemm);
    ck_assert(w->compute_only);
    ck_assert_double_eq(w->flops, 77316122214400.0);
    ck_assert_double_eq_tol(w->time_ns, 33477741503.99953, 1);
    double tflops = 77316122214400.0 / 33477741503.99953 * 1e-3;
    ck_assert_double_eq_tol(w->v.achieved_tflops, tflops, 1e-9);
    ck_assert_double_eq_tol(w->v.pct_of_roof, 100 * tflops / 19.5, 1e-6);
    ck_assert_msg(strstr(w->sentence, "compute point: 2.31 TFLOP/s = 11.8% of the FP32 roof"), "%s",
                  w->sentence);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(flops_without_bytes_or_time)
{
    /* FLOPs, no bytes, no time: the FLOPs are kept and said, no rate. */
    struct rl_trace_groups g = {0};
    const double none[RL_MEM_COUNT] = {NAN, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "dgemm", NULL, NULL, "fp64", RL_ORIGIN_MEASURED, 2,
                                         4e9, none, NAN),
                     0);
    static struct rl_ceilings c;
    ceilings(&c, "v100-sxm2");
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "dgemm");
    ck_assert(w->compute_only);
    ck_assert_double_eq(w->flops, 4e9);
    ck_assert(isnan(w->v.achieved_tflops));
    ck_assert_str_eq(w->sentence,
                     "dgemm: compute point: 4 GFLOP counted, no time to judge them against "
                     "the FP64 roof (datasheet FP64 CUDA cores); no byte counters in this export "
                     "(see the notes for the metrics to add), so no intensity");
    cJSON *doc = report_json(&r, &c);
    ck_assert_double_eq(jnum(json_kernel(doc, "dgemm"), "flops"), 4e9);
    cJSON_Delete(doc);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* A launch shape is written whole when any of its three numbers is given:
 * a grid of (0, 2, 0) and of (0, 0, 3) (a reader that lost x) are arrays,
 * not null; (0, 0, 0) is no shape. */
START_TEST(launch_shapes_in_the_json)
{
    struct rl_trace_groups g = {0};
    const double bytes[RL_MEM_COUNT] = {1e6, NAN, NAN};
    const uint32_t y[3] = {0, 2, 0}, z[3] = {0, 0, 3}, none[3] = {0, 0, 0}, b[3] = {128, 1, 1};
    ck_assert_int_eq(rl_trace_groups_add(&g, "ky", y, b, "fp32", RL_ORIGIN_MEASURED, 1, 1e6,
                                         bytes, 1000),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "kz", z, b, "fp32", RL_ORIGIN_MEASURED, 1, 1e6,
                                         bytes, 1000),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "k0", none, b, "fp32", RL_ORIGIN_MEASURED, 1, 1e6,
                                         bytes, 1000),
                     0);
    static struct rl_ceilings c;
    ceilings(&c, "v100-sxm2");
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    cJSON *doc = report_json(&r, &c);
    const char *names[] = {"ky", "kz"};
    const uint32_t *grids[] = {y, z};
    for (int i = 0; i < 2; i++) {
        const cJSON *grid = cJSON_GetObjectItemCaseSensitive(json_kernel(doc, names[i]), "grid");
        ck_assert_msg(cJSON_IsArray(grid), "%s: grid is not an array", names[i]);
        for (int d = 0; d < 3; d++)
            ck_assert_double_eq(cJSON_GetArrayItem(grid, d)->valuedouble, grids[i][d]);
    }
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(json_kernel(doc, "k0"), "grid")));
    ck_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(json_kernel(doc, "k0"), "block")));
    cJSON_Delete(doc);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The edges of a compute point (FLOPs, no bytes), on the V100's FP64 roof
 * (7.8 TFLOP/s):
 *   zero_time: 4e9 FLOPs timed at 0 ns: no rate (not 4e9 / 0 = inf), the
 *     "no time" sentence;
 *   no_flops: 0 FLOPs counted, no bytes, 5 us: not a compute point (the
 *     FLOPs must be > 0): timing only, no roof;
 *   dgemm: 2.5e9 FLOPs in 1e6 ns = 2.5 TFLOP/s = 32.05% of 7.8;
 *   copy_untimed: 4e6 DRAM bytes, no FLOPs, no time: a memory point
 *     without a rate.
 * Then the FP64 roof set to 0 TFLOP/s (a hand-built ceiling): dgemm keeps
 * its 2.5 TFLOP/s, its percentage is unknown, not 100 x 2.5 / 0 = inf.
 * The chart draws none of them: a compute point has no intensity. */
START_TEST(compute_point_edges)
{
    struct rl_trace_groups g = {0};
    const double none[RL_MEM_COUNT] = {NAN, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "zero_time", NULL, NULL, "fp64",
                                         RL_ORIGIN_MEASURED, 1, 4e9, none, 0),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "no_flops", NULL, NULL, "fp64",
                                         RL_ORIGIN_MEASURED, 1, 0, none, 5e3),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "dgemm", NULL, NULL, "fp64", RL_ORIGIN_MEASURED, 1,
                                         2.5e9, none, 1e6),
                     0);
    const double dram[RL_MEM_COUNT] = {4e6, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "copy_untimed", NULL, NULL, "", RL_ORIGIN_MEASURED,
                                         1, NAN, dram, NAN),
                     0);
    static struct rl_ceilings c;
    ceilings(&c, "v100-sxm2");
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "zero_time");
    ck_assert(w->compute_only);
    ck_assert(isnan(w->v.achieved_tflops) && isnan(w->v.pct_of_roof));
    ck_assert_double_eq_tol(w->v.attainable_tflops, 7.8, 1e-12);
    ck_assert_str_eq(w->sentence,
                     "zero_time: compute point: 4 GFLOP counted, no time to judge them against "
                     "the FP64 roof (datasheet FP64 CUDA cores); no byte counters in this export "
                     "(see the notes for the metrics to add), so no intensity");
    w = row(&r, "no_flops");
    ck_assert(!w->compute_only && !w->memory_only);
    ck_assert_int_eq(w->roof, -1);
    ck_assert(isnan(w->v.achieved_tflops));
    w = row(&r, "dgemm");
    ck_assert(w->compute_only);
    ck_assert_double_eq_tol(w->v.achieved_tflops, 2.5, 1e-12);
    ck_assert_double_eq_tol(w->v.pct_of_roof, 100 * 2.5 / 7.8, 1e-9);
    /* A bytes-only group without time: a memory point with no rate. */
    w = row(&r, "copy_untimed");
    ck_assert(w->memory_only && isnan(w->achieved_gbs) && isnan(w->pct_of_memory_roof));
    ck_assert_str_eq(w->sentence,
                     "copy_untimed: memory point (- of DRAM traffic, no DRAM roof or time to judge "
                     "it against); no FLOPs counted in this export (the notes say what it counts "
                     "and the metrics to add), so no intensity");
    /* Markdown: a compute point's cells are its rate, the roof's peak, the
     * percentage, "FLOPs only"; a memory point's the DRAM roof. dgemm's
     * share: 1e6 of 1e6 + 5e3 ns = 99.5%. */
    char *md = NULL;
    size_t md_len = 0;
    FILE *f = open_memstream(&md, &md_len);
    ck_assert_int_eq(rl_report_markdown(f, &r, &c, NULL), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(md, "| dgemm | 99.5% | 1 | - | 2.5 TFLOP/s | 7.8 TFLOP/s | 32.1 | "
                                     "FLOPs only |\n"));
    ck_assert_ptr_nonnull(
        strstr(md, "| zero\\_time | - | 1 | - | - | 7.8 TFLOP/s | - | FLOPs only |\n"));
    ck_assert_ptr_nonnull(
        strstr(md, "| copy\\_untimed | - | 1 | - | - | 900 GB/s | - | bytes only |\n"));
    free(md);
    char svg[512], dat[512];
    snprintf(svg, sizeof svg, "%s/compute-points.svg", rl_test_tmpdir());
    ck_assert_msg(rl_report_chart(&r, &c, "t", svg, 12, err) == 0, "%s", err);
    snprintf(dat, sizeof dat, "%s/compute-points.kernels.dat", rl_test_tmpdir());
    char *text = rl_test_slurp(dat);
    ck_assert_ptr_nonnull(text);
    char *body = strchr(text, '\n'); /* past the header comment */
    ck_assert_ptr_nonnull(body);
    ck_assert_str_eq(body + 1, "NaN NaN none 1 \"\" NaN NaN NaN\n"); /* no point: a blank one */
    free(text);
    rl_report_release(&r);
    int fp64 = rl_ceilings_judge(&c, "fp64", err);
    ck_assert_int_ge(fp64, 0);
    c.compute[fp64].peak_tflops = 0;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    w = row(&r, "dgemm");
    ck_assert_double_eq_tol(w->v.achieved_tflops, 2.5, 1e-12);
    ck_assert(isnan(w->v.pct_of_roof));
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* ---- one memory level per sentence and JSON row -------------------------------- */

static int check_rows(const cJSON *doc, const char *what);

START_TEST(compute_bound_states_one_level)
{
    /* The V100 HGEMM: FP16 Tensor Core 125 TFLOP/s; DRAM 900 GB/s
     * (ridge 138.9 FLOP/B), L2 3133 GB/s (ridge 39.9). 6.82e11 FLOPs over
     * 1e9 DRAM bytes (682 FLOP/B, 4.91x right of the DRAM ridge) and
     * 1.0625e10 L2 bytes (64.2 FLOP/B, 1.61x right of the L2 ridge): the L2
     * is the nearer ridge, so the sentence says the L2's intensity with the
     * L2's ridge, never DRAM's 682 beside L2's 39.9. */
    static struct rl_ceilings c;
    ceilings(&c, "v100-sxm2");
    struct rl_trace_groups g = {0};
    const double bytes[RL_MEM_COUNT] = {1e9, 1.0625e10, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "hgemm", NULL, NULL, "fp16", RL_ORIGIN_MEASURED, 1,
                                         6.82e11, bytes, 6.82e6),
                     0);
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "hgemm");
    ck_assert_int_eq(w->bound, RL_BOUND_COMPUTE);
    ck_assert_int_eq(w->v.limiter, RL_MEM_L2);
    double l2_ridge = 125e3 / 3133.44; /* 2048 B/clk x 1.53 GHz */
    ck_assert_double_eq_tol(w->v.ridge_flop_per_byte, l2_ridge, 1e-2);
    ck_assert_str_eq(w->sentence, "hgemm: 64.2 FLOP/B (L2), 1.61x right of the FP16 ridge (39.9 "
                                  "FLOP/B): compute-bound; 100 TFLOP/s = 80% of datasheet FP16 "
                                  "Tensor Core");
    cJSON *doc = report_json(&r, &c);
    const cJSON *k = json_kernel(doc, "hgemm");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(k, "ridge_level")->valuestring, "l2");
    ck_assert_double_eq_tol(jnum(k, "ai_l2_flop_per_byte") / jnum(k, "ridge_flop_per_byte"),
                            6.82e11 / 1.0625e10 / l2_ridge, 1e-3);
    /* The property below holds here too: the row its check would fail on
     * when the sentence mixed levels. */
    ck_assert_int_eq(check_rows(doc, "hgemm"), 1);
    cJSON_Delete(doc);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* A figure as the sentence writes it: "682", "1.25k", "3.4M", "9.96e-05". */
static double read_figure(const char *s, const char **end)
{
    char *e;
    double v = strtod(s, &e);
    double scale = *e == 'k' ? 1e3 : *e == 'M' ? 1e6 : *e == 'G' ? 1e9 : 1;
    if (scale != 1)
        e++;
    *end = e;
    return v * scale;
}

static bool near3(double shown, double value)
{
    /* 3 significant digits (fmt_g) or a whole number (fmt_x). */
    return fabs(shown - value) <= 0.0051 * fabs(value) + 0.5 * (fabs(value) >= 1000);
}

/* Every row of doc whose sentence names a ridge: "<ai> FLOP/B (<LEVEL>),
 * <x>x left|right of the <ROOF> ridge (<ridge> FLOP/B)". The level is the
 * JSON's ridge_level, the intensity that level's, the ridge the JSON's, and
 * x = ridge / ai (left) or ai / ridge (right); the bound agrees with the
 * side. Returns the rows checked. */
static int check_rows(const cJSON *doc, const char *what)
{
    int checked = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(doc, "kernels"))
    {
        const char *name = cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring;
        const char *sentence = cJSON_GetObjectItemCaseSensitive(k, "sentence")->valuestring;
        const cJSON *lv = cJSON_GetObjectItemCaseSensitive(k, "ridge_level");
        ck_assert_msg(lv != NULL, "%s: %.80s: no ridge_level", what, name);
        /* The sentence ends with its verdict, never inside the name. */
        ck_assert_msg(strlen(sentence) < sizeof ((struct rl_report_row *)0)->sentence - 1,
                      "%s: %.80s: the sentence fills its buffer: cut", what, name);
        double ridge = jnum(k, "ridge_flop_per_byte");
        ck_assert_msg(isnan(ridge) == cJSON_IsNull(lv), "%s: %.80s: a ridge without its level",
                      what, name);
        const char *side = strstr(sentence, "x left of the ");
        bool left = side != NULL;
        if (!side)
            side = strstr(sentence, "x right of the ");
        if (!side || strstr(sentence, "per byte communicated"))
            continue;
        /* Back from "x left" to the distance, and from there to "(LEVEL), ". */
        const char *p = side;
        while (p > sentence && p[-1] != ' ')
            p--;
        const char *e;
        double x = read_figure(p, &e);
        const char *open = NULL;
        for (const char *q = sentence; (q = strstr(q, " FLOP/B (")) && q < p; q++)
            open = q;
        ck_assert_msg(open != NULL, "%s: %s: no intensity before the distance", what, sentence);
        const char *a = open;
        while (a > sentence && a[-1] != ' ')
            a--;
        double ai = read_figure(a, &e);
        char level[8] = "";
        sscanf(open + strlen(" FLOP/B ("), "%7[A-Z0-9]", level);
        char want[8];
        snprintf(want, sizeof want, "%s", lv->valuestring);
        for (char *q = want; *q; q++)
            *q = (char)toupper((unsigned char)*q);
        ck_assert_msg(strcmp(level, want) == 0, "%s: %s: level %s, ridge_level %s", what,
                      sentence, level, lv->valuestring);
        char key[32];
        snprintf(key, sizeof key, "ai_%s_flop_per_byte", lv->valuestring);
        double json_ai = jnum(k, key);
        const char *r = strstr(side, " ridge (");
        ck_assert_ptr_nonnull(r);
        double shown_ridge = read_figure(r + strlen(" ridge ("), &e);
        ck_assert_msg(near3(ai, json_ai), "%s: %s: intensity %g, JSON %s %g", what, sentence, ai,
                      key, json_ai);
        ck_assert_msg(near3(shown_ridge, ridge), "%s: %s: ridge %g, JSON %g", what, sentence,
                      shown_ridge, ridge);
        double ratio = left ? ridge / json_ai : json_ai / ridge;
        ck_assert_msg(near3(x, ratio), "%s: %s: %gx, but %s / ridge gives %g", what, sentence, x,
                      key, ratio);
        const char *bound = cJSON_GetObjectItemCaseSensitive(k, "bound")->valuestring;
        if (strcmp(bound, "memory") == 0 || strcmp(bound, "compute") == 0)
            ck_assert_msg(left == (strcmp(bound, "memory") == 0), "%s: %s: bound %s", what,
                          sentence, bound);
        checked++;
    }
    return checked;
}

static const char *const gpus[] = {"h200", "a100-sxm-80gb", "v100-sxm2", "b200", "rtx-4090"};

/* Report groups g against every GPU above and check every row written. */
static int check_against_gpus(const struct rl_trace_groups *g, const char *what)
{
    int checked = 0;
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        static struct rl_ceilings c;
        ceilings(&c, gpus[i]);
        struct rl_report r;
        ck_assert_int_eq(rl_report_build(&r, &c, g, err), 0);
        cJSON *doc = report_json(&r, &c);
        char label[512];
        snprintf(label, sizeof label, "%s on %s", what, gpus[i]);
        checked += check_rows(doc, label);
        cJSON_Delete(doc);
        rl_report_release(&r);
    }
    return checked;
}

static int check_ncu_folder(const char *folder, int *files)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", rl_test_data(folder));
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int checked = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".csv") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        /* Without and with a Tensor Core factor (ncu-long.csv's GEMM). */
        for (int f = 0; f < 2; f++) {
            struct rl_trace_groups g = {0};
            struct rl_ncu_stats st;
            ck_assert_msg(rl_ncu_load(&g, path, f ? 2 : NAN, &st, err) == 0, "%s", err);
            checked += check_against_gpus(&g, e->d_name);
            rl_trace_groups_release(&g);
        }
        ++*files;
    }
    closedir(d);
    return checked;
}

START_TEST(every_row_states_one_level)
{
    /* The property on every export in tests/data (the real ones of
     * ncu-real/ and the others) and the rank traces: each row's intensity,
     * ridge and distance are one level's, the one ridge_level names. */
    int files = 0, checked = check_ncu_folder("ncu-real", &files);
    checked += check_ncu_folder(".", &files);
    static const char *const traces[] = {"ranks/2/trace.rank0.json", "ranks/4/trace.rank3.json"};
    for (size_t i = 0; i < 2; i++) {
        struct rl_trace_groups g = {0};
        ck_assert_msg(rl_trace_groups_load(&g, rl_test_data(traces[i]), err) == 0, "%s", err);
        checked += check_against_gpus(&g, traces[i]);
        rl_trace_groups_release(&g);
        files++;
    }
    ck_assert_int_ge(files, 16);
    ck_assert_int_ge(checked, 20);
}
END_TEST

/* ---- long names ------------------------------------------------------------------ */

START_TEST(long_cutlass_name_keeps_the_verdict)
{
    /* dphpc-rtx50-long-bodyitem-displaynames.csv: a CUTLASS Volta-TensorOp
     * GEMM whose name is 2,291 bytes of template text. The sentence shortens the
     * name and ends with the verdict, in report.json and report.md; the
     * full name stays in its own field. */
    struct rl_trace_groups g = {0};
    struct rl_ncu_stats st;
    const char *path = rl_test_data("ncu-real/dphpc-rtx50-long-bodyitem-displaynames.csv");
    ck_assert_msg(rl_ncu_load(&g, path, NAN, &st, err) == 0, "%s", err);
    ck_assert_uint_eq(g.n, 1);
    size_t name_len = strlen(g.v[0].name);
    ck_assert_uint_gt(name_len, 2000);
    static struct rl_ceilings c;
    ceilings(&c, "rtx-4090");
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const char *verdict = "% of GPU time, not judged: no FLOPs or bytes were counted (see the "
                          "notes)";
    const char *s = r.rows[0].sentence;
    ck_assert_msg(strstr(s, verdict) && strcmp(s + strlen(s) - 15, "(see the notes)") == 0, "%s",
                  s);
    ck_assert_msg(strncmp(s, "void Kernel<Gemm<MmaPipelined<GemmShape<128, 256, 32>", 53) == 0,
                  "%s", s);
    ck_assert_ptr_nonnull(strstr(s, "...: 100% of GPU time"));
    cJSON *doc = report_json(&r, &c);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), 0);
    ck_assert_uint_eq(strlen(cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring), name_len);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(k, "sentence")->valuestring, s);
    cJSON_Delete(doc);
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    ck_assert_int_eq(rl_report_markdown(f, &r, &c, NULL), 0);
    fclose(f);
    const char *bullets = strstr(md, "## What bounds each kernel\n\n- ");
    ck_assert_ptr_nonnull(bullets);
    const char *end = strchr(bullets + 30, '\n');
    ck_assert_msg(end && end - bullets < 400 && strncmp(end - 15, "(see the notes)", 15) == 0,
                  "%.600s", bullets);
    free(md);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

static Suite *report_real_suite(void)
{
    Suite *s = suite_create("report_real");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, flops_without_bytes_are_a_compute_point);
    tcase_add_test(core, real_export_without_its_byte_rows);
    tcase_add_test(core, compute_bound_states_one_level);
    tcase_add_test(core, every_row_states_one_level);
    tcase_add_test(core, long_cutlass_name_keeps_the_verdict);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, flops_without_bytes_or_time);
    tcase_add_test(limits, launch_shapes_in_the_json);
    tcase_add_test(limits, compute_point_edges);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(report_real_suite()); }
