/* tracefile.h - reads `roofline trace` files in one streaming pass, whatever their size, into kernel groups. */
#ifndef RL_TRACEFILE_H
#define RL_TRACEFILE_H

#include "analyzer/model/model.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The launches of one kernel name, grid and block. */
struct rl_trace_group {
    char *name;                 /* owned */
    uint32_t grid[3], block[3];
    uint64_t hash;              /* of name, grid and block (the group table's) */
    char precision[24];         /* roof of the counted launches; "" unknown */
    enum rl_origin origin;      /* measured (counters) or analytic */
    uint64_t launches;          /* all launches */
    uint64_t counted;           /* launches with FLOPs and bytes */
    uint64_t counted_timed;     /* of those, with a time */
    double time_ns;             /* all launches with a time */
    double counted_time_ns;     /* the counted launches' time */
    double flops;               /* summed over counted launches */
    double bytes[RL_MEM_COUNT]; /* summed; NAN where a counted launch lacked the level */
    /* Launches with bytes but no FLOPs (an export without FLOP counters):
     * memory points, judged against the memory roof only. */
    uint64_t bytes_only, bytes_only_timed;
    double bytes_only_time_ns;
    double bytes_only_bytes[RL_MEM_COUNT]; /* summed; NAN where one lacked the level */
    /* Launches with FLOPs but no bytes at any level (an export without byte
     * counters): compute points, judged against the compute roof only. The
     * group's precision is theirs until a counted launch names it. */
    uint64_t flops_only, flops_only_timed;
    double flops_only_time_ns;
    double flops_only_flops;    /* summed */
    /* Communication (NCCL kernels): the message bytes of the collective
     * each launch ran, from NCCL's NVTX range around it (the trace's
     * "comm_bytes"), summed over the launches that carry one. */
    double comm_bytes;
    uint64_t comm_launches;     /* launches with comm_bytes */
    char collective[24];        /* "allreduce" ... from the trace; "" not given */
    /* Merged from several ranks' traces (rl_trace_groups_merge_rank): the
     * ranks that launched it and the largest one rank's time; 0 for one
     * trace. */
    uint32_t ranks;
    double time_ns_max_rank;
    /* PyTorch profiler traces (readers/torch): the operator that launched
     * it and its input shapes (part of the group's identity: one kernel of
     * two shapes is two groups), its math dtype, and for a collective the
     * GPUs of its process group. NULL, "" and 0 elsewhere. */
    char *op, *shapes;          /* owned */
    char dtype[16];
    int comm_group_size;
};

/* A trace's "rank" object: which process of a parallel job wrote it
 * (docs/file-formats.md, "Trace files"). */
struct rl_trace_rank {
    bool present;               /* the trace has a "rank" object */
    int rank, local_rank, world_size; /* -1: not given */
    char launcher[24];          /* "mpirun", "srun", "torchrun", ... */
    char hostname[128];
};

/* Where a launch's FLOPs and bytes come from (a trace's "counts"). */
enum rl_trace_counts {
    RL_TRACE_COUNTS_COUNTERS, RL_TRACE_COUNTS_SAMPLED, RL_TRACE_COUNTS_ANALYTIC,
    RL_TRACE_COUNTS_NONE, RL_TRACE_COUNTS_N
};

struct rl_trace_summary {
    char gpu_name[96], chip[32];
    int sm_count;
    char counters_status[16];   /* ok, off, unavailable */
    char counters_reason[512];
    char tensor_not_counted[64];/* "fp16, tf32, int8" */
    double passes;              /* replay passes per counted launch; 0 unknown */
    char tensor_check[256];     /* the calibration's line; "" none */
    char notes[512];            /* the trace's notes, "; "-separated; "" none */
    bool incomplete;
    uint64_t kernels;           /* launch records read */
    uint64_t by_counts[4];      /* of those, by 'counts': enum rl_trace_counts */
    double time_ns;             /* all launches */
    uint64_t read_by_helper;    /* launch records read on the second core */
    uint64_t read_fast;         /* launch records the fast path read (helper's too) */
    char program[256];          /* the traced command line; "" not given */
    struct rl_trace_rank rank;  /* the rank that wrote it (the last trace read's) */
};

struct rl_trace_groups {
    struct rl_trace_group *v;
    size_t n, cap;
    uint32_t *slot;             /* hash table of group index + 1 */
    size_t slots;
    struct rl_trace_summary sum;
};

/* Read a trace from f (named `what` in errors) and add its launches to g.
 * Memory grows with the number of groups, not of launches. Errors name the
 * file and line: RL_EPARSE (malformed or truncated JSON), RL_ESCHEMA (not
 * a roofline trace, a field of the wrong type), RL_ENOMEM. */
int rl_trace_groups_read(struct rl_trace_groups *g, FILE *f, const char *what, char *errmsg);
/* path "-" reads standard input. */
int rl_trace_groups_load(struct rl_trace_groups *g, const char *path, char *errmsg);
void rl_trace_groups_release(struct rl_trace_groups *g);

/* Add `launches` launches of a kernel at once (other sources: kernel files,
 * Nsight Compute exports): FLOPs, bytes and time are their sums; NAN
 * FLOPs for timing only, NAN bytes at every level for FLOPs only (a
 * compute point). RL_ENOMEM on failure. */
int rl_trace_groups_add(struct rl_trace_groups *g, const char *name, const uint32_t grid[3],
                        const uint32_t block[3], const char *precision, enum rl_origin origin,
                        uint64_t launches, double flops, const double bytes[RL_MEM_COUNT],
                        double time_ns);

/* The same, for work that also communicates comm_bytes over the link (all
 * launches together; NAN: none), as a kernels file's "comm_bytes" says. */
int rl_trace_groups_add_comm(struct rl_trace_groups *g, const char *name,
                             const uint32_t grid[3], const uint32_t block[3],
                             const char *precision, enum rl_origin origin, uint64_t launches,
                             double flops, const double bytes[RL_MEM_COUNT], double time_ns,
                             double comm_bytes);

/* One kernel's launches for rl_trace_groups_add_launch: the fields of
 * rl_trace_groups_add_comm, with the operator that launched it. */
struct rl_trace_launch {
    const char *name;
    const uint32_t *grid, *block;   /* 3 each; NULL: 0 */
    const char *precision;          /* NULL: "" */
    enum rl_origin origin;
    uint64_t launches;              /* 0: 1 */
    double flops, bytes[RL_MEM_COUNT], time_ns, comm_bytes; /* NAN: unknown */
    const char *collective;         /* NULL: not a collective */
    int comm_group_size;            /* 0: unknown */
    const char *op, *shapes, *dtype;/* NULL: none */
};
int rl_trace_groups_add_launch(struct rl_trace_groups *g, const struct rl_trace_launch *l);

/* Put groups first.. g->n in the order given: order[i] is the index - first
 * of the group to put i-th (a reader that adds launches out of the order
 * read restores it). RL_ENOMEM on failure, g unchanged. */
int rl_trace_groups_reorder(struct rl_trace_groups *g, size_t first, const uint32_t *order);

/* Add one rank's groups (read into their own rl_trace_groups) to g, the
 * merge of several ranks: sums as for one trace, and each group's `ranks`
 * and `time_ns_max_rank` kept. g's summary keeps its own (first) rank and
 * GPU, with the launch and time totals summed. RL_ENOMEM on failure. */
int rl_trace_groups_merge_rank(struct rl_trace_groups *g, const struct rl_trace_groups *rank);

/* The reader's fast path for launch records, on by default; tests and the
 * fuzzer turn it off to check that both paths read alike. */
void rl_trace_set_fast_path(bool on);

/* Files from this size (default 32 MiB; 0 restores it) are read on two
 * cores when the machine has them: a helper reads the second half's
 * records (with the fast path), taken only when they are records (the
 * layout `roofline trace` writes); tests make it small. */
void rl_trace_set_parallel_min_bytes(long long bytes);

/* Is this text (its first bytes) a roofline trace? */
bool rl_trace_sniff(const char *text, size_t len);

/* Does the file at path start like a roofline trace? 1 or 0 (unopenable:
 * 0, the reader that follows says why), or RL_EIO when its read fails
 * (errmsg says why). */
int rl_trace_file_sniff(const char *path, char *errmsg);

#endif
