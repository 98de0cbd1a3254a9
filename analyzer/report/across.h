/* across.h - a parallel job across its ranks: each collective call matched rank to rank (its skew, the rank that arrives last), per rank the communication exposed and hidden behind compute, idle time and step times, the collectives' bus bandwidth by message size against the link. */
#ifndef RL_REPORT_ACROSS_H
#define RL_REPORT_ACROSS_H

#include "analyzer/readers/timeline.h"

#include <stddef.h>
#include <stdio.h>

/* One rank's GPU timeline summed (rl_across_rank_sum). Unions: time
 * covered by at least one activity of the kind, on any stream. */
struct rl_across_rank {
    int rank;                     /* -1 unknown */
    double busy_ns;               /* union of every GPU activity */
    double span_ns;               /* first start to last end */
    double first_ns;              /* the first start, from its timeline's base_us */
    double idle_ns;               /* span - busy */
    double compute_ns;            /* union of the kernels that are not communication */
    double comm_ns;               /* union of the communication kernels */
    double exposed_ns;            /* of comm_ns, the time no compute kernel runs */
    double hidden_ns;             /* comm_ns - exposed_ns: overlapped by compute */
    size_t steps;                 /* ProfilerStep#N spans */
    double step_mean_ns, step_min_ns, step_max_ns; /* NAN without steps */
    /* Filled by rl_across_build: */
    size_t last_at;               /* matched calls it arrived last at */
    double waited_ns;             /* the skews of those calls summed: the others' wait */
};

/* One collective call matched on every rank. */
struct rl_across_call {
    char collective[16];          /* "allreduce" ...; "nccl" when the trace does not say */
    char pg[16];                  /* its process group's name; "" unknown */
    long long seq;                /* its sequence number; -1 unknown */
    size_t ordinal;               /* its place among the matched calls of that group and
                                   * collective */
    double skew_ns;               /* last start - first start */
    int last_rank;                /* the rank whose kernel started last */
    double transfer_ns;           /* the last rank's kernel time: no waiting in it */
    double bytes;                 /* message bytes; NAN unknown */
    int group_size;
    double busbw_gbs;             /* bytes x nccl-tests' factor / transfer_ns; NAN */
};

/* The calls of one message size (power-of-two bucket [lo, 2 lo)). */
struct rl_across_size {
    double bytes_lo;
    size_t calls;
    double busbw_gbs;             /* sum(bytes x factor) / sum(transfer_ns) */
    double pct_of_link;           /* busbw / link; NAN without a link roof */
};

struct rl_across {
    struct rl_across_rank *ranks; /* in rank order; owned */
    size_t n_ranks;
    struct rl_across_call *calls; /* by collective, then ordinal; owned */
    size_t n_calls;
    size_t unmatched;             /* launches of a collective not on every rank */
    struct rl_across_size *sizes; /* by size; owned */
    size_t n_sizes;
    double skew_mean_ns, skew_max_ns; /* NAN without calls */
    int straggler;                /* the rank last at the most calls; -1 none */
    size_t straggler_calls;
    double straggler_ns;          /* the skews of its calls summed */
    size_t common_steps;          /* step numbers every rank traced */
    double step_spread_ns;        /* the largest (max - min over ranks) of one step; NAN */
    bool apart;                   /* the ranks' GPU time spans do not overlap: traces of
                                   * different runs, or clocks apart (no straggler then) */
    double link_gbs;              /* the link roof; NAN none */
    char link_label[64];
    char headline[400];
};

/* Sum tl (one rank's timeline, every activity) into k. RL_ENOMEM. */
int rl_across_rank_sum(struct rl_across_rank *k, int rank, const struct rl_timeline *tl);

/* Match the collectives of n ranks (sums[i] and tl[i] of one rank, in rank
 * order; tl may hold communication only) into a, per process group and
 * collective: by sequence number where every call carries one, else the
 * n-th call on one rank is the n-th on every other (the order NCCL runs
 * them on a communicator); one not on every rank is counted unmatched. Ranks' times are compared on the clock their
 * traces share (epoch microseconds). link_gbs: the link roof per direction
 * (NAN none). RL_ENOMEM. */
int rl_across_build(struct rl_across *a, const struct rl_across_rank *sums,
                    const struct rl_timeline *tl, size_t n, double link_gbs,
                    const char *link_label, char *errmsg);
void rl_across_free(struct rl_across *a);

/* Writers (ranks.c calls them within the ranks' sections). */
void rl_across_table(FILE *f, const struct rl_across *a);
void rl_across_json(FILE *f, const struct rl_across *a);
void rl_across_markdown(FILE *f, const struct rl_across *a);

#endif
