/* plugin.c - libroofline_cuda's one entry: the exported table, the device query, and the benchmark runners indexed by kind. */
#define _GNU_SOURCE
#include "microbench/runner.h"
#include "analyzer/profiler/builtin.h"

#include "analyzer/util/error.h"
#include "microbench/nvml.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef ROOFLINE_CUDA_ARCHS
#define ROOFLINE_CUDA_ARCHS "?"
#endif

static const char *cuda_error_hint(cudaError_t e)
{
    switch (e) {
    case cudaErrorInsufficientDriver:
        return "no usable NVIDIA driver (libcuda.so.1 missing or older than this CUDA "
               "runtime): install the driver, or run on a machine with a GPU";
    case cudaErrorNoDevice:
        return "no CUDA GPU found (check nvidia-smi and CUDA_VISIBLE_DEVICES)";
    default:
        return NULL;
    }
}

static int query(int device, struct rl_device_info *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        const char *hint = cuda_error_hint(e);
        if (hint)
            return rl_fail(errmsg, RL_ENODEV, "%s", hint);
        return rl_fail(errmsg, RL_ENODEV, "cannot count CUDA devices: %s",
                       cudaGetErrorString(e));
    }
    if (count == 0)
        return rl_fail(errmsg, RL_ENODEV, "%s", cuda_error_hint(cudaErrorNoDevice));
    if (device < 0 || device >= count)
        return rl_fail(errmsg, RL_ENODEV, "GPU %d does not exist (found %d)", device, count);
    struct cudaDeviceProp p;
    if ((e = cudaGetDeviceProperties(&p, device)) != cudaSuccess)
        return rl_fail(errmsg, RL_ECUDA, "cudaGetDeviceProperties: %s", cudaGetErrorString(e));
    int khz = 0, mem_khz = 0, bus = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device);
    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, device);
    out->index = device;
    snprintf(out->name, sizeof out->name, "%.95s", p.name);
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(out->uuid, sizeof out->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    cudaDeviceGetPCIBusId(out->pci_bus_id, sizeof out->pci_bus_id, device);
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->sm_count = p.multiProcessorCount;
    out->sm_clock_max_mhz = khz / 1000.0;
    out->mem_clock_max_mhz = mem_khz / 1000.0;
    out->mem_bus_bits = bus;
    out->mem_bytes = (double)p.totalGlobalMem;
    out->l2_bytes = p.l2CacheSize;
    out->smem_per_sm_bytes = (double)p.sharedMemPerMultiprocessor;
    cudaDriverGetVersion(&out->cuda_driver_version);
    cudaRuntimeGetVersion(&out->cuda_runtime_version);
    out->power_limit_w = NAN;
    if (rl_nvml_open(out->pci_bus_id, out->uuid) == 0)
        rl_nvml_driver(out->driver_version, sizeof out->driver_version, &out->power_limit_w);
    snprintf(out->build, sizeof out->build, "CUDA runtime %d.%d; SASS for %s",
             CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, ROOFLINE_CUDA_ARCHS);
    return RL_OK;
}

/* The runners, indexed by kind (bench.h): the only place a kind meets its
 * code. */
typedef int (*runner_fn)(struct rl_run *, const struct rl_mb_def *, struct rl_mb_raw *);
static const runner_fn runners[] = {
    [RL_MB_COMPUTE] = rl_run_compute, [RL_MB_MEMORY] = rl_run_stream,
    [RL_MB_SHARED] = rl_run_shared,   [RL_MB_CACHE] = rl_run_cache,
    [RL_MB_TRANSFER] = rl_run_transfer, [RL_MB_SWEEP] = rl_run_sweep,
    [RL_MB_LIBRARY] = rl_run_library,
};

static int bench(const struct rl_bench_options *opt, const char *name, struct rl_mb_raw *out,
                 char *errmsg)
{
    static struct rl_device_info dev;
    static int dev_index = -1;
    static bool warmed;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    const struct rl_mb_def *def = rl_mb_find(name);
    if (!def)
        return rl_fail(errmsg, RL_ENOTFOUND, "no benchmark '%s'", name);
    int rc;
    if (dev_index != opt->device) {
        if ((rc = query(opt->device, &dev, errmsg)))
            return rc;
        dev_index = opt->device;
        warmed = false;
    }
    struct rl_run r = {.opt = opt, .dev = &dev, .errmsg = errmsg,
                       .target_ns = opt->quick ? 8e6 : 25e6, .reps = opt->quick ? 5 : 11};
    cudaError_t e;
    if ((e = cudaSetDevice(opt->device)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaEventCreate(&r.ev0)) != cudaSuccess ||
        (e = cudaEventCreate(&r.ev1)) != cudaSuccess)
        return rl_fail(errmsg, RL_ECUDA, "cannot set up GPU %d: %s", opt->device,
                       cudaGetErrorString(e));
    rc = RL_OK;
    if (!warmed) {
        rc = rl_warm_up(&r, opt->quick ? 0.6e9 : 1.5e9);
        warmed = rc == RL_OK;
    }
    if (rc == RL_OK)
        rc = runners[def->kind](&r, def, out);
    cudaEventDestroy(r.ev0);
    cudaEventDestroy(r.ev1);
    cudaStreamDestroy(r.stream);
    /* A kernel fault poisons the context: report it and stop cleanly. */
    if ((e = cudaDeviceSynchronize()) != cudaSuccess && rc == RL_OK)
        rc = rl_fail(errmsg, RL_ECUDA, "GPU error after %s: %s", name, cudaGetErrorString(e));
    return rc;
}

/* The one exported table (analyzer/device.h): benchmarks here, the profiler
 * from analyzer/profiler/builtin.c. */
__attribute__((visibility("default"))) const struct rl_device_api *RL_DEVICE_ENTRY(void)
{
    static const struct rl_device_api api = {
        .abi = RL_DEVICE_ABI,
        .query = query,
        .bench = bench,
        .metric_set = rl_profiler_metric_set,
        .quantities = rl_q_defs,
        .trace_builtin = rl_profiler_trace_builtin,
        .calibrate = rl_profiler_calibrate,
        .profiler_paths = rl_profiler_paths,
    };
    return &api;
}
