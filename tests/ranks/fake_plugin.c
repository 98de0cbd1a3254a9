/* fake_plugin.c - a stand-in for libroofline_cuda.so that reports a GPU and does nothing: `roofline trace`'s file naming under launchers, tested without a GPU (tests/ranks/check-trace-ranks). */
#define _GNU_SOURCE
#include "analyzer/device/device.h"

#include "analyzer/util/error.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int query(int device, struct rl_device_info *out, char *errmsg)
{
    (void)errmsg;
    memset(out, 0, sizeof *out);
    out->index = device;
    snprintf(out->name, sizeof out->name, "NVIDIA H200");
    out->cc_major = 9;
    out->sm_count = 132;
    return 0;
}

static int calibrate(int device, int counters, struct rl_calibration *cal, char *errmsg)
{
    (void)device, (void)counters, (void)errmsg;
    memset(cal, 0, sizeof *cal);
    cal->flops_per_op = NAN;
    snprintf(cal->line, sizeof cal->line, "not done: a fake plugin");
    return 0;
}

/* The "injection library" is this file: readable, and never loaded by the
 * fake programs the test traces (they use no CUDA). */
static int profiler_paths(char *inject, size_t inject_size, char *cupti, size_t cupti_size,
                          char *errmsg)
{
    (void)errmsg;
    Dl_info info;
    if (!dladdr((void *)profiler_paths, &info) || !info.dli_fname)
        return -1;
    snprintf(inject, inject_size, "%s", info.dli_fname);
    snprintf(cupti, cupti_size, "%s", info.dli_fname);
    return 0;
}

static const struct rl_device_api api = {
    .abi = RL_DEVICE_ABI,
    .query = query,
    .calibrate = calibrate,
    .profiler_paths = profiler_paths,
};

__attribute__((visibility("default"))) const struct rl_device_api *RL_DEVICE_ENTRY(void)
{
    return &api;
}
