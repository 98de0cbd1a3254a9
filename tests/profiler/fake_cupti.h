/* fake_cupti.h - a stand-in for the CUPTI entry points the tracer subscribes and collects activity with: the tracer driven without a GPU (tests/check_profiler.c). */
#ifndef RL_FAKE_CUPTI_H
#define RL_FAKE_CUPTI_H

#include <stdbool.h>
#include <stdint.h>

/* Stand in for CUPTI (true: from a clean state) or forward to it (false). */
void rl_fake_cupti_on(bool on);

/* One cuLaunchKernel of `symbol` (a CUfunction `function`, correlation id
 * corr, grid 132, block 256) as the driver reports it to the subscriber,
 * enter and exit, and the kernel record CUPTI would deliver at the flush. */
void rl_fake_cupti_launch(const char *symbol, uintptr_t function, uint32_t corr);

/* NCCL 2.19+'s NVTX range around ncclAllReduce pushed or popped: domain
 * "NCCL", an extended payload of schema (1 << 24) + 5 holding {comm, bytes}
 * (analyzer/profiler/nccl.h). */
void rl_fake_cupti_nccl_range(bool push, const uint64_t payload[2]);

#endif
