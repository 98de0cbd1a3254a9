/* nccl.h - NCCL's names: which kernels are NCCL's communication kernels, and which collective a kernel or an NVTX range name is. */
#ifndef RL_PROFILER_NCCL_H
#define RL_PROFILER_NCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* NCCL's NVTX payload: the message size of one collective call.
 *
 * NCCL 2.19+ wraps each collective API call (ncclAllReduce ...) in an NVTX
 * range of its "NCCL" domain (NVTX3_FUNC_WITH_PARAMS in src/include/nvtx.h)
 * whose event attributes carry one extended payload: payloadType
 * NVTX_PAYLOAD_TYPE_EXT (0xDFBD0009), reserved0 = 1 (the count), and
 * payload.ullValue = a pointer to an nvtxPayloadData_t {uint64_t schemaId;
 * size_t size; const void *payload}. schemaId is
 * NVTX_PAYLOAD_ENTRY_TYPE_SCHEMA_ID_STATIC_START (1 << 24) + NVTX_SID_<call>
 * (AllGather 4, AllReduce 5, Broadcast 6, ReduceScatter 7, Reduce 8, Send 9,
 * Recv 10, AlltoAll 16, Gather 17, Scatter 18), and every one of those
 * payloads starts {uint64_t comm; size_t bytes; ...}, bytes being the
 * "Message size [bytes]" entry (src/include/nvtx_payload_schemas.h).
 * Source: https://github.com/NVIDIA/nccl, src/include/nvtx.h and
 * src/include/nvtx_payload_schemas.h (commit 5067397c2676, 2026-06).
 *
 * From the attributes' payloadType, payload.ullValue and reserved0: true
 * with *collective ("allreduce" ...) and *bytes when they are such a
 * payload; false otherwise (nothing read past what the size allows). */
bool rl_nccl_nvtx_payload(int32_t payload_type, uint64_t payload_value, uint32_t count,
                          const char **collective, uint64_t *bytes);

#endif
