/* torch.h - reads PyTorch profiler traces (Kineto's Chrome-trace JSON, plain or .gz, CUDA or ROCm) into kernel groups: every kernel linked to the operator that launched it, its FLOPs and bytes from the operator's shapes. */
#ifndef RL_TORCH_H
#define RL_TORCH_H

#include "analyzer/readers/tracefile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The operators the cost table does not know, the largest by GPU time. */
#define RL_TORCH_TOP_UNKNOWN 8

struct rl_torch_unknown_op {
    char op[96];
    uint64_t launches;
    double time_ns;
};

/* What a trace held and how its kernels were linked (the report's notes). */
struct rl_torch_stats {
    uint64_t events;              /* trace events read */
    uint64_t cpu_ops, runtime_calls;
    uint64_t kernels, memcpys, memsets; /* GPU activities */
    /* How each GPU activity found its operator: its own External id, its
     * runtime call's External id (by correlation), the innermost operator
     * on the launching thread whose span holds the runtime call, or none. */
    uint64_t linked_external, linked_runtime, linked_span, unlinked;
    /* GPU activities whose External id (their own or their runtime call's)
     * named an operator call whose span does not hold their runtime call on
     * its thread (older Kineto writes the correlation id there): linked by
     * span instead (counted there too) */
    uint64_t relinked;
    /* A costed operator call's FLOPs and bytes are split over its GPU
     * activities by what each does (torch-split.h): */
    uint64_t costed;              /* activities that carry a share of their call's cost */
    uint64_t op_helpers;          /* further activities of costed calls: set-up, split-K
                                   * reductions, copies (time only; a fill or device
                                   * copy its own bytes) */
    uint64_t split_calls;         /* calls of several activities split by role */
    uint64_t one_point_calls;     /* calls of several activities not told apart: the
                                   * cost spread over all of them by time (one point) */
    double call_flops;            /* FLOPs of the costed calls with GPU activities, and of
                                   * the graph replays costed (torch-graph.c): the shares
                                   * their activities carry add up to it */
    uint64_t uncosted;            /* kernels whose operator the table does not know */
    uint64_t roof_from_dtype;     /* costed kernels whose name did not say the roof */
    uint64_t comm_kernels, comm_with_bytes;
    uint64_t comm_group_from_world; /* of those, their group size the world size */
    /* kernels replayed from a CUDA / HIP graph (no operator), and those
     * costed from the same kernel run eagerly under an operator */
    uint64_t graph_kernels, graph_costed, graph_model;
    double graph_time_ns, graph_costed_ns, graph_model_ns;
    uint64_t profiler_steps;      /* ProfilerStep#N annotations */
    double kernel_time_ns;        /* every GPU activity's duration, summed */
    double busy_ns;               /* the union of GPU activity per device, summed */
    double span_ns;               /* first start to last end per device, summed */
    int devices;                  /* distinct GPU devices with activity */
    struct rl_torch_unknown_op unknown[RL_TORCH_TOP_UNKNOWN];
    size_t n_unknown;
    uint64_t unknown_ops;         /* distinct unknown operator names */
    /* deviceProperties of the first device with activity (else device 0) */
    char gpu_name[96];
    int sm_count, warp_size, cc_major, cc_minor;
    double gpu_memory_bytes;
    /* distributedInfo */
    int rank, world_size;         /* -1: not given */
    char backend[16];
    char time_unit[8];            /* "us" or "ns": the unit ts and dur were read in */
    bool shapes;                  /* some operator carried "Input Dims" */
};

/* Read a trace from f (named `what` in errors) - gzip or plain, sniffed -
 * and add its GPU activities to g as kernel groups (name, grid, block,
 * operator, shapes). Memory grows with the operators, runtime calls and
 * GPU activities kept until they are linked (a few dozen bytes each) and
 * the groups, never with the text. Errors name the file and line:
 * RL_EPARSE (malformed or truncated), RL_ESCHEMA (not a profiler trace),
 * RL_ENOMEM. */
int rl_torch_read(struct rl_trace_groups *g, FILE *f, const char *what,
                  struct rl_torch_stats *st, char *errmsg);
/* path "-" reads standard input; RL_EIO when it cannot be opened. */
int rl_torch_load(struct rl_trace_groups *g, const char *path, struct rl_torch_stats *st,
                  char *errmsg);
/* The same, also filling tl (empty; NULL: none) with the trace's GPU
 * timeline (readers/timeline.h): one activity per GPU activity read, in
 * that order, and the ProfilerStep spans. tl is the caller's to release. */
struct rl_timeline;
int rl_torch_load_timeline(struct rl_trace_groups *g, const char *path,
                           struct rl_torch_stats *st, struct rl_timeline *tl, char *errmsg);

/* Is this the start of a PyTorch profiler trace (plain text, or the first
 * bytes of a gzip stream, which is inflated to look)? */
bool rl_torch_sniff(const char *head, size_t len);
/* The same for a file (its first bytes); false when it cannot be read. */
bool rl_torch_sniff_file(const char *path);
/* The same, *is_torch; RL_OK also when the file cannot be opened (false:
 * its reader says why), RL_EIO when its read fails (errmsg says why). */
int rl_torch_sniff_path(const char *path, bool *is_torch, char *errmsg);

/* Add src's counts and times to dst (several ranks' traces; dst keeps its
 * GPU and rank, the unknown operators are merged by name). */
void rl_torch_stats_add(struct rl_torch_stats *dst, const struct rl_torch_stats *src);

/* The notes a report prints about a trace: linking, costs, unknown
 * operators, idle time ('\n'-separated lines into buf). */
void rl_torch_notes(const struct rl_torch_stats *st, char *buf, size_t size);

#endif
