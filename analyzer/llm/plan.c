/* plan.c - which parallel layout of N GPUs runs a model fastest: every TP x PP x DP (x EP) split that fits, ranked by predicted step time.
 *
 * The step time of each layout is rl_llm_step's (layout.c): the roofline
 * time of one GPU's operators per microbatch, the collectives of the
 * split on the collective model, the pipeline bubble; memory is
 * rl_llm_memory_per_gpu's against the GPU's capacity less the reserve.
 * Fastest first means the most tokens per second at the same batch: every
 * layout processes the same tokens per step.
 */
#include "analyzer/llm/plan.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rl_llm_plan_release(struct rl_llm_plan *p)
{
    free(p->c);
    memset(p, 0, sizeof *p);
}

static int by_rank(const void *a, const void *b)
{
    const struct rl_llm_candidate *x = a, *y = b;
    if (x->fits != y->fits)
        return x->fits ? -1 : 1;
    const double kx = x->fits ? x->step.time_ns : x->mem.total_bytes;
    const double ky = y->fits ? y->step.time_ns : y->mem.total_bytes;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    /* equal: the fewer stages, then the less TP (less to go wrong) */
    if (x->step.layout.pp != y->step.layout.pp)
        return x->step.layout.pp - y->step.layout.pp;
    return x->step.layout.tp - y->step.layout.tp;
}

/* The microbatch counts tried for one split, from M = 1: 1, then pp (2
 * without stages), then doubling, and last the GPU's every sequence
 * (seqs); 0 after seqs. */
static int next_microbatches(int M, int pp, int seqs)
{
    if (M >= seqs)
        return 0;
    int next = M == 1 ? (pp > 1 ? pp : 2) : 2 * M;
    return next > seqs ? seqs : next;
}

static int sequences_per_gpu(const struct rl_llm_plan_request *req, const struct rl_llm_layout *l)
{
    const int share = l->dp * l->ep;
    return (req->batch + share - 1) / share;
}

/* The best microbatch count of one split: the fastest that fits, else
 * the least memory. */
static int best_microbatches(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                             const struct rl_llm_plan_request *req, struct rl_llm_layout l,
                             struct rl_ceilings *c, const struct rl_llm_net *net,
                             const struct rl_llm_capacity *cap, struct rl_llm_candidate *out,
                             char *errmsg)
{
    const int seqs = sequences_per_gpu(req, &l);
    static struct rl_llm_candidate cand;
    bool have = false;
    for (int M = 1; M; M = next_microbatches(M, l.pp, seqs)) {
        l.microbatches = M;
        memset(&cand, 0, sizeof cand);
        int rc = rl_llm_step(m, cfg, &l, req->phase, req->batch, req->seq, c, net, &cand.step,
                             errmsg);
        if (rc)
            return rc;
        rl_llm_memory_per_gpu(m, cfg, &l, req->batch, req->seq, &cand.mem);
        cand.fits = rl_llm_fits(&cand.mem, cap);
        cand.tokens_per_s = cand.step.tokens / (cand.step.time_ns / 1e9);
        if (!have || by_rank(&cand, out) < 0) {
            *out = cand;
            have = true;
        }
    }
    return RL_OK;
}

/* Every split of n GPUs the plan ranks, in its order: tp dividing n
 * (within max_tp), pp and ep dividing the rest (ep only for a MoE), dp
 * the rest, each one rl_llm_split_check accepts; fn is called on each
 * until it returns non-zero, which is returned (0 after the last). */
typedef int (*split_fn)(void *ctx, const struct rl_llm_layout *l);

static int each_split(const struct rl_llm_model *m, const struct rl_llm_plan_request *req,
                      int n, split_fn fn, void *ctx)
{
    for (int tp = 1; tp <= n && tp <= req->max_tp; tp++) {
        if (n % tp)
            continue;
        for (int pp = 1; pp <= n / tp; pp++) {
            if ((n / tp) % pp)
                continue;
            for (int ep = 1; ep <= n / (tp * pp); ep++) {
                if ((n / (tp * pp)) % ep || (ep > 1 && m->experts == 1))
                    continue;
                struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
                l.tp = tp;
                l.pp = pp;
                l.ep = ep;
                l.dp = n / (tp * pp * ep);
                l.train = req->phase == RL_LLM_TRAIN;
                l.recompute = l.train ? req->recompute : RL_LLM_RECOMPUTE_NONE;
                l.zero = l.train ? req->zero : 0;
                if (l.train) {
                    const int v = req->virtual_stages;
                    l.seq_parallel = req->seq_parallel;
                    l.unfused_attention = req->unfused_attention;
                    l.overlap = req->overlap;
                    l.efficiency = req->efficiency;
                    l.virtual_stages = v > 1 && pp > 1 && m->layers % (pp * v) == 0 ? v : 1;
                }
                const struct rl_llm_split sp = rl_llm_layout_split(&l);
                char why[RL_ERRMSG_SIZE];
                if (rl_llm_split_check(m, &sp, why))
                    continue;
                int rc = fn(ctx, &l);
                if (rc)
                    return rc;
            }
        }
    }
    return 0;
}

struct build_ctx {
    const struct rl_llm_model *m;
    const struct rl_llm_config *cfg;
    const struct rl_llm_plan_request *req;
    struct rl_ceilings *c;
    const struct rl_llm_net *net;
    const struct rl_llm_capacity *cap;
    struct rl_llm_plan *out;
    size_t cap_n;
    char *errmsg;
};

static int add_split(void *ctx, const struct rl_llm_layout *l)
{
    struct build_ctx *b = ctx;
    struct rl_llm_plan *out = b->out;
    if (out->n == b->cap_n) {
        struct rl_llm_candidate *g = rl_realloc(out->c, 2 * b->cap_n * sizeof *g);
        if (!g)
            return rl_fail(b->errmsg, RL_ENOMEM, "out of memory");
        out->c = g;
        b->cap_n *= 2;
    }
    int rc = best_microbatches(b->m, b->cfg, b->req, *l, b->c, b->net, b->cap, &out->c[out->n],
                               b->errmsg);
    if (rc == RL_EINVAL) { /* a group the model cannot time: skipped, said */
        if (!out->n_skipped++)
            snprintf(out->skipped_why, sizeof out->skipped_why, "%s", b->errmsg);
        return 0;
    }
    if (rc)
        return rc;
    out->n_fit += out->c[out->n].fits;
    out->n++;
    return 0;
}

int rl_llm_plan_build(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                      const struct rl_llm_plan_request *req, struct rl_ceilings *c,
                      const struct rl_llm_net *net, const struct rl_llm_capacity *cap,
                      struct rl_llm_plan *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    const int N = req->gpus;
    size_t cap_n = 64;
    out->c = rl_malloc(cap_n * sizeof *out->c);
    if (!out->c)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    struct build_ctx b = {m, cfg, req, c, net, cap, out, cap_n, errmsg};
    int rc = each_split(m, req, N, add_split, &b);
    if (rc) {
        rl_llm_plan_release(out);
        return rc;
    }
    if (!out->n && out->n_skipped) {
        char why[RL_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", out->skipped_why);
        rl_llm_plan_release(out);
        return rl_fail(errmsg, RL_EINVAL, "%s", why);
    }
    if (!out->n) {
        rl_llm_plan_release(out);
        return rl_fail(errmsg, RL_EINVAL,
                       "no split of %d GPUs holds %s (TP must divide its %d heads, within %d "
                       "GPUs; PP at most its %d layers)",
                       N, m->name, m->heads, req->max_tp, m->layers);
    }
    qsort(out->c, out->n, sizeof *out->c, by_rank);
    return RL_OK;
}

/* Whether split l holds the model at some microbatch count the plan tries. */
struct holds_ctx {
    const struct rl_llm_model *m;
    const struct rl_llm_config *cfg;
    const struct rl_llm_plan_request *req;
    const struct rl_llm_capacity *cap;
};

static int split_holds(void *ctx, const struct rl_llm_layout *l0)
{
    const struct holds_ctx *h = ctx;
    struct rl_llm_layout l = *l0;
    const int seqs = sequences_per_gpu(h->req, &l);
    for (int M = 1; M; M = next_microbatches(M, l.pp, seqs)) {
        struct rl_llm_memory mem;
        l.microbatches = M;
        rl_llm_memory_per_gpu(h->m, h->cfg, &l, h->req->batch, h->req->seq, &mem);
        if (rl_llm_fits(&mem, h->cap))
            return 1;
    }
    return 0;
}

int rl_llm_plan_min_gpus(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                         const struct rl_llm_plan_request *req, struct rl_ceilings *c,
                         const struct rl_llm_net *net, const struct rl_llm_capacity *cap,
                         int max_gpus, int *gpus, struct rl_llm_candidate *best, char *errmsg)
{
    *gpus = 0;
    const struct holds_ctx h = {m, cfg, req, cap};
    for (int n = 1; n <= max_gpus; n++) {
        /* memory first (cheap): a count none of whose splits holds it is passed by */
        if (!each_split(m, req, n, split_holds, (void *)&h))
            continue;
        struct rl_llm_plan_request at = *req;
        at.gpus = n;
        struct rl_llm_plan plan;
        char why[RL_ERRMSG_SIZE];
        int rc = rl_llm_plan_build(m, cfg, &at, c, net, cap, &plan, why);
        if (rc == RL_EINVAL) /* every split that holds it was one the model cannot time */
            continue;
        if (rc)
            return rl_fail(errmsg, rc, "%s", why);
        const bool fits = plan.n_fit > 0;
        if (fits) {
            *gpus = n;
            if (best)
                *best = plan.c[0];
        }
        rl_llm_plan_release(&plan);
        if (fits)
            return RL_OK;
    }
    return RL_OK;
}
