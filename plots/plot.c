/* plot.c - roofline charts: layout, gnuplot script and data files, SVG/PNG/PDF output. */
#define _POSIX_C_SOURCE 200809L
#include "plots/plot.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/numtext.h"
#include "plots/labels.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "dev"
#endif

/* The template from plots/roofline.gp.in, embedded at build time. */
extern const char rl__plot_template[];

/* Margins around the plot area, layout units (the tick labels and the
 * title need the same room at any size). */
#define MARGIN_L 130.0
/* A canvas narrower than this (a one-column figure) writes its y ticks
 * without the unit ("100T"; the axis title says FLOP/s), in a narrower
 * left margin. */
#define NARROW_W 640.0
#define MARGIN_L_NARROW 84.0
#define MARGIN_R 36.0 /* half the last x tick ("100000") and room to spare */
#define MARGIN_B 67.0
#define MARGIN_T 48.0
/* Compute roof labels in the right margin: this far right of the plot, at
 * most this share of the canvas wide before the compact form is taken. */
#define MARGIN_GAP 9.0
#define MARGIN_LABEL_SHARE 0.3
/* The key drawn in the margin: a sample this wide, then its title. */
#define KEY_SAMPLE_W 20.0
/* A memory roof's label: its middle this many text heights off its line. */
#define MEMORY_LIFT 0.72

/* Font sizes in layout units, and the width of one character. */
#define FONT_BASE 14.0
#define FONT_TITLE 16.0
#define FONT_ROOF 12.5
#define FONT_POINT 11.5
#define FONT_RIDGE 10.5
#define FONT_KEY 11.5
#define CHAR_W(font) ((font) * 0.56)
#define TEXT_H(font) ((font) * 1.25)

/* Up to this many named kernels are never numbered while a leader can
 * reach a free spot (a chart of two kernels needs no number key). */
#define FEW_LABELS 4
#define DEFAULT_MAX_LABELS 12

/* Colour-blind-safe: Okabe and Ito's palette (yellow darkened to ochre to
 * read on white), then two greys; memory roofs dark. */
static const char *const compute_colors[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
    "#56B4E9", "#8C6D00", "#444444", "#882255", "#999999"};
/* DRAM, L2, L1, then the link (RL_CHART_LINK_LEVEL) */
static const char *const memory_colors[] = {"#202020", "#6A3D9A", "#00796B", "#A50026"};
#define N_COMPUTE_COLORS (sizeof compute_colors / sizeof compute_colors[0])

/* ---- small helpers ---------------------------------------------------- */

static size_t text_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80; /* count UTF-8 code points */
    return n;
}

/* Helvetica's advance widths (Adobe's AFM metrics, 1/1000 em) for ASCII
 * 32..126: the font every chart names. Text widths from them, not from a
 * flat width per character (capitals and digits are wider than 0.56 em). */
static const unsigned short helvetica[95] = {
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584};

/* The width of s in font (layout units), 3% to spare for renderers. */
static double text_w(const char *s, double font)
{
    double em = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c & 0xC0) == 0x80)
            continue;
        em += c >= 32 && c <= 126 ? helvetica[c - 32] : 556;
    }
    return em / 1000 * font * 1.03;
}

static double floor_decade(double v) { return pow(10, floor(log10(v))); }
static double ceil_decade(double v) { return pow(10, ceil(log10(v) - 1e-9)); }

/* "989.4 TFLOP/s", "0.473 TFLOP/s", "1978.9 TOPS", "9000 TFLOP/s", "37
 * TFLOP/s": from 10 up, to a tenth, a ".0" dropped (digits: the integer
 * part's and one). */
static void format_peak(char *buf, size_t n, double tflops, bool ops)
{
    const int digits = tflops >= 10 ? (int)floor(log10(tflops)) + 2 : 3;
    snprintf(buf, n, "%s %s", rl_num(tflops, digits), ops ? "TOPS" : "TFLOP/s");
}

/* "4.8 TB/s", "3.35 TB/s", "864 GB/s". */
static void format_bandwidth(char *buf, size_t n, double gbs)
{
    if (gbs >= 1000)
        snprintf(buf, n, "%s TB/s", rl_num(gbs / 1000, 4));
    else
        snprintf(buf, n, "%s GB/s", rl_num(gbs, 4));
}

static const char *origin_suffix(enum rl_origin o)
{
    return o == RL_ORIGIN_MEASURED   ? " (measured)"
           : o == RL_ORIGIN_ANALYTIC ? " (analytic)"
                                     : "";
}

/* "FP16 Tensor Core" + "BF16 Tensor Core" ->
 * "FP16/BF16 Tensor Core" when the words after the first match. */
static void merge_labels(char *into, size_t n, const char *other)
{
    const char *a_rest = strchr(into, ' '), *b_rest = strchr(other, ' ');
    if (a_rest && b_rest && strcmp(a_rest, b_rest) == 0) {
        char merged[160];
        snprintf(merged, sizeof merged, "%.*s/%.*s%s", (int)(a_rest - into), into,
                 (int)(b_rest - other), other, a_rest);
        snprintf(into, n, "%s", merged);
    } else {
        size_t u = strlen(into);
        snprintf(into + u, n - u, ", %s", other);
    }
}

/* ---- layout ----------------------------------------------------------- */

/* Cut a label after its first words, at most max_chars of them, and mark the
 * cut with "..."; false when it has no such shorter form (one word). */
static bool first_words(char *text, size_t max_chars)
{
    size_t keep = 0;
    for (size_t k = 1; text[k] && k <= max_chars; k++)
        if (text[k] == ' ' && text[k - 1] != ' ')
            keep = k;
    if (keep == 0 || strlen(text) <= keep + 3)
        return false;
    memcpy(text + keep, "...", 4);
    return true;
}

struct axes {
    double lx0, lx1, ly0, ly1; /* log10 of the ranges */
    double px0, px1, py0, py1; /* plot area, layout units */
};

static void axes_of(const struct rl_chart_layout *l, struct axes *a)
{
    a->lx0 = log10(l->x_lo);
    a->lx1 = log10(l->x_hi);
    a->ly0 = log10(l->y_lo);
    a->ly1 = log10(l->y_hi);
    a->px0 = l->margin_l;
    a->px1 = l->w - l->margin_r;
    a->py0 = MARGIN_B + l->key_below + l->legend_below;
    a->py1 = l->h - l->margin_t;
}

static double to_px(const struct axes *a, double x)
{
    return a->px0 + (log10(x) - a->lx0) / (a->lx1 - a->lx0) * (a->px1 - a->px0);
}

static double to_py(const struct axes *a, double y)
{
    return a->py0 + (log10(y) - a->ly0) / (a->ly1 - a->ly0) * (a->py1 - a->py0);
}

static double from_px(const struct axes *a, double px)
{
    return pow(10, a->lx0 + (px - a->px0) / (a->px1 - a->px0) * (a->lx1 - a->lx0));
}

static double from_py(const struct axes *a, double py)
{
    return pow(10, a->ly0 + (py - a->py0) / (a->py1 - a->py0) * (a->ly1 - a->ly0));
}

void rl_chart_to_canvas(const struct rl_chart_layout *l, double ai, double flops_per_s,
                        double *px, double *py)
{
    struct axes a;
    axes_of(l, &a);
    *px = to_px(&a, ai);
    *py = to_py(&a, flops_per_s);
}

static bool point_drawable(const struct rl_chart_point *p)
{
    return isfinite(p->ai_flop_per_byte) && p->ai_flop_per_byte > 0 &&
           isfinite(p->tflops) && p->tflops > 0;
}

/* One entry of the chart's key, in the order write_plot gives the titles. */
enum key_kind { KEY_RIDGE, KEY_SERIES, KEY_ORIGIN, KEY_LEVEL, KEY_KERNEL_MEASURED,
                KEY_KERNEL_ANALYTIC, KEY_NOTE };
struct key_entry {
    enum key_kind kind;
    int which;          /* the series, origin or level */
    const char *title;
};

static const char *const origin_title[3] = {"datasheet ceiling", "analytic ceiling",
                                            "measured ceiling"};
static const char *const level_title[3] = {"L2 intensity", "L1 intensity",
                                           "FLOP per byte communicated"};
static const int level_pt[3] = {9, 13, 12};

/* The key's entries (at most KEY_MAX + n_series into out); returns how
 * many. stack: the layout's (points on one spot), NULL while sizing (then
 * a row is kept for the "xN" note where two points are close enough to). */
#define KEY_MAX 11
static size_t key_entries(const struct rl_chart *c, const struct rl_chart_line *lines,
                          size_t n_lines, const size_t *stack, struct key_entry *out)
{
    size_t n = 0;
    out[n++] = (struct key_entry){KEY_RIDGE, 0, "ridge point (FLOP/byte)"};
    for (size_t s = 0; s < c->n_series; s++)
        out[n++] = (struct key_entry){KEY_SERIES, (int)s,
                                      c->series[s].title ? c->series[s].title : "measured"};
    bool origins[3] = {false, false, false}, kinds[3] = {false, false, false};
    bool levels[3] = {false, false, false}, analytic_timed = false, sizes_vary = false;
    bool stacked = false;
    size_t drawable = 0;
    double size0 = NAN;
    for (size_t i = 0; i < n_lines; i++)
        origins[lines[i].origin] = true;
    for (size_t i = 0; i < c->n_points; i++) {
        const struct rl_chart_point *p = &c->points[i];
        if (!point_drawable(p))
            continue;
        kinds[p->origin] = true;
        analytic_timed |= p->origin != RL_ORIGIN_MEASURED && p->timed;
        const double size = p->size > 0 ? p->size : 1;
        sizes_vary |= drawable++ && fabs(size - size0) > 1e-9;
        if (isnan(size0))
            size0 = size;
        if (stack)
            stacked |= stack[i] > 1;
        else /* while sizing: a point within 0.03 decades of one before may share its spot */
            for (size_t j = 0; j < i && !stacked; j++)
                stacked |= point_drawable(&c->points[j]) &&
                           fabs(log10(c->points[j].ai_flop_per_byte / p->ai_flop_per_byte)) < 0.03 &&
                           fabs(log10(c->points[j].tflops / p->tflops)) < 0.03;
        levels[0] |= p->ai_l2_flop_per_byte > 0;
        levels[1] |= p->ai_l1_flop_per_byte > 0;
        levels[2] |= p->ai_link_flop_per_byte > 0 && isfinite(p->ai_link_flop_per_byte);
    }
    for (int o = 0; o < 3; o++)
        if (origins[o])
            out[n++] = (struct key_entry){KEY_ORIGIN, o, origin_title[o]};
    for (int k = 0; k < 3; k++)
        if (levels[k])
            out[n++] = (struct key_entry){KEY_LEVEL, k, level_title[k]};
    if (kinds[RL_ORIGIN_MEASURED])
        out[n++] = (struct key_entry){KEY_KERNEL_MEASURED, 0, "measured kernel"};
    if (kinds[RL_ORIGIN_ANALYTIC] || kinds[RL_ORIGIN_DATASHEET])
        out[n++] = (struct key_entry){KEY_KERNEL_ANALYTIC, 0,
                                      analytic_timed ? "kernel, computed FLOPs"
                                                     : "analytic kernel, no time"};
    /* What the markers' sizes and a label's "x3" say. (Titles of 24
     * characters at most: a one-column chart's key fits under its roof
     * labels.) An open marker placed by a time (a PyTorch kernel's, a
     * predicted one) has computed FLOPs; one without sits on its roof. */
    if (sizes_vary)
        out[n++] = (struct key_entry){KEY_NOTE, 0, "area: share of GPU time"};
    if (stacked)
        out[n++] = (struct key_entry){KEY_NOTE, 1, "x3: 3 groups on one spot"};
    return n;
}


/* A roof's label as the chart shows it: Tensor Core roofs are dense unless
 * they say "2:4 sparse", so "(dense)" goes; library roofs read "BF16
 * cuBLASLt". */
static void chart_label(char *out, size_t n, const char *label)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%s", label);
    char *dense = strstr(buf, " (dense)");
    if (dense)
        memmove(dense, dense + 8, strlen(dense + 8) + 1);
    char *blas = strstr(buf, ", cuBLASLt");
    if (blas) {
        size_t prec = strcspn(buf, " ");
        snprintf(out, n, "%.*s cuBLASLt", (int)prec, buf);
        return;
    }
    snprintf(out, n, "%s", buf);
}

/* A colour per precision, the same for its datasheet, measured and library
 * roofs ("bf16", "bf16-blas"). */
static void roof_base(char *base, size_t n, const char *name)
{
    snprintf(base, n, "%s", name ? name : "");
    char *blas = strstr(base, "-blas");
    if (blas)
        *blas = '\0';
}

static int roof_color(const char *name)
{
    char base[32];
    roof_base(base, sizeof base, name);
    const char *const *names = rl_roof_names();
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], base) == 0)
            return i % (int)N_COMPUTE_COLORS;
    return 0;
}

/* The colour of a precision on chart c: its own palette slot, else (two
 * precisions of the chart on one slot: FP4 would take FP64's) the next
 * slot no earlier precision of the chart holds. */
static int chart_color(const struct rl_chart *c, const char *name)
{
    char want[32];
    roof_base(want, sizeof want, name);
    int slot[64];
    char seen[64][32];
    size_t n = 0;
    for (size_t i = 0; i < c->n_compute && n < 64; i++) {
        char base[32];
        roof_base(base, sizeof base, c->compute[i].name);
        size_t k = 0;
        while (k < n && strcmp(seen[k], base) != 0)
            k++;
        if (k < n)
            continue;
        int s0 = roof_color(base), sl = s0;
        for (int tries = 0; tries < (int)N_COMPUTE_COLORS; tries++) {
            size_t j = 0;
            while (j < n && slot[j] != sl)
                j++;
            if (j == n)
                break;
            sl = (sl + 1) % (int)N_COMPUTE_COLORS;
        }
        snprintf(seen[n], sizeof seen[n], "%s", base);
        slot[n++] = sl;
    }
    for (size_t k = 0; k < n; k++)
        if (strcmp(seen[k], want) == 0)
            return slot[k];
    return roof_color(want);
}

const char *rl_chart_roof_color(const struct rl_compute_roof *compute, size_t n_compute,
                                const char *name)
{
    const struct rl_chart c = {.compute = compute, .n_compute = n_compute};
    return compute_colors[chart_color(&c, name)];
}

const char *rl_chart_memory_color(int level)
{
    return level >= 0 && level <= RL_CHART_LINK_LEVEL ? memory_colors[level] : memory_colors[0];
}

/* Merge equal compute roofs; fill lines[] with compute then memory lines. */
static size_t build_lines(const struct rl_chart *c, struct rl_chart_line *lines)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_compute; i++) {
        const struct rl_compute_roof *r = &c->compute[i];
        /* Roofs of one value and origin share a line; so do a datasheet
         * roof and an analytic one (B200's FP8 and FP6: a dotted line on a
         * solid one read as one muddy line), the datasheet's, its label
         * naming the analytic one ("FP6/FP8 Tensor Core: 4500 TFLOP/s (FP6
         * analytic)"). A measured roof keeps its own line. */
        struct rl_chart_line *same = NULL;
        for (size_t j = 0; j < n; j++) {
            const enum rl_origin o = lines[j].origin;
            bool sheet_and_formula = (o == RL_ORIGIN_DATASHEET && r->origin == RL_ORIGIN_ANALYTIC) ||
                                     (o == RL_ORIGIN_ANALYTIC && r->origin == RL_ORIGIN_DATASHEET);
            if (fabs(lines[j].value / r->peak_tflops - 1) < 5e-4 &&
                (o == r->origin || (sheet_and_formula && !lines[j].analytic_of[0])))
                same = &lines[j];
        }
        if (same) {
            /* The value text is appended later; merge the names only. */
            char short_name[96];
            chart_label(short_name, sizeof short_name, r->label);
            if (same->origin != r->origin) {
                const char *formula = r->origin == RL_ORIGIN_ANALYTIC ? short_name : same->label;
                snprintf(same->analytic_of, sizeof same->analytic_of, "%.*s",
                         (int)strcspn(formula, " "), formula);
                if (r->origin == RL_ORIGIN_DATASHEET) {
                    same->origin = RL_ORIGIN_DATASHEET;
                    same->color = chart_color(c, r->name);
                }
            }
            merge_labels(same->label, sizeof same->label, short_name);
            continue;
        }
        struct rl_chart_line *L = &lines[n];
        memset(L, 0, sizeof *L);
        chart_label(L->label, sizeof L->label, r->label);
        L->value = r->peak_tflops;
        L->origin = r->origin;
        L->color = chart_color(c, r->name);
        n++;
    }
    size_t n_compute_lines = n;
    for (size_t i = 0; i < n_compute_lines; i++) {
        char v[48];
        bool ops = false;
        for (size_t j = 0; j < c->n_compute; j++)
            if (fabs(lines[i].value / c->compute[j].peak_tflops - 1) < 5e-4)
                ops |= c->compute[j].ops;
        format_peak(v, sizeof v, lines[i].value, ops);
        size_t u = strlen(lines[i].label);
        char also[48] = "";
        if (lines[i].analytic_of[0])
            snprintf(also, sizeof also, " (%s analytic)", lines[i].analytic_of);
        snprintf(lines[i].label + u, sizeof lines[i].label - u, ": %s%s", v,
                 also[0] ? also : origin_suffix(lines[i].origin));
        /* The short form keeps the name with its execution unit ("BF16
         * Tensor Core") and the value with its unit, and drops only the
         * origin (the line's dash says it): "BF16 Tensor Core: 760.0
         * TFLOP/s". */
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(lines[i].label, ':') - lines[i].label),
                 lines[i].label);
        /* (a merged analytic roof's note stays in every form: no dash says it) */
        snprintf(lines[i].short_label, sizeof lines[i].short_label, "%.80s: %.40s%s", name, v,
                 also);
        /* The compact form, for the right margin, drops the execution unit
         * too: "FP16/BF16: 989.4 TFLOP/s". */
        static const char *const units[] = {" Tensor Core", " Matrix Core", " CUDA cores",
                                            " stream processors"};
        char *cut = NULL;
        size_t k = 0;
        for (; k < sizeof units / sizeof units[0] && !cut; k++)
            cut = strstr(name, units[k]);
        if (cut)
            memmove(cut, cut + strlen(units[k - 1]), strlen(cut + strlen(units[k - 1])) + 1);
        snprintf(lines[i].compact_label, sizeof lines[i].compact_label, "%.80s: %.40s%s", name, v,
                 also);
    }
    /* Two roofs whose compact forms read alike (FP64 on CUDA cores and on
     * Tensor Cores) keep their execution units. */
    for (size_t i = 0; i < n_compute_lines; i++)
        for (size_t j = i + 1; j < n_compute_lines; j++)
            if (strcmp(lines[i].compact_label, lines[j].compact_label) == 0 &&
                strcmp(lines[i].short_label, lines[j].short_label) != 0) {
                snprintf(lines[i].compact_label, sizeof lines[i].compact_label, "%s",
                         lines[i].short_label);
                snprintf(lines[j].compact_label, sizeof lines[j].compact_label, "%s",
                         lines[j].short_label);
            }
    for (size_t i = 0; i < c->n_memory; i++) {
        const struct rl_memory_roof *m = &c->memory[i];
        struct rl_chart_line *L = &lines[n++];
        memset(L, 0, sizeof *L);
        char v[48];
        format_bandwidth(v, sizeof v, m->bandwidth_gbs);
        snprintf(L->label, sizeof L->label, "%s: %s%s", m->label, v,
                 origin_suffix(m->origin));
        snprintf(L->short_label, sizeof L->short_label, "%.80s: %.40s", m->label, v);
        L->memory = true;
        L->value = m->bandwidth_gbs;
        L->origin = m->origin;
        L->color = (int)m->level;
    }
    return n;
}

/* Axis ranges: every ridge, every drawable point, whole decades on x. */
static void choose_ranges(const struct rl_chart *c, struct rl_chart_layout *l, double lo_div)
{
    double p_max = 0, p_min = INFINITY, b_max = 0, b_min = INFINITY;
    for (size_t i = 0; i < c->n_compute; i++) {
        p_max = fmax(p_max, c->compute[i].peak_tflops);
        p_min = fmin(p_min, c->compute[i].peak_tflops);
    }
    for (size_t i = 0; i < c->n_memory; i++) {
        b_max = fmax(b_max, c->memory[i].bandwidth_gbs);
        b_min = fmin(b_min, c->memory[i].bandwidth_gbs);
    }
    if (c->n_compute == 0) { /* memory roofs only: pretend a roof far up */
        p_max = p_min = b_max * 1e-3 * 1e3;
    }
    if (c->n_memory == 0)
        b_max = b_min = p_max * 1e3 / 10;
    double ridge_min = p_min * 1e3 / b_max, ridge_max = p_max * 1e3 / b_min;
    /* Room left of the first ridge for the memory roofs' labels (the
     * caller widens it where their labels need more). */
    double ai_lo = ridge_min / lo_div, ai_hi = ridge_max * 3;
    double y_lo = b_min * 1e9 * ai_lo / 3, y_hi = p_max * 1e12 * 2.5;
    for (size_t i = 0; i < c->n_points; i++) {
        const struct rl_chart_point *p = &c->points[i];
        if (!point_drawable(p))
            continue;
        ai_lo = fmin(ai_lo, p->ai_flop_per_byte / 4);
        ai_hi = fmax(ai_hi, p->ai_flop_per_byte * 3);
        const double lv[3] = {p->ai_l2_flop_per_byte, p->ai_l1_flop_per_byte,
                              p->ai_link_flop_per_byte};
        for (int k = 0; k < 3; k++)
            if (lv[k] > 0 && isfinite(lv[k])) {
                ai_lo = fmin(ai_lo, lv[k] / 4);
                ai_hi = fmax(ai_hi, lv[k] * 3);
            }
        y_lo = fmin(y_lo, p->tflops * 1e12 / 4);
        y_hi = fmax(y_hi, p->tflops * 1e12 * 3);
    }
    for (size_t s = 0; s < c->n_series; s++)
        for (size_t i = 0; i < c->series[s].n; i++) {
            double ai = c->series[s].ai_flop_per_byte[i], tf = c->series[s].tflops[i];
            if (!(ai > 0) || !(tf > 0) || isinf(ai) || isinf(tf))
                continue;
            ai_lo = fmin(ai_lo, ai / 2);
            ai_hi = fmax(ai_hi, ai * 2);
            y_lo = fmin(y_lo, tf * 1e12 / 3);
        }
    l->x_lo = floor_decade(ai_lo);
    l->x_hi = ceil_decade(ai_hi);
    /* Memory roofs enter at the left edge: keep them in view. */
    y_lo = fmin(y_lo, b_min * 1e9 * l->x_lo * 0.8);
    l->y_lo = floor_decade(y_lo);
    /* Not more than seven decades of empty space below the roofs. */
    if (l->y_lo < p_max * 1e12 / 1e7)
        l->y_lo = floor_decade(p_max * 1e12 / 1e7);
    l->y_hi = pow(10, ceil(log10(y_hi) * 2) / 2); /* half decades */
}

/* What a roof label in box b costs: the placer's cost of b grown by `pad`
 * on every side but the one facing its own line (away: +1 above the line,
 * -1 below), so that no other line runs closer to the label than its own. */
static double roof_label_cost(const struct rl_placer *pl, struct rl_box b, int away, double pad)
{
    struct rl_box g = {b.x0 - pad, b.y0 - (away < 0 ? pad : 0), b.x1 + pad,
                       b.y1 + (away > 0 ? pad : 0)};
    return rl_placer_cost(pl, g);
}

/* Compute roof labels sit above their lines, best at the right end, right
 * of every memory roof and kernel: the x axis runs on a decade further
 * where that makes the stretch hold the widest one. Not more: three empty
 * decades of flat roofs were a third of a chart; where one does not make
 * the room, the labels go further left, else to the right margin. */
static void make_label_room(const struct rl_chart *c, struct rl_chart_layout *l)
{
    double label_w = 0, block = 0, p_max = 0, b_min = INFINITY;
    for (size_t i = 0; i < l->n_lines; i++)
        if (!l->lines[i].memory)
            label_w = fmax(label_w, text_w(l->lines[i].short_label, FONT_ROOF));
    for (size_t i = 0; i < c->n_compute; i++)
        p_max = fmax(p_max, c->compute[i].peak_tflops);
    for (size_t i = 0; i < c->n_memory; i++)
        b_min = fmin(b_min, c->memory[i].bandwidth_gbs);
    if (label_w == 0)
        return;
    if (isfinite(b_min) && b_min > 0)
        block = p_max * 1e3 / b_min;
    for (size_t i = 0; i < c->n_points; i++) {
        const struct rl_chart_point *p = &c->points[i];
        if (!point_drawable(p))
            continue;
        const double ai[4] = {p->ai_flop_per_byte, p->ai_l2_flop_per_byte,
                              p->ai_l1_flop_per_byte, p->ai_link_flop_per_byte};
        for (int k = 0; k < 4; k++)
            if (ai[k] > 0 && isfinite(ai[k]))
                block = fmax(block, ai[k]);
    }
    if (!(block > 0))
        return;
    double plot_w = l->w - l->margin_l - l->margin_r, lo = log10(l->x_lo);
    /* The marker's radius and a little air on the left, 12 units on the right. */
    for (int extra = 0; extra <= 1; extra++) {
        double hi = log10(l->x_hi) + extra;
        double per_decade = plot_w / (hi - lo);
        double room = (hi - log10(block)) * per_decade - 14 - 12;
        if (room >= label_w) {
            l->x_hi *= pow(10, extra);
            return;
        }
    }
}

/* A compute roof's label text in the form the layout chose. */
static const char *roof_text(const struct rl_chart_line *L)
{
    return L->form == 2 ? L->compact_label : L->form == 1 ? L->short_label : L->label;
}

/* The margin labels' form: the longest of label, short and compact whose
 * widest fits a third of the canvas (else compact); returns that width. */
static double choose_margin_form(struct rl_chart_layout *l)
{
    double widest = 0;
    for (int form = 0; form < 3; form++) {
        widest = 0;
        for (size_t i = 0; i < l->n_lines; i++)
            if (!l->lines[i].memory) {
                l->lines[i].form = form;
                widest = fmax(widest, text_w(roof_text(&l->lines[i]), FONT_ROOF));
            }
        if (widest <= l->w * MARGIN_LABEL_SHARE)
            break;
    }
    return widest;
}

/* Compute roof labels in the right margin, each at its line's end and
 * height; where two lines run closer than a line of text, their labels
 * spread apart around the lines' mean height, in the lines' order, each
 * joined to its line's end by a leader. */
static int place_margin_labels(struct rl_chart_layout *l, const struct axes *a)
{
    const double step = FONT_ROOF * 1.1; /* one label's box height */
    size_t n = 0;
    for (size_t i = 0; i < l->n_lines; i++)
        n += !l->lines[i].memory;
    if (n == 0)
        return RL_OK;
    size_t *idx = rl_malloc(n * sizeof *idx);
    double *pos = rl_malloc(n * sizeof *pos);
    struct cluster {
        size_t first, n;
        double sum; /* of want[i] - (i - first) * step over its labels */
    } *cl = rl_malloc(n * sizeof *cl);
    if (!idx || !pos || !cl) {
        free(idx), free(pos), free(cl);
        return RL_ENOMEM;
    }
    /* The labels in the order of their lines' heights, bottom up. */
    n = 0;
    for (size_t i = 0; i < l->n_lines; i++) {
        if (l->lines[i].memory)
            continue;
        l->lines[i].line_py = to_py(a, l->lines[i].y0);
        size_t k = n++;
        for (; k > 0 && l->lines[idx[k - 1]].line_py > l->lines[i].line_py; k--)
            idx[k] = idx[k - 1];
        idx[k] = i;
    }
    /* Clusters of labels a step apart, each centred on its lines: a new
     * label that overlaps the cluster below joins it. */
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        cl[m++] = (struct cluster){k, 1, l->lines[idx[k]].line_py};
        while (m > 1) {
            struct cluster *p = &cl[m - 2], *q = &cl[m - 1];
            if (p->sum / (double)p->n + (double)p->n * step <= q->sum / (double)q->n)
                break;
            p->sum += q->sum - (double)q->n * (double)p->n * step;
            p->n += q->n;
            m--;
        }
    }
    for (size_t j = 0; j < m; j++)
        for (size_t k = 0; k < cl[j].n; k++)
            pos[cl[j].first + k] = cl[j].sum / (double)cl[j].n + (double)k * step;
    /* Inside the plot's height: pushed up from its bottom, then down from
     * its top (a stack taller than the plot overruns the bottom). */
    double lo = (l->key_drawn ? l->key.y1 + 6 : a->py0) + step / 2, hi = a->py1 - step / 2;
    for (size_t k = 0; k < n; k++)
        pos[k] = fmax(pos[k], k ? pos[k - 1] + step : lo);
    for (size_t k = n; k-- > 0;)
        pos[k] = fmin(pos[k], k + 1 < n ? pos[k + 1] - step : hi);
    for (size_t k = 0; k < n; k++) {
        struct rl_chart_line *L = &l->lines[idx[k]];
        double x0 = a->px1 + MARGIN_GAP, w = text_w(roof_text(L), FONT_ROOF);
        L->in_margin = true;
        L->margin_leader = fabs(pos[k] - L->line_py) > 1.5;
        L->text.box = (struct rl_box){x0, pos[k] - step / 2, x0 + w, pos[k] + step / 2};
        L->text_x = from_px(a, x0);
        L->text_y = from_py(a, pos[k]);
    }
    free(idx), free(pos), free(cl);
    return RL_OK;
}

static int place_compute_labels(struct rl_chart_layout *l, struct rl_placer *pl,
                                const struct axes *a)
{
    /* The roof label's box: one line of text (the checker's em box and a
     * little air), not the key's line spacing. */
    double hc = FONT_ROOF * 1.1;
    /* Compute roofs: every label sits beside its own line, never elsewhere:
     * above it from the right end leftwards, else below it; where one finds
     * no clean spot, all go to the right margin (the caller lays the chart
     * out again). */
    enum { STEPS = 24 };
    if (l->roof_margin) {
        int rc = place_margin_labels(l, a);
        if (rc)
            return rc;
    }
    if (l->roof_margin)
        return RL_OK;
    /* One form for all: the full labels, else all without their origin
     * (one roof saying "(analytic)" and the next not reads as if that one
     * were datasheet); the boxes of a form that failed are taken back. */
    size_t n_boxes = pl->n_boxes;
    bool shorter = false;
    for (size_t i = 0; i < l->n_lines; i++)
        shorter |= !l->lines[i].memory && strcmp(l->lines[i].short_label, l->lines[i].label) != 0;
    for (int form = 0; form < 1 + shorter; form++) {
        pl->n_boxes = n_boxes;
        bool clean = true;
        for (size_t i = 0; i < l->n_lines && clean; i++) {
            struct rl_chart_line *L = &l->lines[i];
            if (L->memory)
                continue;
            double py = to_py(a, L->y0);
            double x_end = a->px1 - 6, x_start = fmax(to_px(a, L->x0) + 4, a->px0 + 4);
            struct rl_box best = {0};
            double best_cost = INFINITY;
            double w = text_w(form == 0 ? L->label : L->short_label, FONT_ROOF);
            /* The last positions let a long label run past the line's
             * start, over the empty space above the memory roofs. */
            double x_min_end = fmax(a->px0 + 4 + w, x_start + w * 0.4);
            for (int side = 0; side < 2 && best_cost > 0; side++)
                for (int f = 0; f < STEPS && best_cost > 0; f++) {
                    double xr = x_end < x_min_end ? x_end
                                                  : x_end - (x_end - x_min_end) * f / (STEPS - 1.0);
                    struct rl_box b = side == 0 ? (struct rl_box){xr - w, py + 2, xr, py + 2 + hc}
                                                : (struct rl_box){xr - w, py - 2 - hc, xr, py - 2};
                    double c2 = roof_label_cost(pl, b, side == 0 ? 1 : -1, 2);
                    if (c2 < best_cost) {
                        best_cost = c2;
                        best = b;
                    }
                }
            if (best_cost > 0) {
                clean = false;
                break;
            }
            L->form = form;
            if (rl_placer_add_box(pl, best))
                return RL_ENOMEM;
            L->text.box = best;
            L->text.right_aligned = true;
            L->text_x = from_px(a, best.x1);
            L->text_y = from_py(a, (best.y0 + best.y1) / 2);
        }
        if (clean)
            return RL_OK;
    }
    /* No clean spot beside some line (a one-column chart's roofs run closer
     * than a line of text, a label wider than the stretch between its ridge
     * and the right edge): every compute roof's label goes to the right
     * margin instead, at its line's end. */
    pl->n_boxes = n_boxes;
    l->roof_margin_wanted = true;
    return RL_OK;
}

static int place_memory_labels(struct rl_chart_layout *l, struct rl_placer *pl,
                               const struct axes *a)
{
    double h = TEXT_H(FONT_ROOF);
    /* Memory roofs: along the line, rotated, at the first free spot from the
     * left. The rotated text is modelled as squares over it; its middle
     * sits MEMORY_LIFT lines of text off the line (its lower edge about a
     * quarter line off). */
    double slope_px = ((a->py1 - a->py0) / (a->ly1 - a->ly0)) /
                      ((a->px1 - a->px0) / (a->lx1 - a->lx0));
    double angle = atan(slope_px);
    /* Two roofs of one level closer than a line and a half of text (a
     * measured bandwidth beside its datasheet one, on a one-column chart)
     * share one label along the upper: "HBM3e: 4.8 TB/s, 4.2 TB/s". */
    double per_decade_y = (a->py1 - a->py0) / (a->ly1 - a->ly0);
    for (size_t i = 0; i < l->n_lines; i++) {
        struct rl_chart_line *L = &l->lines[i];
        if (!L->memory || L->unlabelled)
            continue;
        for (size_t j = i + 1; j < l->n_lines; j++) {
            struct rl_chart_line *M = &l->lines[j];
            if (!M->memory || M->unlabelled || M->color != L->color)
                continue;
            double apart = fabs(log10(L->value / M->value)) * per_decade_y * cos(angle);
            if (apart >= 1.5 * FONT_ROOF)
                continue;
            struct rl_chart_line *hi = L->value >= M->value ? L : M, *lo = hi == L ? M : L;
            const char *v_lo = strstr(lo->short_label, ": ");
            char merged[sizeof L->label];
            snprintf(merged, sizeof merged, "%.80s, %.40s", hi->short_label, v_lo ? v_lo + 2 : "");
            snprintf(hi->label, sizeof hi->label, "%s", merged);
            snprintf(hi->short_label, sizeof hi->short_label, "%.127s", merged);
            lo->unlabelled = true;
            if (L->unlabelled)
                break;
        }
    }
    /* Two passes: the labels with a clean spot along their lines first,
     * then the rest (whose leaders must not cross a label placed after). */
    bool *later = rl_calloc(l->n_lines, sizeof *later);
    if (!later)
        return RL_ENOMEM;
    for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < l->n_lines; i++) {
        struct rl_chart_line *L = &l->lines[i];
        if (!L->memory || L->unlabelled || (pass == 1 && !later[i]))
            continue;
        L->angle_deg = angle * 180 / 3.14159265358979323846;
        double sx0 = to_px(a, L->x0), sy0 = to_py(a, L->y0);
        double sx1 = to_px(a, L->x1), sy1 = to_py(a, L->y1);
        /* Clip the start to the plot area. */
        if (sy0 < a->py0) {
            double t = (a->py0 - sy0) / (sy1 - sy0);
            sx0 += t * (sx1 - sx0);
            sy0 = a->py0;
        }
        double seg = hypot(sx1 - sx0, sy1 - sy0);
        double best_cost = INFINITY, best_t = 0.05;
        int best_side = 1, best_form = 0;
        enum { SQ = 192 };
        struct rl_box sq[SQ];
        size_t n_sq = 0, best_n = 0;
        struct rl_box best_sq[SQ];
        /* Above the line, else below it; the label, else without its
         * origin (the line's dots or dashes say it). */
        for (int form = 0; form < 2 && best_cost > 0; form++)
            for (int side = 1; side >= -1 && best_cost > 0; side -= 2)
                for (double t = 0.04; t < 0.8 && best_cost > 0; t += 0.04) {
                    double len = text_w(form ? L->short_label : L->label, FONT_ROOF);
                    if (t * seg + len > seg)
                        break;
                    /* The text's middle, off the line perpendicular to it. */
                    double ax = sx0 + t * (sx1 - sx0) - side * sin(angle) * (h * MEMORY_LIFT);
                    double ay = sy0 + t * (sy1 - sy0) + side * cos(angle) * (h * MEMORY_LIFT);
                    n_sq = 0;
                    double cost = 0;
                    /* Three rows of small squares along the text: at an
                     * angle, one row of large ones would reach past the
                     * text's edges by their corners. */
                    const double e = FONT_ROOF * 0.26, row_off = FONT_ROOF * 0.5 - e;
                    for (int row = -1; row <= 1; row++)
                        for (double d = e; d < len && n_sq < SQ; d += 1.9 * e) {
                            double cx = ax + cos(angle) * d - sin(angle) * row * row_off;
                            double cy = ay + sin(angle) * d + cos(angle) * row * row_off;
                            sq[n_sq] = (struct rl_box){cx - e, cy - e, cx + e, cy + e};
                            cost += rl_placer_cost(pl, sq[n_sq]);
                            n_sq++;
                        }
                    if (cost < best_cost - 1e-9) {
                        best_cost = cost;
                        best_t = t;
                        best_side = side;
                        best_form = form;
                        best_n = n_sq;
                        memcpy(best_sq, sq, n_sq * sizeof sq[0]);
                    }
                }
        if (best_cost > 0 && pass == 0) {
            later[i] = true;
            continue;
        }
        if (best_cost > 0) {
            /* No clean spot along the line (lines closer than a line of
             * text): level, in a free spot, joined to a point of its line
             * by a leader that may cross other roofs; the nearest such. */
            double hc = FONT_ROOF * 1.1, lead_cost = INFINITY, w = text_w(L->short_label, FONT_ROOF);
            struct rl_placed_label lead = {0};
            double anchor_x = 0, anchor_y = 0;
            for (double t = 0.1; t < 0.95; t += 0.1) {
                double qx = sx0 + t * (sx1 - sx0), qy = sy0 + t * (sy1 - sy0);
                struct rl_placed_label cand;
                double c2 = rl_placer_find_near_across(pl, qx, qy, 3, w, hc, &cand);
                if (c2 < lead_cost) {
                    lead_cost = c2, lead = cand, anchor_x = qx, anchor_y = qy;
                }
            }
            if (lead_cost < 10) {
                l->badness += lead_cost;
                if (rl_placer_add_box(pl, lead.box)) {
                    free(later);
                    return RL_ENOMEM;
                }
                double lx = lead.right_aligned ? lead.box.x1 : lead.box.x0;
                double ly = (lead.box.y0 + lead.box.y1) / 2;
                if (rl_placer_add_line(pl, (struct rl_segment){anchor_x, anchor_y, lx, ly})) {
                    free(later);
                    return RL_ENOMEM;
                }
                L->form = 1;
                L->angle_deg = 0;
                L->leader = true;
                L->text = lead;
                L->text_x = from_px(a, lx);
                L->text_y = from_py(a, ly);
                L->anchor_x = from_px(a, anchor_x);
                L->anchor_y = from_py(a, anchor_y);
                continue;
            }
        }
        /* No clean spot at all: the cheapest along the line, still on it. */
        l->badness += isfinite(best_cost) ? best_cost : 1e6;
        for (size_t k = 0; k < best_n; k++)
            if (rl_placer_add_box(pl, best_sq[k])) {
                free(later);
                return RL_ENOMEM;
            }
        L->form = best_form;
        double ax = sx0 + best_t * (sx1 - sx0) - best_side * sin(angle) * (h * MEMORY_LIFT);
        double ay = sy0 + best_t * (sy1 - sy0) + best_side * cos(angle) * (h * MEMORY_LIFT);
        L->text.box = best_n ? best_sq[0] : (struct rl_box){ax, ay, ax, ay};
        L->text_x = from_px(a, ax);
        /* gnuplot centres text vertically on its anchor. */
        L->text_y = from_py(a, ay);
    }
    free(later);
    return RL_OK;
}

static int place_ridge_values(struct rl_chart_layout *l, struct rl_placer *pl,
                              const struct axes *a)
{
    /* Ridge texts, small, each just outside its own diamond's box: below
     * right (under the roof, right of the bandwidth line) or above left
     * (over the roof's left part, left of the bandwidth line), so a value
     * is never read against a neighbouring ridge. All or none: if one has no free spot beside its
     * diamond, none is drawn (a chart where some ridges are numbered and
     * others not reads as if those had none); the tables give every ridge. */
    bool ridges_fit = true;
    int rc = RL_OK;
    for (size_t i = 0; i < l->n_ridges && ridges_fit && !rc; i++) {
        struct rl_chart_ridge *r = &l->ridges[i];
        double px = to_px(a, r->ai_flop_per_byte), py = to_py(a, r->flops_per_s);
        double w = text_w(r->text, FONT_RIDGE), h = TEXT_H(FONT_RIDGE);
        struct rl_box cand[] = {
            {px + 3, py - 7.5 - h, px + 3 + w, py - 7.5},
            {px - 3 - w, py + 7.5, px - 3, py + 7.5 + h},
        };
        size_t k = 0;
        while (k < sizeof cand / sizeof cand[0] && rl_placer_cost(pl, cand[k]) > 0)
            k++;
        if (k == sizeof cand / sizeof cand[0]) {
            ridges_fit = false;
            break;
        }
        rc = rl_placer_add_box(pl, cand[k]); /* later ridges avoid this one */
        r->right_aligned = k == 1;
        r->text_x = from_px(a, r->right_aligned ? cand[k].x1 : cand[k].x0);
        r->text_y = from_py(a, (cand[k].y0 + cand[k].y1) / 2);
    }
    if (!ridges_fit) {
        l->badness += 50;
        /* None drawn; the boxes already added stay reserved, which only
         * keeps kernel labels a little further from the diamonds. */
        for (size_t i = 0; i < l->n_ridges; i++)
            l->ridges[i].text[0] = 0;
    }
    return rc;
}

/* A few named kernels (FEW_LABELS or fewer) are named, never numbered. */
static bool few_kernel_labels(const struct rl_chart *c, const struct rl_chart_layout *l)
{
    size_t n_named = 0;
    for (size_t i = 0; i < c->n_points; i++)
        n_named += l->drawn[i] && l->stack[i] != 0 && c->points[i].label &&
                   c->points[i].label[0];
    return n_named <= FEW_LABELS;
}

static int place_kernel_labels(const struct rl_chart *c, struct rl_chart_layout *l,
                               struct rl_placer *pl, const struct axes *a)
{
    /* Kernel labels, in the order given, up to max_labels: the name where
     * it sits clean (against every label, marker, roof line, the key and
     * the border), else a number named in the chart's number key. */
    /* By default 12 on a two-column chart, fewer where the plot is
     * narrower (6 on a one-column chart with its roof labels in the margin). */
    size_t max_labels = c->max_labels ? c->max_labels : DEFAULT_MAX_LABELS, done = 0;
    if (!c->max_labels) {
        double share = (a->px1 - a->px0) / (RL_CHART_DOUBLE_W - MARGIN_L - MARGIN_R);
        max_labels = (size_t)fmax(4, fmin(DEFAULT_MAX_LABELS, floor(DEFAULT_MAX_LABELS * share * 2)));

    }
    bool few_labels = few_kernel_labels(c, l);
    /* A few named kernels in two passes: first those with a spot near
     * their marker, then the rest anywhere on the plot (one searched
     * anywhere first could take the spot another needs beside its own). */
    bool *deferred = rl_calloc(c->n_points ? c->n_points : 1, sizeof *deferred);
    if (!deferred)
        return RL_ENOMEM;
    int rc = RL_OK;
    for (int pass = 0; pass < 2 && !rc; pass++)
    for (size_t i = 0; i < c->n_points && !rc && done < max_labels; i++) {
        if (!l->drawn[i] || l->stack[i] == 0 || !c->points[i].label ||
            !c->points[i].label[0] || (pass == 1 && !deferred[i]))
            continue;
        double px = to_px(a, c->points[i].ai_flop_per_byte);
        double py = to_py(a, c->points[i].tflops * 1e12);
        if (l->stack[i] > 1)
            snprintf(l->text[i], sizeof l->text[i], "%.80s x%zu", c->points[i].label,
                     l->stack[i]);
        else
            snprintf(l->text[i], sizeof l->text[i], "%s", c->points[i].label);
        double r = 6 * (c->points[i].size > 0 ? c->points[i].size : 1);
        double h = TEXT_H(FONT_POINT);
        double cost = rl_placer_find_near(pl, px, py, r,
                                          text_w(l->text[i], FONT_POINT), h,
                                          &l->labels[i]);
        /* A few kernels are named, never numbered, when a leader can
         * reach a free spot across roof lines (each crossing costs 1 here: a
         * label box that overlaps anything costs 100 or more); where the
         * name is too wide for any, its first words ("prefill GEMM..."). */
        /* Of the four searches (the name, then its first words; each
         * with 10 units of clear space around the text, then with none,
         * which allows the space around a marker's own line) the cheapest:
         * fewest roof lines crossed, then the shortest leader, the whole
         * name unless the first words save a leader of 100 units. */
        if (cost > 0 && few_labels) {
            char words[sizeof l->text[i]];
            snprintf(words, sizeof words, "%s", l->text[i]);
            bool shorter = l->stack[i] <= 1 && first_words(words, 16);
            double best = INFINITY;
            struct rl_placed_label best_label = l->labels[i];
            bool best_short = false;
            for (int attempt = 0; attempt < (shorter ? 4 : 2); attempt++) {
                struct rl_placed_label cand;
                const char *t = attempt < 2 ? l->text[i] : words;
                double c2 = rl_placer_find_clear_across(pl, px, py, r, text_w(t, FONT_POINT), h,
                                                        attempt % 2 ? 0 : 10, &cand);
                /* A long leader is worth less than a short name (a 100-unit
                 * leader the same as the first words instead of the name). */
                if (cand.leader) {
                    double lx = cand.right_aligned ? cand.box.x1 : cand.box.x0;
                    c2 += 0.005 * hypot(lx - px, (cand.box.y0 + cand.box.y1) / 2 - py);
                }
                c2 += attempt < 2 ? 0 : 0.5;
                if (c2 < best) {
                    best = c2;
                    best_label = cand;
                    best_short = attempt >= 2;
                }
            }
            if (best >= 10 && pass == 0) {
                deferred[i] = true;
                continue;
            }
            if (best >= 10) {
                /* Nothing near: the whole plot searched, the name, else its
                 * first words, else cut at 20 characters
                 * ("cutlass_80_tensoro..."). */
                char cut[sizeof l->text[i]];
                rc = rl_chart_short_name(cut, sizeof cut, c->points[i].label, 20);
                if (rc)
                    break;
                if (!shorter)
                    snprintf(words, sizeof words, "%s", cut);
                bool cut_differs = shorter && strcmp(cut, words) != 0 &&
                                   text_w(cut, FONT_POINT) < text_w(words, FONT_POINT);
                int tries = 1 + (shorter || strcmp(cut, l->text[i]) != 0) + cut_differs;
                for (int attempt = 0; attempt < tries && best >= 10; attempt++) {
                    struct rl_placed_label cand;
                    if (attempt == 2)
                        snprintf(words, sizeof words, "%s", cut);
                    const char *t = attempt == 0 ? l->text[i] : words;
                    double c2 = rl_placer_find_anywhere(pl, px, py, r, text_w(t, FONT_POINT), h,
                                                        6, &cand);
                    if (c2 < best) {
                        best = c2;
                        best_label = cand;
                        best_short = attempt >= 1;
                    }
                }
            }
            if (best < 10) {
                l->badness += best;
                cost = 0;
                l->labels[i] = best_label;
                if (best_short)
                    snprintf(l->text[i], sizeof l->text[i], "%s", words);
            }
        }
        if (cost > 0) {
            l->badness += 1000;
            l->number[i] = (int)(l->n_key + 1);
            l->key_point[l->n_key++] = i;
            char num[16];
            snprintf(num, sizeof num, "%d", l->number[i]);
            /* Searched with 3 units of air on each side first: a number
             * against a name reads as one word ("6mm: ..."). */
            double nw = text_w(num, FONT_POINT);
            if (rl_placer_find_clear(pl, px, py, r, nw, h, 3, &l->labels[i]) > 0 &&
                rl_placer_find_near(pl, px, py, r, nw, h, &l->labels[i]) > 0) {
                /* A number is always drawn (the key names it): where no
                 * spot is clean, one reached by a leader across roof
                 * lines, else the least bad; the key adds the point's
                 * intensity to find it by. */
                /* (with air, unless without it crosses fewer lines) */
                struct rl_placed_label tight;
                double with_air = rl_placer_find_clear_across(pl, px, py, r, nw, h, 3,
                                                              &l->labels[i]);
                if (rl_placer_find_near_across(pl, px, py, r, nw, h, &tight) + 0.5 < with_air)
                    l->labels[i] = tight;
                char at[48];
                snprintf(at, sizeof at, " (at %s FLOP/B)",
                         rl_num(c->points[i].ai_flop_per_byte, 3));
                size_t u = strlen(l->text[i]);
                snprintf(l->text[i] + u, sizeof l->text[i] - u, "%s", at);
            }
        }
        rc = rl_placer_add_box(pl, l->labels[i].box);
        if (rc)
            break;
        l->labelled[i] = true;
        if (l->labels[i].leader) {
            const struct rl_box *lb = &l->labels[i].box;
            double lx = l->labels[i].right_aligned ? lb->x1 : lb->x0;
            rc = rl_placer_add_line(pl, (struct rl_segment){px, py, lx, (lb->y0 + lb->y1) / 2});
            if (rc)
                break;
        }
        const struct rl_box *b = &l->labels[i].box;
        l->label_x[i] = from_px(a, l->labels[i].right_aligned ? b->x1 : b->x0);
        l->label_y[i] = from_py(a, (b->y0 + b->y1) / 2);
        done++;
    }
    free(deferred);
    return rc;
}

/* The title as drawn (quotes and backslashes dropped): on one line where it
 * fits over the canvas (gnuplot centres it over the plot area), else
 * wrapped, after a colon where the line holds one, else at a word, on two
 * lines; a closing parenthetical that would need a third line is left out
 * (roofline's say which ceilings are drawn: the key says it too), else the
 * third line is cut at a word where even three cannot hold it. Returns
 * its number of lines. */
static int wrap_title(struct rl_chart_layout *l, const char *text)
{
    char *t = l->title;
    size_t n = 0, size = sizeof l->title;
    for (const char *s = text ? text : "roofline"; *s && n + 4 < size; s++)
        if (*s != '"' && *s != '\\' && (unsigned char)*s >= 32)
            t[n++] = *s;
    t[n] = '\0';
    double centre = (l->margin_l + l->w - l->margin_r) / 2;
    double room = 2 * fmin(centre, l->w - centre) - 16;
    int lines = 1;
    char *start = t;
    while (text_w(start, FONT_TITLE) > room && lines < 3) {
        char *paren = strrchr(start, '(');
        if (lines == 2 && paren && paren > start && paren[-1] == ' ' && t[n - 1] == ')') {
            paren[-1] = '\0';
            if (text_w(start, FONT_TITLE) <= room)
                break;
            paren[-1] = ' ';
        }
        char *brk = NULL;
        for (char *p = strchr(start, ' '); p; p = strchr(p + 1, ' ')) {
            *p = '\0';
            bool fits = text_w(start, FONT_TITLE) <= room;
            *p = ' ';
            if (!fits)
                break;
            bool colon = p > start && p[-1] == ':';
            if (!brk || colon || !(brk > start && brk[-1] == ':'))
                brk = p;
        }
        if (!brk)
            return lines; /* a word wider than the canvas */
        *brk = '\n';
        start = brk + 1;
        lines++;
    }
    /* The last line, cut at a word with "..." where it is still too wide. */
    char line[sizeof l->title], trial[sizeof l->title + 4];
    snprintf(line, sizeof line, "%s", start);
    while (text_w(start, FONT_TITLE) > room) {
        char *sp = strrchr(line, ' ');
        if (!sp)
            break;
        *sp = '\0';
        snprintf(trial, sizeof trial, "%s...", line);
        if (text_w(trial, FONT_TITLE) <= room || !strchr(line, ' ')) {
            snprintf(start, size - (size_t)(start - t), "%s", trial);
            break;
        }
    }
    return lines;
}

/* One layout, with `below` units of canvas added under the plot for the
 * number key (0: the key goes inside, where it finds room), the compute
 * roofs' labels in the right margin or not. */
static int layout_pass(const struct rl_chart *c, struct rl_chart_layout *out, char *errmsg,
                       double below, bool roof_margin, bool kernels_first_wanted)
{
    memset(out, 0, sizeof *out);
    out->key_below = below;
    out->roof_margin = roof_margin;
    if (c->n_compute == 0 && c->n_memory == 0)
        return rl_fail(errmsg, RL_EINVAL, "a chart needs at least one ceiling");
    size_t np = c->n_points ? c->n_points : 1;
    out->lines = rl_calloc(c->n_compute + c->n_memory, sizeof *out->lines);
    out->ridges = rl_calloc(c->n_compute + 1, sizeof *out->ridges);
    out->drawn = rl_calloc(np, sizeof *out->drawn);
    out->labelled = rl_calloc(np, sizeof *out->labelled);
    out->labels = rl_calloc(np, sizeof *out->labels);
    out->label_x = rl_calloc(np, sizeof *out->label_x);
    out->label_y = rl_calloc(np, sizeof *out->label_y);
    out->text = rl_calloc(np, sizeof *out->text);
    out->number = rl_calloc(np, sizeof *out->number);
    out->stack = rl_calloc(np, sizeof *out->stack);
    out->key_point = rl_calloc(np, sizeof *out->key_point);
    if (!out->lines || !out->ridges || !out->drawn || !out->labelled ||
        !out->labels || !out->label_x || !out->label_y || !out->text || !out->number ||
        !out->stack || !out->key_point) {
        rl_chart_layout_release(out);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory laying out the chart");
    }
    out->w = c->width > 0 ? c->width : RL_CHART_W;
    out->h = (c->height > 0 ? c->height : RL_CHART_H) + below;
    out->n_lines = build_lines(c, out->lines);
    /* The key's size: its rows, and its widest title. */
    struct key_entry *ke = rl_malloc((KEY_MAX + c->n_series) * sizeof *ke);
    if (!ke) {
        rl_chart_layout_release(out);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory laying out the chart");
    }
    size_t key_rows = key_entries(c, out->lines, out->n_lines, NULL, ke);
    double key_text_w = 0;
    for (size_t k = 0; k < key_rows; k++)
        key_text_w = fmax(key_text_w, text_w(ke[k].title, FONT_KEY));
    size_t key_chars = 22;
    for (size_t k = 0; k < key_rows; k++)
        key_chars = text_len(ke[k].title) > key_chars ? text_len(ke[k].title) : key_chars;
    free(ke);
    out->margin_l = out->w < NARROW_W ? MARGIN_L_NARROW : MARGIN_L;
    out->margin_r = MARGIN_R;
    out->margin_t = MARGIN_T + (wrap_title(out, c->title) - 1) * (TEXT_H(FONT_TITLE) + 3);
    if (roof_margin) {
        /* The margin holds the roof labels and, under them, the key, when
         * both fit the plot's height. */
        double labels_w = choose_margin_form(out);
        double key_w = KEY_SAMPLE_W + 6 + key_text_w, key_h = (double)key_rows * TEXT_H(FONT_KEY);
        size_t n_roofs = 0;
        for (size_t i = 0; i < out->n_lines; i++)
            n_roofs += !out->lines[i].memory;
        out->margin_r = fmax(MARGIN_R, MARGIN_GAP + fmax(labels_w, key_w) + 8);
        out->margin_t = MARGIN_T + (wrap_title(out, c->title) - 1) * (TEXT_H(FONT_TITLE) + 3);
        double plot_h = out->h - out->margin_t - MARGIN_B - below;
        bool fits = (double)n_roofs * FONT_ROOF * 1.1 + key_h + 12 <= plot_h &&
                    key_w <= labels_w + 12;
        out->key_drawn = true;
        if (!fits) {
            /* A key wider than the labels (a curve's title) or too tall:
             * under the x axis's title instead, the canvas taller by it. */
            out->margin_r = fmax(MARGIN_R, MARGIN_GAP + labels_w + 8);
            out->margin_t = MARGIN_T + (wrap_title(out, c->title) - 1) * (TEXT_H(FONT_TITLE) + 3);
            out->legend_below = key_h + 6;
            out->h += out->legend_below;
            double x0 = out->margin_l - 40 + 2, y0 = below + 2;
            out->key = (struct rl_box){x0, y0, x0 + key_w, y0 + key_h};
        } else {
            double x0 = out->w - out->margin_r + MARGIN_GAP, y0 = MARGIN_B + below;
            out->key = (struct rl_box){x0, y0, x0 + key_w, y0 + key_h};
        }
    }
    /* The x axis starts 10 (one column) or 30 times left of the first
     * ridge, further where the widest memory roof's label (without its
     * origin) does not fit along the slowest one before its first ridge
     * (one decade further at most). */
    double lo_div = out->w < NARROW_W ? 10 : 30, mem_label_w = 0, p_min = INFINITY;
    double b_slow = INFINITY;
    for (size_t i = 0; i < out->n_lines; i++)
        if (out->lines[i].memory) {
            mem_label_w = fmax(mem_label_w, text_w(out->lines[i].short_label, FONT_ROOF));
            b_slow = fmin(b_slow, out->lines[i].value);
        } else {
            p_min = fmin(p_min, out->lines[i].value);
        }
    for (int widen = 0; widen < 2; widen++, lo_div *= 10) {
        choose_ranges(c, out, lo_div);
        if (!(mem_label_w > 0) || !isfinite(p_min))
            break;
        double plot_w = out->w - out->margin_l - out->margin_r;
        double plot_h = out->h - out->margin_t - MARGIN_B - below;
        double along = hypot(plot_w / log10(out->x_hi / out->x_lo),
                             plot_h / log10(out->y_hi / out->y_lo));
        if (log10(p_min * 1e3 / b_slow / out->x_lo) * along >= mem_label_w + 30)
            break;
    }
    if (!roof_margin)
        make_label_room(c, out);
    struct axes a;
    axes_of(out, &a);

    /* Line ends: compute roofs from where the fastest memory roof meets
     * them to the right edge; memory roofs from the left edge up to the
     * highest compute roof. */
    double p_max = 0, b_max = 0, b_dram = NAN;
    for (size_t i = 0; i < c->n_compute; i++)
        p_max = fmax(p_max, c->compute[i].peak_tflops);
    for (size_t i = 0; i < c->n_memory; i++) {
        b_max = fmax(b_max, c->memory[i].bandwidth_gbs);
        if (c->memory[i].level == RL_MEM_DRAM && isnan(b_dram))
            b_dram = c->memory[i].bandwidth_gbs;
    }
    if (isnan(b_dram) && c->n_memory)
        b_dram = c->memory[0].bandwidth_gbs;
    for (size_t i = 0; i < out->n_lines; i++) {
        struct rl_chart_line *L = &out->lines[i];
        if (L->memory) {
            L->x0 = out->x_lo;
            L->y0 = L->value * 1e9 * out->x_lo;
            L->x1 = c->n_compute ? p_max * 1e3 / L->value : out->x_hi;
            L->y1 = L->value * 1e9 * L->x1;
        } else {
            L->x0 = b_max > 0 ? L->value * 1e3 / b_max : out->x_lo;
            L->x0 = fmax(L->x0, out->x_lo);
            L->y0 = L->y1 = L->value * 1e12;
            L->x1 = out->x_hi;
        }
    }

    struct rl_placer pl;
    rl_placer_init(&pl, (struct rl_box){a.px0 + 2, a.py0 + 2, a.px1 - 2, a.py1 - 2});
    int rc = RL_OK;
    for (size_t i = 0; i < out->n_lines && !rc; i++) {
        const struct rl_chart_line *L = &out->lines[i];
        rc = rl_placer_add_line(&pl, (struct rl_segment){to_px(&a, L->x0), to_py(&a, L->y0),
                                                         to_px(&a, L->x1), to_py(&a, L->y1)});
    }
    /* Ridge points: each compute line against the DRAM roof of its own
     * origin (measured with measured), else the first DRAM roof. */
    for (size_t i = 0; i < out->n_lines && !rc && !isnan(b_dram); i++) {
        const struct rl_chart_line *L = &out->lines[i];
        if (L->memory)
            continue;
        double bw = b_dram;
        for (size_t m = 0; m < c->n_memory; m++)
            if (c->memory[m].level == RL_MEM_DRAM && c->memory[m].origin == L->origin)
                bw = c->memory[m].bandwidth_gbs;
        /* Two roofs of one value (B200's FP8 and FP6) meet the same
         * bandwidth at one ridge: one diamond, one value. */
        bool seen = false;
        for (size_t k = 0; k < out->n_ridges; k++)
            seen |= fabs(out->ridges[k].flops_per_s / (L->value * 1e12) - 1) < 1e-9 &&
                    fabs(out->ridges[k].ai_flop_per_byte / (L->value * 1e3 / bw) - 1) < 1e-9;
        if (seen)
            continue;
        struct rl_chart_ridge *r = &out->ridges[out->n_ridges++];
        r->ai_flop_per_byte = L->value * 1e3 / bw;
        r->flops_per_s = L->value * 1e12;
        /* Three digits, thousands as k (1.18k, never 1.18e+03). */
        if (r->ai_flop_per_byte >= 999.5)
            snprintf(r->text, sizeof r->text, "%sk", rl_num(r->ai_flop_per_byte / 1e3, 3));
        else
            snprintf(r->text, sizeof r->text, "%s", rl_num(r->ai_flop_per_byte, 3));
        double px = to_px(&a, r->ai_flop_per_byte), py = to_py(&a, r->flops_per_s);
        /* The diamond as drawn, 17.5 units tip to tip (pt 12, ps 1.1): a
         * square within it and a bar along each diagonal. */
        rc = rl_placer_add_box(&pl, (struct rl_box){px - 6, py - 6, px + 6, py + 6});
        if (!rc)
            rc = rl_placer_add_box(&pl, (struct rl_box){px - 9, py - 3, px + 9, py + 3});
        if (!rc)
            rc = rl_placer_add_box(&pl, (struct rl_box){px - 3, py - 9, px + 3, py + 9});
    }
    /* Kernel markers. Points on one spot (within 3 units) are labelled
     * once, the first in order standing for them with their count. */
    for (size_t i = 0; i < c->n_points && !rc; i++) {
        out->drawn[i] = point_drawable(&c->points[i]);
        if (!out->drawn[i])
            continue;
        double px = to_px(&a, c->points[i].ai_flop_per_byte);
        double py = to_py(&a, c->points[i].tflops * 1e12);
        out->stack[i] = 1;
        for (size_t j = 0; j < i; j++) {
            if (!out->drawn[j] || out->stack[j] == 0)
                continue;
            double qx = to_px(&a, c->points[j].ai_flop_per_byte);
            double qy = to_py(&a, c->points[j].tflops * 1e12);
            if (fabs(qx - px) < 3 && fabs(qy - py) < 3) {
                out->stack[j]++;
                out->stack[i] = 0; /* drawn, but labelled as part of j's stack */
                break;
            }
        }
        if (out->stack[i] == 0)
            continue;
        double s = 6 * (c->points[i].size > 0 ? c->points[i].size : 1);
        rc = rl_placer_add_box(&pl, (struct rl_box){px - s, py - s, px + s, py + s});
    }
    /* The hierarchical view's joins (a point to its L2, L1 and link
     * intensities at the same rate) and their markers: lines and boxes to
     * avoid. */
    for (size_t i = 0; i < c->n_points && !rc; i++) {
        if (!out->drawn[i])
            continue;
        const struct rl_chart_point *p = &c->points[i];
        const double lv[3] = {p->ai_l2_flop_per_byte, p->ai_l1_flop_per_byte,
                              p->ai_link_flop_per_byte};
        double px = to_px(&a, p->ai_flop_per_byte), py = to_py(&a, p->tflops * 1e12);
        for (int k = 0; k < 3 && !rc; k++) {
            if (!(lv[k] > 0) || !isfinite(lv[k]))
                continue;
            double qx = to_px(&a, lv[k]);
            rc = rl_placer_add_line(&pl, (struct rl_segment){px, py, qx, py});
            if (!rc)
                rc = rl_placer_add_box(&pl, (struct rl_box){qx - 5, py - 5, qx + 5, py + 5});
        }
    }
    /* Measured curves: their segments are lines to avoid, their points
     * (small squares) boxes. */
    for (size_t s = 0; s < c->n_series && !rc; s++)
        for (size_t i = 0; i < c->series[s].n && !rc; i++) {
            double ai = c->series[s].ai_flop_per_byte[i], tf = c->series[s].tflops[i];
            if (!(ai > 0) || !(tf > 0) || isinf(ai) || isinf(tf))
                continue;
            double qx = to_px(&a, ai), qy = to_py(&a, tf * 1e12);
            rc = rl_placer_add_box(&pl, (struct rl_box){qx - 4, qy - 4, qx + 4, qy + 4});
        }
    for (size_t s = 0; s < c->n_series && !rc; s++)
        for (size_t i = 0; i + 1 < c->series[s].n && !rc; i++) {
            const struct rl_chart_series *S = &c->series[s];
            rc = rl_placer_add_line(&pl, (struct rl_segment){
                to_px(&a, S->ai_flop_per_byte[i]), to_py(&a, S->tflops[i] * 1e12),
                to_px(&a, S->ai_flop_per_byte[i + 1]), to_py(&a, S->tflops[i + 1] * 1e12)});
        }
    pl.n_marks = pl.n_boxes; /* the markers; from here on, text */
    /* gnuplot's key, bottom right inside the plot. */
    if (!rc && !out->key_drawn) {
        out->key = (struct rl_box){a.px1 - 64 - (double)key_chars * CHAR_W(FONT_BASE), a.py0 + 4,
                                   a.px1 - 4, a.py0 + 10 + (double)key_rows * TEXT_H(FONT_KEY)};
        rc = rl_placer_add_box(&pl, out->key);
    }
    /* Compute roof labels first (every chart has them), then the memory
     * roofs' and the ridge values, then the kernels' labels around what is
     * left - except a few named kernels, whose names go before the memory
     * roofs' labels (those have a whole line to move along). */
    if (!rc)
        rc = place_compute_labels(out, &pl, &a);
    if (!rc && out->roof_margin_wanted) {
        rl_placer_release(&pl);
        return RL_OK; /* the caller lays out again, labels in the margin */
    }
    bool kernels_first = kernels_first_wanted && few_kernel_labels(c, out);
    out->kernels_first = kernels_first;
    if (!rc && kernels_first)
        rc = place_kernel_labels(c, out, &pl, &a);
    if (!rc)
        rc = place_memory_labels(out, &pl, &a);
    if (!rc)
        rc = place_ridge_values(out, &pl, &a);
    if (!rc && !kernels_first)
        rc = place_kernel_labels(c, out, &pl, &a);
    /* The number key: one line per numbered kernel ("3  gemm<...>"), in
     * the first free block, scanning from the top left (the space above the
     * roofs, where no kernel can be). */
    if (!rc && out->n_key) {
        double dy = TEXT_H(FONT_KEY), w = 0;
        for (size_t k = 0; k < out->n_key; k++) {
            size_t i = out->key_point[k];
            double lw = text_w(out->text[i], FONT_KEY) + 4 * CHAR_W(FONT_KEY);
            w = fmax(w, lw);
        }
        double hgt = dy * (double)out->n_key + 4;
        struct rl_box best = {a.px0 + 8, a.py1 - 8 - hgt, a.px0 + 8 + w, a.py1 - 8};
        double best_cost = INFINITY;
        if (below > 0) {
            /* Under the plot, below the axis title, left aligned. */
            best = (struct rl_box){a.px0 - 40, 6, a.px0 - 40 + w, 6 + hgt};
            best_cost = 0;
        }
        for (double y = a.py1 - 8; y - hgt > a.py0 && best_cost > 0; y -= 8)
            for (double x = a.px0 + 8; x + w < a.px1 && best_cost > 0; x += 12) {
                struct rl_box b = {x, y - hgt, x + w, y};
                double cost = rl_placer_cost(&pl, b);
                if (cost < best_cost)
                    best_cost = cost, best = b;
            }
        if (best_cost > 0)
            out->key_wants_below = hgt + 8; /* no room inside: the caller lays out again */
        out->number_key = best;
        out->number_key_dy = dy;
        out->number_key_x = from_px(&a, best.x0 + 2);
        out->number_key_y = from_py(&a, best.y1 - dy / 2 - 2);
        rc = rl_placer_add_box(&pl, best);
    }
    rl_placer_release(&pl);
    if (rc) {
        rl_chart_layout_release(out);
        return rl_fail(errmsg, rc, "out of memory laying out the chart");
    }
    return RL_OK;
}

/* The better of two layouts where a few kernels are named: their labels
 * placed after the memory roofs' labels, or before them. */
static int layout_best(const struct rl_chart *c, struct rl_chart_layout *out, char *errmsg,
                       double below, bool roof_margin)
{
    int rc = layout_pass(c, out, errmsg, below, roof_margin, false);
    if (rc || out->roof_margin_wanted || out->badness == 0 || !few_kernel_labels(c, out))
        return rc;
    struct rl_chart_layout other;
    rc = layout_pass(c, &other, errmsg, below, roof_margin, true);
    if (rc) {
        rl_chart_layout_release(out);
        return rc;
    }
    if (other.badness < out->badness) {
        rl_chart_layout_release(out);
        *out = other;
    } else {
        rl_chart_layout_release(&other);
    }
    return RL_OK;
}

int rl_chart_layout(const struct rl_chart *c, struct rl_chart_layout *out, char *errmsg)
{
    int rc = layout_best(c, out, errmsg, 0, false);
    if (rc == RL_OK && out->roof_margin_wanted) {
        rl_chart_layout_release(out);
        rc = layout_best(c, out, errmsg, 0, true);
    }
    if (rc == RL_OK && out->key_wants_below > 0) {
        /* The number key found no free room in the plot: the chart grows
         * under it, and the key goes there. */
        double below = out->key_wants_below;
        bool margin = out->roof_margin;
        rl_chart_layout_release(out);
        rc = layout_best(c, out, errmsg, below, margin);
    }
    return rc;
}

void rl_chart_layout_release(struct rl_chart_layout *l)
{
    free(l->lines);
    free(l->ridges);
    free(l->drawn);
    free(l->labelled);
    free(l->labels);
    free(l->label_x);
    free(l->label_y);
    free(l->text);
    free(l->number);
    free(l->stack);
    free(l->key_point);
    memset(l, 0, sizeof *l);
}

/* ---- script ----------------------------------------------------------- */

int rl_chart_format_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return -1;
    if (strcmp(dot, ".svg") == 0)
        return RL_CHART_SVG;
    if (strcmp(dot, ".png") == 0)
        return RL_CHART_PNG;
    if (strcmp(dot, ".pdf") == 0)
        return RL_CHART_PDF;
    return -1;
}

/* Text for a gnuplot double-quoted string: escape backslash and quote;
 * control characters dropped, invalid UTF-8 replaced. */
static void put_quoted(struct rl_strbuf *b, const char *s)
{
    rl_strbuf_append(b, "\"", 1);
    while (*s) {
        size_t len = rl_utf8_char(s);
        if (len == 0) { /* invalid UTF-8: the SVG must stay well-formed XML */
            rl_strbuf_append(b, RL_UTF8_REPLACEMENT, 3);
            s++;
            continue;
        }
        if (*s == '"' || *s == '\\')
            rl_strbuf_append(b, "\\", 1);
        if ((unsigned char)*s >= 32)
            rl_strbuf_append(b, s, len);
        s += len;
    }
    rl_strbuf_append(b, "\"", 1);
}

static const char *dash_of(enum rl_origin o)
{
    return o == RL_ORIGIN_MEASURED ? "dt (10,6)" : o == RL_ORIGIN_ANALYTIC ? "dt (2,4)"
                                                                            : "dt 1";
}

static const char *line_color(const struct rl_chart_line *L)
{
    return L->memory ? memory_colors[L->color % 4] : compute_colors[L->color];
}

static void write_styles(struct rl_strbuf *gp, const struct rl_chart_layout *l)
{
    for (size_t i = 0; i < l->n_lines; i++) {
        const struct rl_chart_line *L = &l->lines[i];
        rl_strbuf_printf(gp, "set style line %zu lc rgb \"%s\" lw %s %s   # %s\n", i + 1,
                         line_color(L), L->memory ? "2.2" : "2", dash_of(L->origin),
                         L->label);
    }
    rl_strbuf_printf(gp, "set style line 90 lc rgb \"#555555\" pt 12 ps 1.1 lw 1.2"
                         "   # ridge points\n");
    rl_strbuf_printf(gp, "set style line 91 lc rgb \"#111111\" pt 7 ps 1.3"
                         "   # measured kernels\n");
    rl_strbuf_printf(gp, "set style line 92 lc rgb \"#111111\" pt 6 ps 1.3 lw 1.5"
                         "   # analytic kernels\n");
}

static void write_labels(struct rl_strbuf *gp, const struct rl_chart *c,
                         const struct rl_chart_layout *l)
{
    int tag = 1;
    for (size_t i = 0; i < l->n_lines; i++) {
        const struct rl_chart_line *L = &l->lines[i];
        if (L->unlabelled)
            continue; /* its value is in another line's label */
        rl_strbuf_printf(gp, "set label %d ", tag++);
        put_quoted(gp, roof_text(L));
        if (L->in_margin) {
            /* Right of the plot, at the line's end: x on the canvas. */
            double x = L->text.box.x0 / l->w;
            rl_strbuf_printf(gp, " at screen %.5f, first %.6g left tc rgb \"%s\" font \",%.1f\""
                                 " noenhanced front\n",
                             x, L->text_y, line_color(L), FONT_ROOF);
            if (L->margin_leader)
                rl_strbuf_printf(gp, "set arrow from first %.6g, first %.6g to screen %.5f, "
                                     "first %.6g nohead lw 0.6 lc rgb \"#888888\" back\n",
                                 l->x_hi, L->y0, x - 1.5 / l->w, L->text_y);
            continue;
        }
        rl_strbuf_printf(gp, " at %.6g,%.6g %s rotate by %.2f tc rgb \"%s\" font \",%.1f\""
                             " noenhanced front\n",
                         L->text_x, L->text_y,
                         L->memory && !(L->leader && L->text.right_aligned) ? "left" : "right",
                         L->angle_deg, line_color(L), FONT_ROOF);
        if (L->leader)
            rl_strbuf_printf(gp, "set arrow from %.6g,%.6g to %.6g,%.6g nohead lw 0.6"
                                 " lc rgb \"#888888\" back\n",
                             L->anchor_x, L->anchor_y, L->text_x, L->text_y);
    }
    for (size_t i = 0; i < l->n_ridges; i++) {
        const struct rl_chart_ridge *r = &l->ridges[i];
        if (!r->text[0])
            continue; /* no free spot: the tables give it */
        rl_strbuf_printf(gp, "set label %d \"%s\" at %.6g,%.6g %s tc rgb \"#555555\""
                             " font \",%.1f\" noenhanced front   # ridge, FLOP/byte\n",
                         tag++, r->text, r->text_x, r->text_y,
                         r->right_aligned ? "right" : "left", FONT_RIDGE);
    }
    for (size_t i = 0; i < c->n_points; i++) {
        if (!l->labelled[i])
            continue;
        const struct rl_chart_point *p = &c->points[i];
        rl_strbuf_printf(gp, "set label %d ", tag++);
        if (l->number[i]) {
            char num[16];
            snprintf(num, sizeof num, "%d", l->number[i]);
            put_quoted(gp, num);
        } else {
            put_quoted(gp, l->text[i]);
        }
        rl_strbuf_printf(gp, " at %.6g,%.6g %s font \",%.1f\" noenhanced front\n",
                         l->label_x[i], l->label_y[i],
                         l->labels[i].right_aligned ? "right" : "left", FONT_POINT);
        if (l->labels[i].leader)
            rl_strbuf_printf(gp, "set arrow from %.6g,%.6g to %.6g,%.6g nohead lw 0.6"
                                 " lc rgb \"#888888\" back\n",
                             p->ai_flop_per_byte, p->tflops * 1e12, l->label_x[i],
                             l->label_y[i]);
    }
}

/* The key drawn in the margin (gnuplot's is off): per entry a sample as
 * the plot draws it (a line, a point or both) and its title. */
static void write_margin_key(struct rl_strbuf *gp, const struct rl_chart *c,
                             const struct rl_chart_layout *l)
{
    struct key_entry *ke = rl_malloc((KEY_MAX + c->n_series) * sizeof *ke);
    if (!ke) {
        gp->oom = true;
        return;
    }
    size_t n = key_entries(c, l->lines, l->n_lines, l->stack, ke);
    double dy = TEXT_H(FONT_KEY), x0 = l->key.x0 / l->w;
    double x1 = (l->key.x0 + KEY_SAMPLE_W) / l->w, xm = (x0 + x1) / 2;
    for (size_t k = 0; k < n; k++) {
        double y = (l->key.y1 - ((double)k + 0.5) * dy) / l->h;
        const struct key_entry *e = &ke[k];
        const char *line = NULL, *point = NULL;
        char line_buf[96], point_buf[96];
        switch (e->kind) {
        case KEY_RIDGE:
            point = "pt 12 ps 1.1*pt_scale lc rgb \"#555555\"";
            break;
        case KEY_SERIES: {
            const struct rl_chart_series *S = &c->series[e->which];
            const char *color = compute_colors[chart_color(c, S->roof)];
            snprintf(line_buf, sizeof line_buf, "lc rgb \"%s\" lw 1.5", color);
            snprintf(point_buf, sizeof point_buf, "pt 5 ps 0.6*pt_scale lc rgb \"%s\"", color);
            line = line_buf, point = point_buf;
            break;
        }
        case KEY_ORIGIN:
            /* A grey a shade apart per origin: gnuplot's SVG writer joins
             * consecutive arrows of one colour into one path, dropping all
             * dash patterns but the first. */
            snprintf(line_buf, sizeof line_buf, "lc rgb \"#%02x%02x%02x\" lw 2 %s",
                     0x33 + e->which, 0x33 + e->which, 0x33 + e->which,
                     dash_of((enum rl_origin)e->which));
            line = line_buf;
            break;
        case KEY_LEVEL:
            snprintf(point_buf, sizeof point_buf, "pt %d ps 0.7*pt_scale lc rgb \"#555555\"",
                     level_pt[e->which]);
            point = point_buf;
            break;
        case KEY_KERNEL_MEASURED:
            point = "pt 7 ps 1.3*pt_scale lc rgb \"#111111\"";
            break;
        case KEY_KERNEL_ANALYTIC:
            point = "pt 6 ps 1.3*pt_scale lc rgb \"#111111\"";
            break;
        case KEY_NOTE: /* words only */
            break;
        }
        if (line)
            rl_strbuf_printf(gp, "set arrow from screen %.5f, screen %.5f to screen %.5f, "
                                 "screen %.5f nohead %s front   # key\n",
                             x0, y, x1, y, line);
        if (point)
            rl_strbuf_printf(gp, "set label \"\" at screen %.5f, screen %.5f point %s front"
                                 "   # key\n", xm, y, point);
        rl_strbuf_printf(gp, "set label ");
        put_quoted(gp, e->title);
        rl_strbuf_printf(gp, " at screen %.5f, screen %.5f left font \",%.1f\" noenhanced front"
                             "   # key\n",
                         (l->key.x0 + KEY_SAMPLE_W + 6) / l->w, y, FONT_KEY);
    }
    free(ke);
}

/* The number key: "3  gemm<...>", one line per numbered kernel. */
static void write_number_key(struct rl_strbuf *gp, const struct rl_chart_layout *l)
{
    /* In screen coordinates: the key may sit under the plot. */
    double x = (l->number_key.x0 + 2) / l->w, y0 = l->number_key.y1 - l->number_key_dy / 2 - 2;
    size_t row = 0;
    for (size_t k = 0; k < l->n_key; k++) {
        char line[160];
        snprintf(line, sizeof line, "%zu  %s", k + 1, l->text[l->key_point[k]]);
        rl_strbuf_printf(gp, "set label ");
        put_quoted(gp, line);
        rl_strbuf_printf(gp, " at screen %.5f,%.5f left font \",%.1f\" noenhanced front"
                             "   # number key\n",
                         x, (y0 - (double)row++ * l->number_key_dy) / l->h, FONT_KEY);
    }
}

static void write_roofs_dat(struct rl_strbuf *d, const struct rl_chart_layout *l)
{
    rl_strbuf_printf(d, "# roofline ceilings, one block per line (gnuplot 'index N'),\n"
                        "# then the ridge points. Columns: arithmetic intensity "
                        "(FLOP/byte), performance (FLOP/s).\n");
    for (size_t i = 0; i < l->n_lines; i++) {
        const struct rl_chart_line *L = &l->lines[i];
        rl_strbuf_printf(d, "%s# index %zu: %s [%s]\n%.8g %.8g\n%.8g %.8g\n",
                         i ? "\n\n" : "", i, L->label, rl_origin_name(L->origin), L->x0,
                         L->y0, L->x1, L->y1);
    }
    rl_strbuf_printf(d, "\n\n# index %zu: ridge points (compute roof / %s roof)\n",
                     l->n_lines, "DRAM");
    for (size_t i = 0; i < l->n_ridges; i++)
        rl_strbuf_printf(d, "%.8g %.8g\n", l->ridges[i].ai_flop_per_byte,
                         l->ridges[i].flops_per_s);
    if (l->n_ridges == 0)
        rl_strbuf_printf(d, "NaN NaN\n");
}

static void write_series_dat(struct rl_strbuf *d, const struct rl_chart *c,
                             const struct rl_chart_layout *l)
{
    for (size_t s = 0; s < c->n_series; s++) {
        const struct rl_chart_series *S = &c->series[s];
        rl_strbuf_printf(d, "\n\n# index %zu: %s [measured]\n", l->n_lines + 1 + s,
                         S->title ? S->title : "series");
        size_t drawn = 0;
        for (size_t i = 0; i < S->n; i++)
            if (S->ai_flop_per_byte[i] > 0 && S->tflops[i] > 0) {
                rl_strbuf_printf(d, "%.8g %.8g\n", S->ai_flop_per_byte[i], S->tflops[i] * 1e12);
                drawn++;
            }
        if (!drawn)
            rl_strbuf_printf(d, "NaN NaN\n");
    }
}

static void write_kernels_dat(struct rl_strbuf *d, const struct rl_chart *c,
                              const struct rl_chart_layout *l)
{
    rl_strbuf_printf(d, "# kernels: arithmetic intensity (FLOP/byte), performance "
                        "(FLOP/s), origin, marker scale, name, L2 and L1 intensities, "
                        "FLOP per byte communicated (NaN: not measured)\n");
    size_t n = 0;
    for (size_t i = 0; i < c->n_points; i++) {
        const struct rl_chart_point *p = &c->points[i];
        if (!l->drawn[i])
            continue;
        rl_strbuf_printf(d, "%.8g %.8g %s %.3g \"", p->ai_flop_per_byte, p->tflops * 1e12,
                         rl_origin_name(p->origin), p->size > 0 ? p->size : 1.0);
        /* The full name (the chart shows the short one). */
        for (const char *s = p->name ? p->name : p->label ? p->label : ""; *s;) {
            size_t n = rl_utf8_char(s);
            if (n == 0)
                rl_strbuf_append(d, RL_UTF8_REPLACEMENT, 3);
            else if (*s != '"' && (unsigned char)*s >= 32)
                rl_strbuf_append(d, s, n);
            s += n ? n : 1;
        }
        const double lv[3] = {p->ai_l2_flop_per_byte, p->ai_l1_flop_per_byte,
                              p->ai_link_flop_per_byte};
        rl_strbuf_printf(d, "\"");
        for (int k = 0; k < 3; k++)
            rl_strbuf_printf(d, lv[k] > 0 && isfinite(lv[k]) ? " %.8g" : " NaN", lv[k]);
        rl_strbuf_printf(d, "\n");
        n++;
    }
    if (n == 0)
        rl_strbuf_printf(d, "NaN NaN none 1 \"\" NaN NaN NaN\n");
}

static void write_plot(struct rl_strbuf *gp, const struct rl_chart *c,
                       const struct rl_chart_layout *l, const char *base)
{
    bool origins[3] = {false, false, false}, kinds[3] = {false, false, false};
    for (size_t i = 0; i < l->n_lines; i++)
        origins[l->lines[i].origin] = true;
    for (size_t i = 0; i < c->n_points; i++)
        if (l->drawn[i])
            kinds[c->points[i].origin] = true;
    for (size_t i = 0; i < l->n_lines; i++)
        rl_strbuf_printf(gp, "  \"%s.roofs.dat\" index %zu using 1:2 with lines ls %zu "
                             "notitle, \\\n", base, i, i + 1);
    rl_strbuf_printf(gp, "  \"%s.roofs.dat\" index %zu using 1:2 with points ls 90 "
                         "title \"ridge point (FLOP/byte)\", \\\n", base, l->n_lines);
    for (size_t s = 0; s < c->n_series; s++) {
        rl_strbuf_printf(gp, "  \"%s.roofs.dat\" index %zu using 1:2 with linespoints lc rgb "
                             "\"%s\" lw 1.5 pt 5 ps 0.6 title ", base, l->n_lines + 1 + s,
                         compute_colors[chart_color(c, c->series[s].roof)]);
        put_quoted(gp, c->series[s].title ? c->series[s].title : "measured");
        rl_strbuf_printf(gp, " noenhanced, \\\n");
    }
    for (int o = 0; o < 3; o++)
        if (origins[o])
            rl_strbuf_printf(gp, "  NaN with lines lc rgb \"#333333\" lw 2 %s title \"%s\", \\\n",
                             dash_of((enum rl_origin)o), origin_title[o]);
    bool levels[3] = {false, false, false};
    for (size_t i = 0; i < c->n_points; i++)
        if (l->drawn[i]) {
            levels[0] |= c->points[i].ai_l2_flop_per_byte > 0;
            levels[1] |= c->points[i].ai_l1_flop_per_byte > 0;
            levels[2] |= c->points[i].ai_link_flop_per_byte > 0 &&
                         isfinite(c->points[i].ai_link_flop_per_byte);
        }
    /* Hierarchical view: each kernel's L2 and L1 intensities at its rate,
     * joined to its DRAM point. */
    for (int k = 0; k < 3; k++)
        if (levels[k]) {
            rl_strbuf_printf(gp, "  \"%s.kernels.dat\" using 1:2:($%d-$1):(0) with vectors "
                                 "nohead lc rgb \"#aaaaaa\" lw 0.8 notitle, \\\n",
                             base, 6 + k);
            rl_strbuf_printf(gp, "  \"%s.kernels.dat\" using %d:2 with points pt %d ps 0.7 "
                                 "lc rgb \"#555555\" title \"%s\", \\\n",
                             base, 6 + k, level_pt[k], level_title[k]);
        }
    /* The kernels' titles and the notes on them: the key's entries (one
     * source for this key and the margin's). */
    struct key_entry *ke = rl_malloc((KEY_MAX + c->n_series) * sizeof *ke);
    if (!ke) {
        gp->oom = true;
        return;
    }
    size_t n_ke = key_entries(c, l->lines, l->n_lines, l->stack, ke);
    for (size_t k = 0; k < n_ke; k++) {
        if (ke[k].kind == KEY_KERNEL_MEASURED && kinds[RL_ORIGIN_MEASURED])
            rl_strbuf_printf(gp, "  \"%s.kernels.dat\" using 1:(strcol(3) eq \"measured\" ? $2 : "
                                 "NaN):($4*1.3) with points ls 91 ps variable title \"%s\", \\\n",
                             base, ke[k].title);
        else if (ke[k].kind == KEY_KERNEL_ANALYTIC)
            rl_strbuf_printf(gp, "  \"%s.kernels.dat\" using 1:(strcol(3) ne \"measured\" ? $2 : "
                                 "NaN):($4*1.3) with points ls 92 ps variable title \"%s\", \\\n",
                             base, ke[k].title);
        else if (ke[k].kind == KEY_NOTE) /* words only: a sample of nothing */
            rl_strbuf_printf(gp, "  NaN with dots lc rgb \"white\" title \"%s\", \\\n",
                             ke[k].title);
    }
    free(ke);
    /* End the continued command. */
    rl_strbuf_printf(gp, "  NaN notitle\n");
}

/* Replace @NAME@ placeholders of the template. */
struct subst {
    const char *name;
    const char *value;
};

static int fill_template(struct rl_strbuf *out, const struct subst *s, size_t n,
                         char *errmsg)
{
    const char *t = rl__plot_template;
    while (*t) {
        const char *at = strchr(t, '@');
        if (!at) {
            rl_strbuf_append(out, t, strlen(t));
            break;
        }
        rl_strbuf_append(out, t, (size_t)(at - t));
        const char *end = strchr(at + 1, '@');
        size_t k = 0;
        if (end)
            for (; k < n; k++)
                if (strlen(s[k].name) == (size_t)(end - at - 1) &&
                    strncmp(s[k].name, at + 1, (size_t)(end - at - 1)) == 0)
                    break;
        if (!end || k == n)
            return rl_fail(errmsg, RL_EINVAL, "plot template: unknown placeholder at '%.20s'",
                           at);
        rl_strbuf_append(out, s[k].value, strlen(s[k].value));
        t = end + 1;
    }
    return RL_OK;
}

int rl_chart_size_parse(const char *text, double *w, double *h)
{
    if (strcmp(text, "double") == 0) {
        *w = RL_CHART_DOUBLE_W, *h = RL_CHART_DOUBLE_H;
        return 0;
    }
    if (strcmp(text, "single") == 0) {
        *w = RL_CHART_SINGLE_W, *h = RL_CHART_SINGLE_H;
        return 0;
    }
    char *end;
    double a = strtod(text, &end);
    if (end == text || (*end != 'x' && *end != 'X'))
        return -1;
    const char *p = end + 1;
    double b = strtod(p, &end);
    if (end == p || *end || !(a >= 320 && a <= 4000) || !(b >= 240 && b <= 4000))
        return -1;
    *w = a, *h = b;
    return 0;
}

/* The gnuplot terminals of the three formats (buffers of 160, 200, 160):
 * the same look in each - the PNG twice the SVG's pixels, the PDF 128
 * layout units to the inch (7 in for a two-column figure). */
static void terminals(const struct rl_chart_layout *l, char *svg, char *png, char *pdf)
{
    snprintf(svg, 160, "svg size %.0f,%.0f dynamic font \"Helvetica,%.0f\" background rgb \"white\"",
             l->w, l->h, FONT_BASE);
    snprintf(png, 200,
             "pngcairo size %.0f,%.0f font \"Helvetica,%.0f\" fontscale 1.5 linewidth 2 "
             "background rgb \"white\"", l->w * 2, l->h * 2, FONT_BASE);
    snprintf(pdf, 160,
             "pdfcairo size %.3fin,%.3fin font \"Helvetica,%.0f\" fontscale 0.392 linewidth 1",
             l->w / 128, l->h / 128, FONT_BASE);
}

/* A decade's tick label, written out so gnuplot never prints "1e+06":
 * 0.01, 0.1, 1, 10, 100, 1k, 10k, 100k, 1M, ... */
static void decade_text(char *text, size_t n, int e)
{
    static const char *const big[] = {"", "k", "M", "G", "T"};
    if (e < 0)
        snprintf(text, n, "%.*f", -e, pow(10, e));
    else if (e / 3 < (int)(sizeof big / sizeof big[0]))
        snprintf(text, n, "%d%s", (int)pow(10, e % 3), big[e / 3]);
    else
        snprintf(text, n, "1e%d", e);
}

/* The x axis's ticks, one per decade in [lo, hi] over plot_w layout units;
 * where a decade is narrower than its labels, every second (third, ...)
 * decade is labelled and the others get a bare tick. */
static void write_xtics(char *buf, size_t n, double lo, double hi, double plot_w)
{
    int e_lo = (int)floor(log10(lo) - 1e-9), e_hi = (int)ceil(log10(hi) + 1e-9);
    double widest = 0;
    char text[16];
    for (int e = e_lo; e <= e_hi; e++) {
        decade_text(text, sizeof text, e);
        widest = fmax(widest, text_w(text, FONT_BASE));
    }
    double per_decade = plot_w / fmax(log10(hi) - log10(lo), 1e-9);
    int stride = 1;
    while (stride < 6 && per_decade * stride < widest + 8)
        stride++;
    size_t used = (size_t)snprintf(buf, n, "set xtics (");
    bool first = true;
    for (int e = e_lo; e <= e_hi; e++) {
        double v = pow(10, e);
        if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9) || used >= n)
            continue;
        decade_text(text, sizeof text, e);
        if (((e % stride) + stride) % stride != 0)
            text[0] = '\0';
        used += (size_t)snprintf(buf + used, n - used, "%s\"%s\" %.0e", first ? "" : ", ",
                                 text, v);
        first = false;
    }
    if (used < n)
        snprintf(buf + used, n - used, ")");
}

int rl_chart_script(const struct rl_chart *c, const struct rl_chart_layout *l,
                    enum rl_chart_format fmt, const char *base,
                    struct rl_strbuf *gp, struct rl_strbuf *roofs_dat,
                    struct rl_strbuf *kernels_dat, char *errmsg)
{
    static const char *const ext[] = {"svg", "png", "pdf"};
    char term_svg[160], term_png[200], term_pdf[160];
    char outfile[1024], num[8][32], key[160], title_font[16], xtics[400];
    terminals(l, term_svg, term_png, term_pdf);
    snprintf(outfile, sizeof outfile, "%s.%s", base, ext[fmt]);
    snprintf(num[0], sizeof num[0], "%.6g", l->x_lo);
    snprintf(num[1], sizeof num[1], "%.6g", l->x_hi);
    snprintf(num[2], sizeof num[2], "%.6g", l->y_lo);
    snprintf(num[3], sizeof num[3], "%.6g", l->y_hi);
    snprintf(num[4], sizeof num[4], "%.4f", l->margin_l / l->w);
    snprintf(num[5], sizeof num[5], "%.4f", 1 - l->margin_r / l->w);
    snprintf(num[6], sizeof num[6], "%.4f", (MARGIN_B + l->key_below + l->legend_below) / l->h);
    snprintf(num[7], sizeof num[7], "%.4f", 1 - l->margin_t / l->h);
    snprintf(title_font, sizeof title_font, "%.0f", FONT_TITLE);
    write_xtics(xtics, sizeof xtics, l->x_lo, l->x_hi, l->w - l->margin_l - l->margin_r);
    if (l->key_drawn)
        snprintf(key, sizeof key, "off   # drawn in the right margin, below");
    else
        snprintf(key, sizeof key,
                 "at graph 0.995,0.01 right bottom opaque box lw 0.5 lc rgb \"#999999\" "
                 "samplen 2.5 spacing 1.0 font \",%.1f\"", FONT_KEY);

    struct rl_strbuf styles = {0}, labels = {0}, plot = {0};
    write_styles(&styles, l);
    write_labels(&labels, c, l);
    write_number_key(&labels, l);
    if (l->key_drawn)
        write_margin_key(&labels, c, l);
    write_plot(&plot, c, l, base);
    /* The title goes into a double-quoted string: its line break as \n. */
    char title[300];
    size_t tn = 0;
    for (const char *t = l->title; *t && tn + 3 < sizeof title; t++) {
        if (*t == '\n')
            title[tn++] = '\\', title[tn++] = 'n';
        else
            title[tn++] = *t;
    }
    title[tn] = '\0';
    char title_text[256];
    snprintf(title_text, sizeof title_text, "%s", l->title);
    for (char *nl = strchr(title_text, '\n'); nl; nl = strchr(nl, '\n'))
        *nl = ' ';
    struct subst subs[] = {
        {"TITLE", title},     {"TITLE_TEXT", title_text},
        {"YFORMAT", l->margin_l < MARGIN_L ? "%.0s%c" : "%.0s %cFLOP/s"},
        {"VERSION", ROOFLINE_VERSION},
        {"BASE", base},       {"OUTFILE", outfile},
        {"TERM_SVG", term_svg}, {"TERM_PNG", term_png},
        {"TERM_PDF", term_pdf}, {"XMIN", num[0]},
        {"XMAX", num[1]},     {"YMIN", num[2]},
        {"YMAX", num[3]},     {"LMARGIN", num[4]},
        {"RMARGIN", num[5]},  {"BMARGIN", num[6]},
        {"TMARGIN", num[7]},  {"TITLE_FONT", title_font},
        {"KEY", key},         {"XTICS", xtics},
        {"STYLES", styles.s ? styles.s : ""},
        {"LABELS", labels.s ? labels.s : ""}, {"PLOT", plot.s ? plot.s : ""},
    };
    int rc = fill_template(gp, subs, sizeof subs / sizeof subs[0], errmsg);
    bool oom = styles.oom || labels.oom || plot.oom;
    rl_strbuf_release(&styles);
    rl_strbuf_release(&labels);
    rl_strbuf_release(&plot);
    if (rc)
        return rc;
    write_roofs_dat(roofs_dat, l);
    write_series_dat(roofs_dat, c, l);
    write_kernels_dat(kernels_dat, c, l);
    if (oom || gp->oom || roofs_dat->oom || kernels_dat->oom)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory writing the chart script");
    return RL_OK;
}

/* ---- rendering -------------------------------------------------------- */

/* What gnuplot printed as its image (its standard output) and on stderr. */
struct gnuplot_out {
    FILE *image;              /* the image's bytes go here (the file layer) */
    unsigned char tail[64];   /* the image's last bytes */
    size_t tail_len, bytes;
    char err[2048];           /* gnuplot's stderr, its first 2 KiB */
    size_t err_len;
};

static void take_image(struct gnuplot_out *o, const char *buf, size_t n)
{
    if (!ferror(o->image)) /* a full disk: drain the rest, said after */
        fwrite(buf, 1, n, o->image);
    o->bytes += n;
    size_t keep = n < sizeof o->tail ? n : sizeof o->tail;
    size_t old = o->tail_len + keep > sizeof o->tail ? sizeof o->tail - keep : o->tail_len;
    memmove(o->tail, o->tail + o->tail_len - old, old);
    memcpy(o->tail + old, buf + n - keep, keep);
    o->tail_len = old + keep;
}

/* Read gnuplot's two pipes to their ends (poll: neither fills and blocks it). */
static void drain(int out_fd, int err_fd, struct gnuplot_out *o)
{
    struct pollfd pf[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    while (pf[0].fd >= 0 || pf[1].fd >= 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            char buf[1 << 16];
            ssize_t n = read(pf[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                pf[i].fd = -1;
                continue;
            }
            if (i == 0) {
                take_image(o, buf, (size_t)n);
            } else if (o->err_len + 1 < sizeof o->err) {
                size_t k = (size_t)n < sizeof o->err - 1 - o->err_len
                               ? (size_t)n
                               : sizeof o->err - 1 - o->err_len;
                memcpy(o->err + o->err_len, buf, k);
                o->err_len += k;
            }
        }
    }
    o->err[o->err_len] = '\0';
}

/* Run gnuplot in dir on script with outfile set (a link to its standard
 * output: the image comes through a pipe into o->image, written through the
 * file layer); errors from its stderr. */
static int run_gnuplot(const char *dir, const char *script, const char *outfile,
                       struct gnuplot_out *o, char *errmsg)
{
    const char *gnuplot = getenv("ROOFLINE_GNUPLOT");
    if (!gnuplot || !*gnuplot)
        gnuplot = "gnuplot";
    char expr[1200];
    /* outfile goes into a single-quoted gnuplot string: '' escapes a quote. */
    size_t n = (size_t)snprintf(expr, sizeof expr, "outfile='");
    for (const char *s = outfile; *s && n + 4 < sizeof expr; s++) {
        if (*s == '\'')
            expr[n++] = '\'';
        expr[n++] = *s;
    }
    snprintf(expr + n, sizeof expr - n, "'");

    int errpipe[2], outpipe[2];
    if (pipe(errpipe) != 0)
        return rl_fail(errmsg, RL_ECHILD, "cannot run gnuplot: %s", strerror(errno));
    if (pipe(outpipe) != 0) {
        int e = errno;
        close(errpipe[0]);
        close(errpipe[1]);
        return rl_fail(errmsg, RL_ECHILD, "cannot run gnuplot: %s", strerror(e));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(errpipe[0]);
        close(errpipe[1]);
        close(outpipe[0]);
        close(outpipe[1]);
        return rl_fail(errmsg, RL_ECHILD, "cannot run gnuplot: %s", strerror(e));
    }
    if (pid == 0) {
        dup2(errpipe[1], STDERR_FILENO);
        dup2(outpipe[1], STDOUT_FILENO);
        close(errpipe[0]);
        close(errpipe[1]);
        close(outpipe[0]);
        close(outpipe[1]);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        if (chdir(dir) != 0)
            _exit(126);
        execlp(gnuplot, gnuplot, "-e", expr, script, (char *)NULL);
        _exit(127);
    }
    close(errpipe[1]);
    close(outpipe[1]);
    drain(outpipe[0], errpipe[0], o);
    close(outpipe[0]);
    close(errpipe[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return rl_fail(errmsg, RL_ENOTOOL,
                       "gnuplot not found ('%s'): install it (apt-get install "
                       "gnuplot-nox) or set ROOFLINE_GNUPLOT; the script was written "
                       "to '%s/%s'", gnuplot, dir, script);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* The last non-empty line of gnuplot's stderr says what went wrong. */
        char *last = NULL;
        for (char *tok = strtok(o->err, "\n"); tok; tok = strtok(NULL, "\n"))
            if (tok[strspn(tok, " \t^")])
                last = tok;
        return rl_fail(errmsg, RL_ECHILD, "gnuplot failed on '%s/%s': %s", dir, script,
                       last ? last + strspn(last, " \t") : "no message");
    }
    return RL_OK;
}

/* Folder and base name (no extension) of an image path. */
static int split_path(const char *out_path, char *dir, size_t dir_size, char *base,
                      size_t base_size, char *errmsg)
{
    if (rl_chart_format_from_path(out_path) < 0)
        return rl_fail(errmsg, RL_EINVAL,
                       "cannot tell the image format of '%s': use .svg, .png or .pdf",
                       out_path);
    const char *slash = strrchr(out_path, '/');
    if (slash)
        snprintf(dir, dir_size, "%.*s", (int)(slash - out_path), out_path);
    else
        snprintf(dir, dir_size, ".");
    if (!dir[0])
        snprintf(dir, dir_size, "/");
    const char *file = slash ? slash + 1 : out_path;
    snprintf(base, base_size, "%.*s", (int)(strrchr(file, '.') - file), file);
    if (!base[0])
        return rl_fail(errmsg, RL_EINVAL, "'%s' has no file name", out_path);
    return RL_OK;
}

/* Whether gnuplot's image is whole: its format's last bytes are there
 * (gnuplot exits 0 with a cut image when it cannot write it). */
static bool image_complete(const struct gnuplot_out *o, int format)
{
    static const unsigned char png_end[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60,
                                            0x82};
    size_t len = o->tail_len;
    while (len > 0 && (o->tail[len - 1] == '\n' || o->tail[len - 1] == '\r' ||
                       o->tail[len - 1] == ' '))
        len--;
    if (format == RL_CHART_PNG)
        return o->tail_len >= sizeof png_end &&
               memcmp(o->tail + o->tail_len - sizeof png_end, png_end, sizeof png_end) == 0;
    if (format == RL_CHART_PDF)
        return len >= 5 && memcmp(o->tail + len - 5, "%%EOF", 5) == 0;
    return len >= 6 && memcmp(o->tail + len - 6, "</svg>", 6) == 0;
}

/* Write dir/base.gp and its data files atomically, then draw out_path with
 * gnuplot: it writes the image to a link to its standard output, and the
 * bytes reach out_path through an atomic file of the file layer (a full
 * disk is said as such; nothing half-written stays). */
static int render_files(const char *out_path, const char *dir, const char *base,
                        const struct rl_strbuf *gp, const char *const *dat_ext,
                        const struct rl_strbuf *dats, size_t n_dat, char *errmsg)
{
    char path[2400], link_name[600];
    int rc = RL_OK;
    for (size_t i = 0; i < n_dat && rc == RL_OK; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, base, dat_ext[i]);
        rc = rl_file_write_atomic(path, dats[i].s ? dats[i].s : "", dats[i].len, errmsg);
    }
    if (rc == RL_OK) {
        snprintf(path, sizeof path, "%s/%s.gp", dir, base);
        rc = rl_file_write_atomic(path, gp->s, gp->len, errmsg);
    }
    if (rc)
        return rc;
    /* The link's name keeps the extension: the script picks its terminal
     * from it. */
    const char *slash = strrchr(out_path, '/');
    const char *file = slash ? slash + 1 : out_path;
    snprintf(link_name, sizeof link_name, ".%s.tmp.%ld%s", base, (long)getpid(),
             strrchr(file, '.'));
    snprintf(path, sizeof path, "%s/%s", dir, link_name);
    unlink(path);
    if (symlink("/dev/stdout", path) != 0)
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", out_path, strerror(errno));
    static struct gnuplot_out o; /* 2 KiB of stderr: not on the stack */
    memset(&o, 0, sizeof o);
    struct rl_atomic_file img;
    rc = rl_atomic_open(&img, out_path, errmsg);
    if (rc == RL_OK) {
        char script[600];
        snprintf(script, sizeof script, "%s.gp", base);
        o.image = img.fp;
        rc = run_gnuplot(dir, script, link_name, &o, errmsg);
        if (rc == RL_OK && ferror(img.fp))
            rc = rl_atomic_fail(&img, errmsg); /* cannot write 'out_path': <why> */
        else if (rc == RL_OK && !image_complete(&o, rl_chart_format_from_path(out_path)))
            rc = rl_fail(errmsg, RL_ECHILD, "gnuplot wrote no whole image for '%s' (%zu bytes)",
                         out_path, o.bytes);
        if (rc == RL_OK)
            rc = rl_atomic_commit(&img, errmsg);
        else
            rl_atomic_abort(&img);
    }
    unlink(path);
    return rc;
}

int rl_chart_render(const struct rl_chart *c, const char *out_path, char *errmsg)
{
    char dir[1024], base[512];
    int rc = split_path(out_path, dir, sizeof dir, base, sizeof base, errmsg);
    if (rc)
        return rc;
    struct rl_chart_layout l;
    if ((rc = rl_chart_layout(c, &l, errmsg)))
        return rc;
    struct rl_strbuf gp = {0}, dats[2] = {{0}, {0}};
    rc = rl_chart_script(c, &l, (enum rl_chart_format)rl_chart_format_from_path(out_path), base,
                         &gp, &dats[0], &dats[1], errmsg);
    rl_chart_layout_release(&l);
    static const char *const ext[] = {"roofs.dat", "kernels.dat"};
    if (rc == RL_OK)
        rc = render_files(out_path, dir, base, &gp, ext, dats, 2, errmsg);
    rl_strbuf_release(&gp);
    rl_strbuf_release(&dats[0]);
    rl_strbuf_release(&dats[1]);
    return rc;
}

/* ---- line charts ------------------------------------------------------------ */

/* The head of a line or bar chart's script: what wrote it, the output file
 * (outfile, from the command line or the path's name) and its terminal. */
static void script_preamble(struct rl_strbuf *gp, const char *title, const char *base,
                            const char *out_path, const char *data_note)
{
    char term_svg[160], term_png[200], term_pdf[160];
    struct rl_chart_layout size = {.w = RL_CHART_W, .h = RL_CHART_H};
    terminals(&size, term_svg, term_png, term_pdf);
    rl_strbuf_printf(gp, "# %s\n# Written by roofline %s. Edit freely, then redraw with:  "
                         "gnuplot %s.gp\n# Data: %s.dat, %s.\n",
                     title, ROOFLINE_VERSION, base, base, data_note);
    rl_strbuf_printf(gp, "if (!exists(\"outfile\")) outfile = \"%s%s\"\n", base,
                     strrchr(out_path, '.'));
    rl_strbuf_printf(gp, "ext = outfile[strlen(outfile)-2:]\n"
                         "if (ext eq \"pdf\") { set terminal %s } else { if (ext eq \"png\") "
                         "{ set terminal %s } else { set terminal %s } }\n"
                         "set output outfile\nset encoding utf8\n",
                     term_pdf, term_png, term_svg);
}

int rl_xy_chart_render(const struct rl_xy_chart *c, const char *out_path, char *errmsg)
{
    char dir[1024], base[512];
    int rc = split_path(out_path, dir, sizeof dir, base, sizeof base, errmsg);
    if (rc)
        return rc;
    /* Okabe-Ito, as the roofline charts */
    static const char *const colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                         "#E69F00", "#56B4E9", "#000000"};
    struct rl_strbuf gp = {0}, dat = {0};
    script_preamble(&gp, c->title, base, out_path, "one gnuplot 'index' block per series");
    rl_strbuf_printf(&gp, "set title \"%s\" noenhanced\nset xlabel \"%s\" noenhanced\n"
                          "set ylabel \"%s\" noenhanced\n",
                     c->title, c->xlabel, c->ylabel);
    rl_strbuf_printf(&gp, "set grid lc rgb \"#dddddd\"\nset key %s box opaque\n",
                     c->key ? c->key : "top left");
    if (c->logx)
        rl_strbuf_printf(&gp, "set logscale x 2\n");
    if (c->logy)
        rl_strbuf_printf(&gp, "set logscale y 10\n");
    if (c->y2label) {
        rl_strbuf_printf(&gp, "set y2label \"%s\" noenhanced\nset y2tics\nset ytics nomirror\n",
                         c->y2label);
        if (c->logy2)
            rl_strbuf_printf(&gp, "set logscale y2 10\n");
    }
    /* The x axis's span (as gnuplot will draw it: x_min / x_max, else the
     * data's), so a marker's label in its right half reads leftwards and
     * never runs past the frame. */
    double x_lo = INFINITY, x_hi = -INFINITY;
    for (size_t s = 0; s < c->n_series; s++)
        for (size_t i = 0; i < c->series[s].n; i++)
            if (isfinite(c->series[s].x[i]) && isfinite(c->series[s].y[i]))
                x_lo = fmin(x_lo, c->series[s].x[i]), x_hi = fmax(x_hi, c->series[s].x[i]);
    if (c->x_min > 0)
        x_lo = c->x_min;
    if (isfinite(c->shade_from_x) && c->x_max > c->shade_from_x)
        x_hi = c->x_max;
    for (size_t i = 0; i < c->n_vlines; i++) {
        double x = c->vline_x[i];
        double at = c->logx && x_lo > 0 && x > 0 ? log(x / x_lo) / log(x_hi / x_lo)
                                                 : (x - x_lo) / (x_hi - x_lo);
        bool leftwards = isfinite(at) && at > 0.55;
        rl_strbuf_printf(&gp, "set arrow %zu from %.8g, graph 0 to %.8g, graph 1 nohead "
                              "dt (6,4) lc rgb \"#555555\" lw 1.5\n"
                              "set label %zu \"%s\" at %.8g, graph 0.95 %s "
                              "noenhanced\n",
                         i + 1, x, x, i + 1, c->vline_label[i] ? c->vline_label[i] : "", x,
                         leftwards ? "right offset -0.5,0" : "left offset 0.5,0");
    }
    for (size_t i = 0; i < c->n_hlines; i++)
        rl_strbuf_printf(&gp, "set arrow %zu from graph 0, first %.8g to graph 1, first %.8g "
                              "nohead dt (2,3) lc rgb \"#333333\" lw 1.5\n"
                              "set label %zu \"%s\" at graph 0.99, first %.8g right "
                              "offset 0,0.6 tc rgb \"#333333\" noenhanced front\n",
                         c->n_vlines + i + 1, c->hline_y[i], c->hline_y[i],
                         c->n_vlines + i + 1, c->hline_label[i] ? c->hline_label[i] : "",
                         c->hline_y[i]);
    if (c->x_bytes)
        rl_strbuf_printf(&gp, "set xtics (\"1 B\" 1, \"32 B\" 32, \"1 KiB\" 1024, "
                              "\"32 KiB\" 32768, \"1 MiB\" 1048576, \"32 MiB\" 33554432, "
                              "\"1 GiB\" 1073741824, \"32 GiB\" 34359738368)\n");
    if (isfinite(c->shade_from_x) && c->x_max > c->shade_from_x) {
        if (c->x_min > 0)
            rl_strbuf_printf(&gp, "set xrange [%.8g:%.8g]\n", c->x_min, c->x_max);
        else
            rl_strbuf_printf(&gp, "set xrange [*:%.8g]\n", c->x_max);
        rl_strbuf_printf(&gp, "set object 1 rect from %.8g, graph 0 to %.8g, graph 1 behind "
                              "fc rgb \"#e8e8e8\" fs solid 1.0 noborder\n",
                         c->shade_from_x, c->x_max);
        for (size_t i = 0; i < c->n_shade_labels; i++)
            rl_strbuf_printf(&gp, "set label %zu \"%s\" at graph 0.98, graph %.3g right "
                                  "noenhanced\n",
                             c->n_vlines + c->n_hlines + i + 1, c->shade_labels[i],
                             c->shade_labels_low ? 0.05 + 0.06 * (double)(c->n_shade_labels - 1 - i)
                                                 : 0.85 - 0.06 * (double)i);
    }
    rl_strbuf_printf(&gp, "plot \\\n");
    for (size_t s = 0; s < c->n_series; s++) {
        const struct rl_xy_series *S = &c->series[s];
        rl_strbuf_printf(&dat, "%s# index %zu: %s\n", s ? "\n\n" : "", s, S->title);
        size_t drawn = 0;
        for (size_t i = 0; i < S->n; i++)
            if (isfinite(S->x[i]) && isfinite(S->y[i])) {
                rl_strbuf_printf(&dat, "%.8g %.8g\n", S->x[i], S->y[i]);
                drawn++;
            }
        if (!drawn)
            rl_strbuf_printf(&dat, "NaN NaN\n");
        rl_strbuf_printf(&gp, "  \"%s.dat\" index %zu using 1:2 axes %s with linespoints "
                              "lw 2 pt %d ps 0.6 %slc rgb \"%s\" title \"%s\" noenhanced%s\n",
                         base, s, S->y2 ? "x1y2" : "x1y1", S->dashed ? 6 : 7,
                         S->dashed ? "dt (8,4) " : "",
                         colors[(S->color > 0 ? (size_t)S->color - 1 : s) % 7],
                         S->dashed && c->dashed_title ? "" : S->title,
                         s + 1 < c->n_series || c->dashed_title ? ", \\" : "");
    }
    if (c->dashed_title)
        rl_strbuf_printf(&gp, "  NaN with lines dt (8,4) lw 2 lc rgb \"#333333\" title \"%s\" "
                              "noenhanced\n",
                         c->dashed_title);
    if (gp.oom || dat.oom)
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    static const char *const ext[] = {"dat"};
    if (rc == RL_OK)
        rc = render_files(out_path, dir, base, &gp, ext, &dat, 1, errmsg);
    rl_strbuf_release(&gp);
    rl_strbuf_release(&dat);
    return rc;
}

/* ---- stacked bars ----------------------------------------------------------- */

int rl_bar_chart_render(const struct rl_bar_chart *c, const char *out_path, char *errmsg)
{
    char dir[1024], base[512];
    int rc = split_path(out_path, dir, sizeof dir, base, sizeof base, errmsg);
    if (rc)
        return rc;
    static const char *const colors[] = {"#0072B2", "#D55E00", "#009E73", "#E69F00",
                                         "#CC79A7", "#56B4E9"};
    struct rl_strbuf gp = {0}, dat = {0};
    script_preamble(&gp, c->title, base, out_path,
                    "one row per bar: its name, then each part, then the right axis' point");
    rl_strbuf_printf(&gp, "set title \"%s\" noenhanced\nset xlabel \"%s\" noenhanced\n"
                          "set ylabel \"%s\" noenhanced\n",
                     c->title, c->xlabel, c->ylabel);
    rl_strbuf_printf(&gp, "set grid ytics lc rgb \"#dddddd\"\nset key below horizontal box\n"
                          "set bmargin 7   # x tics, x label, then the key: no overlap\n"
                          "set style data histograms\nset style histogram rowstacked\n"
                          "set style fill solid 0.85 border rgb \"#333333\"\n"
                          "set boxwidth 0.6\nset yrange [0:*]\nset xtics nomirror\n"
                          "set datafile separator \"\\t\"\n");
    if (c->y2)
        rl_strbuf_printf(&gp, "set y2label \"%s\" noenhanced\nset y2tics\nset ytics nomirror\n"
                              "set y2range [0:*]\n",
                         c->y2label ? c->y2label : "");
    if (c->y2 && isfinite(c->y2_line))
        rl_strbuf_printf(&gp, "set arrow 1 from graph 0, second %.8g to graph 1, second %.8g "
                              "nohead dt (2,3) lc rgb \"#333333\" lw 1.5\n"
                              "set label 1 \"%s\" at graph 0.99, second %.8g right "
                              "offset 0,0.6 tc rgb \"#333333\" noenhanced front\n",
                         c->y2_line, c->y2_line, c->y2_line_label ? c->y2_line_label : "",
                         c->y2_line);
    rl_strbuf_printf(&dat, "# bar");
    for (size_t k = 0; k < c->n_stacks; k++)
        rl_strbuf_printf(&dat, "\t%s", c->stack_titles[k]);
    rl_strbuf_printf(&dat, "\t%s\n", c->y2 ? c->y2_title : "-");
    for (size_t i = 0; i < c->n_bars; i++) {
        rl_strbuf_printf(&dat, "%s", c->bars[i]);
        for (size_t k = 0; k < c->n_stacks; k++)
            rl_strbuf_printf(&dat, "\t%.8g", c->values[i * c->n_stacks + k]);
        rl_strbuf_printf(&dat, "\t%.8g\n", c->y2 ? c->y2[i] : NAN);
    }
    rl_strbuf_printf(&gp, "plot \\\n");
    for (size_t k = 0; k < c->n_stacks; k++)
        rl_strbuf_printf(&gp, "  \"%s.dat\" using %zu%s lc rgb \"%s\" title \"%s\" "
                              "noenhanced%s\n",
                         base, k + 2, k == 0 ? ":xtic(1)" : "", colors[k % 6],
                         c->stack_titles[k], k + 1 < c->n_stacks || c->y2 ? ", \\" : "");
    if (c->y2)
        rl_strbuf_printf(&gp, "  \"%s.dat\" using 0:%zu axes x1y2 with points pt 7 ps 1.2 "
                              "lc rgb \"#000000\" title \"%s\" noenhanced\n",
                         base, c->n_stacks + 2, c->y2_title);
    if (gp.oom || dat.oom)
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    static const char *const ext[] = {"dat"};
    if (rc == RL_OK)
        rc = render_files(out_path, dir, base, &gp, ext, &dat, 1, errmsg);
    rl_strbuf_release(&gp);
    rl_strbuf_release(&dat);
    return rc;
}
