/* device.h - the CUDA side of roofline (libroofline_cuda.so), loaded at run time.
 *
 * Everything that needs the CUDA runtime, cuBLASLt, CUPTI or NVML lives in
 * one shared library that the CLI opens with dlopen() when a command needs
 * a GPU. `roofline gpus`, `ridge` and `chart` therefore run anywhere, and a
 * machine without CUDA libraries gets a clear message instead of a loader
 * error. The structures below are the whole interface; both sides are
 * compiled from this header and check RL_DEVICE_ABI.
 */
#ifndef RL_DEVICE_H
#define RL_DEVICE_H

#include "analyzer/util/error.h"
#include "analyzer/profiler/metrics.h"
#include "kernels/workloads.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_DEVICE_ABI 3
/* The entry's name carries the ABI: rl_device_api_v3. */
#define RL_DEVICE__STR(x) #x
#define RL_DEVICE__XSTR(x) RL_DEVICE__STR(x)
#define RL_DEVICE__CAT(a, b) a##b
#define RL_DEVICE__XCAT(a, b) RL_DEVICE__CAT(a, b)
#define RL_DEVICE_ENTRY RL_DEVICE__XCAT(rl_device_api_v, RL_DEVICE_ABI)
#define RL_DEVICE_SYMBOL "rl_device_api_v" RL_DEVICE__XSTR(RL_DEVICE_ABI)

/* What NVML saw while a benchmark's timed runs went on. */
struct rl_conditions {
    bool nvml;                 /* false: NVML unavailable, nothing sampled */
    int n_samples;
    double sm_mhz_min, sm_mhz_median, sm_mhz_max;
    double mem_mhz_median;
    double power_w_median, power_w_max;
    double temp_c_max;
    unsigned long long throttle_reasons; /* OR of NVML clock-event reasons seen */
};

struct rl_device_info {
    int index;
    char name[96];             /* as the driver reports it: "NVIDIA H200" */
    char uuid[48];
    char pci_bus_id[32];
    int cc_major, cc_minor;
    int sm_count;
    double sm_clock_max_mhz;   /* cudaDevAttrClockRate: the maximum, not the running clock */
    double mem_clock_max_mhz;
    int mem_bus_bits;
    double mem_bytes, l2_bytes, smem_per_sm_bytes;
    int cuda_driver_version;   /* 13000 = 13.0 */
    int cuda_runtime_version;
    char driver_version[32];   /* NVML: "570.86.15"; "" without NVML */
    double power_limit_w;      /* NVML enforced limit; NAN without NVML */
    char build[128];           /* how libroofline_cuda was built */
};

enum rl_mb_status {
    RL_MB_OK,
    RL_MB_UNSUPPORTED,      /* the GPU lacks the unit (FP8 on A100): never a zero */
    RL_MB_CHECK_FAILED,     /* the output check failed: no number is reported */
    RL_MB_FAILED            /* a CUDA or library error */
};

#define RL_MB_MAX_REPS 64
#define RL_MB_MAX_POINTS 48

/* One point of a sweep: x is K (FMAs per element) or the working set in
 * bytes; work (FLOP) and bytes per launch; the median time of its reps. */
struct rl_mb_point {
    double x;
    double work;
    double bytes;
    double time_ns;
};

/* The raw result of one benchmark: what was run, how long it took, what
 * the check found. Rates and percentages are computed by the CLI
 * (microbench/results.c), in one place. */
struct rl_mb_raw {
    char name[24];
    int status;                /* enum rl_mb_status */
    char reason[256];          /* why not OK */
    char instruction[48];      /* SASS instruction counted, or the library call */
    char variant[96];          /* "wgmma m64n256k16, 3 blocks x 128 threads / SM" */
    double work;               /* FLOP (integer ops for INT8) per timed launch */
    double bytes;              /* bytes moved per timed launch */
    long long iters;
    long long threads;
    int n_reps;
    double time_ns[RL_MB_MAX_REPS];
    int n_points;
    struct rl_mb_point points[RL_MB_MAX_POINTS];
    char check[160];           /* what the output check did */
    double check_error;        /* largest relative error it saw */
    struct rl_conditions cond;
};

struct rl_bench_options {
    int device;
    bool quick;
};

/* Tracing (analyzer/profiler/README.md) */

/* enum rl_counter_set: profiler/metrics.h. */

struct rl_trace_request {
    int device;
    const char *workload;      /* gemm, gemv, elementwise, decode, prefill */
    const char *out_path;      /* the trace file, written atomically */
    enum rl_counter_set counters;
    const char *kernel_regex;  /* kernels to count; NULL: all */
    int samples;               /* counted launches per kernel/grid/block; 0: all */
    int reps;                  /* runs of each step */
    int decode_context, prefill_tokens; /* 0: defaults (2048) */
    const char *program;       /* recorded in the trace */
    bool verbose;
    const struct rl_wl_shape *shapes; /* workload "shapes" */
    int n_shapes;
};

/* The start-up check of Tensor Core counters: a cuBLASLt BF16 GEMM of
 * known 2MNK FLOPs, counted. */
struct rl_calibration {
    bool done;                 /* counters were read */
    double flops_per_op;       /* NAN when the counters cannot give tensor FLOPs */
    char counters_status[16];  /* "ok", "off", "unavailable" */
    char reason[RL_ERRMSG_SIZE]; /* why counters are unavailable, with the fix */
    char line[1024];           /* what the check found, for the trace and the user */
};

struct rl_device_api {
    int abi;                   /* RL_DEVICE_ABI */
    /* 0, or RL_ENODEV (no driver, no GPU: errmsg says which) */
    int (*query)(int device, struct rl_device_info *out, char *errmsg);
    /* Run benchmark `name` of the catalog. Returns 0 with out->status set
     * (also for unsupported or failed checks), or an RL_E* code. */
    int (*bench)(const struct rl_bench_options *opt, const char *name,
                 struct rl_mb_raw *out, char *errmsg);
    /* The metric set for a chip, through the CUPTI host API: no GPU needed. */
    int (*metric_set)(const char *chip, bool full, struct rl_metric_set *out, char *errmsg);
    const struct rl_q_def *(*quantities)(size_t *n);
    /* Run a built-in workload under the tracer and write its trace; cal
     * receives the calibration. Returns 0, or an RL_E* code (a failed
     * output check is RL_EVERIFY: the trace is still written). */
    int (*trace_builtin)(const struct rl_trace_request *req, struct rl_calibration *cal,
                         char *errmsg);
    /* The calibration alone, for a traced program (`roofline trace -- ...`). */
    int (*calibrate)(int device, int counters, struct rl_calibration *cal, char *errmsg);
    /* Paths of libroofline_inject.so and of the libcupti it uses. */
    int (*profiler_paths)(char *inject, size_t inject_size, char *cupti, size_t cupti_size,
                          char *errmsg);
};

/* Loading */

/* Set to "1", `roofline trace --builtin` runs the workload with no tracer and
 * writes no trace: for another profiler (Nsight Compute) to watch our
 * kernels, since CUPTI allows one subscriber. */
#define RL_UNTRACED_ENV "ROOFLINE_UNTRACED"

/* Open libroofline_cuda.so: $ROOFLINE_CUDA_LIB, else beside the roofline
 * executable, else <exe>/../lib/roofline/. RL_EUNSUPPORTED when this build
 * has no CUDA part; RL_EIO when it cannot be loaded (errmsg has dlerror()). */
int rl_device_open(const struct rl_device_api **api, char *errmsg);

#ifdef __cplusplus
}
#endif

#endif
