/* words.c - the report's words: a row's kind, bound and roof as every output says them, the launches counted by kind, and the notes on the report's own numbers (the guards' findings, the roof that judged groups without a precision), one account per case.
 *
 * The notes are read by someone who cannot see the code: each names the
 * worst or first row it is about, says what the number means, and asks
 * nothing of a flag the command may not have (the ceilings' default roof is
 * described by what it is, not by the option that chose it).
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/words.h"

#include "analyzer/report/ranks.h"
#include "analyzer/report/report.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the words of a row ------------------------------------------------------- */

/* "DRAM", "L2", "L1": a level as the tables name it. */
static const char *level_upper(enum rl_mem_level level, char *buf, size_t cap)
{
    const char *s = rl_mem_level_name(level);
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        buf[i] = (char)toupper((unsigned char)s[i]);
    buf[i] = 0;
    return buf;
}


const char *rl_report_kind_name(enum rl_report_kind kind)
{
    static const char *const names[RL_REPORT_KINDS] = {"kernel", "memcpy", "memset",
                                                       "communication"};
    return (unsigned)kind < RL_REPORT_KINDS ? names[kind] : "kernel";
}

const char *rl_report_kind_noun(enum rl_report_kind kind, uint64_t n)
{
    static const char *const nouns[RL_REPORT_KINDS][2] = {
        {"kernel launch", "kernel launches"}, {"copy", "copies"}, {"fill", "fills"},
        {"collective launch", "collective launches"}};
    return nouns[(unsigned)kind < RL_REPORT_KINDS ? kind : 0][n != 1];
}

/* A profiler's copies and fills are named by it, not by a kernel: Kineto
 * (CUPTI's and roctracer's memcpy and memset activities) writes "Memcpy
 * HtoD (Pageable -> Device)", "Memcpy DtoD (Device -> Device)", "Memset
 * (Device)"; no kernel's name (a C identifier or signature) holds a space
 * after its first word like these. */
enum rl_report_kind rl__report_kind_of(const char *name, bool comm)
{
    if (comm)
        return RL_REPORT_COMM;
    if (strncmp(name, "Memcpy ", 7) == 0)
        return RL_REPORT_MEMCPY;
    if (strncmp(name, "Memset ", 7) == 0)
        return RL_REPORT_MEMSET;
    return RL_REPORT_KERNEL;
}

enum rl_bound rl_report_bound(const struct rl_report_row *w, enum rl_mem_level *level)
{
    *level = RL_MEM_DRAM;
    if (w->comm)
        return RL_BOUND_UNKNOWN;
    if (w->memory_only)
        /* no FLOPs: a data-movement kernel, a copy or a fill moves bytes
         * and nothing else (a counter export's kernel without FLOP
         * counters, or an operator whose FLOPs the cost table does not
         * give, may do more: a point, not a bound) */
        return w->counted || w->kind == RL_REPORT_MEMCPY || w->kind == RL_REPORT_MEMSET
                   ? RL_BOUND_MEMORY
                   : RL_BOUND_UNKNOWN;
    if (w->bound == RL_BOUND_MEMORY)
        *level = w->v.limiter;
    return w->bound;
}

void rl_report_bound_text(char *buf, size_t cap, const struct rl_report_row *w,
                          const struct rl_ceilings *c)
{
    enum rl_mem_level level;
    enum rl_bound b = rl_report_bound(w, &level);
    if (w->comm)
        rl__report_comm_kind(w, buf, cap);
    else if (b != RL_BOUND_UNKNOWN)
        rl_bound_text(buf, cap, b, level, w->roof >= 0 ? c->compute[w->roof].label : NULL);
    else if (w->memory_only)
        snprintf(buf, cap, "bytes only");
    else if (w->compute_only)
        snprintf(buf, cap, "FLOPs only");
    else
        snprintf(buf, cap, "-");
}

void rl_report_roof_text(char *buf, size_t cap, const struct rl_report_row *w,
                         const struct rl_ceilings *c)
{
    char lvl[8];
    const struct rl_memory_roof *m = NULL;
    buf[0] = 0;
    if (w->comm) {
        if (c->has_link)
            snprintf(buf, cap, "link roof (%s)", c->link.label);
        return;
    }
    if (w->memory_only) {
        m = rl__report_limiting_roof(c, RL_MEM_DRAM);
        if (m)
            snprintf(buf, cap, "DRAM roof (%s)", m->label);
        return;
    }
    if (w->roof < 0 || w->bound == RL_BOUND_UNKNOWN)
        return;
    /* the model's verdict names the roof (a row "bound by neither" is
     * still set against the roof its intensity meets) */
    if (w->v.bound == RL_BOUND_MEMORY && (m = rl__report_limiting_roof(c, w->v.limiter))) {
        snprintf(buf, cap, "%s roof (%s)", level_upper(w->v.limiter, lvl, sizeof lvl), m->label);
    } else if (w->v.bound == RL_BOUND_LINK && c->has_link) {
        snprintf(buf, cap, "link roof (%s)", c->link.label);
    } else {
        snprintf(buf, cap, "%s roof", c->compute[w->roof].label);
    }
}

void rl_report_launches_text(char *buf, size_t cap, const struct rl_report *r)
{
    uint64_t copies = r->launches_of[RL_REPORT_MEMCPY], fills = r->launches_of[RL_REPORT_MEMSET];
    if (!copies && !fills) {
        snprintf(buf, cap, "%llu launches in %zu kernel group%s", (unsigned long long)r->launches,
                 r->n, r->n == 1 ? "" : "s");
        return;
    }
    /* collectives run as kernels: counted with them */
    uint64_t kernels = r->launches_of[RL_REPORT_KERNEL] + r->launches_of[RL_REPORT_COMM];
    snprintf(buf, cap, "%llu %s, %llu %s and %llu %s in %zu group%s",
             (unsigned long long)kernels, rl_report_kind_noun(RL_REPORT_KERNEL, kernels),
             (unsigned long long)copies, rl_report_kind_noun(RL_REPORT_MEMCPY, copies),
             (unsigned long long)fills, rl_report_kind_noun(RL_REPORT_MEMSET, fills), r->n,
             r->n == 1 ? "" : "s");
}

/* ---- notes ------------------------------------------------------------------- */

/* "kernel group" when every row counted is a kernel's, else "group" (copies
 * and fills are not kernels). */
static const char *group_word(size_t kernels, size_t all)
{
    return kernels == all ? "kernel group" : "group";
}

/* Is w's figure above its roof one that the L2 cache explains? Its bytes are
 * the least DRAM traffic its work needs (analytic: an operator's inputs read
 * once and outputs written once; a copy's or fill's bytes, from the trace)
 * and the roof it beats is a memory roof: an operand the kernel before left
 * in L2, or a write L2 still holds, moves no DRAM bytes, so it can run above
 * the DRAM roof. A compute roof cannot be beaten, nor can measured DRAM
 * bytes. */
static bool cache_explains(const struct rl_report_row *w)
{
    enum rl_mem_level level;
    return (w->origin == RL_ORIGIN_ANALYTIC || w->kind == RL_REPORT_MEMCPY ||
            w->kind == RL_REPORT_MEMSET) &&
           rl_report_bound(w, &level) == RL_BOUND_MEMORY;
}

struct over {
    size_t n, kernels;
    const struct rl_report_row *worst;
    double worst_pct;
    bool measured;
};

static void over_add(struct over *o, const struct rl_report_row *w)
{
    double pct = w->memory_only ? w->pct_of_memory_roof : w->v.pct_of_roof;
    o->n++;
    o->kernels += w->kind == RL_REPORT_KERNEL;
    o->measured |= w->origin != RL_ORIGIN_ANALYTIC;
    if (!o->worst || pct > o->worst_pct)
        o->worst_pct = pct, o->worst = w;
}

static void over_notes(struct rl_report *r, const struct rl_ceilings *c)
{
    struct over cache = {0}, wrong = {0};
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].over_roof)
            over_add(cache_explains(&r->rows[i]) ? &cache : &wrong, &r->rows[i]);
    char text[1024], name[64];
    if (cache.n) {
        rl_str_shorten(name, sizeof name, cache.worst->name);
        snprintf(text, sizeof text,
                 "%zu %s%s above 100%% of the DRAM roof (up to %.3g%%, %s): %s bytes are the "
                 "least DRAM traffic the work needs (an operator's inputs read once and outputs "
                 "written once, a copy's or fill's bytes), and an operand or a write still in "
                 "the L2 cache moves no DRAM bytes, so %s can run above the DRAM roof: %s "
                 "intensity and %% of roof are bounds, not measurements",
                 cache.n, group_word(cache.kernels, cache.n), cache.n == 1 ? " runs" : "s run",
                 cache.worst_pct, name, cache.n == 1 ? "its" : "their",
                 cache.n == 1 ? "it" : "they", cache.n == 1 ? "its" : "their");
        rl_report_note(r, text);
    }
    if (wrong.n) {
        rl_str_shorten(name, sizeof name, wrong.worst->name);
        bool other = r->other_gpu;
        char gpu[160];
        snprintf(gpu, sizeof gpu, "%s%s%s", other ? "the source names " : "judged against ",
                 other ? r->source.gpu_name : c->gpu_name, other ? "; check --gpu" : ": check --gpu");
        /* The causes that can make this source's number wrong: measured
         * counters (a Tensor Core op's FLOPs, a misread unit, replay) or an
         * analytic count (the cost of the operator, the roof of its dtype). */
        const char *causes =
            wrong.measured
                ? "the Tensor Core FLOPs per op (--tensor-flops-per-op) may be wrong, a unit "
                  "may be misread, or replay or sampling inflated a count"
                : "the analytic FLOPs of its operation may be too many, or its precision's "
                  "roof too low for the unit that ran it";
        snprintf(text, sizeof text,
                 "%zu %s%s above 100%% of %s roof (up to %.3g%%, %s): no kernel runs faster "
                 "than a compute roof or than the DRAM traffic it was measured to move allows, "
                 "so a number is wrong: the ceilings may be another GPU's than the one that "
                 "ran it (%s), or %s",
                 wrong.n, group_word(wrong.kernels, wrong.n), wrong.n == 1 ? " runs" : "s run",
                 wrong.n == 1 ? "its" : "their", wrong.worst_pct, name, gpu, causes);
        rl_report_note(r, text);
    }
}

/* One note per guard, naming the worst or first row and what it means. */
static void guard_notes(struct rl_report *r, const struct rl_ceilings *c)
{
    size_t l2 = 0, zero = 0;
    const struct rl_report_row *first_l2 = NULL, *first_zero = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        if (w->l2_below_dram && !l2++)
            first_l2 = w;
        if (w->zero_bytes && !zero++)
            first_zero = w;
    }
    char text[1024], name[64];
    if (r->other_gpu) {
        snprintf(text, sizeof text,
                 "the source says the kernels ran on %s, but they are judged against the %s's "
                 "ceilings: give --gpu for the GPU that ran them",
                 r->source.gpu_name, c->gpu_name);
        rl_report_note(r, text);
    }
    over_notes(r, c);
    if (l2) {
        rl_str_shorten(name, sizeof name, first_l2->name);
        snprintf(text, sizeof text,
                 "%zu kernel group%s fewer L2 than DRAM bytes (%s): every DRAM byte passes "
                 "through L2, so a counter or its unit is wrong",
                 l2, l2 == 1 ? " has" : "s have", name);
        rl_report_note(r, text);
    }
    if (zero) {
        rl_str_shorten(name, sizeof name, first_zero->name);
        snprintf(text, sizeof text,
                 "%zu kernel group%s FLOPs and 0 DRAM bytes (%s): intensity unbounded, judged "
                 "compute-bound, not drawn on a chart",
                 zero, zero == 1 ? " counted" : "s counted", name);
        rl_report_note(r, text);
    }
}

/* Groups judged without a precision of their own: the ceilings' default
 * roof judged them. Said as what that roof is (the fastest the GPU has, FP4
 * and FP6 aside, unless a precision was asked for first), and what it does
 * to their figures. */
static void precision_note(struct rl_report *r, const struct rl_ceilings *c)
{
    if (!r->n_no_precision || c->n_compute < 2)
        return;
    const struct rl_compute_roof *d = &c->compute[c->default_roof];
    bool fastest = true;
    for (size_t i = 0; i < c->n_compute; i++)
        if (c->compute[i].precision != RL_PREC_FP4 && c->compute[i].precision != RL_PREC_FP6 &&
            c->compute[i].peak_tflops > d->peak_tflops)
            fastest = false;
    size_t n = r->n_no_precision;
    /* a PyTorch trace's step leaves them out of its operators' loss
     * (step.c): said here, in the one note on them */
    bool step = false;
    for (size_t i = 0; i < r->n && !step; i++)
        step = r->rows[i].default_roof && r->rows[i].op;
    char text[640];
    snprintf(text, sizeof text,
             "%zu kernel group%s no precision of %s own: judged against the %s roof, %s; a "
             "roof of another precision than the one %s ran at puts %s %% of roof off by the "
             "ratio of the two roofs%s",
             n, n == 1 ? " names" : "s name", n == 1 ? "its" : "their", d->label,
             fastest ? "the fastest this GPU has (FP4 and FP6 aside: the least % of roof)"
                     : "the first precision these ceilings were asked for",
             n == 1 ? "it" : "they", n == 1 ? "its" : "their",
             step ? ", so the operators' time lost leaves them out (not judged)" : "");
    rl_report_note(r, text);
}

void rl__report_judge_notes(struct rl_report *r, const struct rl_ceilings *c)
{
    precision_note(r, c);
    guard_notes(r, c);
}
