/* report.c - the reporter: every kernel group judged against its roof, explained in one sentence, written as table, Markdown, CSV, JSON and chart. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/report.h"

#include "analyzer/util/error.h"
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
        snprintf(b, n, "%.3g TB/s", gbs / 1000);
    else if (gbs >= 1)
        snprintf(b, n, "%.3g GB/s", gbs);
    else
        snprintf(b, n, "%.3g MB/s", gbs * 1000);
}

/* "65.1 TFLOP/s", "412 GFLOP/s". */
static void fmt_rate(char *b, size_t n, double tflops, bool ops)
{
    const char *u = ops ? "OP/s" : "FLOP/s";
    if (isnan(tflops))
        snprintf(b, n, "-");
    else if (tflops >= 1)
        snprintf(b, n, "%.3g T%s", tflops, u);
    else
        snprintf(b, n, "%.3g G%s", tflops * 1000, u);
}

static void fmt_g(char *b, size_t n, double v)
{
    if (isnan(v))
        snprintf(b, n, "-");
    else if (isinf(v))
        snprintf(b, n, "inf");
    else
        snprintf(b, n, "%.3g", v);
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

/* The memory roof that limits at `level`: the lowest bandwidth there. */
static const struct rl_memory_roof *limiting_roof(const struct rl_ceilings *c,
                                                  enum rl_mem_level level)
{
    const struct rl_memory_roof *best = NULL;
    for (size_t i = 0; i < c->n_memory; i++)
        if (c->memory[i].level == level &&
            (!best || c->memory[i].bandwidth_gbs < best->bandwidth_gbs))
            best = &c->memory[i];
    return best;
}

static void note(struct rl_report *r, const char *text)
{
    if (strstr(r->notes, text))
        return;
    size_t used = strlen(r->notes);
    snprintf(r->notes + used, sizeof r->notes - used, "%s%s", used ? "\n" : "", text);
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
                              "short launches (%.3g us each): launch overhead and latency "
                              "dominate",
                              per_launch_us);
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

/* counted_ns: the time of the counted launches, the basis of every rate in
 * the sentence (NAN when one of them has no time). */
static void explain(struct rl_report_row *w, const struct rl_ceilings *c, double counted_ns)
{
    char ai[24], ridge[24], x[24], rate[32], att[32], bw[32], roof[24];
    const struct rl_compute_roof *cr = w->roof >= 0 ? &c->compute[w->roof] : NULL;
    if (w->bound == RL_BOUND_UNKNOWN) {
        if (w->counted == 0)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %.3g%% of GPU time, timing only: no FLOPs or bytes were counted "
                     "(trace it with counters, or --top)",
                     w->name, 100 * w->time_share);
        else
            snprintf(w->sentence, sizeof w->sentence, "%s: no intensity (no FLOPs and no bytes)",
                     w->name);
        return;
    }
    upper(roof, sizeof roof, cr->name);
    const struct rl_verdict *v = &w->v;
    double ai_x = v->ai_flop_per_byte[v->bound == RL_BOUND_MEMORY ? v->limiter : RL_MEM_DRAM];
    if (isnan(ai_x))
        for (int l = 0; l < RL_MEM_COUNT && isnan(ai_x); l++)
            ai_x = v->ai_flop_per_byte[l];
    fmt_g(ai, sizeof ai, ai_x);
    fmt_g(ridge, sizeof ridge, v->ridge_flop_per_byte);
    fmt_rate(att, sizeof att, v->attainable_tflops, cr->ops);
    fmt_rate(rate, sizeof rate, v->achieved_tflops, cr->ops);
    bool timed = !isnan(v->achieved_tflops);
    if (w->bound == RL_BOUND_NEITHER) {
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s FLOP/B, %s = %.2g%% of the %s attainable at that intensity: bound by "
                 "neither roof; %s",
                 w->name, ai, rate, v->pct_of_roof, att, w->evidence);
        return;
    }
    if (w->bound == RL_BOUND_MEMORY) {
        const struct rl_memory_roof *m = limiting_roof(c, v->limiter);
        fmt_g(x, sizeof x, v->ridge_distance_x);
        double level_gbs = timed ? w->bytes[v->limiter] / counted_ns : NAN;
        fmt_bw(bw, sizeof bw, level_gbs);
        if (timed)
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s FLOP/B, %sx left of the %s ridge (%s FLOP/B): bandwidth-bound "
                     "(%s); %s = %.3g%% of %s %s",
                     w->name, ai, x, roof, ridge, rl_mem_level_name(v->limiter), bw,
                     v->pct_of_roof, m ? rl_origin_name(m->origin) : "", m ? m->label : "");
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s FLOP/B, %sx left of the %s ridge (%s FLOP/B): bandwidth-bound "
                     "(%s), at best %s (analytic: no time)",
                     w->name, ai, x, roof, ridge, rl_mem_level_name(v->limiter), att);
        return;
    }
    fmt_g(x, sizeof x, v->ridge_distance_x > 0 ? 1 / v->ridge_distance_x : NAN);
    if (timed)
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s FLOP/B, %sx right of the %s ridge (%s FLOP/B): compute-bound; %s = "
                 "%.3g%% of %s %s",
                 w->name, ai, x, roof, ridge, rate, v->pct_of_roof, rl_origin_name(cr->origin),
                 cr->label);
    else
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s FLOP/B, %sx right of the %s ridge (%s FLOP/B): compute-bound, at best "
                 "%s (analytic: no time)",
                 w->name, ai, x, roof, ridge, att);
}

static int judge(struct rl_report *r, struct rl_ceilings *c, const char *precision)
{
    if (!precision[0])
        return (int)c->default_roof;
    char err[RL_ERRMSG_SIZE];
    int j = rl_ceilings_judge(c, precision, err);
    if (j >= 0)
        return j;
    char text[RL_ERRMSG_SIZE + 96];
    snprintf(text, sizeof text, "%s: kernels of this precision are judged against the %s roof",
             err, c->compute[c->default_roof].name);
    note(r, text);
    return (int)c->default_roof;
}

int rl_report_build(struct rl_report *r, struct rl_ceilings *c, const struct rl_trace_groups *g,
                    char *errmsg)
{
    memset(r, 0, sizeof *r);
    r->source = g->sum;
    r->rows = calloc(g->n ? g->n : 1, sizeof *r->rows);
    if (!r->rows)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    for (size_t i = 0; i < g->n; i++) {
        r->time_ns += g->v[i].time_ns;
        r->launches += g->v[i].launches;
    }
    for (size_t i = 0; i < g->n; i++) {
        const struct rl_trace_group *t = &g->v[i];
        struct rl_report_row *w = &r->rows[r->n];
        if (!(w->name = strdup(t->name)))
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        r->n++;
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
        double counted_ns = t->counted_timed == t->counted ? t->counted_time_ns : NAN;
        if (t->counted) {
            w->roof = judge(r, c, t->precision);
            /* The rate of the counted launches: their FLOPs over their time. */
            struct rl_kernel_perf perf = {t->flops, {t->bytes[0], t->bytes[1], t->bytes[2]},
                                          counted_ns};
            char err[RL_ERRMSG_SIZE];
            if (rl_classify(&perf, &c->compute[w->roof], c->memory, c->n_memory, &w->v, err) ==
                RL_OK) {
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
                note(r, text);
            }
        }
        explain(w, c, counted_ns);
    }
    qsort(r->rows, r->n, sizeof *r->rows, cmp_rows);
    if (r->source.counters_status[0] && strcmp(r->source.counters_status, "ok") != 0) {
        char text[640];
        snprintf(text, sizeof text, "counters %s%s%.500s", r->source.counters_status,
                 r->source.counters_reason[0] ? ": " : "", r->source.counters_reason);
        note(r, text);
    }
    if (r->source.tensor_not_counted[0]) {
        char text[160];
        snprintf(text, sizeof text,
                 "Tensor Core work of types %s was not counted (trace with --metrics full)",
                 r->source.tensor_not_counted);
        note(r, text);
    }
    if (r->source.incomplete)
        note(r, "the trace is incomplete: the program ended on a signal");
    return RL_OK;
}

void rl_report_release(struct rl_report *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->rows[i].name);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* ---- outputs --------------------------------------------------------------- */

static const char *roof_name(const struct rl_report_row *w, const struct rl_ceilings *c)
{
    return w->roof >= 0 ? c->compute[w->roof].name : "";
}


void rl_report_table(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                     size_t rows)
{
    size_t n = rows && rows < r->n ? rows : r->n;
    fprintf(f, "%-40s %6s %7s %9s %11s %11s %7s  %s\n", "KERNEL", "TIME%", "LAUNCH", "AI F/B",
            "ACHIEVED", "ROOF", "%ROOF", "BOUND");
    for (size_t i = 0; i < n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        char name[41], ai[16], ach[32], att[32], pct[16], share[16];
        rl_str_shorten(name, sizeof name, w->name);
        fmt_g(ai, sizeof ai, w->v.ai_flop_per_byte[RL_MEM_DRAM]);
        bool ops = w->roof >= 0 && c->compute[w->roof].ops;
        fmt_rate(ach, sizeof ach, w->v.achieved_tflops, ops);
        fmt_rate(att, sizeof att, w->v.attainable_tflops, ops);
        fmt_g(pct, sizeof pct, w->v.pct_of_roof);
        fmt_g(share, sizeof share, 100 * w->time_share);
        fprintf(f, "%-40s %6s %7llu %9s %11s %11s %7s  %s%s%s%s\n", name, share,
                (unsigned long long)w->launches, ai, ach, att, pct, rl_bound_name(w->bound),
                w->bound == RL_BOUND_MEMORY ? " (" : "",
                w->bound == RL_BOUND_MEMORY ? rl_mem_level_name(w->v.limiter) : "",
                w->bound == RL_BOUND_MEMORY ? ")" : "");
    }
    if (n < r->n)
        fprintf(f, "... %zu more kernel groups (report.csv has them all)\n", r->n - n);
}

static void csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
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
          "ridge_flop_per_byte,roof,roof_origin,origin,bound,limiter,sentence\n",
          f);
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        csv_string(f, w->name);
        fprintf(f, ",%ux%ux%u,%ux%ux%u,%llu,%llu", w->grid[0], w->grid[1], w->grid[2],
                w->block[0], w->block[1], w->block[2], (unsigned long long)w->launches,
                (unsigned long long)w->counted);
        csv_number(f, w->time_ns);
        csv_number(f, w->time_share);
        csv_number(f, w->counted ? w->flops : NAN);
        for (int m = 0; m < RL_MEM_COUNT; m++)
            csv_number(f, w->counted ? w->bytes[m] : NAN);
        for (int m = 0; m < RL_MEM_COUNT; m++)
            csv_number(f, w->v.ai_flop_per_byte[m]);
        csv_number(f, w->v.achieved_tflops);
        csv_number(f, w->achieved_gbs);
        csv_number(f, w->v.attainable_tflops);
        csv_number(f, w->v.pct_of_roof);
        csv_number(f, w->v.ridge_flop_per_byte);
        fprintf(f, ",%s,%s,%s,%s,%s,", roof_name(w, c),
                w->roof >= 0 ? rl_origin_name(c->compute[w->roof].origin) : "",
                rl_origin_name(w->origin), rl_bound_name(w->bound),
                w->bound == RL_BOUND_MEMORY ? rl_mem_level_name(w->v.limiter) : "");
        csv_string(f, w->sentence);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

#define json_string rl_fput_json_string

static void json_number(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
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
    json_number(f, "time_ns", r->time_ns);
    fputs("},\n  \"ceilings\": [\n", f);
    for (size_t i = 0; i < c->n_compute; i++) {
        fputs("    {\"kind\": \"compute\", \"name\": ", f);
        json_string(f, c->compute[i].name);
        fputs(", \"label\": ", f);
        json_string(f, c->compute[i].label);
        json_number(f, "tflops", c->compute[i].peak_tflops);
        fprintf(f, ", \"origin\": \"%s\"},\n", rl_origin_name(c->compute[i].origin));
    }
    for (size_t i = 0; i < c->n_memory; i++) {
        fprintf(f, "    {\"kind\": \"memory\", \"name\": \"%s\", \"label\": ",
                rl_mem_level_name(c->memory[i].level));
        json_string(f, c->memory[i].label);
        json_number(f, "gbs", c->memory[i].bandwidth_gbs);
        fprintf(f, ", \"origin\": \"%s\"}%s\n", rl_origin_name(c->memory[i].origin),
                i + 1 < c->n_memory ? "," : "");
    }
    fputs("  ],\n  \"notes\": [", f);
    const char *p = r->notes;
    for (bool first = true; *p; first = false) {
        size_t k = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)k, p);
        fputs(first ? "" : ", ", f);
        json_string(f, line);
        p += k + (p[k] == '\n');
    }
    fputs("],\n  \"kernels\": [\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        fputs("    {\"name\": ", f);
        json_string(f, w->name);
        fprintf(f, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"launches\": %llu, "
                   "\"counted\": %llu",
                w->grid[0], w->grid[1], w->grid[2], w->block[0], w->block[1], w->block[2],
                (unsigned long long)w->launches, (unsigned long long)w->counted);
        json_number(f, "time_ns", w->time_ns);
        json_number(f, "time_share", w->time_share);
        json_number(f, "flops", w->counted ? w->flops : NAN);
        json_number(f, "dram_bytes", w->counted ? w->bytes[RL_MEM_DRAM] : NAN);
        json_number(f, "l2_bytes", w->counted ? w->bytes[RL_MEM_L2] : NAN);
        json_number(f, "l1_bytes", w->counted ? w->bytes[RL_MEM_L1] : NAN);
        json_number(f, "ai_dram_flop_per_byte", w->v.ai_flop_per_byte[RL_MEM_DRAM]);
        json_number(f, "ai_l2_flop_per_byte", w->v.ai_flop_per_byte[RL_MEM_L2]);
        json_number(f, "ai_l1_flop_per_byte", w->v.ai_flop_per_byte[RL_MEM_L1]);
        json_number(f, "achieved_tflops", w->v.achieved_tflops);
        json_number(f, "achieved_dram_gbs", w->achieved_gbs);
        json_number(f, "attainable_tflops", w->v.attainable_tflops);
        json_number(f, "pct_of_roof", w->v.pct_of_roof);
        json_number(f, "ridge_flop_per_byte", w->v.ridge_flop_per_byte);
        fputs(", \"roof\": ", f);
        json_string(f, roof_name(w, c));
        fprintf(f, ", \"roof_origin\": \"%s\", \"origin\": \"%s\", \"bound\": \"%s\"",
                w->roof >= 0 ? rl_origin_name(c->compute[w->roof].origin) : "",
                rl_origin_name(w->origin), rl_bound_name(w->bound));
        if (w->bound == RL_BOUND_MEMORY)
            fprintf(f, ", \"limiter\": \"%s\"", rl_mem_level_name(w->v.limiter));
        if (w->evidence[0]) {
            fputs(", \"evidence\": ", f);
            json_string(f, w->evidence);
        }
        fputs(", \"sentence\": ", f);
        json_string(f, w->sentence);
        fputs(i + 1 < r->n ? "},\n" : "}\n", f);
    }
    fputs("  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '<' || *s == '*' || *s == '_' || *s == '`')
            fputc('\\', f);
        fputc(*s, f);
    }
}

#define MD_ROWS 100

int rl_report_markdown(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                       const char *chart_image)
{
    char origins[64], t[32];
    rl_ceilings_origins(c, origins, sizeof origins);
    fprintf(f, "# Roofline report: %s\n\n", c->gpu_name);
    fprintf(f, "Kernels from `%s` (%s): %llu launches in %zu groups", r->source_path,
            r->source_kind, (unsigned long long)r->launches, r->n);
    if (r->time_ns > 0)
        fprintf(f, ", %.4g ms of GPU time", r->time_ns / 1e6);
    fprintf(f, ". Ceilings: %s. Every figure is labelled measured, datasheet or analytic.\n\n",
            origins);
    if (chart_image)
        fprintf(f, "![roofline of %s](%s)\n\n", c->gpu_name, chart_image);
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
    fputs("| kernel | time | launches | AI (FLOP/B) | achieved | roof at its AI | % of roof | "
          "bound |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        char ai[16], ach[32], att[32], pct[16], share[16];
        bool ops = w->roof >= 0 && c->compute[w->roof].ops;
        fmt_g(ai, sizeof ai, w->v.ai_flop_per_byte[RL_MEM_DRAM]);
        fmt_rate(ach, sizeof ach, w->v.achieved_tflops, ops);
        fmt_rate(att, sizeof att, w->v.attainable_tflops, ops);
        fmt_g(pct, sizeof pct, w->v.pct_of_roof);
        fmt_g(share, sizeof share, 100 * w->time_share);
        fputs("| ", f);
        md_cell(f, w->name);
        fprintf(f, " | %s%% | %llu | %s | %s | %s | %s | %s%s%s%s |\n", share,
                (unsigned long long)w->launches, ai, ach, att, pct, rl_bound_name(w->bound),
                w->bound == RL_BOUND_MEMORY ? " (" : "",
                w->bound == RL_BOUND_MEMORY ? rl_mem_level_name(w->v.limiter) : "",
                w->bound == RL_BOUND_MEMORY ? ")" : "");
    }
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
    struct rl_chart_point *p = calloc(r->n ? r->n : 1, sizeof *p);
    char (*names)[48] = calloc(r->n ? r->n : 1, sizeof *names);
    if (!p || !names) {
        free(p);
        free(names);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    }
    double max_share = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].time_share > max_share)
            max_share = r->rows[i].time_share;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        if (w->roof < 0 || w->bound == RL_BOUND_UNKNOWN)
            continue;
        struct rl_chart_point *q = &p[n];
        rl_str_shorten(names[n], sizeof names[n], w->name);
        q->label = names[n];
        q->roof = w->roof;
        q->ai_flop_per_byte = w->v.ai_flop_per_byte[RL_MEM_DRAM];
        for (int l = 1; l < RL_MEM_COUNT && isnan(q->ai_flop_per_byte); l++)
            q->ai_flop_per_byte = w->v.ai_flop_per_byte[l];
        bool timed = !isnan(w->v.achieved_tflops);
        q->tflops = timed ? w->v.achieved_tflops : w->v.attainable_tflops;
        q->origin = timed ? w->origin : RL_ORIGIN_ANALYTIC;
        /* Marker area follows the share of GPU time. */
        q->size = max_share > 0 && !isnan(w->time_share)
                      ? 0.5 + 2.5 * sqrt(w->time_share / max_share)
                      : 1;
        if (!isnan(w->v.ai_flop_per_byte[RL_MEM_DRAM])) {
            q->ai_l2_flop_per_byte = w->v.ai_flop_per_byte[RL_MEM_L2];
            q->ai_l1_flop_per_byte = w->v.ai_flop_per_byte[RL_MEM_L1];
        }
        n++;
    }
    struct rl_chart chart = {title, c->compute, c->n_compute, c->memory, c->n_memory,
                             p,     n,          labels,       series,    n_series};
    int rc = rl_chart_render(&chart, out_path, errmsg);
    free(p);
    free(names);
    return rc;
}
