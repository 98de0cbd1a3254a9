/* step.c - one profiled step as a whole: GPU time by bound, time lost against the roof, the operators ranked by it (report --torch).
 *
 * A kernel group's roof time is the time it would take at its roof: its
 * FLOPs over the attainable rate at its intensity (the compute roof, or
 * the memory roof times the intensity, whichever is lower), a memory
 * point's bytes over the DRAM roof, a collective's bus bytes (message x
 * nccl-tests' factor) over the link's bandwidth per direction. Its judged
 * time is the time of the launches that carry those FLOPs or bytes, and
 * the time lost is the judged time minus the roof time (never below 0: a
 * row above its roof is the over-roof notes' to explain, and loses
 * nothing). An operator's figures are over one set of kernels, those with
 * a roof time: judged, roof and lost time summed over them, lost =
 * judged - roof (a kernel above its roof offsets its operator's others),
 * % of roof = roof / judged; kernels with no cost are told apart, not
 * counted as lost or as not lost.
 */
#define _GNU_SOURCE
#include "analyzer/report/step.h"

#include "analyzer/comm/collective.h"
#include "analyzer/report/report.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/numtext.h"
#include "analyzer/util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sentences fit their fields: the verdict comes first, and a long name or
 * shape list at the end is what gets cut. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

const char *rl_step_bucket_text(enum rl_step_bucket b)
{
    return b == RL_STEP_UNKNOWN ? "not judged" : rl_step_bucket_name(b);
}

const char *rl_step_bucket_name(enum rl_step_bucket b)
{
    static const char *const names[RL_STEP_BUCKETS] = {"compute", "memory", "neither", "link",
                                                       "unknown"};
    return b < RL_STEP_BUCKETS ? names[b] : "unknown";
}

/* "12.3 ms", "412 us", "-" */
static void fmt_time(char *b, size_t n, double ns)
{
    if (!(ns >= 0))
        snprintf(b, n, "-");
    else if (ns >= 1e9)
        snprintf(b, n, "%s s", rl_num(ns / 1e9, 4));
    else if (ns >= 1e6)
        snprintf(b, n, "%s ms", rl_num(ns / 1e6, 4));
    else
        snprintf(b, n, "%s us", rl_num(ns / 1e3, 4));
}

static enum rl_step_bucket bucket_of(const struct rl_report_row *w)
{
    if (w->comm)
        return RL_STEP_LINK;
    if (w->memory_only)
        return isnan(w->achieved_gbs) ? RL_STEP_UNKNOWN : RL_STEP_MEMORY;
    enum rl_mem_level level;
    switch (rl_report_bound(w, &level)) {
    case RL_BOUND_COMPUTE: return RL_STEP_COMPUTE;
    case RL_BOUND_MEMORY: return RL_STEP_MEMORY;
    case RL_BOUND_NEITHER: return RL_STEP_NEITHER;
    case RL_BOUND_LINK: return RL_STEP_LINK;
    default: return RL_STEP_UNKNOWN;
    }
}

/* A row's roof time, lost time and (collectives) bus bandwidth. */
static void judge_row(struct rl_report_row *w, const struct rl_ceilings *c)
{
    w->roof_time_ns = w->judged_ns = w->lost_ns = NAN;
    double timed = NAN; /* the time the roof time is set against */
    if (w->comm) {
        int coll = w->collective[0] ? rl_collective_parse(w->collective) : -1;
        if (coll >= 0 && w->comm_group_size > 1 && w->comm_bytes >= 0 &&
            !isnan(w->comm_algbw_gbs)) {
            double factor = rl_collective_bus_factor((enum rl_collective)coll,
                                                     w->comm_group_size);
            w->comm_busbw_gbs = w->comm_algbw_gbs * factor;
            if (c->has_link && c->link.bandwidth_gbs > 0) {
                w->pct_of_link = 100 * w->comm_busbw_gbs / c->link.bandwidth_gbs;
                w->roof_time_ns = w->comm_bytes * factor / c->link.bandwidth_gbs;
                timed = w->time_ns;
            }
        }
    } else if (w->memory_only) {
        const struct rl_memory_roof *m = NULL;
        for (size_t i = 0; i < c->n_memory; i++)
            if (c->memory[i].level == RL_MEM_DRAM)
                m = &c->memory[i];
        if (m && m->bandwidth_gbs > 0 && w->achieved_gbs > 0) {
            w->roof_time_ns = w->bytes[RL_MEM_DRAM] / m->bandwidth_gbs;
            timed = w->bytes[RL_MEM_DRAM] / w->achieved_gbs;
        }
    } else if (w->counted && w->flops > 0 && !w->default_roof && w->v.attainable_tflops > 0 &&
               w->v.achieved_tflops > 0) {
        /* a row judged against the default roof (no precision of its own)
         * has no roof time: its roof is a guess, the fastest the GPU has,
         * and would rank it first by a loss it may not have */
        /* TFLOP/s x 1e3 = FLOP/ns */
        w->roof_time_ns = w->flops / (w->v.attainable_tflops * 1e3);
        timed = w->flops / (w->v.achieved_tflops * 1e3);
    }
    if (!isnan(w->roof_time_ns) && timed > 0) {
        w->judged_ns = timed;
        w->lost_ns = timed > w->roof_time_ns ? timed - w->roof_time_ns : 0;
    } else {
        w->roof_time_ns = NAN;
    }
    if (w->comm && !isnan(w->comm_busbw_gbs) && c->has_link) {
        char name[96];
        rl_str_shorten(name, sizeof name, w->name);
        snprintf(w->sentence, sizeof w->sentence,
                 "%s over %d GPUs at %s GB/s bus bandwidth (algbw x nccl-tests' factor), "
                 "%s%% of the %s roof (%s GB/s per direction, %s): %s",
                 w->collective, w->comm_group_size, rl_num(w->comm_busbw_gbs, 3),
                 rl_num(w->pct_of_link, 3),
                 c->link.label, rl_num(c->link.bandwidth_gbs, 4), rl_origin_name(c->link.origin),
                 name);
    }
}

static const char *no_op = "(no operator)";

static struct rl_report_op *op_of(struct rl_report_step *s, const struct rl_report_row *w,
                                  size_t *cap)
{
    const char *name = w->op ? w->op : no_op;
    for (size_t i = 0; i < s->n_ops; i++)
        if (strcmp(s->ops[i].op, name) == 0)
            return &s->ops[i];
    if (s->n_ops == *cap) {
        size_t n = *cap ? 2 * *cap : 64;
        struct rl_report_op *v = rl_realloc(s->ops, n * sizeof *v);
        if (!v)
            return NULL;
        s->ops = v;
        *cap = n;
    }
    struct rl_report_op *o = &s->ops[s->n_ops++];
    memset(o, 0, sizeof *o);
    snprintf(o->op, sizeof o->op, "%s", name);
    o->flops = o->dram_bytes = o->roof_time_ns = o->lost_ns = NAN;
    snprintf(o->bound, sizeof o->bound, "-");
    return o;
}

static double add_nan(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a + b;
}

static int cmp_ops(const void *pa, const void *pb)
{
    const struct rl_report_op *a = pa, *b = pb;
    double la = isnan(a->lost_ns) ? -1 : a->lost_ns, lb = isnan(b->lost_ns) ? -1 : b->lost_ns;
    if (la != lb)
        return la > lb ? -1 : 1;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return strcmp(a->op, b->op);
}

/* "aten::mm (8944x1024, 1024x2816, bf16)" */
static void op_what(char *buf, size_t cap, const struct rl_report_op *o)
{
    bool paren = o->shapes[0] || o->dtype[0];
    snprintf(buf, cap, "%s%s%s%s%s%s", o->op, paren ? " (" : "", o->shapes,
             o->shapes[0] && o->dtype[0] ? ", " : "", o->dtype, paren ? ")" : "");
}

/* Judged on at least half its time: its bound is its judged kernels'. */
static bool mostly_judged(const struct rl_report_op *o)
{
    return o->judged_ns >= 0.5 * o->time_ns;
}

static void op_sentence(struct rl_report_op *o, const struct rl_report_step *s)
{
    char t[32], lost[32], judged[32], rest[32], what[320], n[48];
    fmt_time(t, sizeof t, o->time_ns);
    double share = s->gpu_time_ns > 0 ? 100 * o->time_ns / s->gpu_time_ns : NAN;
    op_what(what, sizeof what, o);
    rl_count_text(n, sizeof n, o->launches, "launch", "launches");
    if (isnan(o->lost_ns)) {
        snprintf(o->sentence, sizeof o->sentence,
                 "%s: %s in %s (%s%% of GPU time), not judged: %s", what, t, n,
                 rl_num(share, 3),
                 strcmp(o->op, no_op) == 0 ? "no operator linked to these kernels"
                                           : "the cost table does not know this operator "
                                             "or its shapes were not recorded");
        return;
    }
    fmt_time(lost, sizeof lost, o->lost_ns);
    fmt_time(judged, sizeof judged, o->judged_ns);
    double rest_ns = o->time_ns > o->judged_ns ? o->time_ns - o->judged_ns : 0;
    fmt_time(rest, sizeof rest, rest_ns);
    const char *roof = o->roof_text[0] ? o->roof_text : "default roof";
    if (mostly_judged(o)) {
        char tail[96] = "";
        if (rest_ns > 0)
            snprintf(tail, sizeof tail, "; %s of it not judged (kernels with no FLOPs, bytes "
                                        "or precision known)", rest);
        snprintf(o->sentence, sizeof o->sentence,
                 "%s lost against the %s, at %s%% of it: %s, %s in %s (%s%% of "
                 "GPU time), bound: %s%s",
                 lost, roof, rl_num(o->pct_of_roof, 3), what, t, n, rl_num(share, 3),
                 o->bound, tail);
    } else {
        /* judged on less than half its time (its GEMMs without shapes, its
         * fills with): the loss is the judged part's, the rest said apart,
         * and no bound is claimed for the whole */
        snprintf(o->sentence, sizeof o->sentence,
                 "%s lost against the %s, at %s%% of it, on the %s of its kernels with a "
                 "cost: %s, %s in %s (%s%% of GPU time); the other %s not "
                 "judged (kernels with no FLOPs, bytes or precision known)",
                 lost, roof, rl_num(o->pct_of_roof, 3), judged, what, t, n,
                 rl_num(share, 3), rest);
    }
}

/* The headline: one line, the step's biggest win. The one place it is
 * decided; a new case (another kind of step) goes here, before the
 * operators' ranking is consulted. Contract: s's operators are judged,
 * ranked (largest loss first) and have their sentences; s->headline is
 * set, never empty. Cases: the operator losing the most, where that is 1%
 * of the GPU time or more ("biggest win, 6.59% of the 45.65 ms of GPU
 * time: ..."); else the largest by time,
 * saying why no operator was named; else no GPU activity. */
static void step_headline(struct rl_report_step *s)
{
    char t[32];
    fmt_time(t, sizeof t, s->gpu_time_ns);
    if (s->n_ops && s->ops[0].lost_ns >= 0.01 * s->gpu_time_ns && s->ops[0].lost_ns > 0) {
        snprintf(s->headline, sizeof s->headline,
                 "biggest win, %.3g%% of the %s of GPU time: %s",
                 100 * s->ops[0].lost_ns / s->gpu_time_ns, t, s->ops[0].sentence);
    } else if (s->n_ops) {
        const struct rl_report_op *top = &s->ops[0];
        for (size_t i = 1; i < s->n_ops; i++)
            if (s->ops[i].time_ns > top->time_ns)
                top = &s->ops[i];
        snprintf(s->headline, sizeof s->headline, "%s; the largest by GPU time: %s",
                 s->ops[0].lost_ns > 0 ? "no operator loses 1% of the GPU time against its roof"
                                       : "no operator could be set against its roof",
                 top->sentence);
    } else {
        snprintf(s->headline, sizeof s->headline, "no GPU activity in the trace");
    }
}

int rl_report_step_build(struct rl_report *r, const struct rl_ceilings *c, double busy_ns,
                         double span_ns, char *errmsg)
{
    struct rl_report_step *s = rl_calloc(1, sizeof *s);
    if (!s)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    rl__report_step_free(r->step);
    r->step = s;
    s->busy_ns = busy_ns;
    s->span_ns = span_ns;
    s->idle_ns = span_ns >= busy_ns ? span_ns - busy_ns : NAN;
    s->lost_ns = NAN;
    size_t cap = 0;
    double *biggest = NULL; /* per op: its largest row's time */
    size_t biggest_cap = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct rl_report_row *w = &r->rows[i];
        judge_row(w, c);
        double t = w->time_ns > 0 ? w->time_ns : 0;
        enum rl_step_bucket b = bucket_of(w);
        s->gpu_time_ns += t;
        s->bucket_ns[b] += t;
        struct rl_report_op *o = op_of(s, w, &cap);
        if (!o) {
            free(biggest);
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        }
        size_t k = (size_t)(o - s->ops);
        if (k >= biggest_cap) {
            size_t n = biggest_cap ? 2 * biggest_cap : 64;
            while (n <= k)
                n *= 2;
            double *v = rl_realloc(biggest, n * sizeof *v);
            if (!v) {
                free(biggest);
                return rl_fail(errmsg, RL_ENOMEM, "out of memory");
            }
            for (size_t j = biggest_cap; j < n; j++)
                v[j] = -INFINITY;
            biggest = v;
            biggest_cap = n;
        }
        o->launches += w->launches;
        o->groups++;
        o->time_ns += t;
        o->bucket_ns[b] += t;
        if (w->counted && !w->comm) {
            if (!w->memory_only && w->flops >= 0)
                o->flops = add_nan(o->flops, w->flops);
            if (w->bytes[RL_MEM_DRAM] >= 0)
                o->dram_bytes = add_nan(o->dram_bytes, w->bytes[RL_MEM_DRAM]);
        }
        if (!isnan(w->roof_time_ns)) {
            o->roof_time_ns = add_nan(o->roof_time_ns, w->roof_time_ns);
            o->judged_ns += w->judged_ns;
        }
        /* the largest judged group names the shapes, dtype, roof and bound
         * (its judged time; a group without a roof time only where none
         * has one: score = its time - 1e30) */
        double score = isnan(w->roof_time_ns) ? t - 1e30 : w->judged_ns;
        if (score > biggest[k]) {
            biggest[k] = score;
            snprintf(o->shapes, sizeof o->shapes, "%s", w->shapes ? w->shapes : "");
            snprintf(o->dtype, sizeof o->dtype, "%s", w->dtype);
            snprintf(o->roof, sizeof o->roof, "%s", w->roof >= 0 ? c->compute[w->roof].name : "");
            rl_report_roof_text(o->roof_text, sizeof o->roof_text, w, c);
            rl_report_bound_text(o->bound, sizeof o->bound, w, c);
        }
    }
    free(biggest);
    for (size_t i = 0; i < s->n_ops; i++) {
        struct rl_report_op *o = &s->ops[i];
        if (!isnan(o->roof_time_ns) && o->judged_ns > 0) {
            o->lost_ns = o->judged_ns > o->roof_time_ns ? o->judged_ns - o->roof_time_ns : 0;
            o->pct_of_roof = 100 * o->roof_time_ns / o->judged_ns;
        } else {
            o->roof_time_ns = o->lost_ns = o->pct_of_roof = NAN;
        }
        s->lost_ns = add_nan(s->lost_ns, o->lost_ns);
        o->bucket = RL_STEP_UNKNOWN;
        double most = 0;
        for (int b = 0; b < RL_STEP_BUCKETS; b++)
            if (o->bucket_ns[b] > most)
                most = o->bucket_ns[b], o->bucket = (enum rl_step_bucket)b;
        if (!mostly_judged(o))
            snprintf(o->bound, sizeof o->bound, "-");
    }
    if (s->n_ops)
        qsort(s->ops, s->n_ops, sizeof *s->ops, cmp_ops);
    for (size_t i = 0; i < s->n_ops; i++)
        op_sentence(&s->ops[i], s);
    step_headline(s);
    return RL_OK;
}

void rl_report_step_table(FILE *f, const struct rl_report *r, size_t rows)
{
    const struct rl_report_step *s = r->step;
    if (!s)
        return;
    char t[32], idle[32], span[32], lost[32];
    fmt_time(t, sizeof t, s->gpu_time_ns);
    fprintf(f, "%s\n\n", s->headline);
    fprintf(f, "step: %s of GPU time", t);
    if (!isnan(s->idle_ns) && s->span_ns > 0) {
        fmt_time(idle, sizeof idle, s->idle_ns);
        fmt_time(span, sizeof span, s->span_ns);
        fprintf(f, "; GPU idle %s of %s (%s%%)", idle, span, rl_num(100 * s->idle_ns / s->span_ns,
        3));
    }
    fprintf(f, "\n  by bound:");
    for (int b = 0; b < RL_STEP_BUCKETS; b++) {
        fmt_time(t, sizeof t, s->bucket_ns[b]);
        fprintf(f, "%s %s %s (%.3g%%)", b ? "," : "", rl_step_bucket_text((enum rl_step_bucket)b),
                t, s->gpu_time_ns > 0 ? 100 * s->bucket_ns[b] / s->gpu_time_ns : 0.0);
    }
    fmt_time(lost, sizeof lost, s->lost_ns);
    fprintf(f, "\n  time lost against the roof: %s", lost);
    if (s->lost_ns >= 0 && s->gpu_time_ns > 0)
        fprintf(f, " (%.3g%% of GPU time)", 100 * s->lost_ns / s->gpu_time_ns);
    /* judged: the time of its kernels with a cost, the basis of lost and
     * %roof */
    fprintf(f, "\n\n%-32s %-28s %-5s %8s %9s %9s %9s %6s %s\n", "operator", "shapes", "dtype",
            "launches", "time", "judged", "lost", "%roof", "bound");
    for (size_t i = 0; i < s->n_ops && (rows == 0 || i < rows); i++) {
        const struct rl_report_op *o = &s->ops[i];
        char name[33], shapes[29], pct[16], judged[32];
        rl_str_shorten(name, sizeof name, o->op);
        rl_str_shorten(shapes, sizeof shapes, o->shapes[0] ? o->shapes : "-");
        fmt_time(t, sizeof t, o->time_ns);
        fmt_time(lost, sizeof lost, o->lost_ns);
        fmt_time(judged, sizeof judged, isnan(o->lost_ns) ? NAN : o->judged_ns);
        if (isnan(o->pct_of_roof))
            snprintf(pct, sizeof pct, "-");
        else
            snprintf(pct, sizeof pct, "%.3g", o->pct_of_roof);
        fprintf(f, "%-32s %-28s %-5s %8llu %9s %9s %9s %6s %s\n", name, shapes,
                o->dtype[0] ? o->dtype : "-", (unsigned long long)o->launches, t, judged, lost,
                pct, o->bound);
    }
    if (rows && s->n_ops > rows)
        fprintf(f, "(%zu more operators in report.json)\n", s->n_ops - rows);
}

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    rl_fput_json_number(f, v);
}

void rl__report_step_json(FILE *f, const struct rl_report *r)
{
    const struct rl_report_step *s = r->step;
    if (!s)
        return;
    fputs("  \"step\": {\"headline\": ", f);
    rl_fput_json_string(f, s->headline);
    json_num(f, "gpu_time_ns", s->gpu_time_ns);
    json_num(f, "busy_ns", s->busy_ns);
    json_num(f, "span_ns", s->span_ns);
    json_num(f, "idle_ns", s->idle_ns);
    json_num(f, "lost_ns", s->lost_ns);
    fputs(", \"by_bound_ns\": {", f);
    for (int b = 0; b < RL_STEP_BUCKETS; b++) {
        fprintf(f, "%s\"%s\": ", b ? ", " : "", rl_step_bucket_name((enum rl_step_bucket)b));
        rl_fput_json_number(f, s->bucket_ns[b]);
    }
    fputs("}},\n  \"operators\": [\n", f);
    for (size_t i = 0; i < s->n_ops; i++) {
        const struct rl_report_op *o = &s->ops[i];
        fputs("    {\"op\": ", f);
        rl_fput_json_string(f, o->op);
        fputs(", \"shapes\": ", f);
        rl_fput_json_string(f, o->shapes);
        fputs(", \"dtype\": ", f);
        rl_fput_json_string(f, o->dtype);
        fputs(", \"precision\": ", f);
        rl_fput_json_string(f, o->roof);
        fprintf(f, ", \"launches\": %llu, \"kernel_groups\": %zu",
                (unsigned long long)o->launches, o->groups);
        json_num(f, "time_ns", o->time_ns);
        json_num(f, "flops", o->flops);
        json_num(f, "dram_bytes", o->dram_bytes);
        json_num(f, "judged_ns", isnan(o->lost_ns) ? NAN : o->judged_ns);
        json_num(f, "roof_time_ns", o->roof_time_ns);
        json_num(f, "lost_ns", o->lost_ns);
        json_num(f, "pct_of_roof", o->pct_of_roof);
        fprintf(f, ", \"bound\": \"%s\", \"bound_text\": ", rl_step_bucket_name(o->bucket));
        rl_fput_json_string(f, o->bound);
        fputs(", \"roof_text\": ", f);
        rl_fput_json_string(f, o->roof_text);
        fputs(", \"flops_origin\": \"analytic\", \"time_origin\": \"measured\", \"sentence\": ",
              f);
        rl_fput_json_string(f, o->sentence);
        fputs(i + 1 < s->n_ops ? "},\n" : "}\n", f);
    }
    fputs("  ],\n", f);
}

void rl__report_step_row_json(FILE *f, const struct rl_report_row *w)
{
    if (!w->op && !w->shapes && !w->dtype[0] && isnan(w->roof_time_ns) && !w->comm_group_size)
        return;
    fputs(", \"op\": ", f);
    if (w->op)
        rl_fput_json_string(f, w->op);
    else
        fputs("null", f);
    fputs(", \"shapes\": ", f);
    if (w->shapes)
        rl_fput_json_string(f, w->shapes);
    else
        fputs("null", f);
    fputs(", \"dtype\": ", f);
    rl_fput_json_string(f, w->dtype);
    json_num(f, "roof_time_ns", w->roof_time_ns);
    json_num(f, "lost_ns", w->lost_ns);
    if (w->comm) {
        fprintf(f, ", \"comm_group_size\": %d", w->comm_group_size);
        json_num(f, "comm_busbw_gbs", w->comm_busbw_gbs);
        json_num(f, "pct_of_link", w->pct_of_link);
    }
}

static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (strchr("|<*_`\\", *s))
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
}

void rl__report_step_markdown(FILE *f, const struct rl_report *r)
{
    const struct rl_report_step *s = r->step;
    if (!s)
        return;
    char t[32], idle[32], lost[32];
    fputs("## The step\n\n**", f);
    md_text(f, s->headline);
    fmt_time(t, sizeof t, s->gpu_time_ns);
    fmt_time(idle, sizeof idle, s->idle_ns);
    fmt_time(lost, sizeof lost, s->lost_ns);
    fprintf(f, "**\n\nGPU time %s; GPU idle %s; time lost against the roof %s.\n\n", t, idle,
            lost);
    fputs("| bound | time | share |\n|---|---:|---:|\n", f);
    for (int b = 0; b < RL_STEP_BUCKETS; b++) {
        fmt_time(t, sizeof t, s->bucket_ns[b]);
        fprintf(f, "| %s | %s | %.3g%% |\n", rl_step_bucket_text((enum rl_step_bucket)b), t,
                s->gpu_time_ns > 0 ? 100 * s->bucket_ns[b] / s->gpu_time_ns : 0.0);
    }
    fputs("\n## Operators, by time lost against the roof\n\n"
          "| operator | shapes | dtype | launches | time | judged | lost | % of roof | bound |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---|\n",
          f);
    for (size_t i = 0; i < s->n_ops && i < 100; i++) {
        const struct rl_report_op *o = &s->ops[i];
        char pct[16], judged[32];
        fmt_time(t, sizeof t, o->time_ns);
        fmt_time(judged, sizeof judged, isnan(o->lost_ns) ? NAN : o->judged_ns);
        fmt_time(lost, sizeof lost, o->lost_ns);
        snprintf(pct, sizeof pct, isnan(o->pct_of_roof) ? "-" : "%.3g", o->pct_of_roof);
        fputs("| ", f);
        md_text(f, o->op);
        fputs(" | ", f);
        md_text(f, o->shapes);
        fprintf(f, " | %s | %llu | %s | %s | %s | %s | ", o->dtype,
                (unsigned long long)o->launches, t, judged, lost, pct);
        md_text(f, o->bound);
        fputs(" |\n", f);
    }
    fputs("\n", f);
}

void rl__report_step_free(struct rl_report_step *s)
{
    if (!s)
        return;
    free(s->ops);
    free(s);
}
