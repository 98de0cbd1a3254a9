/* builtin.h - the tracing entries of libroofline_cuda's API: built-in workloads traced, calibration, metric sets. */
#ifndef RL_PROFILER_BUILTIN_H
#define RL_PROFILER_BUILTIN_H

#include "analyzer/device/device.h"

/* The tracing members of the plugin's table (microbench/plugin.c), each as
 * its member of struct rl_device_api (analyzer/device.h) documents it. */
int rl_profiler_calibrate(int device, int counters, struct rl_calibration *cal, char *errmsg);
int rl_profiler_trace_builtin(const struct rl_trace_request *req, struct rl_calibration *cal,
                              char *errmsg);
int rl_profiler_metric_set(const char *chip, bool full, struct rl_metric_set *out,
                           char *errmsg);
int rl_profiler_paths(char *inject, size_t inject_size, char *cupti, size_t cupti_size,
                      char *errmsg);

#endif
