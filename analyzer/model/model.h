/* model.h - the roofline model: ceilings, attainable performance, ridge points, bounds. */
#ifndef RL_MODEL_H
#define RL_MODEL_H

#include "analyzer/model/spec.h"

#include <stdbool.h>

/* Units: performance in TFLOP/s (1e12 FLOP/s; TOPS for INT8), bandwidth in
 * GB/s (1e9 B/s), arithmetic intensity in FLOP/byte, time in ns. */

enum rl_unit { RL_UNIT_CUDA, RL_UNIT_TENSOR };

/* Memory levels, from the farthest to the closest. */
enum rl_mem_level { RL_MEM_DRAM, RL_MEM_L2, RL_MEM_L1, RL_MEM_COUNT };

/* One compute ceiling: a horizontal roof. */
struct rl_compute_roof {
    char name[24];   /* CLI name: "bf16", "fp32", "fp64-tc", "fp16-cuda" */
    char label[64];  /* "BF16 Tensor Core" */
    enum rl_precision precision;
    enum rl_unit unit;
    bool sparse;
    bool ops;        /* integer: TOPS, not TFLOP/s */
    double peak_tflops;
    enum rl_origin origin;
};

/* One memory ceiling: a slanted roof. */
struct rl_memory_roof {
    enum rl_mem_level level;
    char label[48];  /* "HBM3e", "L2", "L1/shared" */
    double bandwidth_gbs;
    enum rl_origin origin;
};

/* What bounds a kernel at its intensity. */
enum rl_bound {
    RL_BOUND_UNKNOWN, /* no intensity (no FLOPs and no bytes) */
    RL_BOUND_MEMORY,  /* left of the ridge of its limiting memory level */
    RL_BOUND_COMPUTE, /* at or right of every ridge */
    RL_BOUND_NEITHER, /* far below both roofs (the report's judge, with a time) */
    RL_BOUND_LINK     /* left of the ridge of its interconnect roof (rl_classify_link) */
};

/* The interconnect as a roof: FLOP per byte communicated x the link's
 * bandwidth per direction (NVLink, a NIC; rl_ceilings' link). */
struct rl_link_roof {
    char label[64];    /* "NVLink 4", "PCIe Gen4 x16", "NVLink 4 (measured all-reduce busbw)" */
    double bandwidth_gbs; /* per direction, per GPU */
    enum rl_origin origin;
};

/* A kernel as the model sees it. Unknown quantities are NAN. */
struct rl_kernel_perf {
    double flops;
    double bytes[RL_MEM_COUNT]; /* NAN: level not measured */
    double time_ns;             /* NAN or 0: no timing */
};

/* The model's verdict on one kernel against one compute roof and the
 * memory roofs given. */
struct rl_verdict {
    double ai_flop_per_byte[RL_MEM_COUNT]; /* NAN where bytes unknown */
    double attainable_tflops;  /* min(peak, min over levels AI x BW) */
    double achieved_tflops;    /* NAN without time */
    double pct_of_roof;        /* achieved / attainable x 100; NAN without time */
    double headroom_x;         /* attainable / achieved; NAN without time */
    double ridge_flop_per_byte;/* ridge of the limiting memory level */
    double ridge_distance_x;   /* ridge / AI (>1: left of the ridge) */
    enum rl_bound bound;
    enum rl_mem_level limiter; /* meaningful when bound == RL_BOUND_MEMORY */
    /* Against the link (rl_classify_link); NAN when not judged there. */
    double ai_link_flop_per_byte;  /* FLOPs / bytes communicated */
    double link_attainable_tflops; /* ai_link x link bandwidth */
};

/* Names */

const char *rl_mem_level_name(enum rl_mem_level level); /* "dram", "l2", "l1" */
const char *rl_bound_name(enum rl_bound bound); /* "memory", "compute", "neither", "unknown" */

/* The one wording of a bound, for every table and sentence (report, run,
 * llm): "memory (DRAM)", "memory (L2)", "memory (L1)" naming the level;
 * "compute (BF16 Tensor Core)" naming the roof when compute_label is given;
 * "neither", "link", "unknown" otherwise. */
void rl_bound_text(char *buf, size_t cap, enum rl_bound bound, enum rl_mem_level level,
                   const char *compute_label);

/* label rewritten in the vendor's terms, in place: AMD's are Matrix Cores,
 * stream processors and compute units ("FP8 Tensor Core" -> "FP8 Matrix
 * Core", "FP64 CUDA cores" -> "FP64 stream processors", "SMs" -> "compute
 * units"); NVIDIA's, and a NULL spec, leave it as it is. */
struct rl_gpu_spec;
void rl_vendor_terms(const struct rl_gpu_spec *spec, char *label, size_t cap);

/* Parse "hbm"/"dram"/"l2"/"l1"/"shared"; -1 when unknown. */
int rl_mem_level_parse(const char *name);

/* The CLI's precision names, in display order, NULL-terminated. */
const char *const *rl_roof_names(void);

/* Ceilings from a datasheet */

/* The compute roof named `name` (see rl_roof_names()). RL_ENOTFOUND for an
 * unknown name (errmsg lists the valid ones), RL_EUNSUPPORTED when the GPU
 * lacks that rate ("NVIDIA A100 has no FP8 Tensor Core rate"). */
int rl_roof_from_spec(const struct rl_gpu_spec *spec, const char *name,
                      bool sparse, struct rl_compute_roof *out, char *errmsg);

/* A roof's name, label, precision and unit without a value (peak NAN,
 * origin measured): for ceilings that come from measurements. 0 or
 * RL_ENOTFOUND. */
int rl_roof_describe(const char *name, struct rl_compute_roof *out);

/* The memory roof of a level. RL_EUNSUPPORTED when the spec does not know
 * that level's bandwidth. */
int rl_memory_roof_from_spec(const struct rl_gpu_spec *spec,
                             enum rl_mem_level level,
                             struct rl_memory_roof *out, char *errmsg);

/* Formulas (NAN for negative, zero-bandwidth or NaN inputs) */

/* peak / bandwidth, in FLOP/byte. */
double rl_ridge_flop_per_byte(double peak_tflops, double bandwidth_gbs);

/* min(peak, ai x bandwidth), in TFLOP/s. An infinite ai gives the peak. */
double rl_attainable_tflops(double peak_tflops, double bandwidth_gbs,
                            double ai_flop_per_byte);

/* Classification */

/* Judge kernel k against roof c and the memory roofs mem[0..n_mem). Each
 * level with known bytes and a roof limits the attainable rate; the lowest
 * wins. Zero bytes give an infinite intensity (compute-bound); zero FLOPs
 * with bytes give intensity 0 (memory-bound); zero time leaves achieved,
 * pct and headroom NAN (never divided by). Returns RL_EINVAL for negative
 * or NaN FLOPs/bytes/time, or when no level has both bytes and a roof. */
int rl_classify(const struct rl_kernel_perf *k, const struct rl_compute_roof *c,
                const struct rl_memory_roof *mem, size_t n_mem,
                struct rl_verdict *out, char *errmsg);

/* The link roof applied to a verdict of rl_classify: a kernel, layer or
 * step that also sends comm_bytes (per GPU, over the link) can go no faster
 * than comm_bytes / link bandwidth, i.e. ai_link x bandwidth FLOP/s. When
 * that is below v's attainable rate, the link binds: bound RL_BOUND_LINK,
 * attainable, ridge (peak / link bandwidth), pct and headroom recomputed.
 * comm_bytes <= 0 or NAN, or no FLOPs: nothing changes (ai_link NAN).
 * RL_EINVAL for a link bandwidth <= 0. */
int rl_classify_link(struct rl_verdict *v, double flops, double comm_bytes, double time_ns,
                     const struct rl_compute_roof *c, const struct rl_link_roof *link,
                     char *errmsg);

#endif
