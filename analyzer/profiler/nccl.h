/* nccl.h - NCCL's names: which kernels are NCCL's communication kernels, and which collective a kernel or an NVTX range name is. */
#ifndef RL_PROFILER_NCCL_H
#define RL_PROFILER_NCCL_H

#include <stdbool.h>
#include <stddef.h>

/* Is `name` (demangled, "void " and parameters allowed) an NCCL kernel:
 * ncclDevKernel_* (NCCL 2.19+) or ncclKernel_* (older)? With true, the
 * collective its name says goes into collective ("allreduce", "allgather",
 * "reducescatter", "broadcast", "reduce", "sendrecv"; "" when the name
 * does not say, e.g. ncclDevKernel_Generic). */
bool rl_nccl_kernel(const char *name, char *collective, size_t size);

/* The collective of an NCCL API's NVTX range ("ncclAllReduce" ->
 * "allreduce", "ncclSend"/"ncclRecv" -> "sendrecv", "ncclAlltoAll" ->
 * "alltoall"), NULL for other names (ncclCommInitRank ...). */
const char *rl_nccl_range_collective(const char *range);

/* The collective as people write it: "all-reduce", "send/recv"; the id
 * itself when unknown. */
const char *rl_nccl_collective_label(const char *collective);

#endif
