/* nccl.h - communication by its names: NCCL's (and RCCL's) kernels, the other libraries' collective kernels and operators, and which collective a kernel, operator or NVTX range is. */
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

/* Is this communication, whoever wrote it? The one recognizer of every
 * reader and of the report. kernel: a GPU kernel's name (NULL or "" for
 * none); op: the operator that launched it, or an operator alone (NULL or
 * "" for none). True for
 *   - NCCL's and RCCL's kernels (rl_nccl_kernel; RCCL keeps NCCL's names,
 *     mscclKernel_* its MSCCL ones);
 *   - PyTorch's symmetric-memory kernels (multimem_all_reduce_kernel,
 *     multimem_all_gather_kernel, one_shot_all_reduce_kernel,
 *     two_shot_all_reduce_kernel), vLLM's and SGLang's custom all-reduce
 *     (cross_device_reduce_1stage / 2stage), TensorRT-LLM's
 *     (oneShotAllReduceKernel, twoShotAllReduceKernel, allreduce_fusion_*)
 *     and DeepEP's (deep_ep::...::dispatch / combine: all-to-all);
 *   - any kernel but ATen's own (at::native::, a copy or cast) launched by
 *     a collective operator: symm_mem::<collective> (not its fused_*
 *     matmuls), _C_custom_ar::all_reduce, vllm::, sgl_kernel(s):: and
 *     sglang:: all_reduce / all_gather / reduce_scatter / all_to_all,
 *     c10d::<collective>, ProcessGroupNCCL's nccl:<collective>,
 *     record_param_comms, deep_ep ops;
 *   - with no kernel, such an operator.
 * With true, the collective the names say goes into collective (the ids
 * of rl_nccl_kernel, "alltoall" for DeepEP's dispatch and combine; "" when
 * they do not say: ncclDevKernel_Generic, record_param_comms). */
bool rl_comm_recognize(const char *kernel, const char *op, char *collective, size_t size);

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
