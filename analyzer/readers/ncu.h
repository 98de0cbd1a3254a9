/* ncu.h - imports Nsight Compute CSV exports (long `ncu --csv` and wide `--page raw`) as kernel groups. */
#ifndef RL_NCU_H
#define RL_NCU_H

#include "analyzer/readers/tracefile.h"

#include <stddef.h>

struct rl_ncu_stats {
    size_t kernels;              /* kernel results read */
    size_t without_counts;       /* lacking the FLOP or byte metrics: timing only */
    size_t tensor_unknown;       /* with Tensor Core ops but no FLOPs-per-op factor */
    char form[8];                /* "long" or "wide" */
};

/* Parse an ncu CSV held in text (len bytes; `what` names it in errors) and
 * add one launch per kernel result to g: FLOPs from the SASS instruction
 * counters (add + mul + 2 fma; HFMA2 paired, as in analyzer/counts.c),
 * Tensor Core ops x tensor_flops_per_op (NAN: such kernels get no FLOPs),
 * DRAM bytes (read + write, or dram__bytes.sum), lts__t_bytes,
 * l1tex__t_bytes, gpu__time_duration. Units (byte, Kbyte, Mbyte, Gbyte,
 * nsecond, usecond, msecond, second) and thousands separators are
 * understood. Errors name the file and line: RL_EPARSE (broken CSV),
 * RL_ESCHEMA (no ncu header, a bad value). */
int rl_ncu_parse(struct rl_trace_groups *g, const char *text, size_t len, const char *what,
                 double tensor_flops_per_op, struct rl_ncu_stats *stats, char *errmsg);
int rl_ncu_load(struct rl_trace_groups *g, const char *path, double tensor_flops_per_op,
                struct rl_ncu_stats *stats, char *errmsg);

#endif
