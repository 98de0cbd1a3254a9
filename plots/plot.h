/* plot.h - roofline charts: layout, gnuplot script and data files, SVG/PNG/PDF output. */
#ifndef RL_PLOT_H
#define RL_PLOT_H

#include "plots/layout.h"
#include "analyzer/model/model.h"
#include "analyzer/util/strbuf.h"

enum rl_chart_format { RL_CHART_SVG, RL_CHART_PNG, RL_CHART_PDF };

/* One kernel on the chart. */
struct rl_chart_point {
    const char *label;      /* as drawn (short) */
    double ai_flop_per_byte;
    double tflops;          /* achieved; for analytic points, the attainable */
    enum rl_origin origin;  /* measured: filled marker, analytic: open */
    double size;            /* marker scale; 0 = 1 */
    int roof;               /* index into compute[] for its colour, -1 none */
    /* Hierarchical view: the intensities against L2 and L1 bytes, drawn at
     * the same rate and joined to the point (0 or NAN: not drawn). */
    double ai_l2_flop_per_byte, ai_l1_flop_per_byte;
    const char *name;       /* in full, for the data file; NULL: the label */
    /* Work that communicates: FLOP per byte sent over the link, drawn at
     * the same rate against the link roof (a memory roof of level
     * RL_CHART_LINK_LEVEL) and joined to the point; 0 or NAN: none. */
    double ai_link_flop_per_byte;
    bool timed;             /* placed by its time (measured or predicted), not
                             * at its attainable rate */
};

/* The level a link roof takes in rl_chart's memory[] (past the memory
 * levels: the judge, rl_classify, skips it; rl_classify_link judges it). */
#define RL_CHART_LINK_LEVEL RL_MEM_COUNT

/* A measured curve (an intensity sweep): points joined by a line. */
struct rl_chart_series {
    const char *title;      /* key entry: "FP32 intensity sweep (measured)" */
    const double *ai_flop_per_byte;
    const double *tflops;
    size_t n;
    const char *roof;       /* roof name whose colour it takes ("fp32") */
};

struct rl_chart {
    const char *title;
    const struct rl_compute_roof *compute;
    size_t n_compute;
    const struct rl_memory_roof *memory;
    size_t n_memory;
    const struct rl_chart_point *points;
    size_t n_points;
    size_t max_labels;      /* kernels labelled, in the order given; 0: 12, fewer on
                               a plot narrower than half a two-column one */
    const struct rl_chart_series *series;
    size_t n_series;
    /* Canvas in layout units (1 unit ~ 1 px of the SVG, 1/128 in of the
     * PDF); 0: RL_CHART_W x RL_CHART_H. Fonts keep their size, so a smaller
     * canvas is a figure for one paper column, not a shrunk one. */
    double width, height;
};

/* Paper figure sizes (layout units): a two-column-wide figure (7 in in
 * the PDF) and a one-column one (3.5 in), the same font size in print. */
#define RL_CHART_DOUBLE_W 960.0
#define RL_CHART_DOUBLE_H 640.0
#define RL_CHART_SINGLE_W 480.0
#define RL_CHART_SINGLE_H 360.0

/* "single", "double" or "WxH" (layout units, 320..4000 x 240..4000) into
 * *w, *h; -1 when it is none of them. */
int rl_chart_size_parse(const char *text, double *w, double *h);

/* A drawn ceiling (equal compute roofs are merged into one line). */
struct rl_chart_line {
    char label[160];
    char short_label[128];  /* the label without its origin */
    char compact_label[128]; /* compute roofs: short, without the execution unit */
    int form;               /* compute roofs: 0 label, 1 short, 2 compact drawn */
    bool in_margin;         /* compute roofs: at the line's end, right of the plot */
    bool margin_leader;     /* moved off its line's height: a leader joins them */
    double line_py;         /* compute roofs: the line's height, layout units */
    bool unlabelled;        /* memory roofs: named in a close one's label */
    bool leader;            /* memory roofs: level, away from the line, joined
                               to it at (anchor_x, anchor_y) by a leader */
    double anchor_x, anchor_y;
    bool memory;
    enum rl_origin origin;
    char analytic_of[32];   /* compute roofs: a datasheet line that also stands
                               for an analytic roof of its value ("FP6") */
    double value;           /* TFLOP/s or GB/s */
    int color;              /* palette index */
    double x0, y0, x1, y1;  /* ends, in FLOP/byte and FLOP/s */
    struct rl_placed_label text;
    double text_x, text_y;  /* anchor in data coordinates */
    double angle_deg;       /* text rotation (memory roofs) */
};

struct rl_chart_ridge {
    double ai_flop_per_byte, flops_per_s;
    char text[48];
    double text_x, text_y;
    bool right_aligned;
};

struct rl_chart_layout {
    double x_lo, x_hi, y_lo, y_hi; /* axis ranges: FLOP/byte and FLOP/s */
    double w, h;            /* the canvas, layout units */
    double margin_l, margin_r, margin_t; /* margins, layout units */
    bool roof_margin;       /* compute roof labels in the right margin */
    bool roof_margin_wanted; /* one had no clean spot in the plot: lay out again */
    char title[256];        /* as drawn: quotes dropped, '\n' where it wraps */
    bool kernels_first;     /* a few named kernels placed before the memory
                               roofs' labels (else after) */
    double badness;         /* what no clean spot cost: the placement costs
                               taken, 1000 a numbered kernel, 50 no ridges */
    double key_below;       /* canvas added under the plot for the number key */
    double key_wants_below; /* the key found no room inside: this much below */
    struct rl_chart_line *lines;
    size_t n_lines;
    struct rl_chart_ridge *ridges;
    size_t n_ridges;
    bool *drawn;            /* per point: finite and positive, so drawable */
    bool *labelled;         /* per point */
    struct rl_placed_label *labels; /* per point, where labelled */
    double *label_x, *label_y;      /* anchors in data coordinates */
    char (*text)[112];              /* per point: what its label says ("gemm<...> x3") */
    int *number;                    /* per point: its number in the key, 0 none */
    size_t *stack;                  /* per point: kernels drawn as this one marker */
    /* Labels that do not fit clean become numbers, named in this key. */
    size_t *key_point;              /* the points numbered, in number order */
    size_t n_key;
    struct rl_box number_key;       /* where its lines sit, in layout units */
    double number_key_x, number_key_y; /* first line's anchor, data coordinates */
    double number_key_dy;           /* line spacing, in layout units */
    struct rl_box key;      /* where the key sits, in layout units */
    bool key_drawn;         /* drawn by roofline (with the roof labels in the
                               margin): under them, else under the x title
                               (else gnuplot's key, inside the plot) */
    double legend_below;    /* canvas added under the plot for that key */
};

/* Geometry of the canvas the layout is computed for, in layout units. */
#define RL_CHART_W 960.0
#define RL_CHART_H 640.0

/* Layout */

/* Compute ranges, merged lines and label positions. Points that cannot sit
 * on log axes (zero or infinite intensity or rate) are not drawn (drawn[i]
 * false). Returns 0, RL_EINVAL (no ceilings) or RL_ENOMEM. */
int rl_chart_layout(const struct rl_chart *c, struct rl_chart_layout *out,
                    char *errmsg);
void rl_chart_layout_release(struct rl_chart_layout *l);

/* Layout units of a data point (for tests). */
void rl_chart_to_canvas(const struct rl_chart_layout *l, double ai, double flops_per_s,
                        double *px, double *py);

/* Output */

/* Format of a path from its extension (.svg, .png, .pdf); -1 if none. */
int rl_chart_format_from_path(const char *path);

/* Build the gnuplot script and the two data files for base name `base`
 * (the image is base.<ext>). */
int rl_chart_script(const struct rl_chart *c, const struct rl_chart_layout *l,
                    enum rl_chart_format fmt, const char *base,
                    struct rl_strbuf *gp, struct rl_strbuf *roofs_dat,
                    struct rl_strbuf *kernels_dat, char *errmsg);

/* Write <out without ext>.gp, .roofs.dat, .kernels.dat atomically, then run
 * gnuplot (ROOFLINE_GNUPLOT, else "gnuplot" on PATH) to draw out_path
 * through a temporary file renamed on success. On failure no partial image
 * is left; errmsg says why (gnuplot missing: how to install it). */
int rl_chart_render(const struct rl_chart *c, const char *out_path, char *errmsg);

/* Line charts (an LLM's tokens/s against batch) */

struct rl_xy_series {
    const char *title;
    const double *x, *y;
    size_t n;
    bool y2;                /* on the right axis */
    bool dashed;            /* a prediction beside measured curves */
    int color;              /* palette colour + 1 (a prediction takes its curve's); 0: in order */
};

struct rl_xy_chart {
    const char *title, *xlabel, *ylabel, *y2label; /* y2label NULL: no right axis */
    bool logx, logy, logy2;
    const struct rl_xy_series *series;
    size_t n_series;
    const double *vline_x;  /* vertical markers (a crossover) */
    const char *const *vline_label;
    size_t n_vlines;
    /* horizontal ceilings (a link's GB/s), labelled at the right end */
    const double *hline_y;
    const char *const *hline_label;
    size_t n_hlines;
    bool x_bytes;           /* x is a size in bytes: ticks at 1 KiB, 1 MiB, ... */
    const char *key;        /* gnuplot key position ("bottom right"); NULL: top left */
    /* Set: dashed series are left out of the key, which names them once
     * with this title in a black dashed line ("analytic (dashed)"). */
    const char *dashed_title;
    /* What cannot exist (an LLM's batches that do not fit in memory):
     * x from shade_from_x to x_max shaded grey, with shade_labels written
     * right-aligned in its top right corner (bottom right with
     * shade_labels_low: where curves run through the region), one under
     * the other. x_max
     * also ends the x axis, x_min (0: the data's) starts it. shade_from_x
     * NAN: none. */
    double shade_from_x, x_min, x_max;
    const char *const *shade_labels;
    size_t n_shade_labels;
    bool shade_labels_low;
};

/* Write <out without ext>.gp and .dat atomically and draw out_path. */
int rl_xy_chart_render(const struct rl_xy_chart *c, const char *out_path, char *errmsg);

/* Stacked bars (an LLM plan's candidates: each step's compute, memory,
 * communication and bubble) with one point per bar on the right axis
 * (memory per GPU) and a horizontal line there (the usable memory). */
struct rl_bar_chart {
    const char *title, *xlabel, *ylabel;
    const char *const *bars;        /* each bar's name under it */
    size_t n_bars;
    const char *const *stack_titles;
    size_t n_stacks;
    const double *values;           /* n_bars x n_stacks, a bar's parts in a row */
    const double *y2;               /* a point per bar on the right axis; NULL none */
    const char *y2label, *y2_title;
    double y2_line;                 /* NAN: none */
    const char *y2_line_label;
};

/* Write <out without ext>.gp and .dat atomically and draw out_path. */
int rl_bar_chart_render(const struct rl_bar_chart *c, const char *out_path, char *errmsg);

/* The colour a chart gives compute roof `name` among `compute` (its
 * precision's palette slot, else the next free one), and a memory level's
 * (RL_MEM_* or RL_CHART_LINK_LEVEL): "#0072B2". report.json carries them,
 * so report.html draws each roof in the PNG's colour. */
const char *rl_chart_roof_color(const struct rl_compute_roof *compute, size_t n_compute,
                                const char *name);
const char *rl_chart_memory_color(int level);

#endif
