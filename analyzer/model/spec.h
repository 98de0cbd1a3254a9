/* spec.h - one GPU's datasheet: the parsed form of a data/gpus/<id>.json file. */
#ifndef RL_SPEC_H
#define RL_SPEC_H

#include "analyzer/util/json.h"

#include <stddef.h>

/* Number formats a roof can be built for. FP16_ACC16 / FP8_ACC16 are the
 * FP16-accumulate Tensor Core rates where they differ (GeForce). */
enum rl_precision {
    RL_PREC_FP64,
    RL_PREC_FP32,
    RL_PREC_TF32,
    RL_PREC_FP16,
    RL_PREC_BF16,
    RL_PREC_FP8,
    RL_PREC_INT8,
    RL_PREC_FP4,
    RL_PREC_FP6,
    RL_PREC_FP16_ACC16,
    RL_PREC_FP8_ACC16,
    RL_PREC_COUNT
};

/* The three peak tables of a datasheet. */
enum rl_peak_table {
    RL_PEAKS_CUDA,          /* CUDA cores */
    RL_PEAKS_TENSOR_DENSE,  /* Tensor Cores, no sparsity */
    RL_PEAKS_TENSOR_SPARSE, /* Tensor Cores, 2:4 structured sparsity */
    RL_PEAKS_COUNT
};

/* Where a number came from. Every figure the tool prints carries one. */
enum rl_origin {
    RL_ORIGIN_DATASHEET, /* printed in a vendor document */
    RL_ORIGIN_ANALYTIC,  /* computed from other figures or from a formula */
    RL_ORIGIN_MEASURED   /* measured on a GPU */
};

#define RL_SPEC_MAX_ALIASES 16
#define RL_SPEC_MAX_SOURCES 12

struct rl_spec_source {
    char id[16];
    char kind[16]; /* datasheet, whitepaper, product-page, derived */
    char title[256];
    char url[256];
    char derivation[256];
};

/* Every number of a spec file, one entry each: key path, where it lives in
 * struct rl_gpu_spec, and how to print it. The table drives parsing,
 * provenance checks and `roofline gpus show`. */
enum rl_spec_field_kind { RL_FIELD_INT, RL_FIELD_NUMBER };
struct rl_spec_field {
    const char *key;   /* dotted JSON path: "tensor_core_dense.bf16_tflops" */
    const char *label; /* "BF16 Tensor Core, dense" */
    const char *unit;  /* "TFLOP/s" */
    size_t offset;     /* of the int or double in struct rl_gpu_spec */
    enum rl_spec_field_kind kind;
};

/* The GPU's links (data/gpus "links"), per GPU and per direction, as the
 * collective model (analyzer/comm/) uses them. Datasheets print NVLink as
 * both directions combined (H100 SXM: 900 GB/s); these are half that. */
struct rl_gpu_links {
    char name[32];         /* scale-up link: "NVLink 4", "Infinity Fabric"; "" none */
    int count;             /* links per GPU; 0 none */
    double gbs_per_link;   /* GB/s per link per direction; NAN none */
    double gbs;            /* GB/s per direction, all links (count x per link); NAN none */
    char reach[16];        /* "switch" (any GPU of the node through NVSwitch),
                            * "mesh" (direct links between the GPUs of a board),
                            * "bridge" (bridge_gpus GPUs joined by a bridge), "" none */
    int bridge_gpus;       /* GPUs a bridge joins (2, 4); 0 unless reach is bridge */
    int pcie_gen;          /* 3, 4, 5, 6; 0 when the host link is not PCIe (NVLink-C2C) */
    int pcie_lanes;        /* 16 */
    double pcie_gbs;       /* GB/s per direction (Gen4 x16: 32, Gen5 x16: 64) */
};

struct rl_gpu_spec {
    char id[32];
    char name[96];
    char vendor[16];
    char architecture[32];
    char chip[16];
    char form_factor[32];
    char variant[160];
    char compute_capability[8];
    char memory_type[16];
    char host_link[48];
    char gpu_link[48]; /* "" when the product has none */
    char notes[768];
    char aliases[RL_SPEC_MAX_ALIASES][64];
    int n_aliases;

    int sm_count;
    double boost_clock_mhz;
    double tensor_clock_mhz;
    double memory_size_gb;
    double memory_bandwidth_gbs;
    double l2_cache_mb;
    double l2_bandwidth_gbs; /* NAN when not published */
    double l1_bandwidth_gbs; /* NAN when unknown */
    double tdp_w;
    double host_link_bandwidth_gbs;
    double gpu_link_bandwidth_gbs; /* NAN when none */
    /* TFLOP/s (TOPS for INT8); NAN when the GPU lacks the rate. */
    double peak_tflops[RL_PEAKS_COUNT][RL_PREC_COUNT];
    struct rl_gpu_links links;

    struct rl_spec_source sources[RL_SPEC_MAX_SOURCES];
    int n_sources;
    /* For field i of rl_spec_fields(): index into sources, -1 if none. */
    signed char source_of[64];
};

/* Names */

const char *rl_origin_name(enum rl_origin origin);
const char *rl_precision_name(enum rl_precision p); /* "bf16" */

/* The field table; *n receives its length. */
const struct rl_spec_field *rl_spec_fields(size_t *n);

/* Parsing */

/* Parse a spec from text, checking it against schema (the parsed
 * data/gpus/schema.json) and checking that every number names its source.
 * `what` names the file in errors, which carry its line:
 * "'data/gpus/x.json': line 12: tensor_core_dense.bf16_tflops: expected
 * number or null, got string". Returns 0, RL_EPARSE or RL_ESCHEMA. */
int rl_gpu_spec_parse(struct rl_gpu_spec *spec, const cJSON *schema,
                      const char *text, size_t len, const char *what,
                      char *errmsg);

/* The "sources" object of a data file (GPU spec or system file) into
 * out[0..RL_SPEC_MAX_SOURCES), *n their count: each id with its kind,
 * title, url and derivation. RL_ESCHEMA when there are too many. */
int rl_spec_sources_parse(const cJSON *doc, struct rl_spec_source *out, int *n,
                          const char *what, char *errmsg);

/* Read and parse a spec file. */
int rl_gpu_spec_load(struct rl_gpu_spec *spec, const cJSON *schema,
                     const char *path, char *errmsg);

/* Queries */

/* The value of field i (as double) and its origin; NAN when null. */
double rl_gpu_spec_field_value(const struct rl_gpu_spec *spec, size_t i);
enum rl_origin rl_gpu_spec_field_origin(const struct rl_gpu_spec *spec, size_t i);

/* Index of the field with this key, or -1. */
int rl_spec_field_index(const char *key);

/* Origin of a peak (datasheet or analytic, from its source's kind). */
enum rl_origin rl_gpu_spec_peak_origin(const struct rl_gpu_spec *spec,
                                       enum rl_peak_table t,
                                       enum rl_precision p);

/* Consistency checks a datasheet must pass (sparse = 2 x dense within 2%,
 * dense Tensor FP16 >= CUDA FP32, tensor clock <= boost clock). Returns 0 or
 * RL_ESCHEMA with the first problem in errmsg. */
int rl_gpu_spec_lint(const struct rl_gpu_spec *spec, char *errmsg);

#endif
