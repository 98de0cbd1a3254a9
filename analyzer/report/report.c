/* report.c - the reporter: every kernel group judged against its roof, explained in one sentence, written as table, Markdown, CSV, JSON and chart. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/report.h"

#include "analyzer/model/gpudb.h"
#include "analyzer/profiler/nccl.h"
#include "analyzer/report/words.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks.h"
#include "analyzer/report/step.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/numtext.h"
#include "plots/labels.h"
#include "plots/plot.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers as people read them ------------------------------------------- */

/* "3.92 TB/s", "812 GB/s", "41.2 MB/s". */
static void fmt_bw(char *b, size_t n, double gbs)
{
    if (isnan(gbs))
        snprintf(b, n, "-");
    else if (gbs >= 1000)
        snprintf(b, n, "%s TB/s", rl_num(gbs / 1000, 3));
    else if (gbs >= 1)
        snprintf(b, n, "%s GB/s", rl_num(gbs, 3));
    else
        snprintf(b, n, "%s MB/s", rl_num(gbs * 1000, 3));
}

/* "65.1 TFLOP/s", "412 GFLOP/s". */
static void fmt_rate(char *b, size_t n, double tflops, bool ops)
{
    const char *u = ops ? "OP/s" : "FLOP/s";
    if (isnan(tflops))
        snprintf(b, n, "-");
    else if (tflops >= 1000)
        snprintf(b, n, "%s P%s", rl_num(tflops / 1000, 3), u);
    else if (tflops >= 1)
        snprintf(b, n, "%s T%s", rl_num(tflops, 3), u);
    else
        snprintf(b, n, "%s G%s", rl_num(tflops * 1000, 3), u);
}

/* A count of FLOPs: "4 GFLOP", "1 TFLOP", "812 FLOPs". */
static char *fmt_flops(char *b, size_t n, double v)
{
    static const struct { double scale; const char *unit; } u[] = {
        {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (fabs(v) >= u[i].scale) {
            snprintf(b, n, "%s %s", rl_num(v / u[i].scale, 4), u[i].unit);
            return b;
        }
    snprintf(b, n, "%s FLOPs", rl_num(v, 4));
    return b;
}

/* A distance from the ridge: "6.05", "5000" (x follows). */
static void fmt_x(char *b, size_t n, double v)
{
    if (v >= 1000 && v < 1e9)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%s", rl_num(v, 3));
}

/* A number as people read it: 3 significant digits with a unit prefix
 * past a thousand ("1.25k", "3.4M"), never "1.25e+03"; below, plain
 * decimals (rl_num_text). */
static void fmt_g(char *b, size_t n, double v)
{
    if (isnan(v))
        snprintf(b, n, "-");
    else if (isinf(v))
        snprintf(b, n, "inf");
    else if (fabs(v) >= 1e9)
        snprintf(b, n, "%sG", rl_num(v / 1e9, 3));
    else if (fabs(v) >= 1e6)
        snprintf(b, n, "%sM", rl_num(v / 1e6, 3));
    else if (fabs(v) >= 1e3)
        snprintf(b, n, "%sk", rl_num(v / 1e3, 3));
    else
        rl_num_text(b, n, v, 3); /* "0.0000996", never "9.96e-05" */
}

static void upper(char *b, size_t n, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        b[i] = (char)toupper((unsigned char)s[i]);
    b[i] = 0;
}


/* ---- building -------------------------------------------------------------- */

/* Measured time first; kernels without time by the least time the roofline
 * allows them (FLOPs over attainable rate): the order a reader wants. */
static double sort_key(const struct rl_report_row *w)
{
    if (!isnan(w->time_ns))
        return w->time_ns;
    double min_ns = w->flops / (w->v.attainable_tflops * 1e3);
    return isnan(min_ns) ? -1 : min_ns;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct rl_report_row *x = a, *y = b;
    double tx = sort_key(x), ty = sort_key(y);
    if (tx != ty)
        return (tx < ty) - (tx > ty);
    return strcmp(x->name, y->name);
}

const struct rl_memory_roof *rl__report_limiting_roof(const struct rl_ceilings *c,
                                                      enum rl_mem_level level)
{
    const struct rl_memory_roof *best = NULL;
    for (size_t i = 0; i < c->n_memory; i++)
        if (c->memory[i].level == level &&
            (!best || c->memory[i].bandwidth_gbs < best->bandwidth_gbs))
            best = &c->memory[i];
    return best;
}

void rl_report_note(struct rl_report *r, const char *text)
{
    while (*text) {
        size_t k = strcspn(text, "\n"), used = strlen(r->notes);
        bool there = false;
        for (const char *p = r->notes; *p && !there;) {
            size_t n = strcspn(p, "\n");
            there = n == k && strncmp(p, text, k) == 0;
            p += n + (p[n] == '\n');
        }
        if (!there && k)
            snprintf(r->notes + used, sizeof r->notes - used, "%s%.*s", used ? "\n" : "",
                     (int)k, text);
        text += k + (text[k] == '\n');
    }
}

/* Does `name` (a device name from the source) name the ceilings' GPU? */
static bool names_gpu(const struct rl_ceilings *c, const char *name)
{
    char want[128], have[128];
    rl_gpudb_normalize(name, want, sizeof want);
    rl_gpudb_normalize(c->gpu_name, have, sizeof have);
    return strcmp(want, have) == 0 || (c->spec && rl_gpu_spec_named(c->spec, name));
}

/* Why a kernel far below both roofs is slow: what the record can show. */
static void neither_evidence(struct rl_report_row *w, const struct rl_report *r)
{
    double per_launch_us = w->time_ns / (double)w->launches / 1e3;
    double blocks = (double)w->grid[0] * w->grid[1] * w->grid[2];
    int sms = r->source.sm_count;
    size_t n = 0;
    w->evidence[0] = 0;
    if (per_launch_us < 10)
        n += (size_t)snprintf(w->evidence + n, sizeof w->evidence - n,
                              "short launches (%s us each): launch overhead and latency "
                              "dominate",
                              rl_num(per_launch_us, 3));
    if (sms > 0 && blocks > 0 && blocks < sms)
        n += (size_t)snprintf(w->evidence + n, n < sizeof w->evidence ? sizeof w->evidence - n : 0,
                              "%sonly %.0f blocks for %d SMs: the GPU is not filled "
                              "(occupancy)",
                              n ? "; " : "", blocks, sms);
    if (n == 0)
        snprintf(w->evidence, sizeof w->evidence,
                 "neither bandwidth nor compute is saturated: latency (dependent accesses, low "
                 "occupancy, synchronisation) is the likely limit");
}

/* The level whose ridge v names: the limiting memory level, "link" when
 * the link binds; NULL without a ridge. The sentence's intensity, ridge
 * and distance are all this level's. */
static const char *ridge_level(const struct rl_verdict *v)
{
    if (isnan(v->ridge_flop_per_byte))
        return NULL;
    return v->bound == RL_BOUND_LINK ? "link" : rl_mem_level_name(v->limiter);
}

/* counted_ns: the time of the counted launches, the basis of every rate in
 * the sentence (NAN when one of them has no time). The name is shortened
 * to RL_SENTENCE_NAME bytes, so the verdict after it always fits (the full
 * name is the row's own field). */
#define RL_SENTENCE_NAME 160
static void explain(struct rl_report_row *w, const struct rl_ceilings *c, double counted_ns,
                    bool torch)
{
    char ai[24], ridge[24], x[24], rate[32], att[32], bw[32], roof[24];
    char name[RL_SENTENCE_NAME];
    const struct rl_compute_roof *cr = w->roof >= 0 ? &c->compute[w->roof] : NULL;
    rl_str_shorten(name, sizeof name, w->name);
    if (w->comm) {
        rl__report_comm_sentence(w, name, torch);
        return;
    }
    if (w->memory_only) {
        const struct rl_memory_roof *m = rl__report_limiting_roof(c, RL_MEM_DRAM);
        fmt_bw(bw, sizeof bw, w->achieved_gbs);
        /* Not "no FLOP counters": an ncu export may count Tensor pipe
         * instructions that gave no FLOPs (the notes say which and why). */
        const char *why = w->kind == RL_REPORT_MEMCPY   ? "no FLOPs (a copy)"
                          : w->kind == RL_REPORT_MEMSET ? "no FLOPs (a fill)"
                          : w->counted                  ? "no FLOPs (a data-movement kernel)"
                          : w->origin == RL_ORIGIN_ANALYTIC
                              ? "no FLOPs known for its operation (its bytes only)"
                              : "no FLOPs counted in this export (the notes say what it "
                                "counts and the metrics to add)";
        enum rl_mem_level level;
        const char *point = rl_report_bound(w, &level) == RL_BOUND_MEMORY
                                ? "memory-bound (DRAM), a memory point"
                                : "memory point";
        if (!isnan(w->pct_of_memory_roof))
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %.3g%% of GPU time, %s: %s of DRAM traffic = %.3g%% of %s %s; %s, so "
                     "no intensity",
                     name, 100 * w->time_share, point, bw, w->pct_of_memory_roof,
                     rl_origin_name(m->origin), m->label, why);
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s (%s of DRAM traffic, no DRAM roof or time to judge it against); "
                     "%s, so no intensity",
                     name, point, bw, why);
        return;
    }
    if (w->compute_only) {
        const char *why = "no byte counters in this export (see the notes for the metrics to "
                          "add), so no intensity";
        upper(roof, sizeof roof, cr->name);
        fmt_rate(rate, sizeof rate, w->v.achieved_tflops, cr->ops);
        if (!isnan(w->v.pct_of_roof))
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s%% of GPU time, compute point: %s = %s%% of the %s roof (%s %s); "
                     "%s",
                     name, rl_num(100 * w->time_share, 3), rate, rl_num(w->v.pct_of_roof, 3), roof,
                     rl_origin_name(cr->origin), cr->label, why);
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: compute point: %s counted, no time to judge them against the "
                     "%s roof (%s %s); %s",
                     name, fmt_flops((char[32]){0}, 32, w->flops), roof,
                     rl_origin_name(cr->origin), cr->label, why);
        return;
    }
    if (w->bound == RL_BOUND_UNKNOWN) {
        if (w->counted == 0 && w->kind == RL_REPORT_MEMCPY)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %.3g%% of GPU time, not judged: a copy without DRAM bytes (one between "
                     "host and device crosses the host link, not DRAM)",
                     name, 100 * w->time_share);
        else if (w->counted == 0 && w->kind == RL_REPORT_MEMSET)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %.3g%% of GPU time, not judged: a fill whose bytes the trace does not "
                     "give",
                     name, 100 * w->time_share);
        else if (w->counted == 0)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %.3g%% of GPU time, not judged: no FLOPs or bytes were counted (see "
                     "the notes)",
                     name, 100 * w->time_share);
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: not judged: no intensity (no FLOPs and no bytes)", name);
        return;
    }
    upper(roof, sizeof roof, cr->name);
    const struct rl_verdict *v = &w->v;
    /* The intensity said is the level whose ridge is said (the limiting
     * one, memory- or compute-bound: its ridge and distance are that
     * level's), DRAM without a ridge; the sentence names it. */
    int level = ridge_level(v) ? (int)v->limiter : RL_MEM_DRAM;
    double ai_x = v->ai_flop_per_byte[level];
    for (int l = 0; l < RL_MEM_COUNT && isnan(ai_x); l++)
        ai_x = v->ai_flop_per_byte[level = l];
    char lvl[8];
    upper(lvl, sizeof lvl, rl_mem_level_name((enum rl_mem_level)level));
    fmt_g(ai, sizeof ai, ai_x);
    fmt_g(ridge, sizeof ridge, v->ridge_flop_per_byte);
    fmt_rate(att, sizeof att, v->attainable_tflops, cr->ops);
    fmt_rate(rate, sizeof rate, v->achieved_tflops, cr->ops);
    bool timed = !isnan(v->achieved_tflops);
    if (w->zero_bytes) {
        char fl[32];
        fmt_flops(fl, sizeof fl, w->flops);
        if (timed)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s and 0 DRAM bytes counted: its intensity is unbounded, so it "
                     "is compute-bound (not drawn on a chart); %s = %s%% of %s %s",
                     name, fl, rate, rl_num(v->pct_of_roof, 3), rl_origin_name(cr->origin),
                     cr->label);
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s and 0 DRAM bytes counted: its intensity is unbounded, so it "
                     "is compute-bound (not drawn on a chart), at best %s (analytic: no time)",
                     name, fl, att);
        return;
    }
    if (w->bound == RL_BOUND_NEITHER) {
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s FLOP/B (%s), %s = %s%% of the %s attainable at that intensity: bound "
                 "by neither roof; %s",
                 name, ai, lvl, rate, rl_num(v->pct_of_roof, 2), att, w->evidence);
        return;
    }
    if (w->bound == RL_BOUND_LINK) {
        char link_bw[32], comm_ai[24];
        fmt_x(x, sizeof x, v->ridge_distance_x);
        fmt_bw(link_bw, sizeof link_bw, c->link.bandwidth_gbs);
        fmt_g(comm_ai, sizeof comm_ai, v->ai_link_flop_per_byte);
        if (timed)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s FLOP per byte communicated, %sx left of the %s ridge against the "
                     "link (%s FLOP/B): bound by %s (%s per direction, %s), not by %s; %s = "
                     "%s%% of that roof",
                     name, comm_ai, x, roof, ridge, c->link.label, link_bw,
                     rl_origin_name(c->link.origin), lvl, rate, rl_num(v->pct_of_roof, 3));
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s FLOP per byte communicated, %sx left of the %s ridge against the "
                     "link (%s FLOP/B): bound by %s (%s per direction, %s), not by %s, at best "
                     "%s (analytic: no time)",
                     name, comm_ai, x, roof, ridge, c->link.label, link_bw,
                     rl_origin_name(c->link.origin), lvl, att);
        return;
    }
    if (w->bound == RL_BOUND_MEMORY) {
        const struct rl_memory_roof *m = rl__report_limiting_roof(c, v->limiter);
        char limiter[8]; /* the level that binds, as tables name it: "DRAM", "L2" */
        upper(limiter, sizeof limiter, rl_mem_level_name(v->limiter));
        fmt_x(x, sizeof x, v->ridge_distance_x);
        double level_gbs = timed ? w->bytes[v->limiter] / counted_ns : NAN;
        fmt_bw(bw, sizeof bw, level_gbs);
        if (timed)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s FLOP/B (%s), %sx left of the %s ridge (%s FLOP/B): memory-bound "
                     "(%s); %s = %s%% of %s %s",
                     name, ai, lvl, x, roof, ridge, limiter, bw,
                     rl_num(v->pct_of_roof, 3), m ? rl_origin_name(m->origin) : "",
                     m ? m->label : "");
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s FLOP/B (%s), %sx left of the %s ridge (%s FLOP/B): memory-bound "
                     "(%s), at best %s (analytic: no time)",
                     name, ai, lvl, x, roof, ridge, limiter, att);
        return;
    }
    fmt_x(x, sizeof x, v->ridge_distance_x > 0 ? 1 / v->ridge_distance_x : NAN);
    if (timed)
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s FLOP/B (%s), %sx right of the %s ridge (%s FLOP/B): compute-bound; %s = "
                 "%s%% of %s %s",
                 name, ai, lvl, x, roof, ridge, rate, rl_num(v->pct_of_roof, 3),
                 rl_origin_name(cr->origin),
                 cr->label);
    else
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s FLOP/B (%s), %sx right of the %s ridge (%s FLOP/B): compute-bound, at "
                 "best %s (analytic: no time)",
                 name, ai, lvl, x, roof, ridge, att);
}

/* The guards of one row: numbers that cannot be right as they stand. */
static void guard(struct rl_report_row *w, const struct rl_trace_group *t)
{
    const double *b = w->bytes;
    bool has_bytes = t->counted || w->memory_only;
    w->l2_below_dram = has_bytes && b[RL_MEM_L2] >= 0 && b[RL_MEM_DRAM] > 0 &&
                       b[RL_MEM_L2] < b[RL_MEM_DRAM];
    w->zero_bytes = t->counted && t->flops > 0 && b[RL_MEM_DRAM] == 0;
    w->over_roof = w->v.pct_of_roof > 100 || w->pct_of_memory_roof > 100;
}

static int judge(struct rl_report *r, struct rl_ceilings *c, const char *precision)
{
    if (!precision[0]) {
        r->n_no_precision++;
        return (int)c->default_roof;
    }
    char err[RL_ERRMSG_SIZE];
    const char *instead;
    int j = rl_ceilings_judge_nearest(c, precision, &instead, err);
    if (j >= 0 && instead) {
        /* the GPU lacks the roof: the nearest it has, never the fastest */
        char text[RL_ERRMSG_SIZE + 160];
        snprintf(text, sizeof text, "%s: kernels of this precision are judged against the %s "
                 "roof (the unit their work runs on without it)", err, c->compute[j].label);
        rl_report_note(r, text);
    }
    if (j >= 0)
        return j;
    char text[RL_ERRMSG_SIZE + 96];
    snprintf(text, sizeof text, "%s: kernels of this precision are judged against the %s roof",
             err, c->compute[c->default_roof].name);
    rl_report_note(r, text);
    return (int)c->default_roof;
}

int rl_report_build(struct rl_report *r, struct rl_ceilings *c, const struct rl_trace_groups *g,
                    char *errmsg)
{
    memset(r, 0, sizeof *r);
    r->source = g->sum;
    r->other_gpu = g->sum.gpu_name[0] && !names_gpu(c, g->sum.gpu_name);
    r->rows = rl_calloc(g->n ? g->n : 1, sizeof *r->rows);
    if (!r->rows)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    for (size_t i = 0; i < g->n; i++) {
        r->time_ns += g->v[i].time_ns;
        r->launches += g->v[i].launches;
        r->torch |= g->v[i].op != NULL;
    }
    for (size_t i = 0; i < g->n; i++) {
        const struct rl_trace_group *t = &g->v[i];
        struct rl_report_row *w = &r->rows[r->n++]; /* counted first: released on failure */
        if (!(w->name = rl_strdup(t->name)) || (t->op && !(w->op = rl_strdup(t->op))) ||
            (t->shapes && !(w->shapes = rl_strdup(t->shapes))))
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        memcpy(w->dtype, t->dtype, sizeof w->dtype);
        w->comm_group_size = t->comm_group_size;
        w->comm_busbw_gbs = w->pct_of_link = w->roof_time_ns = w->judged_ns = w->lost_ns = NAN;
        memcpy(w->grid, t->grid, sizeof w->grid);
        memcpy(w->block, t->block, sizeof w->block);
        w->launches = t->launches;
        w->counted = t->counted;
        w->origin = t->origin;
        w->time_ns = t->time_ns > 0 ? t->time_ns : NAN;
        w->time_share = r->time_ns > 0 && !isnan(w->time_ns) ? w->time_ns / r->time_ns : NAN;
        w->flops = t->flops;
        memcpy(w->bytes, t->bytes, sizeof w->bytes);
        w->roof = -1;
        w->bound = RL_BOUND_UNKNOWN;
        w->achieved_gbs = NAN;
        for (int m = 0; m < RL_MEM_COUNT; m++)
            w->v.ai_flop_per_byte[m] = NAN;
        w->v.achieved_tflops = w->v.attainable_tflops = w->v.pct_of_roof = NAN;
        w->v.ridge_flop_per_byte = w->v.ridge_distance_x = NAN;
        w->pct_of_memory_roof = NAN;
        w->comm_bytes = w->comm_algbw_gbs = NAN;
        w->ranks = t->ranks;
        w->time_ns_max_rank = t->ranks ? t->time_ns_max_rank : NAN;
        w->comm = rl_comm_recognize(t->name, t->op, w->collective, sizeof w->collective) ||
                  t->collective[0];
        if (t->collective[0])
            memcpy(w->collective, t->collective, sizeof w->collective);
        w->kind = rl__report_kind_of(t->name, w->comm);
        r->launches_of[w->kind] += t->launches;
        if (w->comm) {
            /* Not a FLOP kernel: its time counts, no roof judges it. */
            if (t->comm_launches == t->launches && t->launches)
                w->comm_bytes = t->comm_bytes;
            if (w->comm_bytes >= 0 && w->time_ns > 0)
                w->comm_algbw_gbs = w->comm_bytes / w->time_ns;
            if (!isnan(w->time_ns))
                r->comm_time_ns += w->time_ns;
            explain(w, c, NAN, r->torch);
            char clean_comm[sizeof w->sentence];
            rl_utf8_clean(clean_comm, sizeof clean_comm, w->sentence);
            memcpy(w->sentence, clean_comm, sizeof clean_comm);
            continue;
        }
        double counted_ns = t->counted_timed == t->counted ? t->counted_time_ns : NAN;
        bool data_movement = t->counted && t->flops == 0 &&
                             (t->bytes[RL_MEM_DRAM] > 0 || t->bytes[RL_MEM_L2] > 0 ||
                              t->bytes[RL_MEM_L1] > 0);
        if (data_movement || (!t->counted && t->bytes_only)) {
            /* A memory point: its DRAM bandwidth against the DRAM roof. */
            w->memory_only = true;
            const double *b = t->counted ? t->bytes : t->bytes_only_bytes;
            double ns = t->counted                              ? counted_ns
                        : t->bytes_only_timed == t->bytes_only ? t->bytes_only_time_ns
                                                                : NAN;
            memcpy(w->bytes, b, sizeof w->bytes);
            if (ns > 0)
                w->achieved_gbs = b[RL_MEM_DRAM] / ns;
            const struct rl_memory_roof *m = rl__report_limiting_roof(c, RL_MEM_DRAM);
            if (m && !isnan(w->achieved_gbs))
                w->pct_of_memory_roof = 100 * w->achieved_gbs / m->bandwidth_gbs;
            for (int l = 0; data_movement && l < RL_MEM_COUNT; l++)
                if (b[l] > 0)
                    w->v.ai_flop_per_byte[l] = 0;
        } else if (!t->counted && t->flops_only_flops > 0) {
            /* A compute point: FLOPs without bytes, its rate against the
             * compute roof (the most any intensity allows), no intensity. */
            w->compute_only = true;
            w->roof = judge(r, c, t->precision);
            w->default_roof = !t->precision[0];
            w->flops = t->flops_only_flops;
            double ns = t->flops_only_timed == t->flops_only ? t->flops_only_time_ns : NAN;
            const struct rl_compute_roof *cr = &c->compute[w->roof];
            w->v.attainable_tflops = cr->peak_tflops;
            if (ns > 0) {
                w->v.achieved_tflops = w->flops / ns * 1e-3;
                if (cr->peak_tflops > 0)
                    w->v.pct_of_roof = 100 * w->v.achieved_tflops / cr->peak_tflops;
            }
        } else if (t->counted) {
            w->roof = judge(r, c, t->precision);
            w->default_roof = !t->precision[0];
            /* The rate of the counted launches: their FLOPs over their time. */
            struct rl_kernel_perf perf = {t->flops, {t->bytes[0], t->bytes[1], t->bytes[2]},
                                          counted_ns};
            char err[RL_ERRMSG_SIZE];
            if (rl_classify(&perf, &c->compute[w->roof], c->memory, c->n_memory, &w->v, err) ==
                RL_OK) {
                /* Work that also communicates: the link is one more roof. */
                if (t->comm_bytes > 0 && t->comm_launches == t->launches && c->has_link) {
                    w->comm_bytes = t->comm_bytes;
                    rl_classify_link(&w->v, t->flops, t->comm_bytes, counted_ns,
                                     &c->compute[w->roof], &c->link, err);
                }
                w->bound = w->v.bound;
                if (!isnan(w->v.pct_of_roof) && w->v.pct_of_roof < RL_REPORT_NEITHER_PCT &&
                    w->bound != RL_BOUND_UNKNOWN) {
                    w->bound = RL_BOUND_NEITHER;
                    neither_evidence(w, r);
                }
                if (perf.time_ns > 0)
                    w->achieved_gbs = t->bytes[RL_MEM_DRAM] / perf.time_ns;
                /* Intensity at every level with bytes, roof or not (the
                 * hierarchical view): the datasheets give no L2 bandwidth. */
                for (int l = 0; l < RL_MEM_COUNT; l++)
                    if (isnan(w->v.ai_flop_per_byte[l]) && t->bytes[l] >= 0)
                        w->v.ai_flop_per_byte[l] =
                            t->bytes[l] > 0 ? t->flops / t->bytes[l] : INFINITY;
            } else {
                char text[RL_ERRMSG_SIZE + 96];
                snprintf(text, sizeof text, "%.60s: not judged: %s", t->name, err);
                rl_report_note(r, text);
            }
        }
        guard(w, t);
        explain(w, c, counted_ns, r->torch);
        /* The sentence is output: valid UTF-8 whatever the name held. */
        char clean[sizeof w->sentence];
        rl_utf8_clean(clean, sizeof clean, w->sentence);
        memcpy(w->sentence, clean, sizeof clean);
    }
    qsort(r->rows, r->n, sizeof *r->rows, cmp_rows);
    rl__report_judge_notes(r, c);
    rl__report_comm_notes(r);
    if (r->source.counters_status[0] && strcmp(r->source.counters_status, "ok") != 0) {
        char text[640];
        snprintf(text, sizeof text, "counters %s%s%.500s", r->source.counters_status,
                 r->source.counters_reason[0] ? ": " : "", r->source.counters_reason);
        rl_report_note(r, text);
    }
    if (r->source.tensor_not_counted[0]) {
        char text[160];
        snprintf(text, sizeof text,
                 "Tensor Core work of types %s was not counted (trace with --metrics full)",
                 r->source.tensor_not_counted);
        rl_report_note(r, text);
    }
    char over[1024];
    rl_ceilings_check(c, over, sizeof over);
    rl_report_note(r, over);
    if (r->source.incomplete)
        rl_report_note(r, "the trace is incomplete: the program ended on a signal");
    return RL_OK;
}

void rl_report_release(struct rl_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].name);
        free(r->rows[i].op);
        free(r->rows[i].shapes);
    }
    free(r->rows);
    free(r->ranks);
    rl__report_step_free(r->step);
    rl_across_free(r->across);
    memset(r, 0, sizeof *r);
}

/* ---- outputs --------------------------------------------------------------- */

/* Rows of more than one kind (kernels and communication, copies or fills),
 * or ranks: the outputs tag each row with its kind. */
static bool has_kinds(const struct rl_report *r)
{
    return rl__report_has_comm(r) || r->launches_of[RL_REPORT_MEMCPY] ||
           r->launches_of[RL_REPORT_MEMSET];
}


static const char *roof_name(const struct rl_report_row *w, const struct rl_ceilings *c)
{
    return w->roof >= 0 ? c->compute[w->roof].name : "";
}


/* The table's cells of one row: intensity against DRAM; memory points give
 * their bandwidth against the DRAM roof. '!' marks a number above its roof. */
struct cells {
    char ai[16], ach[32], att[32], pct[16], share[16], bound[80];
};

static void row_cells(const struct rl_report_row *w, const struct rl_ceilings *c,
                      struct cells *k)
{
    fmt_g(k->ai, sizeof k->ai, w->v.ai_flop_per_byte[RL_MEM_DRAM]);
    bool ops = w->roof >= 0 && c->compute[w->roof].ops;
    if (w->comm) {
        fmt_bw(k->ach, sizeof k->ach, w->comm_algbw_gbs);
        snprintf(k->att, sizeof k->att, "-");
        snprintf(k->pct, sizeof k->pct, "-");
    } else if (w->memory_only) {
        const struct rl_memory_roof *m = rl__report_limiting_roof(c, RL_MEM_DRAM);
        fmt_bw(k->ach, sizeof k->ach, w->achieved_gbs);
        fmt_bw(k->att, sizeof k->att, m ? m->bandwidth_gbs : NAN);
        fmt_g(k->pct, sizeof k->pct, w->pct_of_memory_roof);
    } else {
        fmt_rate(k->ach, sizeof k->ach, w->v.achieved_tflops, ops);
        fmt_rate(k->att, sizeof k->att, w->v.attainable_tflops, ops);
        fmt_g(k->pct, sizeof k->pct, w->v.pct_of_roof);
    }
    rl_report_bound_text(k->bound, sizeof k->bound, w, c);
    if (w->over_roof) {
        size_t n = strlen(k->pct);
        snprintf(k->pct + n, sizeof k->pct - n, "!");
    }
    fmt_g(k->share, sizeof k->share, 100 * w->time_share);
}

/* The terminal's table: a column whose every shown cell is "-" (no time
 * in an analytic set: TIME%, ACHIEVED, %ROOF) is left out, and the KERNEL
 * column is as wide as its longest name up to TABLE_NAME_MAX characters
 * (report.csv and report.md keep every column and the full names). */
#define TABLE_NAME_MAX 56

void rl_report_table(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                     size_t rows)
{
    size_t n = rows && rows < r->n ? rows : r->n;
    struct cells *k = n ? rl_calloc(n, sizeof *k) : NULL;
    if (n && !k) {
        fputs("(out of memory for the table: report.csv has every row)\n", f);
        return;
    }
    enum { C_SHARE, C_AI, C_ACH, C_ATT, C_PCT, C_N };
    bool shown[C_N] = {false};
    int wname = 6; /* "KERNEL" */
    for (size_t i = 0; i < n; i++) {
        row_cells(&r->rows[i], c, &k[i]);
        const char *v[C_N] = {k[i].share, k[i].ai, k[i].ach, k[i].att, k[i].pct};
        for (int j = 0; j < C_N; j++)
            shown[j] |= strcmp(v[j], "-") != 0;
        size_t len = rl_utf8_width(r->rows[i].name);
        if ((int)len > wname)
            wname = len > TABLE_NAME_MAX ? TABLE_NAME_MAX : (int)len;
    }
    if (!n)
        for (int j = 0; j < C_N; j++)
            shown[j] = true;
    fprintf(f, "%-*s", wname, "KERNEL");
    if (shown[C_SHARE])
        fprintf(f, " %6s", "TIME%");
    fprintf(f, " %7s", "LAUNCH");
    if (shown[C_AI])
        fprintf(f, " %9s", "AI(DRAM)");
    if (shown[C_ACH])
        fprintf(f, " %11s", "ACHIEVED");
    if (shown[C_ATT])
        fprintf(f, " %11s", "ROOF");
    if (shown[C_PCT])
        fprintf(f, " %7s", "%ROOF");
    fprintf(f, "  %s\n", "BOUND");
    bool marked = false;
    for (size_t i = 0; i < n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        char name[4 * TABLE_NAME_MAX + 4];
        rl_str_shorten(name, (size_t)wname + 1 <= sizeof name ? (size_t)wname + 1 : sizeof name,
                       w->name);
        marked |= w->over_roof;
        /* the name padded by characters, not bytes (UTF-8) */
        fprintf(f, "%s%*s", name, wname - (int)rl_utf8_width(name), "");
        if (shown[C_SHARE])
            fprintf(f, " %6s", k[i].share);
        fprintf(f, " %7llu", (unsigned long long)w->launches);
        if (shown[C_AI])
            fprintf(f, " %9s", k[i].ai);
        if (shown[C_ACH])
            fprintf(f, " %11s", k[i].ach);
        if (shown[C_ATT])
            fprintf(f, " %11s", k[i].att);
        if (shown[C_PCT])
            fprintf(f, " %7s", k[i].pct);
        fprintf(f, "  %s\n", k[i].bound);
    }
    free(k);
    if (n < r->n)
        fprintf(f, "... %zu more %s (report.csv has them all)\n", r->n - n,
                r->launches_of[RL_REPORT_MEMCPY] || r->launches_of[RL_REPORT_MEMSET]
                    ? "groups"
                    : "kernel groups");
    if (marked)
        fputs("! above 100% of its roof (the notes say why)\n", f);
    rl__report_ranks_table(f, r);
}

/* "over_roof;l2_below_dram;zero_bytes;memory_only": what the guards found. */
static void row_flags(const struct rl_report_row *w, char *b, size_t n)
{
    snprintf(b, n, "%s%s%s%s%s", w->over_roof ? "over_roof;" : "",
             w->l2_below_dram ? "l2_below_dram;" : "", w->zero_bytes ? "zero_bytes;" : "",
             w->memory_only ? "memory_only;" : "", w->compute_only ? "compute_only;" : "");
    size_t k = strlen(b);
    if (k)
        b[k - 1] = 0;
}

/* Each character of s to f through put (escaping), invalid UTF-8 as U+FFFD. */
static void put_text(FILE *f, const char *s, void (*put)(FILE *, const char *, size_t))
{
    while (*s) {
        size_t len = rl_utf8_char(s);
        put(f, len ? s : RL_UTF8_REPLACEMENT, len ? len : 3);
        s += len ? len : 1;
    }
}

static void csv_char(FILE *f, const char *c, size_t len)
{
    if (*c == '"')
        fputc('"', f);
    fwrite(c, 1, len, f);
}

static void csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    put_text(f, s, csv_char);
    fputc('"', f);
}

static void csv_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.9g", v);
    else
        fputs(",", f);
}

int rl_report_csv(FILE *f, const struct rl_report *r, const struct rl_ceilings *c)
{
    fputs("name,grid,block,launches,counted,time_ns,time_share,flops,dram_bytes,l2_bytes,"
          "l1_bytes,ai_dram_flop_per_byte,ai_l2_flop_per_byte,ai_l1_flop_per_byte,"
          "achieved_tflops,achieved_dram_gbs,attainable_tflops,pct_of_roof,"
          "ridge_flop_per_byte,ridge_level,pct_of_memory_roof,flags,roof,roof_origin,origin,"
          "bound,limiter,"
          "sentence",
          f);
    /* Communication, ranks, copies and fills add columns only where there
     * are some. */
    bool comm = has_kinds(r);
    fputs(comm ? ",kind,collective,comm_bytes,ranks,time_ns_max_rank\n" : "\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        csv_string(f, w->name);
        fprintf(f, ",%ux%ux%u,%ux%ux%u,%llu,%llu", w->grid[0], w->grid[1], w->grid[2],
                w->block[0], w->block[1], w->block[2], (unsigned long long)w->launches,
                (unsigned long long)w->counted);
        csv_number(f, w->time_ns);
        csv_number(f, w->time_share);
        csv_number(f, w->counted || w->compute_only ? w->flops : NAN);
        for (int m = 0; m < RL_MEM_COUNT; m++)
            csv_number(f, w->counted || w->memory_only ? w->bytes[m] : NAN);
        for (int m = 0; m < RL_MEM_COUNT; m++)
            csv_number(f, w->v.ai_flop_per_byte[m]);
        csv_number(f, w->v.achieved_tflops);
        csv_number(f, w->achieved_gbs);
        csv_number(f, w->v.attainable_tflops);
        csv_number(f, w->v.pct_of_roof);
        csv_number(f, w->v.ridge_flop_per_byte);
        fprintf(f, ",%s", ridge_level(&w->v) ? ridge_level(&w->v) : "");
        csv_number(f, w->pct_of_memory_roof);
        char flags[80];
        row_flags(w, flags, sizeof flags);
        enum rl_mem_level level;
        enum rl_bound bound = rl_report_bound(w, &level);
        fprintf(f, ",%s,%s,%s,%s,%s,%s,", flags, roof_name(w, c),
                w->roof >= 0 ? rl_origin_name(c->compute[w->roof].origin) : "",
                rl_origin_name(w->origin), w->comm ? "communication" : rl_bound_name(bound),
                bound == RL_BOUND_MEMORY ? rl_mem_level_name(level) : "");
        csv_string(f, w->sentence);
        if (comm) {
            fprintf(f, ",%s,%s", rl_report_kind_name(w->kind), w->collective);
            if (isfinite(w->comm_bytes))
                fprintf(f, ",%.0f", w->comm_bytes); /* bytes exact */
            else
                fputs(",", f);
            fprintf(f, ",%u", w->ranks);
            csv_number(f, w->time_ns_max_rank);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

#define json_string rl_fput_json_string

/* Integers (FLOPs, bytes) exact; absent values null. */
static void json_number(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    rl_fput_json_number(f, v);
}

/* [x, y, z], or null when the source gave no launch shape. */
static void json_dim3(FILE *f, const char *key, const uint32_t *d)
{
    if (d[0] || d[1] || d[2])
        fprintf(f, ", \"%s\": [%u, %u, %u]", key, d[0], d[1], d[2]);
    else
        fprintf(f, ", \"%s\": null", key);
}

int rl_report_json(FILE *f, const struct rl_report *r, const struct rl_ceilings *c)
{
    fputs("{\n  \"schema_version\": 1,\n  \"format\": \"roofline-report\",\n  \"gpu\": ", f);
    json_string(f, c->gpu_name);
    fputs(",\n  \"source\": {\"kind\": ", f);
    json_string(f, r->source_kind);
    fputs(", \"path\": ", f);
    json_string(f, r->source_path);
    fprintf(f, ", \"launches\": %llu", (unsigned long long)r->launches);
    if (has_kinds(r))
        fprintf(f, ", \"kernel_launches\": %llu, \"memcpy_launches\": %llu, "
                   "\"memset_launches\": %llu",
                (unsigned long long)(r->launches_of[RL_REPORT_KERNEL] +
                                     r->launches_of[RL_REPORT_COMM]),
                (unsigned long long)r->launches_of[RL_REPORT_MEMCPY],
                (unsigned long long)r->launches_of[RL_REPORT_MEMSET]);
    json_number(f, "time_ns", r->time_ns);
    fputs(", \"gpu\": ", f);
    if (r->source.gpu_name[0])
        json_string(f, r->source.gpu_name);
    else
        fputs("null", f);
    fprintf(f, ", \"other_gpu\": %s", r->other_gpu ? "true" : "false");
    fputs("},\n  \"ceilings\": [\n", f);
    for (size_t i = 0; i < c->n_compute; i++) {
        fputs("    {\"kind\": \"compute\", \"name\": ", f);
        json_string(f, c->compute[i].name);
        fputs(", \"label\": ", f);
        json_string(f, c->compute[i].label);
        json_number(f, "tflops", c->compute[i].peak_tflops);
        double pct = rl_ceilings_pct_of_datasheet(c, false, i);
        if (!isnan(pct)) {
            json_number(f, "pct_of_datasheet", pct);
            fprintf(f, ", \"over_datasheet\": %s", pct > 100 ? "true" : "false");
        }
        fprintf(f, ", \"origin\": \"%s\", \"color\": \"%s\"},\n",
                rl_origin_name(c->compute[i].origin),
                rl_chart_roof_color(c->compute, c->n_compute, c->compute[i].name));
    }
    for (size_t i = 0; i < c->n_memory; i++) {
        fprintf(f, "    {\"kind\": \"memory\", \"name\": \"%s\", \"label\": ",
                rl_mem_level_name(c->memory[i].level));
        json_string(f, c->memory[i].label);
        json_number(f, "gbs", c->memory[i].bandwidth_gbs);
        double pct = rl_ceilings_pct_of_datasheet(c, true, i);
        if (!isnan(pct)) {
            json_number(f, "pct_of_datasheet", pct);
            fprintf(f, ", \"over_datasheet\": %s", pct > 100 ? "true" : "false");
        }
        fprintf(f, ", \"origin\": \"%s\", \"color\": \"%s\"}%s\n",
                rl_origin_name(c->memory[i].origin), rl_chart_memory_color((int)c->memory[i].level),
                i + 1 < c->n_memory ? "," : "");
    }
    fputs("  ],\n  \"notes\": [", f);
    const char *p = r->notes;
    for (bool first = true; *p; first = false) {
        size_t k = strcspn(p, "\n");
        char line[sizeof r->notes];
        snprintf(line, sizeof line, "%.*s", (int)k, p);
        fputs(first ? "" : ", ", f);
        json_string(f, line);
        p += k + (p[k] == '\n');
    }
    fputs("],\n", f);
    rl__report_step_json(f, r);
    rl__report_ranks_json(f, r);
    bool tagged = has_kinds(r);
    fputs("  \"kernels\": [\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        fputs("    {\"name\": ", f);
        json_string(f, w->name);
        json_dim3(f, "grid", w->grid);
        json_dim3(f, "block", w->block);
        fprintf(f, ", \"launches\": %llu, \"counted\": %llu", (unsigned long long)w->launches,
                (unsigned long long)w->counted);
        json_number(f, "time_ns", w->time_ns);
        json_number(f, "time_share", w->time_share);
        json_number(f, "flops", w->counted || w->compute_only ? w->flops : NAN);
        bool b = w->counted || w->memory_only;
        json_number(f, "dram_bytes", b ? w->bytes[RL_MEM_DRAM] : NAN);
        json_number(f, "l2_bytes", b ? w->bytes[RL_MEM_L2] : NAN);
        json_number(f, "l1_bytes", b ? w->bytes[RL_MEM_L1] : NAN);
        json_number(f, "ai_dram_flop_per_byte", w->v.ai_flop_per_byte[RL_MEM_DRAM]);
        json_number(f, "ai_l2_flop_per_byte", w->v.ai_flop_per_byte[RL_MEM_L2]);
        json_number(f, "ai_l1_flop_per_byte", w->v.ai_flop_per_byte[RL_MEM_L1]);
        json_number(f, "achieved_tflops", w->v.achieved_tflops);
        json_number(f, "achieved_dram_gbs", w->achieved_gbs);
        json_number(f, "attainable_tflops", w->v.attainable_tflops);
        json_number(f, "pct_of_roof", w->v.pct_of_roof);
        json_number(f, "ridge_flop_per_byte", w->v.ridge_flop_per_byte);
        fputs(", \"ridge_level\": ", f);
        if (ridge_level(&w->v))
            json_string(f, ridge_level(&w->v));
        else
            fputs("null", f);
        json_number(f, "pct_of_memory_roof", w->pct_of_memory_roof);
        fprintf(f, ", \"memory_only\": %s, \"compute_only\": %s, \"over_roof\": %s, "
                   "\"l2_below_dram\": %s, \"zero_bytes\": %s",
                w->memory_only ? "true" : "false", w->compute_only ? "true" : "false",
                w->over_roof ? "true" : "false", w->l2_below_dram ? "true" : "false",
                w->zero_bytes ? "true" : "false");
        if (tagged)
            fprintf(f, ", \"kind\": \"%s\"", rl_report_kind_name(w->kind));
        rl__report_comm_json(f, w, false, r->n_ranks > 0);
        fputs(", \"roof\": ", f);
        json_string(f, roof_name(w, c));
        enum rl_mem_level level;
        enum rl_bound bound = rl_report_bound(w, &level);
        char words[80];
        rl_report_bound_text(words, sizeof words, w, c);
        fprintf(f, ", \"roof_origin\": \"%s\", \"origin\": \"%s\", \"bound\": \"%s\"",
                w->roof >= 0 ? rl_origin_name(c->compute[w->roof].origin) : "",
                rl_origin_name(w->origin), w->comm ? "communication" : rl_bound_name(bound));
        if (bound == RL_BOUND_MEMORY)
            fprintf(f, ", \"limiter\": \"%s\"", rl_mem_level_name(level));
        fputs(", \"bound_text\": ", f);
        json_string(f, words);
        if (!w->comm && w->comm_bytes > 0) {
            /* against the link roof (rl_classify_link) */
            fputs(", \"comm_bytes\": ", f);
            rl_fput_json_number(f, w->comm_bytes);
            fputs(", \"ai_link_flop_per_byte\": ", f);
            rl_fput_json_number(f, w->v.ai_link_flop_per_byte);
            fputs(", \"link_attainable_tflops\": ", f);
            rl_fput_json_number(f, w->v.link_attainable_tflops);
            fputs(", \"link\": ", f);
            json_string(f, c->link.label);
            fputs(", \"link_gbs_per_direction\": ", f);
            rl_fput_json_number(f, c->link.bandwidth_gbs);
            fprintf(f, ", \"link_origin\": \"%s\"", rl_origin_name(c->link.origin));
        }
        if (w->evidence[0]) {
            fputs(", \"evidence\": ", f);
            json_string(f, w->evidence);
        }
        rl__report_step_row_json(f, w);
        fputs(", \"sentence\": ", f);
        json_string(f, w->sentence);
        fputs(i + 1 < r->n ? "},\n" : "}\n", f);
    }
    fputs("  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

static void md_char(FILE *f, const char *c, size_t len)
{
    if (*c == '|' || *c == '<' || *c == '*' || *c == '_' || *c == '`')
        fputc('\\', f);
    if (len == 1 && (unsigned char)*c < 0x20)
        fputc(' ', f);
    else
        fwrite(c, 1, len, f);
}

static void md_cell(FILE *f, const char *s)
{
    put_text(f, s, md_char);
}

#define MD_ROWS 100

int rl_report_markdown(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                       const char *chart_image)
{
    char origins[64], t[32];
    rl_ceilings_origins(c, origins, sizeof origins);
    fprintf(f, "# Roofline report: %s\n\n", c->gpu_name);
    char launches[160];
    rl_report_launches_text(launches, sizeof launches, r);
    fprintf(f, "Kernels from `%s` (%s): %s", r->source_path, r->source_kind, launches);
    if (r->time_ns > 0)
        fprintf(f, ", %s %s of GPU time", rl_num(r->time_ns / (r->time_ns >= 1e9 ? 1e9 : 1e6), 4),
                r->time_ns >= 1e9 ? "s" : "ms");
    fprintf(f, ". Ceilings: %s. Every figure is labelled measured, datasheet or analytic.\n\n",
            origins);
    if (chart_image)
        fprintf(f, "![roofline of %s](%s)\n\n", c->gpu_name, chart_image);
    rl__report_step_markdown(f, r);
    if (r->notes[0]) {
        fputs("Notes:\n\n", f);
        const char *p = r->notes;
        while (*p) {
            size_t k = strcspn(p, "\n");
            fprintf(f, "- %.*s\n", (int)k, p);
            p += k + (p[k] == '\n');
        }
        fputc('\n', f);
    }
    fputs("## Ceilings\n\n| ceiling | value | origin |\n|---|---|---|\n", f);
    for (size_t i = 0; i < c->n_compute; i++) {
        fmt_rate(t, sizeof t, c->compute[i].peak_tflops, c->compute[i].ops);
        fprintf(f, "| %s | %s | %s |\n", c->compute[i].label, t,
                rl_origin_name(c->compute[i].origin));
    }
    for (size_t i = 0; i < c->n_memory; i++) {
        fmt_bw(t, sizeof t, c->memory[i].bandwidth_gbs);
        fprintf(f, "| %s | %s | %s |\n", c->memory[i].label, t,
                rl_origin_name(c->memory[i].origin));
    }
    size_t n = r->n < MD_ROWS ? r->n : MD_ROWS;
    fprintf(f, "\n## Kernels%s\n\n", n < r->n ? " (the first 100 by time; report.csv has all)" : "");
    fputs("| kernel | time | launches | AI (FLOP/DRAM byte) | achieved | roof at its AI | % of "
          "roof | bound |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        struct cells k;
        row_cells(w, c, &k);
        fputs("| ", f);
        md_cell(f, w->name);
        fprintf(f, " | %s%s | %llu | %s | %s | %s | %s | %s |\n", k.share,
                strcmp(k.share, "-") ? "%" : "",
                (unsigned long long)w->launches, k.ai, k.ach, k.att, k.pct, k.bound);
    }
    rl__report_ranks_markdown(f, r);
    fputs("\n## What bounds each kernel\n\n", f);
    for (size_t i = 0; i < n; i++) {
        fputs("- ", f);
        md_cell(f, r->rows[i].sentence);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

int rl_report_chart(const struct rl_report *r, const struct rl_ceilings *c, const char *title,
                    const char *out_path, size_t labels, char *errmsg)
{
    return rl_report_chart_series(r, c, title, out_path, labels, NULL, 0, errmsg);
}

int rl_report_chart_series(const struct rl_report *r, const struct rl_ceilings *c,
                           const char *title, const char *out_path, size_t labels,
                           const struct rl_chart_series *series, size_t n_series,
                           char *errmsg)
{
    struct rl_chart_point *p = rl_calloc(r->n ? r->n : 1, sizeof *p);
    char (*names)[160] = rl_calloc(r->n ? r->n : 1, sizeof *names);
    if (!p || !names) {
        free(p);
        free(names);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    }
    double max_share = 0;
    bool links = false;
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].time_share > max_share)
            max_share = r->rows[i].time_share;
    size_t n = 0;
    int short_rc = RL_OK;
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        /* A bound is set only after judge() gave the row a roof (>= 0):
         * a row with a bound has one. */
        if (w->bound == RL_BOUND_UNKNOWN)
            continue;
        struct rl_chart_point *q = &p[n];
        if (w->op && strcmp(w->op, w->name) != 0) {
            /* a PyTorch operator's kernel: the operator names it best */
            /* "op: kernel", the kernel shortened on its own (its C++
             * signature whole) to what the operator's name leaves. */
            const char *op = strncmp(w->op, "aten::", 6) == 0 ? w->op + 6 : w->op;
            size_t max = r->label_max ? r->label_max : RL_CHART_LABEL_MAX;
            size_t op_len = strlen(op);
            char k[96];
            if (op_len + 2 + 8 <= max) {
                short_rc = rl_chart_short_name(k, sizeof k, w->name, max - op_len - 2);
                snprintf(names[n], sizeof names[n], "%s: %s", op, k);
            } else {
                short_rc = rl_chart_short_name(names[n], sizeof names[n], op, max);
            }
        } else {
            short_rc = rl_chart_short_name(names[n], sizeof names[n], w->name, r->label_max);
        }
        if (short_rc) {
            free(p);
            free(names);
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        }
        q->label = names[n];
        q->name = w->name;
        q->roof = w->roof;
        q->ai_flop_per_byte = w->v.ai_flop_per_byte[RL_MEM_DRAM];
        for (int l = 1; l < RL_MEM_COUNT && isnan(q->ai_flop_per_byte); l++)
            q->ai_flop_per_byte = w->v.ai_flop_per_byte[l];
        bool timed = !isnan(w->v.achieved_tflops);
        q->tflops = timed ? w->v.achieved_tflops : w->v.attainable_tflops;
        q->origin = timed ? w->origin : RL_ORIGIN_ANALYTIC;
        q->timed = timed;
        /* Marker area follows the share of GPU time. */
        q->size = max_share > 0 && !isnan(w->time_share)
                      ? 0.5 + 2.5 * sqrt(w->time_share / max_share)
                      : 1;
        if (!isnan(w->v.ai_flop_per_byte[RL_MEM_DRAM])) {
            q->ai_l2_flop_per_byte = w->v.ai_flop_per_byte[RL_MEM_L2];
            q->ai_l1_flop_per_byte = w->v.ai_flop_per_byte[RL_MEM_L1];
        }
        q->ai_link_flop_per_byte = w->v.ai_link_flop_per_byte;
        links |= w->v.ai_link_flop_per_byte > 0;
        n++;
    }
    /* The link roof, drawn when something communicates. */
    struct rl_memory_roof mem[2 * RL_MEM_COUNT + 1];
    size_t n_mem = c->n_memory;
    memcpy(mem, c->memory, c->n_memory * sizeof mem[0]);
    if (links && c->has_link) {
        struct rl_memory_roof *m = &mem[n_mem++];
        memset(m, 0, sizeof *m);
        m->level = (enum rl_mem_level)RL_CHART_LINK_LEVEL;
        snprintf(m->label, sizeof m->label, "%.40s (link)", c->link.label);
        m->bandwidth_gbs = c->link.bandwidth_gbs;
        m->origin = c->link.origin;
    }
    struct rl_chart chart = {title, c->compute, c->n_compute, mem,    n_mem,
                             p,     n,          labels,       series, n_series,
                             r->chart_w, r->chart_h};
    int rc = rl_chart_render(&chart, out_path, errmsg);
    free(p);
    free(names);
    return rc;
}
