/* step.h - one profiled step as a whole (report --torch): GPU time split by bound, time lost against the roof, and the operators ranked by it. */
#ifndef RL_REPORT_STEP_H
#define RL_REPORT_STEP_H

#include "analyzer/model/ceilings.h"
#include "analyzer/model/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rl_report;
struct rl_report_row;

/* Where a step's GPU time went. */
enum rl_step_bucket {
    RL_STEP_COMPUTE, RL_STEP_MEMORY, RL_STEP_NEITHER, RL_STEP_LINK, RL_STEP_UNKNOWN,
    RL_STEP_BUCKETS
};

/* One operator (aten::mm, ...) over all its kernels and launches. Its
 * time, roof time and loss are over one set of kernels: judged_ns is the
 * time of those with a roof time (a cost: FLOPs or bytes), roof_time_ns
 * what they would take at their roofs, lost_ns = judged_ns - roof_time_ns
 * (>= 0) and pct_of_roof = roof_time_ns / judged_ns x 100; the rest of
 * time_ns ran kernels with no cost and is neither lost nor not (the
 * sentence says how much). */
struct rl_report_op {
    char op[128];                 /* "(no operator)" for kernels linked to none */
    char shapes[200];             /* of its largest judged kernel group by time */
    char dtype[16];
    char roof[24];                /* that group's compute roof ("bf16"); "" none */
    char roof_text[96];           /* the roof its loss is set against (rl_report_roof_text) */
    char bound[80];               /* that group's bound in words (rl_report_bound_text);
                                   * "-" when judged on less than half its time */
    uint64_t launches;            /* of every kind: kernels, copies, fills */
    size_t groups;                /* kernel groups (kernel, grid, block, shapes) */
    double time_ns;               /* all its kernels */
    double flops, dram_bytes;     /* its costed kernels' (analytic); NAN none */
    double judged_ns;             /* the time of the kernels with a roof time */
    double roof_time_ns, lost_ns; /* over those same kernels; NAN none */
    double pct_of_roof;           /* roof_time / judged x 100; NAN */
    double bucket_ns[RL_STEP_BUCKETS]; /* its time by bound */
    enum rl_step_bucket bucket;   /* where most of its time went */
    char sentence[600];
};

struct rl_report_step {
    double gpu_time_ns;           /* every kernel's time, summed */
    double busy_ns, span_ns, idle_ns; /* the trace's GPU timeline; NAN unknown */
    double bucket_ns[RL_STEP_BUCKETS];
    double lost_ns;               /* the operators' lost_ns, summed */
    struct rl_report_op *ops;     /* by time lost, then by time */
    size_t n_ops;
    char headline[600];           /* the biggest win, in one line */
};

/* Judge the step of r (its rows built by rl_report_build): each row's time
 * at its roof and time lost, the collectives' bus bandwidth against the
 * link, the operators, and the headline. busy_ns and span_ns: the trace's
 * GPU timeline (NAN unknown). r->step is set; RL_ENOMEM on failure. */
int rl_report_step_build(struct rl_report *r, const struct rl_ceilings *c, double busy_ns,
                         double span_ns, char *errmsg);

/* The terminal summary: the headline, the split by bound, and the top
 * `rows` operators (0: all). */
void rl_report_step_table(FILE *f, const struct rl_report *r, size_t rows);

const char *rl_step_bucket_name(enum rl_step_bucket b); /* "compute", ..., "link", "unknown" */
/* The bucket as the tables say it: "unknown" is "not judged". */
const char *rl_step_bucket_text(enum rl_step_bucket b);

/* The report's writers (report.c, html.c) */
void rl__report_step_json(FILE *f, const struct rl_report *r);
void rl__report_step_row_json(FILE *f, const struct rl_report_row *w);
void rl__report_step_markdown(FILE *f, const struct rl_report *r);
void rl__report_step_free(struct rl_report_step *s);

#endif
