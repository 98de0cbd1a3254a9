/* ceilings.h - the ceilings a chart or a report judges kernels against: datasheet, measured, or both. */
#ifndef RL_CEILINGS_H
#define RL_CEILINGS_H

#include "analyzer/model/model.h"
#include "microbench/results.h"

#include <stdbool.h>
#include <stddef.h>

#define RL_CEIL_MAX_ROOFS 16

struct rl_ceilings {
    const struct rl_gpu_spec *spec;            /* datasheet, may be NULL */
    const struct rl_bench_ceilings *bench;     /* measured, may be NULL */
    bool sparse;                               /* 2:4 sparse Tensor Core roofs */
    bool library;                              /* also the bench's cuBLASLt roofs */
    struct rl_compute_roof compute[RL_CEIL_MAX_ROOFS];
    size_t n_compute;
    struct rl_memory_roof memory[2 * RL_MEM_COUNT]; /* datasheet, then measured, per level */
    size_t n_memory;
    size_t default_roof;                       /* judges kernels without a precision */
    char gpu_name[96];
    /* The interconnect roof for work that communicates (comm_bytes): the
     * datasheet's scale-up link per direction (NVLink), else PCIe. */
    struct rl_link_roof link;
    bool has_link;
};

/* Assemble the ceilings of a GPU from its datasheet (spec) and/or a bench
 * file (at least one). precisions: comma-separated roof names, or NULL for
 * fp64, fp32, tf32, fp16, bf16, fp8 where known. memory: "hbm,l2,l1" or
 * NULL for every level known. The default judge is the first precision
 * given (measured when measured), else the highest roof. Returns 0, or
 * RL_ENOTFOUND / RL_EUNSUPPORTED / RL_EINVAL with errmsg. */
int rl_ceilings_init(struct rl_ceilings *c, const struct rl_gpu_spec *spec,
                     const struct rl_bench_ceilings *bench, const char *precisions, bool sparse,
                     bool library, const char *memory, char *errmsg);

/* The roof that judges kernels of precision `name`, added (datasheet and
 * measured) when not drawn yet: measured first. Its index, or -1 with
 * errmsg when neither source has it. */
int rl_ceilings_judge(struct rl_ceilings *c, const char *name, char *errmsg);

/* The roof that judges kernels of precision `name` on this GPU: `name`
 * itself (rl_ceilings_judge) when the GPU has it, else the nearest roof it
 * has on the same kind of unit: a vector roof never becomes a Tensor Core
 * one. The chain (each step the rate the work runs at without the unit
 * named): tf32 -> fp32 (no TF32 before sm_80: an FP32 GEMM runs on the
 * FP32 cores); fp16-cuda, bf16-cuda -> fp32 (the 16-bit math widened to
 * FP32 on the vector unit); fp64-tc -> fp64; fp64 -> fp32 (a datasheet
 * without an FP64 rate: the vector unit's other roof, generous, noted);
 * fp16, bf16 -> fp32; fp8 ->
 * fp16; fp6, fp4 -> fp8; fp16-acc16 -> fp16; fp8-acc16 -> fp8; int8 ->
 * fp16. *instead is NULL when `name` judged, else the roof's name taken
 * (and errmsg, RL_ERRMSG_SIZE bytes, says why `name` did not). Its index, or -1 with errmsg when the chain ends without a roof (a name
 * rl_roof_names does not know: RL_ENOTFOUND's text). */
int rl_ceilings_judge_nearest(struct rl_ceilings *c, const char *name, const char **instead,
                              char *errmsg);

/* A measured ceiling's share of the datasheet one of the same name or
 * memory level (x 100); NAN when either is missing. Above 100 a number is
 * wrong: clocks, the bench's FLOPs per instruction, a unit. */
double rl_ceilings_pct_of_datasheet(const struct rl_ceilings *c, bool memory, size_t i);

/* One note per measured ceiling above its datasheet one ('\n'-joined into
 * out; "" when none). */
void rl_ceilings_check(const struct rl_ceilings *c, char *out, size_t size);

/* "datasheet", "measured", "datasheet and measured" (and "analytic" when a
 * roof was computed): what the chart's title says about its ceilings. */
void rl_ceilings_origins(const struct rl_ceilings *c, char *buf, size_t size);

#endif
