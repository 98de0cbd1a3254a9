/* across.c - a parallel job across its ranks (see across.h). */
#include "analyzer/report/across.h"

#include "analyzer/comm/collective.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/report/ranks.h"
#include "analyzer/report/report.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- interval arithmetic ---------------------------------------------------- */

struct iv {
    double a, b;
};

static int cmp_iv(const void *x, const void *y)
{
    const struct iv *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* Sort v and merge overlapping or touching intervals in place; the count
 * left. */
static size_t merge(struct iv *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_iv);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].a <= v[k].b) {
            if (v[i].b > v[k].b)
                v[k].b = v[i].b;
        } else {
            v[++k] = v[i];
        }
    }
    return k + 1;
}

static double length(const struct iv *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i].b - v[i].a;
    return s;
}

/* The time two merged lists cover together. */
static double overlap(const struct iv *x, size_t nx, const struct iv *y, size_t ny)
{
    double s = 0;
    size_t i = 0, j = 0;
    while (i < nx && j < ny) {
        double lo = x[i].a > y[j].a ? x[i].a : y[j].a;
        double hi = x[i].b < y[j].b ? x[i].b : y[j].b;
        if (hi > lo)
            s += hi - lo;
        if (x[i].b < y[j].b)
            i++;
        else
            j++;
    }
    return s;
}

int rl_across_rank_sum(struct rl_across_rank *k, int rank, const struct rl_timeline *tl)
{
    memset(k, 0, sizeof *k);
    k->rank = rank;
    k->step_mean_ns = k->step_min_ns = k->step_max_ns = NAN;
    size_t n = tl->n_act;
    struct iv *all = rl_malloc((n ? n : 1) * sizeof *all);
    struct iv *comp = rl_malloc((n ? n : 1) * sizeof *comp);
    struct iv *comm = rl_malloc((n ? n : 1) * sizeof *comm);
    if (!all || !comp || !comm) {
        free(all), free(comp), free(comm);
        return RL_ENOMEM;
    }
    size_t nc = 0, nm = 0;
    double first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const struct rl_timeline_act *x = &tl->act[i];
        all[i] = (struct iv){x->start_ns, x->end_ns};
        if (x->start_ns < first)
            first = x->start_ns;
        if (x->end_ns > last)
            last = x->end_ns;
        if (x->kind == RL_ACT_COMM)
            comm[nm++] = all[i];
        else if (x->kind == RL_ACT_COMPUTE)
            comp[nc++] = all[i];
    }
    size_t na = merge(all, n);
    nc = merge(comp, nc);
    nm = merge(comm, nm);
    k->busy_ns = length(all, na);
    k->span_ns = n ? last - first : 0;
    k->first_ns = n ? first : NAN;
    k->idle_ns = k->span_ns - k->busy_ns;
    k->compute_ns = length(comp, nc);
    k->comm_ns = length(comm, nm);
    k->hidden_ns = overlap(comm, nm, comp, nc);
    k->exposed_ns = k->comm_ns - k->hidden_ns;
    free(all), free(comp), free(comm);
    double sum = 0;
    for (size_t i = 0; i < tl->n_step; i++) {
        double d = tl->step[i].end_ns - tl->step[i].start_ns;
        sum += d;
        if (i == 0 || d < k->step_min_ns)
            k->step_min_ns = d;
        if (i == 0 || d > k->step_max_ns)
            k->step_max_ns = d;
    }
    k->steps = tl->n_step;
    if (tl->n_step)
        k->step_mean_ns = sum / (double)tl->n_step;
    return RL_OK;
}

/* ---- matching --------------------------------------------------------------- */

/* One rank's communication activity, for sorting into calls. */
struct ref {
    const struct rl_timeline_act *act;
    double start_ns;              /* on the job's clock */
};

/* The calls that can match: one process group's one collective. */
static int cmp_key(const struct rl_timeline_act *p, const struct rl_timeline_act *q)
{
    int c = strcmp(p->pg, q->pg);
    return c ? c : strcmp(p->collective, q->collective);
}

static int cmp_ref(const void *x, const void *y)
{
    const struct ref *p = x, *q = y;
    int c = cmp_key(p->act, q->act);
    if (c)
        return c;
    if (p->act->seq != q->act->seq)
        return p->act->seq < q->act->seq ? -1 : 1;
    return (p->start_ns > q->start_ns) - (p->start_ns < q->start_ns);
}

static int cmp_call(const void *x, const void *y)
{
    const struct rl_across_call *p = x, *q = y;
    int c = strcmp(p->pg, q->pg);
    if (c)
        return c;
    c = strcmp(p->collective, q->collective);
    if (c)
        return c;
    return (p->ordinal > q->ordinal) - (p->ordinal < q->ordinal);
}

void rl_across_free(struct rl_across *a)
{
    if (!a)
        return;
    free(a->ranks);
    free(a->calls);
    free(a->sizes);
    free(a);
}

/* Each rank's collectives sorted by collective and start: refs[r], n[r]. */
static int sort_refs(struct ref **refs, size_t *cnt, const struct rl_timeline *tl, size_t n)
{
    long long base = 0;
    bool have = false;
    for (size_t r = 0; r < n; r++)
        if (tl[r].have_base && (!have || tl[r].base_us < base))
            base = tl[r].base_us, have = true;
    for (size_t r = 0; r < n; r++) {
        refs[r] = rl_malloc((tl[r].n_act ? tl[r].n_act : 1) * sizeof **refs);
        if (!refs[r])
            return RL_ENOMEM;
        /* this rank's base on the job's clock: an integer difference, exact */
        double off = (double)(tl[r].base_us - base) * 1000.0;
        cnt[r] = 0;
        for (size_t i = 0; i < tl[r].n_act; i++)
            if (tl[r].act[i].kind == RL_ACT_COMM)
                refs[r][cnt[r]++] = (struct ref){&tl[r].act[i], tl[r].act[i].start_ns + off};
        qsort(refs[r], cnt[r], sizeof **refs, cmp_ref);
    }
    return RL_OK;
}

/* The bytes x factor of a call (NAN unknown). */
static double bus_bytes(const struct rl_across_call *c)
{
    int coll = rl_collective_parse(c->collective);
    if (coll < 0 || isnan(c->bytes) || c->group_size < 2)
        return NAN;
    return c->bytes * rl_collective_bus_factor((enum rl_collective)coll, c->group_size);
}

static int add_sizes(struct rl_across *a)
{
    /* buckets by floor(log2(bytes)): [2^e, 2^(e+1)) */
    double sum_bus[64] = {0}, sum_ns[64] = {0};
    size_t calls[64] = {0};
    for (size_t i = 0; i < a->n_calls; i++) {
        const struct rl_across_call *c = &a->calls[i];
        double bb = bus_bytes(c);
        if (isnan(bb) || !(c->transfer_ns > 0) || !(c->bytes >= 1))
            continue;
        int e = ilogb(c->bytes);
        if (e < 0 || e > 63)
            continue;
        calls[e]++, sum_bus[e] += bb, sum_ns[e] += c->transfer_ns;
    }
    size_t k = 0;
    for (int e = 0; e < 64; e++)
        k += calls[e] > 0;
    if (!(a->sizes = rl_calloc(k ? k : 1, sizeof *a->sizes)))
        return RL_ENOMEM;
    for (int e = 0; e < 64; e++) {
        if (!calls[e])
            continue;
        struct rl_across_size *s = &a->sizes[a->n_sizes++];
        s->bytes_lo = ldexp(1.0, e);
        s->calls = calls[e];
        s->busbw_gbs = sum_bus[e] / sum_ns[e]; /* bytes per ns = GB/s */
        s->pct_of_link = a->link_gbs > 0 ? 100 * s->busbw_gbs / a->link_gbs : NAN;
    }
    return RL_OK;
}

static void headline(struct rl_across *a)
{
    if (a->apart) {
        snprintf(a->headline, sizeof a->headline,
                 "the %zu ranks' GPU activity does not overlap in time (traces of different "
                 "runs, or clocks apart): their collectives' skews say nothing; no straggler "
                 "named",
                 a->n_ranks);
        return;
    }
    if (!a->n_calls) {
        snprintf(a->headline, sizeof a->headline,
                 "no collective was matched across the %zu ranks (%zu launches of a collective "
                 "not on every rank)",
                 a->n_ranks, a->unmatched);
        return;
    }
    double per_step = a->common_steps ? a->straggler_ns / (double)a->common_steps : NAN;
    char step[96] = "";
    if (!isnan(per_step))
        snprintf(step, sizeof step, ", %.3g ms per step over %zu step%s", per_step / 1e6,
                 a->common_steps, a->common_steps == 1 ? "" : "s");
    snprintf(a->headline, sizeof a->headline,
             "rank %d arrives last at %.3g%% of the %zu collectives matched across %zu ranks: "
             "%.3g ms of waiting for it (the skews of those calls)%s",
             a->straggler, 100.0 * (double)a->straggler_calls / (double)a->n_calls, a->n_calls,
             a->n_ranks, a->straggler_ns / 1e6, step);
}

/* The steps every rank traced: their count and the largest spread. */
static void steps_across(struct rl_across *a, const struct rl_timeline *tl, size_t n)
{
    a->step_spread_ns = NAN;
    if (!n)
        return;
    for (size_t i = 0; i < tl[0].n_step; i++) {
        long long num = tl[0].step[i].number;
        double lo = INFINITY, hi = -INFINITY;
        size_t seen = 0;
        for (size_t r = 0; r < n; r++)
            for (size_t j = 0; j < tl[r].n_step; j++)
                if (tl[r].step[j].number == num) {
                    double d = tl[r].step[j].end_ns - tl[r].step[j].start_ns;
                    lo = d < lo ? d : lo, hi = d > hi ? d : hi;
                    seen++;
                    break;
                }
        if (seen == n) {
            a->common_steps++;
            if (isnan(a->step_spread_ns) || hi - lo > a->step_spread_ns)
                a->step_spread_ns = hi - lo;
        }
    }
}

/* One call matched: pick[r] is rank r's launch of it. */
static void add_call(struct rl_across *a, const struct ref *const *pick, size_t n, size_t ordinal)
{
    struct rl_across_call *c = &a->calls[a->n_calls++];
    const struct rl_timeline_act *x = pick[0]->act;
    snprintf(c->collective, sizeof c->collective, "%s", x->collective[0] ? x->collective : "nccl");
    snprintf(c->pg, sizeof c->pg, "%s", x->pg);
    c->seq = x->seq;
    c->ordinal = ordinal;
    double first = INFINITY, latest = -INFINITY;
    size_t lr = 0;
    for (size_t r = 0; r < n; r++) {
        if (pick[r]->start_ns < first)
            first = pick[r]->start_ns;
        if (pick[r]->start_ns > latest) /* a tie goes to the lower rank */
            latest = pick[r]->start_ns, lr = r;
    }
    const struct rl_timeline_act *l = pick[lr]->act;
    c->skew_ns = latest - first;
    c->last_rank = a->ranks[lr].rank;
    c->transfer_ns = l->end_ns - l->start_ns;
    c->bytes = NAN;
    for (size_t r = 0; r < n && isnan(c->bytes); r++)
        c->bytes = pick[r]->act->comm_bytes;
    c->group_size = l->group_size > 1 ? l->group_size : (int)n;
    double bb = bus_bytes(c);
    c->busbw_gbs = !isnan(bb) && c->transfer_ns > 0 ? bb / c->transfer_ns : NAN;
    a->ranks[lr].last_at++;
    a->ranks[lr].waited_ns += c->skew_ns;
}

int rl_across_build(struct rl_across *a, const struct rl_across_rank *sums,
                    const struct rl_timeline *tl, size_t n, double link_gbs,
                    const char *link_label, char *errmsg)
{
    memset(a, 0, sizeof *a);
    a->straggler = -1;
    a->skew_mean_ns = a->skew_max_ns = NAN;
    a->link_gbs = link_gbs > 0 ? link_gbs : NAN;
    snprintf(a->link_label, sizeof a->link_label, "%s", link_label ? link_label : "");
    struct ref **refs = rl_calloc(n ? n : 1, sizeof *refs);
    size_t *cnt = rl_calloc(n ? n : 1, sizeof *cnt), *at = rl_calloc(n ? n : 1, sizeof *at);
    size_t *len = rl_calloc(n ? n : 1, sizeof *len), *pos = rl_calloc(n ? n : 1, sizeof *pos);
    const struct ref **pick = rl_calloc(n ? n : 1, sizeof *pick);
    a->ranks = rl_malloc((n ? n : 1) * sizeof *a->ranks);
    int rc = refs && cnt && at && len && pos && pick && a->ranks ? sort_refs(refs, cnt, tl, n) : RL_ENOMEM;
    size_t cap = 0;
    if (rc == RL_OK) {
        memcpy(a->ranks, sums, n * sizeof *a->ranks);
        a->n_ranks = n;
        for (size_t r = 0; r < n; r++)
            a->ranks[r].last_at = 0, a->ranks[r].waited_ns = 0, cap += cnt[r];
        if (!(a->calls = rl_calloc(cap ? cap : 1, sizeof *a->calls)))
            rc = RL_ENOMEM;
    }
    /* Walk the ranks' sorted lists together, one (process group,
     * collective) at a time: matched by sequence number where every call of
     * it carries one, else its k-th call on every rank is one call. */
    while (rc == RL_OK && n) {
        const struct rl_timeline_act *key = NULL;
        for (size_t r = 0; r < n; r++)
            if (at[r] < cnt[r] && (!key || cmp_key(refs[r][at[r]].act, key) < 0))
                key = refs[r][at[r]].act;
        if (!key)
            break;
        size_t have = 0, fewest = 0;
        bool seqs = true;
        for (size_t r = 0; r < n; r++) {
            size_t e = at[r];
            while (e < cnt[r] && cmp_key(refs[r][e].act, key) == 0)
                seqs &= refs[r][e++].act->seq >= 0;
            len[r] = e - at[r];
            if (len[r]) {
                have++;
                fewest = !fewest || len[r] < fewest ? len[r] : fewest;
            }
        }
        if (have < n) { /* not on every rank: none of it matched */
            for (size_t r = 0; r < n; r++)
                a->unmatched += len[r];
        } else if (!seqs) {
            for (size_t k = 0; k < fewest; k++) {
                for (size_t r = 0; r < n; r++)
                    pick[r] = &refs[r][at[r] + k];
                add_call(a, pick, n, k);
            }
            for (size_t r = 0; r < n; r++)
                a->unmatched += len[r] - fewest;
        } else {
            /* k-way by sequence number: the lowest at the heads is a call
             * when every rank's head has it, else those heads go unmatched */
            size_t *head = pos;
            for (size_t r = 0; r < n; r++)
                head[r] = 0;
            for (size_t k = 0;;) {
                long long low = -1;
                for (size_t r = 0; r < n; r++)
                    if (head[r] < len[r]) {
                        long long q = refs[r][at[r] + head[r]].act->seq;
                        low = low < 0 || q < low ? q : low;
                    }
                if (low < 0)
                    break;
                size_t with = 0;
                for (size_t r = 0; r < n; r++)
                    with += head[r] < len[r] && refs[r][at[r] + head[r]].act->seq == low;
                for (size_t r = 0; r < n; r++)
                    if (head[r] < len[r] && refs[r][at[r] + head[r]].act->seq == low) {
                        pick[r] = &refs[r][at[r] + head[r]++];
                        a->unmatched += with < n;
                    }
                if (with == n)
                    add_call(a, pick, n, k++);
            }
        }
        for (size_t r = 0; r < n; r++)
            at[r] += len[r];
    }
    if (rc == RL_OK) {
        qsort(a->calls, a->n_calls, sizeof *a->calls, cmp_call);
        double sum = 0;
        for (size_t i = 0; i < a->n_calls; i++) {
            sum += a->calls[i].skew_ns;
            if (i == 0 || a->calls[i].skew_ns > a->skew_max_ns)
                a->skew_max_ns = a->calls[i].skew_ns;
        }
        if (a->n_calls)
            a->skew_mean_ns = sum / (double)a->n_calls;
        /* one job's ranks run side by side: their GPU spans share some time */
        double lo = -INFINITY, hi = INFINITY;
        long long base = 0;
        for (size_t r = 0; r < n; r++)
            if (tl[r].have_base && (r == 0 || tl[r].base_us < base))
                base = tl[r].base_us;
        for (size_t r = 0; r < n; r++) {
            if (isnan(a->ranks[r].first_ns))
                continue;
            double s = a->ranks[r].first_ns + (double)(tl[r].base_us - base) * 1000.0;
            lo = s > lo ? s : lo;
            hi = s + a->ranks[r].span_ns < hi ? s + a->ranks[r].span_ns : hi;
        }
        a->apart = n > 1 && lo > hi;
        for (size_t r = 0; r < n && !a->apart; r++)
            if (a->ranks[r].last_at > a->straggler_calls) {
                a->straggler_calls = a->ranks[r].last_at;
                a->straggler = a->ranks[r].rank;
                a->straggler_ns = a->ranks[r].waited_ns;
            }
        steps_across(a, tl, n);
        rc = add_sizes(a);
    }
    for (size_t r = 0; refs && r < n; r++)
        free(refs[r]);
    free(refs), free(cnt), free(at), free(len), free(pos), free((void *)pick);
    if (rc)
        return rl_fail(errmsg, rc, "out of memory");
    headline(a);
    return RL_OK;
}

/* ---- the report's section ---------------------------------------------------- */

int rl_report_across(struct rl_report *r, const struct rl_rank_traces *t,
                     const struct rl_ceilings *c, char *errmsg)
{
    rl_across_free(r->across);
    r->across = NULL;
    if (!t->timelines || t->n < 2 || !rl_rank_traces_ranked(t))
        return RL_OK; /* not one job's ranks, as far as the traces say */
    struct rl_across *a = rl_calloc(1, sizeof *a);
    if (!a)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    bool link = c && c->has_link && c->link.bandwidth_gbs > 0;
    int rc = rl_across_build(a, t->sums, t->timelines, t->n, link ? c->link.bandwidth_gbs : NAN,
                             link ? c->link.label : "", errmsg);
    if (rc) {
        rl_across_free(a);
        return rc;
    }
    r->across = a;
    char note[480];
    snprintf(note, sizeof note, "across ranks: %s", a->headline);
    rl_report_note(r, note);
    return RL_OK;
}

/* ---- writers ---------------------------------------------------------------- */

static double ms(double ns)
{
    return ns / 1e6;
}

void rl_across_table(FILE *f, const struct rl_across *a)
{
    if (!a)
        return;
    fprintf(f, "\nacross ranks: %s\n", a->headline);
    fprintf(f, "%-6s %9s %9s %9s %9s %9s %9s %9s\n", "RANK", "STEP ms", "IDLE ms", "COMM ms",
            "EXPOSED", "HIDDEN", "LAST AT", "WAITED");
    for (size_t i = 0; i < a->n_ranks; i++) {
        const struct rl_across_rank *k = &a->ranks[i];
        fprintf(f, "%-6d %9.4g %9.4g %9.4g %9.4g %9.4g %9zu %9.4g\n", k->rank,
                ms(k->step_mean_ns), ms(k->idle_ns), ms(k->comm_ns), ms(k->exposed_ns),
                ms(k->hidden_ns), k->last_at, ms(k->waited_ns));
    }
    fprintf(f,
            "%zu collective calls matched (%zu launch%s not on every rank); skew mean %.4g ms, "
            "max %.4g ms; ",
            a->n_calls, a->unmatched, a->unmatched == 1 ? "" : "es", ms(a->skew_mean_ns),
            ms(a->skew_max_ns));
    if (a->common_steps)
        fprintf(f, "step time spread %.4g ms over %zu common step%s\n", ms(a->step_spread_ns),
                a->common_steps, a->common_steps == 1 ? "" : "s");
    else
        fprintf(f, "no step common to every rank\n");
    for (size_t i = 0; i < a->n_sizes; i++) {
        const struct rl_across_size *s = &a->sizes[i];
        fprintf(f, "  messages %.4g..%.4g MB: %zu calls at %.4g GB/s bus bandwidth", s->bytes_lo / 1e6,
                2 * s->bytes_lo / 1e6, s->calls, s->busbw_gbs);
        if (!isnan(s->pct_of_link))
            fprintf(f, ", %.3g%% of %s (%.4g GB/s)", s->pct_of_link,
                    a->link_label[0] ? a->link_label : "the link", a->link_gbs);
        fputc('\n', f);
    }
}

static void num(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    rl_fput_json_number(f, v);
}

void rl_across_json(FILE *f, const struct rl_across *a)
{
    if (!a)
        return;
    fputs("  \"across_ranks\": {\"headline\": ", f);
    rl_fput_json_string(f, a->headline);
    fprintf(f, ", \"calls_matched\": %zu, \"launches_unmatched\": %zu", a->n_calls,
            a->unmatched);
    fprintf(f, ", \"ranks_apart\": %s", a->apart ? "true" : "false");
    num(f, "skew_mean_ns", a->skew_mean_ns);
    num(f, "skew_max_ns", a->skew_max_ns);
    if (a->straggler >= 0)
        fprintf(f, ", \"straggler\": %d", a->straggler);
    else
        fputs(", \"straggler\": null", f);
    fprintf(f, ", \"straggler_calls\": %zu", a->straggler_calls);
    num(f, "straggler_wait_ns", a->straggler_ns);
    fprintf(f, ", \"common_steps\": %zu", a->common_steps);
    num(f, "step_spread_ns", a->step_spread_ns);
    num(f, "link_gbs", a->link_gbs);
    fputs(",\n    \"ranks\": [", f);
    for (size_t i = 0; i < a->n_ranks; i++) {
        const struct rl_across_rank *k = &a->ranks[i];
        fprintf(f, "%s\n      {\"rank\": %d", i ? "," : "", k->rank);
        num(f, "busy_ns", k->busy_ns);
        num(f, "span_ns", k->span_ns);
        num(f, "idle_ns", k->idle_ns);
        num(f, "compute_ns", k->compute_ns);
        num(f, "comm_ns", k->comm_ns);
        num(f, "comm_exposed_ns", k->exposed_ns);
        num(f, "comm_hidden_ns", k->hidden_ns);
        fprintf(f, ", \"steps\": %zu", k->steps);
        num(f, "step_mean_ns", k->step_mean_ns);
        num(f, "step_min_ns", k->step_min_ns);
        num(f, "step_max_ns", k->step_max_ns);
        fprintf(f, ", \"last_at\": %zu", k->last_at);
        num(f, "waited_for_ns", k->waited_ns);
        fputc('}', f);
    }
    fputs("],\n    \"by_message_size\": [", f);
    for (size_t i = 0; i < a->n_sizes; i++) {
        const struct rl_across_size *s = &a->sizes[i];
        fprintf(f, "%s{\"bytes_from\": %.17g, \"calls\": %zu", i ? ", " : "", s->bytes_lo,
                s->calls);
        num(f, "busbw_gbs", s->busbw_gbs);
        num(f, "pct_of_link", s->pct_of_link);
        fputc('}', f);
    }
    fputs("],\n    \"calls\": [", f);
    for (size_t i = 0; i < a->n_calls; i++) {
        const struct rl_across_call *c = &a->calls[i];
        fprintf(f, "%s\n      {\"collective\": ", i ? "," : "");
        rl_fput_json_string(f, c->collective);
        fputs(", \"process_group\": ", f);
        if (c->pg[0])
            rl_fput_json_string(f, c->pg);
        else
            fputs("null", f);
        if (c->seq >= 0)
            fprintf(f, ", \"seq\": %lld", c->seq);
        else
            fputs(", \"seq\": null", f);
        fprintf(f, ", \"ordinal\": %zu, \"last_rank\": %d", c->ordinal, c->last_rank);
        num(f, "skew_ns", c->skew_ns);
        num(f, "transfer_ns", c->transfer_ns);
        num(f, "bytes", c->bytes);
        fprintf(f, ", \"group_size\": %d", c->group_size);
        num(f, "busbw_gbs", c->busbw_gbs);
        fputc('}', f);
    }
    fputs("]},\n", f);
}

void rl_across_markdown(FILE *f, const struct rl_across *a)
{
    if (!a)
        return;
    fprintf(f, "\n## Across ranks\n\n%s.\n\n", a->headline);
    fputs("| rank | step (mean) | idle | communication | exposed | hidden | last at | others "
          "waited |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n",
          f);
    for (size_t i = 0; i < a->n_ranks; i++) {
        const struct rl_across_rank *k = &a->ranks[i];
        fprintf(f, "| %d | %.4g ms | %.4g ms | %.4g ms | %.4g ms | %.4g ms | %zu | %.4g ms |\n",
                k->rank, ms(k->step_mean_ns), ms(k->idle_ns), ms(k->comm_ns), ms(k->exposed_ns),
                ms(k->hidden_ns), k->last_at, ms(k->waited_ns));
    }
    fprintf(f,
            "\n%zu collective calls matched on every rank (%zu launches were not); skew (last "
            "arrival - first) %.4g ms mean, %.4g ms max.\n",
            a->n_calls, a->unmatched, ms(a->skew_mean_ns), ms(a->skew_max_ns));
}
