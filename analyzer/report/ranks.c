/* ranks.c - a parallel job's ranks in the report: each rank's section and notes, the merge's totals, NCCL kernels as communication (read by ranks-read.c). */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/ranks.h"

#include "analyzer/profiler/nccl.h"
#include "analyzer/report/across.h"
#include "analyzer/report/report.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/numtext.h"
#include "analyzer/util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- communication ---------------------------------------------------------- */

static bool comm_group(const struct rl_trace_group *x)
{
    return x->collective[0] || rl_comm_recognize(x->name, x->op, NULL, 0);
}

/* "communication (NCCL all-reduce)", "communication (NCCL)". */
void rl__report_comm_kind(const struct rl_report_row *w, char *buf, size_t size)
{
    if (w->collective[0])
        snprintf(buf, size, "communication (NCCL %s)", rl_nccl_collective_label(w->collective));
    else
        snprintf(buf, size, "communication (NCCL)");
}

/* "1.07 GB", "512 kB": bytes as people read them (decimal units). */
static void fmt_bytes(char *b, size_t n, double v)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (v >= 1000 && u < 5)
        v /= 1000, u++;
    snprintf(b, n, "%s %s", rl_num(v, 3), unit[u]);
}

void rl__report_comm_sentence(struct rl_report_row *w, const char *name, bool torch)
{
    char kind[64], bytes[32];
    rl__report_comm_kind(w, kind, sizeof kind);
    double share = 100 * w->time_share;
    if (!isnan(w->comm_bytes)) {
        fmt_bytes(bytes, sizeof bytes, w->comm_bytes);
        if (!isnan(w->comm_algbw_gbs))
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s%% of GPU time, %s: %s of messages in %s at %s GB/s "
                     "(message bytes / kernel time, measured); it moves data between GPUs, so "
                     "no roof judges it",
                     name, rl_num(share, 3), kind, bytes, rl_count_text((char[32]){0}, 32,
                     w->launches, "launch", "launches"),
                     rl_num(w->comm_algbw_gbs, 3));
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s: %s of messages in %s, no time; it moves data between "
                     "GPUs, so no roof judges it",
                     name, kind, bytes,
                     rl_count_text((char[32]){0}, 32, w->launches, "launch", "launches"));
    } else if (!isnan(share)) {
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %.3g%% of GPU time, %s: time only, bytes unknown: %s; it moves data "
                 "between GPUs, so no roof judges it",
                 name, share, kind,
                 torch ? "record_param_comms gave no message size"
                       : "NCCL's NVTX ranges were not seen");
    } else {
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s: no time, bytes unknown: NCCL's NVTX ranges were not seen; it moves "
                 "data between GPUs, so no roof judges it",
                 name, kind);
    }
}

bool rl__report_has_comm(const struct rl_report *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].comm)
            return true;
    return r->n_ranks > 0;
}

void rl__report_comm_notes(struct rl_report *r)
{
    size_t groups = 0, unknown = 0;
    bool torch = r->torch;
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].comm)
            groups++, unknown += isnan(r->rows[i].comm_bytes);
    if (!groups)
        return;
    char text[512];
    /* a PyTorch trace's collectives with their message size and group are
     * set against the link roof (the step's operators, step.c) */
    snprintf(text, sizeof text,
             "communication: %zu NCCL kernel group%s took %.3g%% of the GPU time; counted in "
             "time, not judged against the compute or memory roofs%s",
             groups, groups == 1 ? "" : "s",
             r->time_ns > 0 ? 100 * r->comm_time_ns / r->time_ns : 0.0,
             torch ? " (one whose message size and group record_param_comms gives is set "
                     "against the link roof)"
                   : "");
    rl_report_note(r, text);
    if (unknown) {
        /* where the message size comes from: a PyTorch trace's
         * record_param_comms, a roofline trace's NCCL NVTX ranges */
        if (torch)
            snprintf(text, sizeof text,
                     "bytes unknown for %zu of them: record_param_comms gave no message size "
                     "for their call: time only",
                     unknown);
        else
            snprintf(text, sizeof text,
                     "bytes unknown: NCCL's NVTX ranges were not seen for %zu of them (NCCL "
                     "2.19+ emits them unless NCCL_NVTX_DISABLE=1): time only",
                     unknown);
        rl_report_note(r, text);
    }
}

void rl__report_comm_json(FILE *f, const struct rl_report_row *w, bool tagged, bool ranked)
{
    if (tagged)
        fprintf(f, ", \"kind\": \"%s\"", w->comm ? "communication" : "kernel");
    if (w->comm) {
        fputs(", \"collective\": ", f);
        if (w->collective[0])
            rl_fput_json_string(f, w->collective);
        else
            fputs("null", f);
        fputs(", \"comm_bytes\": ", f);
        rl_fput_json_number(f, w->comm_bytes);
        fputs(", \"comm_algbw_gbs\": ", f);
        rl_fput_json_number(f, w->comm_algbw_gbs);
    }
    if (ranked) {
        fprintf(f, ", \"ranks\": %u, \"time_ns_sum\": ", w->ranks);
        rl_fput_json_number(f, w->time_ns);
        fputs(", \"time_ns_max_rank\": ", f);
        rl_fput_json_number(f, w->time_ns_max_rank);
    }
}

/* ---- per rank --------------------------------------------------------------- */

static const struct rl_trace_groups *top_of;

static int cmp_time(const void *a, const void *b)
{
    double x = top_of->v[*(const size_t *)a].time_ns, y = top_of->v[*(const size_t *)b].time_ns;
    if (x != y)
        return (x < y) - (x > y);
    return strcmp(top_of->v[*(const size_t *)a].name, top_of->v[*(const size_t *)b].name);
}

static void fill_rank(struct rl_report_rank *k, const char *path, const struct rl_trace_groups *g)
{
    const struct rl_trace_rank *x = &g->sum.rank;
    k->rank = x->present ? x->rank : -1;
    k->local_rank = x->present ? x->local_rank : -1;
    k->world_size = x->present ? x->world_size : -1;
    snprintf(k->host, sizeof k->host, "%s", x->present ? x->hostname : "");
    snprintf(k->launcher, sizeof k->launcher, "%s", x->present ? x->launcher : "");
    snprintf(k->gpu, sizeof k->gpu, "%s", g->sum.gpu_name);
    snprintf(k->path, sizeof k->path, "%s", path);
    bool bytes_known = true, any_comm = false;
    for (size_t i = 0; i < g->n; i++) {
        const struct rl_trace_group *y = &g->v[i];
        k->launches += y->launches;
        k->kernel_time_ns += y->time_ns;
        if (comm_group(y)) {
            any_comm = true;
            k->comm_time_ns += y->time_ns;
            k->comm_bytes += y->comm_bytes;
            bytes_known &= y->comm_launches == y->launches;
        }
    }
    /* Comm share = NCCL kernel time / all kernel time of this rank. */
    k->comm_share = k->kernel_time_ns > 0 ? k->comm_time_ns / k->kernel_time_ns : NAN;
    if (!any_comm || !bytes_known)
        k->comm_bytes = NAN;
}

/* The top kernels of g by time into k. RL_OK, or RL_ENOMEM (none). */
static int fill_top(struct rl_report_rank *k, const struct rl_trace_groups *g)
{
    size_t *order = rl_malloc((g->n ? g->n : 1) * sizeof *order);
    if (!order)
        return RL_ENOMEM;
    for (size_t i = 0; i < g->n; i++)
        order[i] = i;
    top_of = g;
    qsort(order, g->n, sizeof *order, cmp_time);
    for (size_t i = 0; i < g->n && k->n_top < RL_RANK_TOP; i++) {
        const struct rl_trace_group *y = &g->v[order[i]];
        rl_str_shorten(k->top[k->n_top].name, sizeof k->top[k->n_top].name, y->name);
        k->top[k->n_top].time_ns = y->time_ns;
        k->top[k->n_top].comm = comm_group(y);
        k->n_top++;
    }
    free(order);
    return RL_OK;
}

static void rank_word(char *b, size_t n, const struct rl_report_rank *k, size_t index)
{
    if (k->rank >= 0)
        snprintf(b, n, "rank %d", k->rank);
    else
        snprintf(b, n, "trace %zu", index + 1);
}

/* The notes of a set of ranks: what a reader must know before trusting
 * the merge. */
static void rank_notes(struct rl_report *r, const struct rl_rank_traces *t)
{
    char text[1400], a[64], b[64];
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        size_t same = 1;
        if (k->rank < 0 || (i > 0 && r->ranks[i - 1].rank == k->rank))
            continue;
        while (i + same < r->n_ranks && r->ranks[i + same].rank == k->rank)
            same++;
        if (same > 1) {
            snprintf(text, sizeof text,
                     "rank %d appears in %zu traces ('%.300s', '%.300s'%s): each is its own entry "
                     "here, and the merge sums them all",
                     k->rank, same, k->path, r->ranks[i + 1].path, same > 2 ? ", ..." : "");
            rl_report_note(r, text);
        }
    }
    for (size_t i = 1; i < r->n_ranks; i++) {
        const struct rl_report_rank *x = &r->ranks[0], *y = &r->ranks[i];
        if (x->gpu[0] && y->gpu[0] && strcmp(x->gpu, y->gpu) != 0) {
            rank_word(a, sizeof a, x, 0);
            rank_word(b, sizeof b, y, i);
            snprintf(text, sizeof text,
                     "the ranks ran on different GPUs (%s on %s, %s on %s): the merged kernels "
                     "are judged against one GPU's ceilings",
                     x->gpu, a, y->gpu, b);
            rl_report_note(r, text);
            break;
        }
    }
    for (size_t i = 1; i < t->n; i++) {
        const char *x = t->groups[0].sum.program, *y = t->groups[i].sum.program;
        if (x[0] && y[0] && strcmp(x, y) != 0) {
            rank_word(a, sizeof a, &r->ranks[0], 0);
            rank_word(b, sizeof b, &r->ranks[i], i);
            snprintf(text, sizeof text,
                     "the traces are of different programs ('%.200s' on %s, '%.200s' on %s): "
                     "the merge sums kernels of unrelated runs",
                     x, a, y, b);
            rl_report_note(r, text);
            break;
        }
    }
    int world = -1;
    size_t distinct = 0;
    for (size_t i = 0; i < r->n_ranks; i++) {
        if (r->ranks[i].world_size > world)
            world = r->ranks[i].world_size;
        distinct += r->ranks[i].rank >= 0 && (i == 0 || r->ranks[i - 1].rank != r->ranks[i].rank);
    }
    if (world > 0 && distinct < (size_t)world) {
        snprintf(text, sizeof text,
                 "the job had %d ranks, the traces are of %zu: the merge covers only those", world,
                 distinct);
        rl_report_note(r, text);
    }
}

int rl_report_ranks(struct rl_report *r, const struct rl_rank_traces *t, char *errmsg)
{
    free(r->ranks);
    r->n_ranks = 0;
    if (!(r->ranks = rl_calloc(t->n ? t->n : 1, sizeof *r->ranks)))
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    for (size_t i = 0; i < t->n; i++) {
        fill_rank(&r->ranks[i], t->paths[i], &t->groups[i]);
        if (fill_top(&r->ranks[i], &t->groups[i]))
            return rl_fail(errmsg, RL_ENOMEM, "out of memory"); /* r->ranks: the report's */
    }
    r->n_ranks = t->n;
    rank_notes(r, t);
    return RL_OK;
}

/* ---- outputs ---------------------------------------------------------------- */

/* The merge's totals: sums over ranks, and the largest one rank's (the
 * step's time when ranks run in parallel: the slowest rank ends the step). */
struct totals {
    double kernel_sum, kernel_max, comm_sum, comm_max;
};

static struct totals totals_of(const struct rl_report *r)
{
    struct totals s = {0, 0, 0, 0};
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        s.kernel_sum += k->kernel_time_ns;
        s.comm_sum += k->comm_time_ns;
        if (k->kernel_time_ns > s.kernel_max)
            s.kernel_max = k->kernel_time_ns;
        if (k->comm_time_ns > s.comm_max)
            s.comm_max = k->comm_time_ns;
    }
    return s;
}

static void fmt_pct(char *b, size_t n, double share)
{
    if (isnan(share))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%s%%", rl_num(100 * share, 3));
}

void rl__report_ranks_table(FILE *f, const struct rl_report *r)
{
    if (!r->n_ranks)
        return;
    fprintf(f, "\n%-6s %-16s %-22s %11s %11s %7s  %s\n", "RANK", "HOST", "GPU", "KERNEL ms",
            "COMM ms", "COMM%", "TOP KERNEL");
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        char rank[16], pct[16], top[41] = "-";
        if (k->rank >= 0)
            snprintf(rank, sizeof rank, "%d", k->rank);
        else
            snprintf(rank, sizeof rank, "-");
        fmt_pct(pct, sizeof pct, k->comm_share);
        if (k->n_top)
            rl_str_shorten(top, sizeof top, k->top[0].name);
        fprintf(f, "%-6s %-16.16s %-22.22s %11s %11s %7s  %s\n", rank,
                k->host[0] ? k->host : "-", k->gpu[0] ? k->gpu : "-",
                rl_num(k->kernel_time_ns / 1e6, 4),
                rl_num(k->comm_time_ns / 1e6, 4), pct, top);
    }
    struct totals s = totals_of(r);
    char pct[16];
    fmt_pct(pct, sizeof pct, s.kernel_sum > 0 ? s.comm_sum / s.kernel_sum : NAN);
    fprintf(f,
            "merged: %zu traces; kernel time %s ms summed, %s ms on the busiest rank; "
            "communication %s of it\n",
            r->n_ranks, rl_num(s.kernel_sum / 1e6, 4), rl_num(s.kernel_max / 1e6, 4), pct);
    rl_across_table(f, r->across);
}

static void json_int_or_null(FILE *f, const char *key, int v)
{
    if (v >= 0)
        fprintf(f, ", \"%s\": %d", key, v);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void json_str_or_null(FILE *f, const char *key, const char *v)
{
    fprintf(f, ", \"%s\": ", key);
    if (v[0])
        rl_fput_json_string(f, v);
    else
        fputs("null", f);
}

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    rl_fput_json_number(f, v);
}

void rl__report_ranks_json(FILE *f, const struct rl_report *r)
{
    bool comm = false;
    for (size_t i = 0; i < r->n && !comm; i++)
        comm = r->rows[i].comm;
    if (comm || r->n_ranks) {
        fputs("  \"communication\": {\"time_ns\": ", f);
        rl_fput_json_number(f, r->comm_time_ns);
        json_num(f, "share", r->time_ns > 0 ? r->comm_time_ns / r->time_ns : NAN);
        bool known = comm;
        for (size_t i = 0; i < r->n; i++)
            known &= !r->rows[i].comm || !isnan(r->rows[i].comm_bytes);
        fprintf(f, ", \"bytes_known\": %s},\n", known ? "true" : "false");
    }
    if (!r->n_ranks)
        return;
    fputs("  \"ranks\": [\n", f);
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        fputs("    {\"rank\": ", f);
        if (k->rank >= 0)
            fprintf(f, "%d", k->rank);
        else
            fputs("null", f);
        json_int_or_null(f, "local_rank", k->local_rank);
        json_int_or_null(f, "world_size", k->world_size);
        json_str_or_null(f, "host", k->host);
        json_str_or_null(f, "gpu", k->gpu);
        json_str_or_null(f, "launcher", k->launcher);
        json_str_or_null(f, "path", k->path);
        fprintf(f, ", \"launches\": %llu", (unsigned long long)k->launches);
        json_num(f, "kernel_time_ns", k->kernel_time_ns);
        json_num(f, "comm_time_ns", k->comm_time_ns);
        json_num(f, "comm_share", k->comm_share);
        json_num(f, "comm_bytes", k->comm_bytes);
        fputs(", \"top_kernels\": [", f);
        for (size_t j = 0; j < k->n_top; j++) {
            fputs(j ? ", {\"name\": " : "{\"name\": ", f);
            rl_fput_json_string(f, k->top[j].name);
            json_num(f, "time_ns", k->top[j].time_ns);
            fprintf(f, ", \"kind\": \"%s\"}", k->top[j].comm ? "communication" : "kernel");
        }
        fputs(i + 1 < r->n_ranks ? "]},\n" : "]}\n", f);
    }
    struct totals s = totals_of(r);
    fprintf(f, "  ],\n  \"merged\": {\"ranks\": %zu", r->n_ranks);
    json_num(f, "kernel_time_ns_sum", s.kernel_sum);
    json_num(f, "kernel_time_ns_max_rank", s.kernel_max);
    json_num(f, "comm_time_ns_sum", s.comm_sum);
    json_num(f, "comm_time_ns_max_rank", s.comm_max);
    json_num(f, "comm_share", s.kernel_sum > 0 ? s.comm_sum / s.kernel_sum : NAN);
    fputs("},\n", f);
    rl_across_json(f, r->across);
}

static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '<' || *s == '*' || *s == '_' || *s == '`')
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
}

void rl__report_ranks_markdown(FILE *f, const struct rl_report *r)
{
    if (!r->n_ranks)
        return;
    fputs("\n## Ranks\n\n| rank | host | GPU | kernel time | communication | comm share | top "
          "kernels |\n|---:|---|---|---:|---:|---:|---|\n",
          f);
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        char pct[16];
        fmt_pct(pct, sizeof pct, k->comm_share);
        if (k->rank >= 0)
            fprintf(f, "| %d | ", k->rank);
        else
            fputs("| - | ", f);
        md_text(f, k->host[0] ? k->host : "-");
        fputs(" | ", f);
        md_text(f, k->gpu[0] ? k->gpu : "-");
        fprintf(f, " | %s ms | %s ms | %s | ", rl_num(k->kernel_time_ns / 1e6, 4),
                rl_num(k->comm_time_ns / 1e6, 4), pct);
        for (size_t j = 0; j < k->n_top && j < 3; j++) {
            fputs(j ? ", " : "", f);
            md_text(f, k->top[j].name);
        }
        fputs(" |\n", f);
    }
    struct totals s = totals_of(r);
    char pct[16];
    fmt_pct(pct, sizeof pct, s.kernel_sum > 0 ? s.comm_sum / s.kernel_sum : NAN);
    fprintf(f,
            "\nMerged over %zu traces: %s ms of kernel time summed, %s ms on the busiest "
            "rank (the step's time when the ranks run together); communication %s of the sum. "
            "The kernel table above sums each group over the ranks.\n",
            r->n_ranks, rl_num(s.kernel_sum / 1e6, 4), rl_num(s.kernel_max / 1e6, 4), pct);
    rl_across_markdown(f, r->across);
}
