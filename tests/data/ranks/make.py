#!/usr/bin/env python3
"""Writes the synthetic per-rank traces beside this script (README.md says
what each holds and the values the tests work out from them). Run it from
anywhere: python3 tests/data/ranks/make.py. Output is deterministic."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

GEMM = "gemm_bf16_tn_128x128(int, int, int, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*)"
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
SENDRECV = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
OLD_NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"


def kernel(name, start, time_ns, corr, grid=(132, 1, 1), block=(256, 1, 1), flops=None,
           dram=None, comm_bytes=None, collective=None):
    k = {"name": name, "grid": list(grid), "block": list(block), "registers": 128,
         "shared_static_bytes": 0, "shared_dynamic_bytes": 0,
         "start_ns": start, "end_ns": start + time_ns, "time_ns": time_ns,
         "stream": 7, "device": 0, "context": 1, "correlation": corr,
         "counts": "counters" if flops is not None else "none",
         "flops": flops, "dram_bytes": dram, "origin": "measured"}
    if flops is not None:
        k["precision"] = "bf16"
        k["l2_bytes"] = 2 * dram
    if collective is not None:
        k["nvtx"] = "nccl" + {"allreduce": "AllReduce", "allgather": "AllGather",
                              "sendrecv": "Send"}[collective]
        k["collective"] = collective
    if comm_bytes is not None:
        k["comm_bytes"] = comm_bytes
    return k


def trace(rank, local, world, host, kernels, gpu="NVIDIA H200", chip="gh100",
          program="python train.py", launcher="mpirun"):
    doc = {"schema_version": 1, "format": "roofline-trace", "tool": "roofline 0.3.0",
           "created": "2026-01-01T00:00:00Z", "pid": 1000 + rank, "program": program,
           "rank": {"rank": rank, "local_rank": local, "world_size": world,
                    "launcher": launcher, "hostname": host},
           "gpu": {"name": gpu, "chip": chip, "compute_capability": "9.0", "sm_count": 132},
           "counters": {"mode": "default", "status": "ok", "passes": 2},
           "dropped_records": 0, "incomplete": False,
           "kernel_count": len(kernels), "kernels": kernels}
    return doc


def write(folder, name, doc):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


MIB256 = 268435456

# Two ranks on one node: a GEMM and an all-reduce whose NVTX range gave its
# message size (comm_bytes), two launches each.
for rank, (gemm_ns, ar_ns) in enumerate([(1000000, 500000), (1200000, 300000)]):
    ks, t = [], 0
    for i in range(2):
        ks.append(kernel(GEMM, t, gemm_ns, 2 * i + 1, flops=5e11, dram=1e9)); t += gemm_ns
        ks.append(kernel(ALLREDUCE, t, ar_ns, 2 * i + 2, grid=(16, 1, 1), block=(640, 1, 1),
                         comm_bytes=MIB256, collective="allreduce")); t += ar_ns
    write("2", "trace.rank%d.json" % rank, trace(rank, rank, 2, "node0", ks))

# Four ranks on two nodes: a GEMM, an all-gather without NVTX (time only,
# bytes unknown) and a send/recv with 1 MiB, one launch each; rank r's
# kernels take 1e6 + 1e5 r, 2e5 (r + 1) and 1e5 ns.
for rank in range(4):
    ks = [kernel(GEMM, 0, 1000000 + 100000 * rank, 1, flops=5e11, dram=1e9),
          kernel(ALLGATHER, 2000000, 200000 * (rank + 1), 2, grid=(8, 1, 1), block=(512, 1, 1)),
          kernel(SENDRECV, 3000000, 100000, 3, grid=(4, 1, 1), block=(512, 1, 1),
                 comm_bytes=1048576, collective="sendrecv")]
    write("4", "trace.rank%d.json" % rank, trace(rank, rank % 2, 4, "node%d" % (rank // 2), ks))

# Not a job: rank 0 twice, another GPU, another program, an old NCCL kernel
# name (ncclKernel_*) without NVTX.
write("odd", "a.json", trace(0, 0, 2, "node0", [kernel(OLD_NCCL, 0, 400000, 1),
                                                kernel(GEMM, 500000, 1600000, 2, flops=5e11,
                                                       dram=1e9)]))
write("odd", "b.json", trace(0, 0, 2, "node1", [kernel(OLD_NCCL, 0, 100000, 1)],
                             gpu="NVIDIA H100 80GB HBM3", program="python other.py"))
