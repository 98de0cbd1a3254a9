/* builtin.h - the tracing entries of libroofline_cuda's API: built-in workloads traced, calibration, metric sets. */
#ifndef RL_PROFILER_BUILTIN_H
#define RL_PROFILER_BUILTIN_H

#include "device.h"

/* Fill the tracing members of the plugin's API table. */
void rl_profiler_api(struct rl_device_api *api);

#endif
