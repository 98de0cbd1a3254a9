/* timeline.c - one rank's GPU timeline from its trace (see timeline.h). */
#include "analyzer/readers/timeline.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ns since base_us: the whole microseconds subtracted as integers first,
 * so an epoch time (~1.7e15 us) keeps its nanoseconds. */
static double rel_ns(struct rl_timeline *t, long long whole_us, double frac_us)
{
    if (!t->have_base) {
        t->base_us = whole_us;
        t->have_base = true;
    }
    return ((double)(whole_us - t->base_us) + frac_us) * 1000.0;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return RL_OK;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = rl_realloc(*v, c * size);
    if (!p)
        return RL_ENOMEM;
    *v = p;
    *cap = c;
    return RL_OK;
}

int rl_timeline_add_act(struct rl_timeline *t, long long whole_us, double frac_us, double dur_us,
                        int stream, enum rl_act_kind kind, const char *collective)
{
    if (grow((void **)&t->act, &t->cap_act, t->n_act, sizeof *t->act))
        return RL_ENOMEM;
    struct rl_timeline_act *a = &t->act[t->n_act++];
    double s = rel_ns(t, whole_us, frac_us);
    double d = isfinite(dur_us) && dur_us > 0 ? dur_us * 1000.0 : 0;
    *a = (struct rl_timeline_act){.start_ns = s, .end_ns = s + d, .comm_bytes = NAN,
                                  .stream = stream, .group_size = 0, .kind = (uint8_t)kind,
                                  .seq = -1};
    snprintf(a->collective, sizeof a->collective, "%s", collective ? collective : "");
    return RL_OK;
}

int rl_timeline_add_step(struct rl_timeline *t, const char *name, long long whole_us,
                         double frac_us, double dur_us)
{
    if (strncmp(name, "ProfilerStep#", 13) != 0)
        return RL_OK;
    char *end;
    long long n = strtoll(name + 13, &end, 10);
    if (end == name + 13 || *end)
        return RL_OK;
    if (grow((void **)&t->step, &t->cap_step, t->n_step, sizeof *t->step))
        return RL_ENOMEM;
    double s = rel_ns(t, whole_us, frac_us);
    double d = isfinite(dur_us) && dur_us > 0 ? dur_us * 1000.0 : 0;
    t->step[t->n_step++] = (struct rl_timeline_step){n, s, s + d};
    return RL_OK;
}

void rl_timeline_set_comm(struct rl_timeline *t, size_t index, const char *collective,
                          const char *pg, long long seq, double comm_bytes, int group_size)
{
    if (index >= t->n_act)
        return;
    struct rl_timeline_act *a = &t->act[index];
    if (collective && collective[0] && !a->collective[0])
        snprintf(a->collective, sizeof a->collective, "%s", collective);
    a->kind = RL_ACT_COMM; /* also a kernel only its operator names a collective */
    snprintf(a->pg, sizeof a->pg, "%s", pg ? pg : "");
    a->seq = seq;
    a->comm_bytes = comm_bytes;
    a->group_size = group_size;
}

void rl_timeline_keep_comm(struct rl_timeline *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n_act; i++)
        if (t->act[i].kind == RL_ACT_COMM)
            t->act[k++] = t->act[i];
    t->n_act = k;
    if (k < t->cap_act) {
        void *p = rl_realloc(t->act, (k ? k : 1) * sizeof *t->act);
        if (p)
            t->act = p, t->cap_act = k ? k : 1;
    }
}

void rl_timeline_release(struct rl_timeline *t)
{
    free(t->act);
    free(t->step);
    memset(t, 0, sizeof *t);
}
