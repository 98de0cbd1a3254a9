/* report.h - the reporter: every kernel group judged against its roof, explained in one sentence, written as table, Markdown, CSV, JSON and chart. */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include "analyzer/model/ceilings.h"
#include "analyzer/readers/tracefile.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What bounds a kernel group: enum rl_bound (model/model.h), with
 * RL_BOUND_NEITHER when a timed group reaches under RL_REPORT_NEITHER_PCT of
 * its attainable rate (latency, launch overhead, occupancy). */

/* Below this share of the attainable rate a kernel is bound by neither roof. */
#define RL_REPORT_NEITHER_PCT 10.0

/* What a group's launches are: kernels, copies and fills (a profiler's
 * memcpy and memset activities, named "Memcpy HtoD (Pageable -> Device)",
 * "Memset (Device)" by Kineto and CUPTI), or a collective's kernels. */
enum rl_report_kind {
    RL_REPORT_KERNEL, RL_REPORT_MEMCPY, RL_REPORT_MEMSET, RL_REPORT_COMM, RL_REPORT_KINDS
};

struct rl_report_row {
    char *name;                     /* owned */
    enum rl_report_kind kind;
    uint32_t grid[3], block[3];
    uint64_t launches, counted;
    enum rl_origin origin;          /* of its FLOPs and bytes */
    int roof;                       /* index into the ceilings' compute roofs, -1 none */
    bool default_roof;              /* roof is the ceilings' default: no precision of its own */
    double time_ns, time_share;     /* all launches; share of the GPU time traced */
    double flops, bytes[RL_MEM_COUNT]; /* counted launches */
    struct rl_verdict v;            /* the model's verdict (NAN fields when unknown) */
    double achieved_gbs;            /* DRAM bytes / time */
    enum rl_bound bound;
    /* Memory points: bytes without FLOPs (an export without FLOP counters,
     * or a data-movement kernel): the DRAM bandwidth against its roof. */
    bool memory_only;
    double pct_of_memory_roof;      /* achieved DRAM GB/s / the DRAM roof x 100; NAN */
    /* Compute points: FLOPs without bytes (an export without byte
     * counters): the achieved FLOP/s against its compute roof (v's
     * attainable = the peak), no intensity; bound unknown. */
    bool compute_only;
    /* Guards: numbers a reader must not trust as they are. */
    bool over_roof;                 /* above 100% of its roof: wrong GPU, factor or unit */
    bool l2_below_dram;             /* fewer L2 than DRAM bytes: a counter or unit is wrong */
    bool zero_bytes;                /* FLOPs and 0 DRAM bytes: intensity unbounded */
    /* Communication: an NCCL kernel (ncclDevKernel_*, ncclKernel_*) or a
     * group the trace says ran a collective. Counted in time, never judged
     * against a roof (it moves data between GPUs, not FLOPs). */
    bool comm;
    char collective[24];            /* "allreduce" ...; "" unknown */
    double comm_bytes;              /* message bytes over all launches; NAN unknown */
    double comm_algbw_gbs;          /* comm_bytes / time (nccl-tests' algbw); NAN */
    /* Merged from several ranks: how many launched it, and the largest one
     * rank's time (time_ns is the sum). 0 and NAN for one trace. */
    uint32_t ranks;
    double time_ns_max_rank;
    /* PyTorch profiler traces: the operator that launched it, its input
     * shapes and math dtype (NULL, ""), and for a collective the GPUs of
     * its process group (0 unknown), its bus bandwidth (nccl-tests'
     * busbw) and its share of the link roof (NAN). */
    char *op, *shapes;              /* owned */
    char dtype[16];
    int comm_group_size;
    double comm_busbw_gbs, pct_of_link;
    /* The time it would take at its roof (FLOPs or bytes over the roof's
     * rate; a collective's bus bytes over the link), the time of the
     * launches that carry those FLOPs or bytes (judged_ns: the counted
     * launches', <= time_ns) and the time lost against the roof
     * (judged_ns - roof_time_ns, >= 0); NAN without a roof time. */
    double roof_time_ns, judged_ns, lost_ns;
    char evidence[200];             /* why "neither"; "" otherwise */
    char sentence[640];             /* the one-line explanation (its name shortened) */
};

struct rl_report {
    struct rl_report_row *rows;     /* sorted by time, largest first */
    size_t n;
    double time_ns;                 /* all launches */
    uint64_t launches;              /* of every kind */
    uint64_t launches_of[RL_REPORT_KINDS]; /* by kind: kernels, copies, fills, collectives */
    struct rl_trace_summary source; /* what the trace said about itself */
    char source_path[512];
    char source_kind[16];           /* "trace", "ncu", "kernels" */
    bool other_gpu;                 /* the source names a GPU the ceilings are not of */
    bool torch;                     /* a PyTorch profiler trace's (rows carry operators) */
    char notes[4096];               /* one line per note, '\n'-separated */
    size_t n_no_precision;          /* groups judged without a precision of their own */
    size_t label_max;               /* chart labels' longest, in characters (0: default) */
    double chart_w, chart_h;        /* chart canvas, layout units (0: the default) */
    double comm_time_ns;            /* of the communication rows */
    /* Several ranks' traces (analyzer/report/ranks.h): one entry each, by
     * rank; NULL and 0 for one trace without a rank. Owned. */
    struct rl_report_rank *ranks;
    size_t n_ranks;
    /* A PyTorch profiler trace's step summary and operators
     * (analyzer/report/step.h); NULL otherwise. Owned. */
    struct rl_report_step *step;
    /* Several ranks' PyTorch traces: the job across its ranks
     * (analyzer/report/across.h); NULL otherwise. Owned. */
    struct rl_across *across;
};

/* Judge every group of g against the ceilings c (roofs of missing
 * precisions are added; a precision neither source has falls back to the
 * default roof with a note). Returns 0 or RL_ENOMEM. */
int rl_report_build(struct rl_report *r, struct rl_ceilings *c, const struct rl_trace_groups *g,
                    char *errmsg);
void rl_report_release(struct rl_report *r);

/* Add notes ('\n'-separated lines; a note already there is not repeated). */
void rl_report_note(struct rl_report *r, const char *text);

/* The words of a row, one source for every output (table, Markdown, CSV,
 * JSON, HTML, the step's operators and headline). */

/* "kernel", "memcpy", "memset", "communication". */
const char *rl_report_kind_name(enum rl_report_kind kind);
/* "kernel launches", "copies", "fills", "collective launches" (n == 1:
 * the singular). */
const char *rl_report_kind_noun(enum rl_report_kind kind, uint64_t n);
/* The bound the row's verdict names: a memory point of a data-movement
 * kernel, copy or fill is memory-bound at DRAM (its bytes against the DRAM
 * roof); RL_BOUND_UNKNOWN where nothing was judged. *level: the memory
 * level when RL_BOUND_MEMORY. */
enum rl_bound rl_report_bound(const struct rl_report_row *w, enum rl_mem_level *level);
/* The bound in words: rl_bound_text's ("memory (DRAM)", "compute (BF16
 * Tensor Core)", "neither", "link"), "communication (NCCL all-reduce)",
 * "bytes only" and "FLOPs only" (a counter export without FLOP or byte
 * counters: a point, not a bound), and "-" for a row with no FLOPs and no
 * bytes (not judged). */
void rl_report_bound_text(char *buf, size_t cap, const struct rl_report_row *w,
                          const struct rl_ceilings *c);
/* The roof its verdict and roof time are set against: "BF16 Tensor Core
 * roof", "DRAM roof (HBM3)", "link roof (NVLink 4)"; "" where none. */
void rl_report_roof_text(char *buf, size_t cap, const struct rl_report_row *w,
                         const struct rl_ceilings *c);

/* "9096 launches in 332 kernel groups"; with copies or fills "8772 kernel
 * launches, 12 copies and 312 fills in 332 groups" (collectives count as
 * kernels). */
void rl_report_launches_text(char *buf, size_t cap, const struct rl_report *r);

/* Outputs: each writes one format to f. */

/* The terminal table: the top `rows` groups by time (0: all). */
void rl_report_table(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                     size_t rows);
int rl_report_csv(FILE *f, const struct rl_report *r, const struct rl_ceilings *c);
int rl_report_json(FILE *f, const struct rl_report *r, const struct rl_ceilings *c);
/* report.md: the chart (image, a path relative to the report) and the table. */
int rl_report_markdown(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                       const char *chart_image);

/* Draw the chart: groups as points sized by time share, their L2 and L1
 * intensities joined (hierarchical view), the top `labels` labelled (0: as many
 * as the plot has room for, 12 on a two-column chart). */
int rl_report_chart(const struct rl_report *r, const struct rl_ceilings *c, const char *title,
                    const char *out_path, size_t labels, char *errmsg);
/* The same with curves drawn too (a bench file's intensity sweeps): the one
 * place a judged row becomes a chart point; `roofline chart` is this. */
struct rl_chart_series;
int rl_report_chart_series(const struct rl_report *r, const struct rl_ceilings *c,
                           const char *title, const char *out_path, size_t labels,
                           const struct rl_chart_series *series, size_t n_series,
                           char *errmsg);

#endif
