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

/* The best microbatch count of one split: the fastest that fits, else
 * the least memory. */
static int best_microbatches(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                             const struct rl_llm_plan_request *req, struct rl_llm_layout l,
                             struct rl_ceilings *c, const struct rl_llm_net *net,
                             const struct rl_llm_capacity *cap, struct rl_llm_candidate *out,
                             char *errmsg)
{
    const int share = l.dp * l.ep, seqs = (req->batch + share - 1) / share;
    static struct rl_llm_candidate cand;
    bool have = false;
    for (int M = 1; M <= seqs;) {
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
        /* 1, then pp, 2 pp, 4 pp, ... and the GPU's every sequence */
        int next = M == 1 ? (l.pp > 1 ? l.pp : 2) : 2 * M;
        M = next > seqs && M < seqs ? seqs : next;
    }
    return RL_OK;
}

int rl_llm_plan_build(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                      const struct rl_llm_plan_request *req, struct rl_ceilings *c,
                      const struct rl_llm_net *net, const struct rl_llm_capacity *cap,
                      struct rl_llm_plan *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    const int N = req->gpus;
    size_t cap_n = 64;
    out->c = malloc(cap_n * sizeof *out->c);
    if (!out->c)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    for (int tp = 1; tp <= N && tp <= req->max_tp; tp++) {
        if (N % tp)
            continue;
        for (int pp = 1; pp <= N / tp; pp++) {
            if ((N / tp) % pp)
                continue;
            for (int ep = 1; ep <= N / (tp * pp); ep++) {
                if ((N / (tp * pp)) % ep || (ep > 1 && m->experts == 1))
                    continue;
                struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
                l.tp = tp;
                l.pp = pp;
                l.ep = ep;
                l.dp = N / (tp * pp * ep);
                l.train = req->phase == RL_LLM_TRAIN;
                l.recompute = l.train && req->recompute;
                l.zero = l.train ? req->zero : 0;
                const struct rl_llm_split sp = rl_llm_layout_split(&l);
                char why[RL_ERRMSG_SIZE];
                if (rl_llm_split_check(m, &sp, why))
                    continue;
                if (out->n == cap_n) {
                    struct rl_llm_candidate *g = realloc(out->c, 2 * cap_n * sizeof *g);
                    if (!g) {
                        rl_llm_plan_release(out);
                        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
                    }
                    out->c = g;
                    cap_n *= 2;
                }
                int rc = best_microbatches(m, cfg, req, l, c, net, cap, &out->c[out->n],
                                           errmsg);
                if (rc == RL_EINVAL) { /* a group the model cannot time: skipped, said */
                    if (!out->n_skipped++)
                        snprintf(out->skipped_why, sizeof out->skipped_why, "%s", errmsg);
                    continue;
                }
                if (rc) {
                    rl_llm_plan_release(out);
                    return rc;
                }
                out->n_fit += out->c[out->n].fits;
                out->n++;
            }
        }
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
