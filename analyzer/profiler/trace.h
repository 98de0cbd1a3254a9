/* trace.h - the records of a traced program's kernel launches, their FLOPs and bytes, and the trace file.
 *
 * Plain C with no CUPTI: the tracer (tracer.c) fills these, the tests build
 * them from recorded counter values. Format: analyzer/profiler/README.md.
 */
#ifndef RL_PROFILER_TRACE_H
#define RL_PROFILER_TRACE_H

#include "analyzer/profiler/metrics.h"
#include "analyzer/profiler/rank.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where a record's FLOPs and bytes come from. */
enum rl_counts_origin {
    RL_COUNTS_NONE,      /* timing only */
    RL_COUNTS_COUNTERS,  /* hardware counters of this launch */
    RL_COUNTS_SAMPLED,   /* counters of another launch of the same kernel, grid and block */
    RL_COUNTS_ANALYTIC   /* the formula of one of our workloads (kernels/) */
};

struct rl_trace_kernel {
    char *name;                 /* demangled; owned */
    uint32_t grid[3], block[3];
    int registers;
    uint32_t smem_static_bytes, smem_dynamic_bytes;
    uint64_t start_ns, end_ns;  /* GPU timestamps */
    uint32_t stream, device, context, correlation, graph;
    char *nvtx;                 /* enclosing NVTX ranges, "outer/inner"; owned, may be NULL */
    /* An NCCL kernel launched inside NCCL's NVTX range of a collective
     * (ncclAllReduce ...): the collective ("allreduce"; "" none) and the
     * message size its payload gave (0: none given). */
    char collective[16];
    uint64_t comm_bytes;
    int step;                   /* index into the trace's steps, -1 outside any */
    int run;                    /* which run of the step (0 first) */
    bool timing_only;           /* launched in a timing-only run: never counted */
    enum rl_counts_origin counts;
    double q[RL_Q_COUNT];       /* counter quantities (NAN: not collected) */
    double tensor_activity;     /* Tensor Core activity of any type (metrics.h's
                                   guard): 0 none, NAN not read */
    const char *note;           /* why it has no counts (a collective, never
                                   replayed): a static string, NULL */
};

/* One step of a built-in workload (kernels/workloads.h): an operation of
 * one or more launches, with the analytic cost of the whole operation.
 * A step of a single kernel lends that kernel its analytic counts when it
 * has no counters; a step of several is summed in the trace's "steps". */
struct rl_trace_step {
    char *label;                /* owned */
    double analytic_flops, analytic_bytes;
    char precision[16];
};

/* The trace file */

struct rl_trace_meta {
    const char *tool;           /* "roofline 0.3.0" */
    const char *created;        /* ISO 8601 */
    long pid;
    const char *program;        /* command line, or the builtin workload */
    const char *gpu_name, *chip;
    int cc_major, cc_minor, sm_count;
    const char *counters_mode;  /* "none", "default", "full" */
    const char *counters_status;/* "ok", "unavailable", "off" */
    const char *counters_reason;/* why unavailable, with the fix */
    const struct rl_metric_set *set; /* NULL without counters */
    double tensor_flops_per_op;
    const char *tensor_check;   /* one line: the GEMM check's result */
    uint64_t dropped_records;
    bool incomplete;            /* written from a signal handler or before the end */
    int signal;                 /* the signal that ended the program, 0 */
    const char *notes;          /* NULL or one line */
    const char *setconfig;      /* "once", "per-launch"; NULL without counters */
    uint64_t launches_in_capture; /* selected launches timed only: stream being captured */
    const struct rl_rank_env *rank; /* under a launcher: the "rank" object; NULL or !present: none */
};

/* Write a whole trace as JSON to f. Returns 0 or -1 (I/O error). */
int rl_trace_write(FILE *f, const struct rl_trace_meta *meta, const struct rl_trace_kernel *k,
                   size_t n, const struct rl_trace_step *steps, size_t n_steps);

/* Collectives are never counted */

/* Is `name` (demangled) a kernel that waits for other GPUs or processes:
 * NCCL's (rl_nccl_kernel), RCCL's, PyTorch's symmetric-memory ones
 * (c10d::symmetric_memory, symm_mem, multimem all-reduce) or vLLM's custom
 * all-reduce (cross_device_reduce)? Kernel replay runs a counted kernel
 * once per pass, alone: such a kernel would wait for peers that never
 * replay it (several processes), or hold the launch lock while waiting for
 * another GPU's launch (one process). The tracer times them only. */
bool rl_trace_collective_kernel(const char *name);

/* The note written on a collective's record. */
extern const char rl_trace_collective_note[];

/* Tensor work of a type not counted */

/* A kernel's FLOPs from counters cannot stand when its Tensor Cores ran
 * (tensor_activity > 0) while every counted type read 0 ops (flops_tensor
 * == 0): the work was of a type the set leaves out (on: the set's
 * quantities), or of one whose counter misses it. Returns the reason (a
 * static string), or NULL when the FLOPs stand (activity 0 or not read). */
const char *rl_tensor_flops_unknown(const bool on[RL_Q_COUNT], double tensor_activity,
                                    double flops_tensor);

/* Fill records without counters from those with: a launch of the same
 * kernel name, grid and block that was counted lends the mean of its
 * counted launches (counts becomes RL_COUNTS_SAMPLED). Returns the number
 * of records filled, or -1 when out of memory. */
long rl_trace_fill_sampled(struct rl_trace_kernel *k, size_t n);



#endif
