/* ranks.h - traces of a parallel job, one per rank: loaded from files and folders (ranks-read.c), reported per rank and merged; NCCL kernels as communication (ranks.c). */
#ifndef RL_REPORT_RANKS_H
#define RL_REPORT_RANKS_H

#include "analyzer/readers/timeline.h"
#include "analyzer/readers/tracefile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rl_report;
struct rl_report_row;
struct rl_ceilings;
struct rl_torch_stats;
struct rl_across_rank;

/* The kernels that took a rank the most time. */
#define RL_RANK_TOP 5

/* One rank's trace, as the report shows it. */
struct rl_report_rank {
    int rank, local_rank, world_size;  /* -1: the trace does not say */
    char host[128], gpu[96], launcher[24];
    char path[512];                 /* the trace file */
    uint64_t launches;
    double kernel_time_ns;          /* all its launches */
    double comm_time_ns;            /* its NCCL kernels' */
    double comm_share;              /* comm_time_ns / kernel_time_ns; NAN without time */
    double comm_bytes;              /* its NCCL kernels' message bytes; NAN unknown */
    struct {
        char name[160];
        double time_ns;
        bool comm;
    } top[RL_RANK_TOP];             /* by time, largest first */
    size_t n_top;
};

/* Several traces, each read into its own groups. */
struct rl_rank_traces {
    char **paths;                   /* owned */
    struct rl_trace_groups *groups; /* one per path; owned */
    size_t n;
    /* PyTorch traces (rl_rank_traces_load_torch): each rank's collectives
     * and steps (readers/timeline.h, communication only) and its timeline's
     * sums (report/across.h); NULL for roofline traces. Owned. */
    struct rl_timeline *timelines;
    struct rl_across_rank *sums;
};

/* Read every trace of args: files, and folders (every *.json in one that is
 * a roofline trace, others skipped). A trace without a "rank" object but
 * named as a rank's (t.rank3.json) is rank 3. The traces are sorted by rank (those
 * without one last, in the order given). Errors: the reader's, RL_EIO (a
 * folder that cannot be read, or one with no trace), RL_ENOMEM. */
int rl_rank_traces_load(struct rl_rank_traces *t, const char *const *args, size_t n,
                        char *errmsg);
/* The same on `jobs` threads (0: one per core, as rl_rank_traces_load):
 * the same result for any jobs; an error is the first failing file's in
 * the order the files were found. */
int rl_rank_traces_load_jobs(struct rl_rank_traces *t, const char *const *args, size_t n,
                             int jobs, char *errmsg);
void rl_rank_traces_release(struct rl_rank_traces *t);

/* Read the PyTorch profiler traces files[0..n) (t owns files and its
 * strings from the call, also on failure) on `jobs` threads (0: one per
 * core; never more than n), each rank streamed by one thread, then sorted
 * by rank (a trace without one last, in the order given) and *st the
 * files' stats summed in the order given: the same result for any jobs.
 * Each rank's timeline is summed as it is read and cut to its collectives.
 * Errors: the first failing file's (in the order given). */
int rl_rank_traces_load_torch(struct rl_rank_traces *t, char **files, size_t n, int jobs,
                              struct rl_torch_stats *st, char *errmsg);
/* The same over split->count processes (mpirun, srun: report/ranks-split.h):
 * this one reads its share on `jobs` threads; another than process 0
 * sends it to process 0 and returns RL_OK with t's other slots empty (it
 * writes no report); process 0 gathers every share and returns what
 * rl_rank_traces_load_torch returns for the same files (the same bytes),
 * or one error: the first failing file's, or a process whose share did
 * not come (split->timeout_s) or came corrupt. split NULL or count 1:
 * rl_rank_traces_load_torch. */
struct rl_rank_split;
int rl_rank_traces_load_torch_split(struct rl_rank_traces *t, char **files, size_t n, int jobs,
                                    struct rl_torch_stats *st, const struct rl_rank_split *split,
                                    char *errmsg);

/* r's across-ranks section (report/across.h) from t's timelines against
 * c's link roof; nothing without timelines, with one trace, or when no
 * trace names its rank. RL_ENOMEM. */
int rl_report_across(struct rl_report *r, const struct rl_rank_traces *t,
                     const struct rl_ceilings *c, char *errmsg);

/* Is this a multi-rank report: does a trace name its rank (a "rank"
 * object)? Traces without one (`run`'s decode and prefill, old traces of
 * several processes) are merged with no section per rank. */
bool rl_rank_traces_ranked(const struct rl_rank_traces *t);

/* The merge of every rank's groups into g (empty): group sums over ranks,
 * with `ranks` and `time_ns_max_rank` (rl_trace_groups_merge_rank).
 * RL_ENOMEM on failure. */
int rl_rank_traces_merge(const struct rl_rank_traces *t, struct rl_trace_groups *g,
                         char *errmsg);

/* r's per-rank section from t (r built from the merge), with the notes a
 * reader needs: the same rank twice, GPUs of different kinds, traces of
 * different programs, ranks missing from world_size. RL_ENOMEM. */
int rl_report_ranks(struct rl_report *r, const struct rl_rank_traces *t, char *errmsg);

/* For report.c: the communication rows' words and the ranks' sections of
 * each output. */
/* torch: the rows are a PyTorch profiler trace's (message sizes come from
 * record_param_comms there, from NCCL's NVTX ranges in a roofline trace). */
void rl__report_comm_sentence(struct rl_report_row *w, const char *name, bool torch);
void rl__report_comm_kind(const struct rl_report_row *w, char *buf, size_t size);
void rl__report_comm_notes(struct rl_report *r);
/* Does r have communication rows or ranks? Then every row of report.json
 * and report.csv says its kind (older reports' columns stay as they were
 * otherwise). */
bool rl__report_has_comm(const struct rl_report *r);
void rl__report_comm_json(FILE *f, const struct rl_report_row *w, bool tagged, bool ranked);
void rl__report_ranks_table(FILE *f, const struct rl_report *r);
void rl__report_ranks_json(FILE *f, const struct rl_report *r);
void rl__report_ranks_markdown(FILE *f, const struct rl_report *r);

#endif
