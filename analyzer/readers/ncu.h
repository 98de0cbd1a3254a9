/* ncu.h - imports Nsight Compute CSV exports (long `ncu --csv` and wide `--page raw`) as kernel groups. */
#ifndef RL_NCU_H
#define RL_NCU_H

#include "analyzer/readers/tracefile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rl_ncu_stats {
    size_t kernels;              /* kernel results read */
    size_t without_counts;       /* no FLOPs or no bytes: not on the roofline; of those: */
    size_t timing_only;          /*   no FLOPs, no bytes */
    size_t flops_only;           /*   FLOPs, no byte counters: compute points */
    size_t bytes_only;           /*   bytes, no FLOP counters at all: memory points */
    size_t tensor_unknown;       /*   Tensor Core ops but no FLOPs-per-op factor */
    size_t tensor_inferred;      /* Tensor FLOPs inferred from pipe instructions x shape */
    size_t tensor_pipe_shared;   /* pipe count with FP16/FP64 work beside it: not inferred */
    size_t tensor_inst_only;     /* Tensor pipe instructions, no op counters, no known
                                  * architecture (or Hopper+): FLOPs a lower bound */
    size_t tensor_shape_unknown; /* the same on CC 8.x, whose MMA shape the kernel
                                  * name does not give: no Tensor FLOPs inferred */
    char shape_unknown_name[96]; /* the first of those, shortened */
    size_t time_from_cycles;     /* timed by cycles / cycles per second (no duration) */
    size_t time_disagree;        /* both, more than 5% apart (the duration is used) */
    double time_disagree_max_pct;
    size_t skipped_lines;        /* ==PROF== and program lines between rows, repeated headers */
    char form[8];                /* "long" or "wide" */
    bool units_row;              /* wide: a units row under the header */
    bool decimal_comma;          /* values written with a decimal comma */
    char devices[256];           /* device names the export gives, "; "-separated */
    size_t n_devices;            /* distinct device names (more than fit above counted) */
    char missing_flops[640];     /* bytes-only exports: the FLOP metrics to add, ','-joined */
    char missing_bytes[160];     /* FLOPs-only exports: the byte metrics to add, ','-joined */
};

/* Parse an ncu CSV held in text (len bytes; `what` names it in errors) and
 * add one launch per kernel result to g. What is read, and how:
 * - FLOPs from the SASS instruction counters, sm__ or smsp__ (add + mul +
 *   2 fma; HFMA2 paired, as in readers/counts.c); Tensor Core ops x
 *   tensor_flops_per_op (NAN: such kernels get no FLOPs);
 * - DRAM bytes (read + write, or dram__bytes.sum), lts__t_bytes (L2),
 *   l1tex__t_bytes (L1), time from gpu__time_duration.sum (or the
 *   "Duration" of the Speed Of Light section), else from cycles:
 *   sm__cycles_elapsed.avg / .avg.per_second (or smsp__, gpc__);
 * - the device name (device__attribute_display_name or a "Device" column
 *   that is not an index) into g->sum.gpu_name when there is one.
 * Units: byte prefixes decimal (Kbyte, KB) and binary (KiB, Kibyte), time
 * in the nsecond and ns families, counts (inst), rates (cycle/nsecond, GHz);
 * thousands separators; a decimal comma when the file uses one. A BOM,
 * CRLF, ==PROF== lines, rows shorter than the header (padded), text and
 * string values in columns not read are accepted. A value that must be a
 * number and is not, or a unit unknown for it, is one error naming file,
 * line, column and value: RL_ESCHEMA; broken CSV: RL_EPARSE. */
int rl_ncu_parse(struct rl_trace_groups *g, const char *text, size_t len, const char *what,
                 double tensor_flops_per_op, struct rl_ncu_stats *stats, char *errmsg);
/* The same, streamed from f: memory bounded by one row and the groups. */
int rl_ncu_read(struct rl_trace_groups *g, FILE *f, const char *what,
                double tensor_flops_per_op, struct rl_ncu_stats *stats, char *errmsg);
/* The first read buffer of rl_ncu_read (default 1 MiB; 0 restores it):
 * tests and the fuzzer make it tiny so rows cross buffer edges everywhere. */
void rl_ncu_set_chunk_bytes(size_t bytes);

/* path "-" reads standard input. */
int rl_ncu_load(struct rl_trace_groups *g, const char *path, double tensor_flops_per_op,
                struct rl_ncu_stats *stats, char *errmsg);

/* FLOPs per Tensor Core instruction (sm__inst_executed_pipe_tensor) of a
 * kernel named kernel_name on compute capability cc: 7.0 -> 512, 7.5 ->
 * 2048 (one shape each); 8.x the shape the name gives (h1688gemm -> 2048,
 * h16816gemm -> 4096, GemmShape<16, 8, 8> -> 2048, ...); NAN where the
 * name gives none (or two), and on Hopper and later. The derivation is in
 * ncu.c. */
double rl_ncu_tensor_flops_per_inst(double cc, const char *kernel_name);
/* Does the name give one warp MMA shape (cuBLAS's "h1688gemm", CUTLASS's
 * "GemmShape<16, 8, 16>", xmma's "tensor16x8x16")? */
bool rl_ncu_name_gives_mma_shape(const char *kernel_name);

/* The notes a report gives about an import, one per line ('\n'-joined)
 * into out: kernels without FLOPs or bytes, memory-only kernels and the
 * metrics to add, Tensor work without a factor, several devices. */
void rl_ncu_notes(const struct rl_ncu_stats *stats, char *out, size_t size);

#endif
