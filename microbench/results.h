/* results.h - benchmark results: statistics, accounting against the datasheet, cache plateaus, the JSON file. */
#ifndef RL_MB_RESULTS_H
#define RL_MB_RESULTS_H

#include "microbench/bench.h"
#include "analyzer/device/device.h"
#include "analyzer/util/json.h"
#include "analyzer/model/model.h"
#include "analyzer/model/spec.h"

#include <stdbool.h>

/* min / median / max of n samples and the spread (max - min) / median. */
struct rl_mb_stats {
    int n;
    double min, median, max, spread_pct;
};

/* One flat region of the cache sweep. */
struct rl_mb_plateau {
    char level[16];        /* "l1", "l2", "l2-far", "dram" */
    double from_bytes, to_bytes;
    double gbs;            /* median bandwidth of its points */
    int n_points;
};

#define RL_MB_MAX_PLATEAUS 8

/* A raw result with everything derived from it, computed in one place. */
struct rl_mb_result {
    const struct rl_mb_def *def;
    struct rl_mb_raw raw;
    struct rl_mb_stats time_ns;
    /* Rates from the min / median / max time: TFLOP/s for compute, sweep
     * and library results; GB/s for memory results. NAN where not apt. */
    double rate_best, rate_median, rate_worst;
    bool rate_is_bandwidth;
    /* Compute: FLOP per clock per SM at clock_mhz (the median NVML clock,
     * or the maximum clock when NVML is absent: clock_measured false). */
    double flop_per_clk_per_sm, clock_mhz;
    bool clock_measured;
    /* Against the datasheet of the GPU (NAN without one). */
    double datasheet;              /* TFLOP/s or GB/s */
    enum rl_origin datasheet_origin;
    double pct_of_datasheet;
    double pct_of_clock_adjusted;  /* datasheet peak scaled to clock_mhz */
    bool accounting_error;         /* above 100% of the clock-adjusted peak (compute),
                                    * of the datasheet (bandwidth) */
    bool clocks_stable;            /* SM clock within 3% over the run */
    struct rl_mb_plateau plateaus[RL_MB_MAX_PLATEAUS];
    int n_plateaus;
};

/* A whole run: the device and every result. */
struct rl_mb_session {
    struct rl_device_info dev;
    const struct rl_gpu_spec *spec; /* NULL for a GPU the database lacks */
    bool quick;
    char created[32];               /* ISO 8601 UTC */
    struct rl_mb_result *results;
    size_t n;
};

/* Statistics */

void rl_mb_stats_of(const double *v, int n, struct rl_mb_stats *out);

/* Accounting */

/* Fill out from raw: stats, rates, per-clock rate, datasheet percentages,
 * plateaus. spec may be NULL. */
void rl_mb_account(const struct rl_mb_def *def, const struct rl_mb_raw *raw,
                   const struct rl_device_info *dev, const struct rl_gpu_spec *spec,
                   struct rl_mb_result *out);

/* The clock a datasheet peak assumes for this roof (MHz): the Tensor Core
 * clock for Tensor Core roofs except FP64, else the boost clock. */
double rl_mb_datasheet_clock(const struct rl_gpu_spec *spec, const struct rl_compute_roof *roof);

/* Split a working-set sweep into plateaus: a point more than 20% from the
 * running median starts a new region; regions are named by where they end
 * against the per-SM L1 and the L2 capacities. Returns the count. */
int rl_mb_plateaus(const struct rl_mb_point *p, int n, double l1_bytes, double l2_bytes,
                   struct rl_mb_plateau *out, int max);

/* Names of throttle reasons set in mask, comma-separated ("" when none). */
void rl_mb_throttle_names(unsigned long long mask, char *buf, size_t size);

/* The JSON file (format: microbench/README.md, schema data/schemas/bench.schema.json) */

cJSON *rl_mb_session_json(const struct rl_mb_session *s);

/* One intensity sweep: points (FLOP/byte, TFLOP/s) of one precision. */
struct rl_bench_sweep {
    char precision[16];  /* its roof: "fp32", "fp16-cuda" */
    int n;
    double ai_flop_per_byte[RL_MB_MAX_POINTS], tflops[RL_MB_MAX_POINTS];
};

/* Measured ceilings read back from a bench file, for charts and reports.
 * Compute roofs carry origin measured; library (cuBLASLt) roofs are named
 * "<roof>-blas". Memory: DRAM (best HBM stream), L2 (the first L2 plateau),
 * L1 (shared memory or the L1 plateau, whichever is higher). */
struct rl_bench_ceilings {
    char gpu_name[96];
    char spec_id[32];                 /* "" when the GPU was not in the database */
    struct rl_compute_roof compute[32]; /* Blackwell: 13 roofs + 6 cuBLASLt */
    size_t n_compute;
    struct rl_memory_roof memory[RL_MEM_COUNT];
    size_t n_memory;
    struct rl_bench_sweep sweeps[4];
    int n_sweeps;
};

/* Load a bench JSON file. Errors name the file and the line. */
int rl_bench_ceilings_load(const char *path, struct rl_bench_ceilings *out, char *errmsg);
/* The same from text (len bytes) named `path` in errors. */
int rl_bench_ceilings_parse(const char *text, size_t len, const char *path,
                            struct rl_bench_ceilings *out, char *errmsg);

#endif
