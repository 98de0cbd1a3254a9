/* check_plot.c - tests of chart layout, the gnuplot script and its data, and rendering. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/error.h"
#include "plots/labels.h"
#include "plots/layout.h"
#include "plots/plot.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct rl_compute_roof roofs[6];
static struct rl_memory_roof mem[2];
static size_t n_roofs, n_mem;

static void setup(void)
{
    char err[RL_ERRMSG_SIZE];
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    static const char *const names[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};
    n_roofs = 0;
    for (size_t i = 0; i < 6; i++)
        ck_assert_int_eq(rl_roof_from_spec(h200, names[i], false, &roofs[n_roofs++], err), 0);
    n_mem = 0;
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_DRAM, &mem[n_mem++], err), 0);
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_L1, &mem[n_mem++], err), 0);
}


static struct rl_chart chart_of(const struct rl_chart_point *p, size_t n)
{
    struct rl_chart c = {"NVIDIA H200: test", roofs, n_roofs, mem, n_mem, p, n, 0, NULL, 0, 0, 0};
    return c;
}

START_TEST(ranges_hold_ridges_and_points)
{
    struct rl_chart_point p[2] = {{"gemv", 1.0, 4.8, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false},
                                  {"gemm", 1247, 989.4, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 2);
    struct rl_chart_layout l;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_chart_layout(&c, &l, err), 0);
    /* FP8 / HBM ridge at 412 FLOP/byte and FP64 / L1 at 1 must be in view. */
    ck_assert(l.x_lo <= 1.0 / 4 && l.x_hi >= 412 * 2);
    ck_assert(l.y_hi > 1978.9e12 && l.y_lo < 4.8e12);
    /* x range is whole decades. */
    ck_assert_double_eq_tol(log10(l.x_lo), round(log10(l.x_lo)), 1e-9);
    ck_assert_double_eq_tol(log10(l.x_hi), round(log10(l.x_hi)), 1e-9);
    /* FP16 and BF16 (both 989.4) merge into one line. */
    ck_assert_uint_eq(l.n_lines, 5 + 2);
    int merged = 0;
    for (size_t i = 0; i < l.n_lines; i++)
        merged += strcmp(l.lines[i].label, "FP16/BF16 Tensor Core: 989.4 TFLOP/s") == 0;
    ck_assert_int_eq(merged, 1);
    ck_assert_uint_eq(l.n_ridges, 5);
    ck_assert_double_eq_tol(l.ridges[4].ai_flop_per_byte, 1978.9e3 / 4800, 1e-9);
    ck_assert(l.drawn[0] && l.drawn[1] && l.labelled[0] && l.labelled[1]);
    rl_chart_layout_release(&l);
}
END_TEST

/* Labels must not overlap each other or any kernel marker. */
static void assert_no_overlaps(const struct rl_chart *c, const struct rl_chart_layout *l)
{
    for (size_t i = 0; i < c->n_points; i++) {
        if (!l->labelled[i])
            continue;
        struct rl_box a = l->labels[i].box;
        ck_assert_msg(a.x0 >= 0 && a.x1 <= l->w && a.y0 >= 0 && a.y1 <= l->h,
                      "label %zu off the canvas", i);
        for (size_t j = 0; j < c->n_points; j++) {
            double px, py;
            rl_chart_to_canvas(l, c->points[j].ai_flop_per_byte, c->points[j].tflops * 1e12,
                               &px, &py);
            struct rl_box marker = {px - 5, py - 5, px + 5, py + 5};
            ck_assert_msg(rl_box_overlap_area(a, marker) == 0,
                          "label '%s' covers the marker of '%s'", c->points[i].label,
                          c->points[j].label);
            if (j != i && l->labelled[j])
                ck_assert_msg(rl_box_overlap_area(a, l->labels[j].box) == 0,
                              "labels '%s' and '%s' overlap", c->points[i].label,
                              c->points[j].label);
        }
        for (size_t k = 0; k < l->n_lines; k++)
            if (!l->lines[k].memory)
                ck_assert_msg(rl_box_overlap_area(a, l->lines[k].text.box) == 0,
                              "label '%s' overlaps ceiling label '%s'", c->points[i].label,
                              l->lines[k].label);
    }
}

START_TEST(ten_clustered_labels_do_not_overlap)
{
    /* Ten kernels, most of them crowded near the GEMV and GEMM regions. */
    static const double ai[10] = {0.9, 1.0, 1.1, 1.0, 2.0, 60, 300, 1200, 1300, 8};
    static const double tf[10] = {3.9, 4.3, 4.1, 2.0, 8.5, 250, 700, 760, 650, 30};
    struct rl_chart_point p[10];
    char names[10][32];
    for (int i = 0; i < 10; i++) {
        snprintf(names[i], sizeof names[i], "kernel_%d_%s", i, i % 2 ? "gemv" : "gemm_bf16");
        p[i] = (struct rl_chart_point){names[i], ai[i], tf[i], RL_ORIGIN_MEASURED, 0, -1, 0, 0, NULL, 0, false};
    }
    struct rl_chart c = chart_of(p, 10);
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    for (int i = 0; i < 10; i++)
        ck_assert(l.labelled[i]);
    assert_no_overlaps(&c, &l);
    rl_chart_layout_release(&l);
}
END_TEST

START_TEST(undrawable_points_are_skipped)
{
    struct rl_chart_point p[4] = {{"zero bytes", INFINITY, 10, RL_ORIGIN_MEASURED, 0, -1, 0, 0, NULL, 0, false},
                                  {"zero flops", 0, 0, RL_ORIGIN_MEASURED, 0, -1, 0, 0, NULL, 0, false},
                                  {"no time", 5, NAN, RL_ORIGIN_MEASURED, 0, -1, 0, 0, NULL, 0, false},
                                  {"ok", 5, 10, RL_ORIGIN_MEASURED, 0, -1, 0, 0, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 4);
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert(!l.drawn[0] && !l.drawn[1] && !l.drawn[2] && l.drawn[3]);
    ck_assert(isfinite(l.y_lo) && l.y_lo > 0);
    rl_chart_layout_release(&l);
}
END_TEST

START_TEST(script_carries_the_ceilings)
{
    struct rl_chart_point p[1] = {{"decode \"gemv\"", 1.0, 4.8, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 1);
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    struct rl_strbuf gp = {0}, roofs_dat = {0}, kernels_dat = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_chart_script(&c, &l, RL_CHART_SVG, "h200", &gp, &roofs_dat,
                                     &kernels_dat, err), 0);
    ck_assert_ptr_nonnull(strstr(gp.s, "set logscale xy 10"));
    ck_assert_ptr_nonnull(strstr(gp.s, "outfile = \"h200.svg\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "FP16/BF16 Tensor Core: 989.4 TFLOP/s"));
    ck_assert_ptr_nonnull(strstr(gp.s, "HBM3e: 4.8 TB/s"));
    ck_assert_ptr_nonnull(strstr(gp.s, "L1/shared: 33.45 TB/s (analytic)"));
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"datasheet ceiling\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"analytic ceiling\""));
    ck_assert_ptr_null(strstr(gp.s, "title \"measured ceiling\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"analytic kernel, no time\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "\"decode \\\"gemv\\\"\""));
    ck_assert_ptr_null(strstr(gp.s, "@")); /* every placeholder filled */
    /* The BF16 roof as data: y = 989.4e12 FLOP/s, from its ridge with the
     * fastest memory roof to the right edge. */
    ck_assert_ptr_nonnull(strstr(roofs_dat.s, "29.574939 9.894e+14"));
    ck_assert_ptr_nonnull(strstr(roofs_dat.s, "# index 0: FP64 CUDA cores: 33.5 TFLOP/s [datasheet]"));
    ck_assert_ptr_nonnull(strstr(roofs_dat.s, "[analytic]"));
    ck_assert_uint_eq(rl_test_count(roofs_dat.s, "# index "), l.n_lines + 1);
    ck_assert_ptr_nonnull(strstr(kernels_dat.s, "1 4.8e+12 analytic 1 \"decode gemv\""));
    rl_strbuf_release(&gp);
    rl_strbuf_release(&roofs_dat);
    rl_strbuf_release(&kernels_dat);
    rl_chart_layout_release(&l);
}
END_TEST

START_TEST(hierarchical_view)
{
    /* A GEMV read once from DRAM and thrice from L2, its L1 intensity lower still. */
    struct rl_chart_point p[2] = {{"gemv", 1.0, 4.0, RL_ORIGIN_MEASURED, 0, 4, 0.33, 0.1, NULL, 0, false},
                                  {"gemm", 1247, 700, RL_ORIGIN_MEASURED, 0, 4, 0, NAN, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 2);
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_double_le(l.x_lo, 0.1 / 4); /* the L1 point is in view */
    struct rl_strbuf gp = {0}, r = {0}, k = {0};
    ck_assert_int_eq(rl_chart_script(&c, &l, RL_CHART_SVG, "h", &gp, &r, &k, NULL), 0);
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"L2 intensity\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"L1 intensity\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "using 1:2:($6-$1):(0) with vectors"));
    ck_assert_ptr_nonnull(strstr(k.s, "\"gemv\" 0.33 0.1 NaN\n"));
    ck_assert_ptr_nonnull(strstr(k.s, "\"gemm\" NaN NaN NaN\n"));
    /* nothing communicates: no link intensity in the key */
    ck_assert_ptr_null(strstr(gp.s, "FLOP per byte communicated"));
    rl_strbuf_release(&gp);
    rl_strbuf_release(&r);
    rl_strbuf_release(&k);
    rl_chart_layout_release(&l);
}
END_TEST

/* A TP layer that communicates: its FLOP per byte sent is drawn at its rate
 * against the link roof (level RL_CHART_LINK_LEVEL, its own colour), joined
 * to its HBM point (column 8). */
START_TEST(link_roof_and_comm_intensity)
{
    struct rl_compute_roof roofs[1] = {{.name = "bf16", .label = "BF16 Tensor Core",
                                        .peak_tflops = 989.4, .origin = RL_ORIGIN_DATASHEET}};
    struct rl_memory_roof mem[2] = {
        {.level = RL_MEM_DRAM, .label = "HBM3", .bandwidth_gbs = 3350},
        {.level = RL_CHART_LINK_LEVEL, .label = "NVLink 4", .bandwidth_gbs = 450}};
    struct rl_chart_point p[1] = {{.label = "tp-layer", .ai_flop_per_byte = 500, .tflops = 400,
                                   .origin = RL_ORIGIN_ANALYTIC, .roof = 0,
                                   .ai_link_flop_per_byte = 800}};
    struct rl_chart c = {.title = "t", .compute = roofs, .n_compute = 1, .memory = mem,
                         .n_memory = 2, .points = p, .n_points = 1};
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    /* the link roof's ridge (989.4 / 450 = 2198.7 FLOP/B) is in view */
    ck_assert(l.x_hi > 2198.7);
    struct rl_strbuf gp = {0}, r = {0}, k = {0};
    ck_assert_int_eq(rl_chart_script(&c, &l, RL_CHART_SVG, "h", &gp, &r, &k, NULL), 0);
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"FLOP per byte communicated\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "using 1:2:($8-$1):(0) with vectors"));
    ck_assert_ptr_nonnull(strstr(gp.s, "#A50026"));
    ck_assert_ptr_nonnull(strstr(k.s, "\"tp-layer\" NaN NaN 800\n"));
    rl_strbuf_release(&gp);
    rl_strbuf_release(&r);
    rl_strbuf_release(&k);
    rl_chart_layout_release(&l);
}
END_TEST

/* Bus bandwidth against message size: a measured curve, its prediction
 * dashed in the same colour, the link as a labelled horizontal line, bytes
 * on x. */
/* plots/plot.c's roof label font, layout units. */
#define FONT_ROOF_TEST 12.5

/* The canvas position of a compute line's right end. */
static void line_end(const struct rl_chart_layout *l, const struct rl_chart_line *L, double *px,
                     double *py)
{
    rl_chart_to_canvas(l, l->x_hi, L->y0, px, py);
}

/* A one-column H200 chart: its five roofs run closer than a line of text,
 * so every compute label is in the right margin, at its own line's end and
 * height (or joined to it by a leader), in order, never in a key. */
START_TEST(one_column_roof_labels_in_the_margin)
{
    struct rl_chart_point p[2] = {{"decode GEMV", 1.0, 4.8, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false},
                                  {"prefill GEMM", 1247, 989.4, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 2);
    c.width = RL_CHART_SINGLE_W, c.height = RL_CHART_SINGLE_H;
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert(l.roof_margin && l.key_drawn);
    double prev_y = -INFINITY, prev_line = -INFINITY;
    size_t n = 0;
    for (size_t k = 0; k < l.n_lines; k++) {
        /* bottom up: the lines are built fp64, fp32, tf32, fp16/bf16, fp8 */
        const struct rl_chart_line *L = &l.lines[k];
        if (L->memory)
            continue;
        n++;
        ck_assert(L->in_margin);
        double px, py;
        line_end(&l, L, &px, &py);
        ck_assert_msg(L->text.box.x0 > px && L->text.box.x0 < px + 12, "%s at %g, line end %g",
                      L->label, L->text.box.x0, px);
        ck_assert(L->text.box.x1 <= l.w);
        double mid = (L->text.box.y0 + L->text.box.y1) / 2;
        ck_assert_msg(fabs(mid - py) <= 1.5 || L->margin_leader, "%s: %g vs %g", L->label, mid,
                      py);
        /* Spread only as far as a line of text needs: within one of its line. */
        ck_assert_msg(fabs(mid - py) < FONT_ROOF_TEST * 1.1, "%s: %g from its line", L->label,
                      mid - py);
        ck_assert(py > prev_line);
        ck_assert_msg(mid - prev_y >= 12.5, "%s only %g above the one below", L->label,
                      mid - prev_y);
        prev_y = mid, prev_line = py;
    }
    ck_assert_uint_eq(n, 5);
    /* The compact form: the execution unit dropped, the unit kept. */
    bool compact = false;
    for (size_t k = 0; k < l.n_lines; k++)
        compact |= l.lines[k].form == 2 &&
                   strcmp(l.lines[k].compact_label, "FP16/BF16: 989.4 TFLOP/s") == 0;
    ck_assert(compact);
    /* Two kernels: both named, no number key. */
    ck_assert_uint_eq(l.n_key, 0);
    ck_assert(l.labelled[0] && l.labelled[1] && !l.number[0] && !l.number[1]);
    /* The key is drawn right of the plot, under the labels. */
    ck_assert(l.key.x0 > l.w - l.margin_r);
    rl_chart_layout_release(&l);

    /* Two kernels whose names find no room near their markers (a GEMM
     * among the Tensor Core roofs, one word of 25 characters): named all
     * the same, by a leader, cut shorter where the plot has no room for
     * the whole name; never numbered. */
    struct rl_chart_point q[2] = {
        {"cutlass_80_tensorop_bf16...", 1263, 600, RL_ORIGIN_MEASURED, 3, 4, 0, 0, NULL, 0, false},
        {"vectorized_elementwise...", 0.1667, 0.4, RL_ORIGIN_MEASURED, 2.5, 4, 0, 0, NULL, 0, false}};
    c.points = q;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_uint_eq(l.n_key, 0);
    ck_assert(l.labelled[0] && l.labelled[1] && !l.number[0] && !l.number[1]);
    ck_assert(l.labels[0].leader);
    ck_assert_ptr_nonnull(strstr(l.text[0], "cutlass_80_tensor"));
    rl_chart_layout_release(&l);
    c.points = p;

    /* Two columns wide, the FP64 and FP32 roofs' labels sit above their
     * lines, at the right end (the five of H200 go to the margin there too:
     * the axis runs on one decade past 10k at most, and the FP8 label is
     * wider than the stretch right of its ridge at 412). */
    c.width = c.height = 0;
    c.n_compute = 2;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert(!l.roof_margin && !l.key_drawn);
    for (size_t k = 0; k < l.n_lines; k++) {
        const struct rl_chart_line *L = &l.lines[k];
        if (L->memory)
            continue;
        double px, py;
        line_end(&l, L, &px, &py);
        ck_assert(!L->in_margin && L->text.box.x1 <= px);
        ck_assert_msg(L->text.box.y0 >= py && L->text.box.y0 <= py + 3, "%s: %g vs %g",
                      L->label, L->text.box.y0, py);
    }
    rl_chart_layout_release(&l);
    c.n_compute = n_roofs;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert(l.roof_margin);
    ck_assert_double_eq(l.x_hi, 1e4);
    rl_chart_layout_release(&l);
}
END_TEST

/* A title too wide for a one-column chart wraps after its colon, never
 * cut; its closing parenthetical goes where a third line would be needed.
 * The y ticks drop their unit, and decades narrower than a tick label
 * are ticked without one. */
START_TEST(one_column_titles_and_ticks)
{
    struct rl_chart_point p[1] = {{"far", 1e5, 1, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 1);
    c.width = RL_CHART_SINGLE_W, c.height = RL_CHART_SINGLE_H;
    c.title = "NVIDIA H200 SXM 141GB: roofline (datasheet ceilings)";
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_str_eq(l.title, "NVIDIA H200 SXM 141GB:\nroofline (datasheet ceilings)");
    double one_line_t = l.margin_t;
    struct rl_strbuf gp = {0}, roofs_dat = {0}, kernels_dat = {0};
    ck_assert_int_eq(rl_chart_script(&c, &l, RL_CHART_SVG, "t", &gp, &roofs_dat, &kernels_dat,
                                     NULL), 0);
    ck_assert_ptr_nonnull(strstr(gp.s, "set title \"NVIDIA H200 SXM 141GB:\\nroofline"));
    ck_assert_ptr_nonnull(strstr(gp.s, "set format y \"%.0s%c\""));
    /* 0.01 .. 1M over about 230 units: every second decade labelled. */
    ck_assert_ptr_nonnull(strstr(gp.s, "\"\" 1e+01"));
    ck_assert_ptr_nonnull(strstr(gp.s, "\"100\" 1e+02"));
    rl_strbuf_release(&gp);
    rl_strbuf_release(&roofs_dat);
    rl_strbuf_release(&kernels_dat);
    rl_chart_layout_release(&l);

    c.title = "NVIDIA H200 SXM 141GB: a roofline of many words (datasheet, measured and "
              "analytic ceilings)";
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_str_eq(l.title, "NVIDIA H200 SXM 141GB:\na roofline of many words");
    ck_assert(l.margin_t == one_line_t);
    rl_chart_layout_release(&l);

    /* The break goes after the colon, though a later space would fit too. */
    c.title = "H200: a roofline title a little too wide for one column";
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_str_eq(l.title, "H200:\na roofline title a little too wide for one column");
    rl_chart_layout_release(&l);

    /* Two columns wide it fits on one line. */
    c.title = "NVIDIA H200 SXM 141GB: a roofline of many words (datasheet, measured and "
              "analytic ceilings)";
    c.width = c.height = 0;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_ptr_null(strchr(l.title, '\n'));
    ck_assert_ptr_nonnull(strstr(l.title, "(datasheet, measured and analytic ceilings)"));
    rl_chart_layout_release(&l);
}
END_TEST

/* A measured HBM roof beside the datasheet one: one label for both,
 * along the upper line, the measured value after the datasheet one. */
START_TEST(close_memory_roofs_share_a_label)
{
    struct rl_memory_roof two[3] = {mem[0], mem[0], mem[1]};
    two[1].bandwidth_gbs = 4200;
    two[1].origin = RL_ORIGIN_MEASURED;
    struct rl_chart c = {"t", roofs, n_roofs, two, 3, NULL, 0, 0, NULL, 0,
                         RL_CHART_SINGLE_W, RL_CHART_SINGLE_H};
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    size_t labelled = 0, unlabelled = 0;
    for (size_t k = 0; k < l.n_lines; k++) {
        const struct rl_chart_line *L = &l.lines[k];
        if (!L->memory || L->color != RL_MEM_DRAM)
            continue;
        if (L->unlabelled) {
            unlabelled++;
            ck_assert_double_eq(L->value, 4200);
        } else {
            labelled++;
            ck_assert_str_eq(L->short_label, "HBM3e: 4.8 TB/s, 4.2 TB/s");
        }
    }
    ck_assert_uint_eq(labelled, 1);
    ck_assert_uint_eq(unlabelled, 1);
    rl_chart_layout_release(&l);
    /* Far apart (L2 at 5x), each keeps its own label. */
    two[1].bandwidth_gbs = 24000;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    for (size_t k = 0; k < l.n_lines; k++)
        ck_assert(!l.lines[k].unlabelled);
    rl_chart_layout_release(&l);
}
END_TEST

START_TEST(xy_chart_ceilings_and_predictions)
{
    const double x[3] = {1024, 1048576, 1073741824.0}, y[3] = {0.5, 120, 370},
                 yp[3] = {0.9, 200, 447};
    struct rl_xy_series s[2] = {
        {.title = "allreduce (measured)", .x = x, .y = y, .n = 3, .color = 2},
        {.title = "allreduce (analytic)", .x = x, .y = yp, .n = 3, .dashed = true, .color = 2}};
    const double h[1] = {450};
    const char *hl[1] = {"NVLink 4: 450 GB/s per direction (datasheet)"};
    struct rl_xy_chart c = {.title = "busbw", .xlabel = "bytes", .ylabel = "GB/s",
                            .logx = true, .logy = true, .series = s, .n_series = 2,
                            .hline_y = h, .hline_label = hl, .n_hlines = 1, .x_bytes = true};
    char path[4200];
    snprintf(path, sizeof path, "%s/comm.svg", rl_test_tmpdir());
    char err[RL_ERRMSG_SIZE] = "";
    int rc = rl_xy_chart_render(&c, path, err);
    ck_assert_msg(rc == 0 || rc == RL_ENOTOOL, "%s", err);
    snprintf(path, sizeof path, "%s/comm.gp", rl_test_tmpdir());
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(strstr(gp, "set arrow 1 from graph 0, first 450 to graph 1, first 450"));
    ck_assert_ptr_nonnull(strstr(gp, "NVLink 4: 450 GB/s per direction (datasheet)"));
    ck_assert_ptr_nonnull(strstr(gp, "\"1 KiB\" 1024"));
    /* both in the second colour; the prediction dashed, open markers */
    ck_assert_int_eq((int)rl_test_count(gp, "lc rgb \"#D55E00\""), 2);
    ck_assert_ptr_nonnull(strstr(gp, "pt 6 ps 0.6 dt (8,4) lc rgb \"#D55E00\""));
    free(gp);
}
END_TEST

/* A datasheet roof and an analytic one of one value (B200's FP8 and FP6,
 * both 4500) share one solid line, named by both, the analytic one said
 * in its label in every form; the roofs file has one block for them. */
START_TEST(equal_roofs_of_two_origins_share_a_line)
{
    struct rl_compute_roof r[3] = {
        {.name = "fp6", .label = "FP6 Tensor Core", .peak_tflops = 4500,
         .origin = RL_ORIGIN_ANALYTIC},
        {.name = "fp8", .label = "FP8 Tensor Core", .peak_tflops = 4500,
         .origin = RL_ORIGIN_DATASHEET},
        {.name = "bf16", .label = "BF16 Tensor Core", .peak_tflops = 2250,
         .origin = RL_ORIGIN_ANALYTIC}};
    struct rl_memory_roof m[1] = {{.level = RL_MEM_DRAM, .label = "HBM3e", .bandwidth_gbs = 7700}};
    struct rl_chart c = {.title = "t", .compute = r, .n_compute = 3, .memory = m, .n_memory = 1};
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_uint_eq(l.n_lines, 3); /* FP6 + FP8, BF16, HBM3e */
    ck_assert_str_eq(l.lines[0].label, "FP6/FP8 Tensor Core: 4500 TFLOP/s (FP6 analytic)");
    ck_assert_int_eq(l.lines[0].origin, RL_ORIGIN_DATASHEET);
    ck_assert_ptr_nonnull(strstr(l.lines[0].short_label, "(FP6 analytic)"));
    ck_assert_ptr_nonnull(strstr(l.lines[0].compact_label, "(FP6 analytic)"));
    ck_assert_str_eq(l.lines[1].label, "BF16 Tensor Core: 2250 TFLOP/s (analytic)");
    rl_chart_layout_release(&l);
}
END_TEST

/* An A100 training step's chart (tests/data/torch-real/trace_diff-control:
 * its kernels up to 300 FLOP/B, FP16 312 TFLOP/s, HBM2 1555 GB/s, ridge
 * 200): the x axis ends one decade past them, not three (10k, then 100k
 * for the roof labels, were two empty decades); roof labels go to the
 * margin where the plot has no room at the lines' ends. Its key says what
 * the open markers placed by a time are, what their area and a label's
 * "x3" mean. */
START_TEST(a_trace_chart_without_empty_decades)
{
    struct rl_compute_roof r[2] = {
        {.name = "fp16", .label = "FP16/BF16 Tensor Core", .peak_tflops = 312,
         .origin = RL_ORIGIN_DATASHEET},
        {.name = "fp64", .label = "FP64 CUDA cores", .peak_tflops = 9.7,
         .origin = RL_ORIGIN_DATASHEET}};
    struct rl_memory_roof m[1] = {{.level = RL_MEM_DRAM, .label = "HBM2", .bandwidth_gbs = 1555}};
    struct rl_chart_point p[3] = {
        {.label = "mm", .ai_flop_per_byte = 299.3, .tflops = 100, .origin = RL_ORIGIN_ANALYTIC,
         .size = 3, .roof = 0, .timed = true},
        {.label = "mm again", .ai_flop_per_byte = 299.3, .tflops = 100,
         .origin = RL_ORIGIN_ANALYTIC, .size = 3, .roof = 0, .timed = true},
        {.label = "add", .ai_flop_per_byte = 0.083, .tflops = 0.1, .origin = RL_ORIGIN_ANALYTIC,
         .size = 0.6, .roof = 1, .timed = true}};
    struct rl_chart c = {.title = "A100 step", .compute = r, .n_compute = 2, .memory = m,
                         .n_memory = 1, .points = p, .n_points = 3};
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    ck_assert_double_eq_tol(l.x_hi, 1000, 1e-9); /* 300 x 3 = 900: the decade 1k */
    ck_assert_uint_eq(l.stack[0], 2);             /* the two mm on one spot */
    struct rl_strbuf gp = {0}, rd = {0}, kd = {0};
    ck_assert_int_eq(rl_chart_script(&c, &l, RL_CHART_SVG, "x", &gp, &rd, &kd, NULL), 0);
    ck_assert_ptr_nonnull(strstr(gp.s, "kernel, computed FLOPs"));
    ck_assert_ptr_null(strstr(gp.s, "no time"));
    ck_assert_ptr_nonnull(strstr(gp.s, "area: share of GPU time"));
    ck_assert_ptr_nonnull(strstr(gp.s, "x3: 3 groups on one spot"));
    ck_assert_ptr_nonnull(strstr(gp.s, "mm x2"));
    rl_strbuf_release(&gp);
    rl_strbuf_release(&rd);
    rl_strbuf_release(&kd);
    rl_chart_layout_release(&l);
}
END_TEST

/* A label not at the first distance from its marker (3 units) has a
 * leader: at 10 units, in a cluster of markers, a name read as its
 * neighbour's (issue 34: "prefill SiLU" beside "decode FFN RMSNorm").
 * Marker at (100, 100), radius 6, a 40 x 10 label; strips at x 109..115
 * (open at y 99..101 for the leader) and 85..91 cost every spot at 3
 * units; the spot 10 units right (x from 116) is clean: taken, with a
 * leader. */
START_TEST(a_label_off_its_marker_has_a_leader)
{
    struct rl_placer pl;
    rl_placer_init(&pl, (struct rl_box){0, 0, 400, 400});
    ck_assert_int_eq(rl_placer_add_box(&pl, (struct rl_box){109, 0, 115, 99}), 0);
    ck_assert_int_eq(rl_placer_add_box(&pl, (struct rl_box){109, 101, 115, 400}), 0);
    ck_assert_int_eq(rl_placer_add_box(&pl, (struct rl_box){85, 0, 91, 400}), 0);
    struct rl_placed_label out;
    ck_assert_double_eq(rl_placer_find_near(&pl, 100, 100, 6, 40, 10, &out), 0);
    ck_assert_double_eq_tol(out.box.x0, 116, 1e-9);
    ck_assert_double_eq_tol(out.box.y0, 95, 1e-9);
    ck_assert(out.leader);
    /* with nothing in the way: beside it, 3 units off, no leader */
    struct rl_placer free_pl;
    rl_placer_init(&free_pl, (struct rl_box){0, 0, 400, 400});
    ck_assert_double_eq(rl_placer_find_near(&free_pl, 100, 100, 6, 40, 10, &out), 0);
    ck_assert_double_eq_tol(out.box.x0, 109, 1e-9);
    ck_assert(!out.leader);
    rl_placer_release(&pl);
    rl_placer_release(&free_pl);
}
END_TEST

START_TEST(measured_roofs_get_their_own_style)
{
    roofs[4].origin = RL_ORIGIN_MEASURED;
    roofs[4].peak_tflops = 790;
    struct rl_chart c = chart_of(NULL, 0);
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&c, &l, NULL), 0);
    struct rl_strbuf gp = {0}, r = {0}, k = {0};
    ck_assert_int_eq(rl_chart_script(&c, &l, RL_CHART_PDF, "x", &gp, &r, &k, NULL), 0);
    ck_assert_ptr_nonnull(strstr(gp.s, "BF16 Tensor Core: 790 TFLOP/s (measured)"));
    ck_assert_ptr_nonnull(strstr(gp.s, "title \"measured ceiling\""));
    ck_assert_ptr_nonnull(strstr(gp.s, "dt (10,6)"));
    /* FP16 (datasheet 989.4) no longer merges with the measured BF16. */
    ck_assert_ptr_nonnull(strstr(gp.s, "FP16 Tensor Core: 989.4 TFLOP/s"));
    ck_assert_ptr_nonnull(strstr(k.s, "NaN NaN")); /* no kernels: a placeholder row */
    rl_strbuf_release(&gp);
    rl_strbuf_release(&r);
    rl_strbuf_release(&k);
    rl_chart_layout_release(&l);
}
END_TEST

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

START_TEST(renders_svg_png_pdf)
{
    struct rl_chart_point p[2] = {{"gemv", 1.0, 4.8, RL_ORIGIN_ANALYTIC, 0, 4, 0, 0, NULL, 0, false},
                                  {"gemm", 1247, 989.4, RL_ORIGIN_MEASURED, 0, 4, 0, 0, NULL, 0, false}};
    struct rl_chart c = chart_of(p, 2);
    static const char *const ext[] = {"svg", "png", "pdf"};
    static const char *const magic[] = {"<svg", "\x89PNG", "%PDF"};
    char path[512], err[RL_ERRMSG_SIZE];
    const char *dir = rl_test_tmpdir();
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/chart.%s", dir, ext[i]);
        ck_assert_msg(rl_chart_render(&c, path, err) == 0, "%s", err);
        char *img = rl_test_slurp(path);
        ck_assert_ptr_nonnull(img);
        ck_assert_msg(strstr(img, magic[i]) != NULL || memcmp(img, magic[i], 4) == 0,
                      "%s is not a %s", path, ext[i]);
        free(img);
    }
    snprintf(path, sizeof path, "%s/chart.gp", dir);
    ck_assert_int_gt(file_size(path), 100);
    snprintf(path, sizeof path, "%s/chart.roofs.dat", dir);
    ck_assert_int_gt(file_size(path), 100);
    snprintf(path, sizeof path, "%s/chart.kernels.dat", dir);
    ck_assert_int_gt(file_size(path), 10);
    /* The SVG holds the ceiling labels as text. */
    snprintf(path, sizeof path, "%s/chart.svg", dir);
    char *svg = rl_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(svg, "989.4 TFLOP/s"));
    ck_assert_ptr_nonnull(strstr(svg, "4.8 TB/s"));
    free(svg);
    /* Nothing temporary is left: 3 images + .gp + 2 .dat. */
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "chart", 5) == 0 || strstr(e->d_name, ".tmp."))
            n++;
    closedir(d);
    ck_assert_int_eq(n, 6);
}
END_TEST

START_TEST(bad_outputs_fail_without_partial_files)
{
    struct rl_chart c = chart_of(NULL, 0);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_chart_render(&c, "/nonexistent-dir/x.svg", err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot write '/nonexistent-dir/x.roofs.dat'"));
    ck_assert_int_eq(rl_chart_render(&c, "x.jpg", err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "use .svg, .png or .pdf"));
    /* gnuplot missing: the script is still written, no image appears. */
    char path[512];
    snprintf(path, sizeof path, "%s/nognuplot.svg", rl_test_tmpdir());
    setenv("ROOFLINE_GNUPLOT", "/nonexistent/gnuplot", 1);
    ck_assert_int_eq(rl_chart_render(&c, path, err), RL_ENOTOOL);
    unsetenv("ROOFLINE_GNUPLOT");
    ck_assert_ptr_nonnull(strstr(err, "gnuplot not found"));
    ck_assert_ptr_nonnull(strstr(err, "apt-get install gnuplot-nox"));
    ck_assert_int_eq(file_size(path), -1);
    snprintf(path, sizeof path, "%s/nognuplot.gp", rl_test_tmpdir());
    ck_assert_int_gt(file_size(path), 0);
    /* A chart needs a ceiling. */
    struct rl_chart empty = {"x", NULL, 0, NULL, 0, NULL, 0, 0, NULL, 0, 0, 0};
    struct rl_chart_layout l;
    ck_assert_int_eq(rl_chart_layout(&empty, &l, err), RL_EINVAL);
}
END_TEST

START_TEST(gnuplot_failure_is_reported)
{
    /* A "gnuplot" that fails: its last stderr line becomes the error. */
    char fake[512], path[512], err[RL_ERRMSG_SIZE];
    snprintf(fake, sizeof fake, "%s/fakegnuplot", rl_test_tmpdir());
    FILE *f = fopen(fake, "w");
    fputs("#!/bin/sh\necho 'line 1: bad things' >&2\nexit 1\n", f);
    fclose(f);
    chmod(fake, 0755);
    setenv("ROOFLINE_GNUPLOT", fake, 1);
    struct rl_chart c = chart_of(NULL, 0);
    snprintf(path, sizeof path, "%s/fail.png", rl_test_tmpdir());
    ck_assert_int_eq(rl_chart_render(&c, path, err), RL_ECHILD);
    unsetenv("ROOFLINE_GNUPLOT");
    ck_assert_ptr_nonnull(strstr(err, "gnuplot failed"));
    ck_assert_ptr_nonnull(strstr(err, "line 1: bad things"));
    ck_assert_int_eq(file_size(path), -1);
}
END_TEST

START_TEST(short_names)
{
    /* Names a reader understands: C++ signatures lose return type,
     * namespaces, template arguments and parameters; long names are cut
     * at a word, never mid-word. */
    static const struct {
        const char *name, *want;
        size_t max;
    } cases[] = {
        {"void gemm<float, 128, 8>(float const*, float const*, float*, int)", "gemm<...>", 0},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel>(int, T2)",
         "vectorized_elementwise_kernel<...>", 40},
        {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_"
         "align8>(Params)",
         "cutlass_80_wmma_tensorop...", 0},
        /* a generic launcher names its first template argument */
        {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align1>(Params)",
         "cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align1", 60},
        {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int>, "
         "int> >(Params)",
         "GemmUniversal<...>", 0},
        {"void Kernel<>(int)", "Kernel<...>", 0},
        {"ampere_sgemm_32x32_sliced1x4_tn", "ampere_sgemm_32x32...", 0},
        {"ampere_sgemm_32x32_sliced1x4_tn", "ampere_sgemm_32x32_sliced1x4_tn", 40},
        {"enable_if<!T7, void>::type kernel<int, int, __half>(int)", "kernel<...>", 0},
        {"decode down GEMV 14336->4096 bf16 (built-in)", "decode down GEMV...", 20},
        {"prefill o GEMM (cuBLASLt)", "prefill o GEMM (cuBLASLt)", 0},
        {"kernel_name_that_is_much_longer_than_the_limit_allows", "kernel_name_that_is_much...",
         28},
        {"x", "x", 0},
        /* a shape is cut between its dimensions, never inside a number */
        {"prefill GEMM 2048x4096x14336 bf16", "prefill GEMM 2048x4096...", 0},
        {"decode GEMV 1x4096x14336 bf16", "decode GEMV 1x4096x14336...", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[160];
        ck_assert_int_eq(rl_chart_short_name(out, sizeof out, cases[i].name, cases[i].max), 0);
        ck_assert_msg(strcmp(out, cases[i].want) == 0, "%s: got '%s', want '%s'",
                      cases[i].name, out, cases[i].want);
        ck_assert_uint_le(strlen(out), cases[i].max ? cases[i].max : RL_CHART_LABEL_MAX);
    }
    /* Invalid UTF-8 comes out valid. */
    char out[64];
    ck_assert_int_eq(rl_chart_short_name(out, sizeof out, "k\xff", 0), 0);
    ck_assert_str_eq(out, "k\xEF\xBF\xBD");
}
END_TEST

static Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, ranges_hold_ridges_and_points);
    tcase_add_test(core, short_names);
    tcase_add_test(core, ten_clustered_labels_do_not_overlap);
    tcase_add_test(core, script_carries_the_ceilings);
    tcase_add_test(core, one_column_roof_labels_in_the_margin);
    tcase_add_test(core, one_column_titles_and_ticks);
    tcase_add_test(core, close_memory_roofs_share_a_label);
    tcase_add_test(core, measured_roofs_get_their_own_style);
    tcase_add_test(core, equal_roofs_of_two_origins_share_a_line);
    tcase_add_test(core, a_trace_chart_without_empty_decades);
    tcase_add_test(core, a_label_off_its_marker_has_a_leader);
    tcase_add_test(core, hierarchical_view);
    tcase_add_test(core, link_roof_and_comm_intensity);
    tcase_add_test(core, xy_chart_ceilings_and_predictions);
    tcase_add_test(core, renders_svg_png_pdf);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, undrawable_points_are_skipped);
    tcase_add_test(limits, bad_outputs_fail_without_partial_files);
    tcase_add_test(limits, gnuplot_failure_is_reported);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(plot_suite()); }
