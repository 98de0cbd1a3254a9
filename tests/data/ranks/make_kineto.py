#!/usr/bin/env python3
"""Writes kineto3/: three ranks' PyTorch profiler traces (Kineto's Chrome
trace) with known skews and overlaps; README.md works the values out by
hand and tests/check_ranks.c checks them. Deterministic:
python3 tests/data/ranks/make_kineto.py."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1700000000000000  # epoch microseconds: the times keep their ns only when read apart
GEMM = "void gemm_kernel<float>(float const*, float const*, float*, int)"
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"

# per rank: compute kernels [start, end) in us from T0 (stream 7), collectives
# (name, start, end) (stream 20), steps (number, start, end)
RANKS = {
    0: {"compute": [(0, 400), (600, 800)],
        "comm": [("allreduce", 450, 900), ("allreduce", 1000, 1500), ("allreduce", 1600, 1800),
                 ("allgather", 1850, 1900)],
        "steps": [(1, 0, 2000), (2, 2000, 2100)]},
    1: {"compute": [(0, 500)],
        "comm": [("allreduce", 500, 900), ("allreduce", 1300, 1500), ("allreduce", 1600, 1800)],
        "steps": [(1, 5, 2015)]},
    2: {"compute": [(0, 600), (1200, 1300)],
        "comm": [("allreduce", 700, 900), ("allreduce", 1100, 1500), ("allreduce", 1650, 1800)],
        "steps": [(1, 0, 2050)]},
}


def ev(cat, name, ts, dur, tid, args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": T0 + ts,
            "dur": dur, "args": args}


def rank_trace(rank, spec):
    events = []
    for number, start, end in spec["steps"]:
        events.append(ev("user_annotation", "ProfilerStep#%d" % number, start, end - start, 1,
                         {"External id": 1000 + number}))
    ident = 1
    for start, end in spec["compute"]:
        events.append(ev("cpu_op", "aten::add", start - 30, 20, 1, {"External id": ident}))
        events.append(ev("cuda_runtime", "cudaLaunchKernel", start - 25, 2, 1,
                         {"External id": ident, "correlation": 5000 + ident}))
        events.append(ev("kernel", GEMM, start, end - start, "stream 7",
                         {"External id": ident, "correlation": 5000 + ident, "device": rank,
                          "stream": 7, "grid": [64, 1, 1], "block": [256, 1, 1]}))
        ident += 1
    for seq, (coll, start, end) in enumerate(spec["comm"]):
        events.append(ev("cpu_op", "record_param_comms", start - 20, 10, 1,
                         {"External id": ident, "Collective name": coll, "dtype": "Float",
                          "In msg nelems": 1048576, "Out msg nelems": 1048576,
                          "Group size": 3, "Process Group Name": "0", "Seq": seq}))
        events.append(ev("cuda_runtime", "cudaLaunchKernel", start - 15, 2, 1,
                         {"External id": ident, "correlation": 5000 + ident}))
        events.append(ev("kernel", ALLREDUCE if coll == "allreduce" else ALLGATHER, start,
                         end - start, "stream 20",
                         {"External id": ident, "correlation": 5000 + ident, "device": rank,
                          "stream": 20, "grid": [16, 1, 1], "block": [640, 1, 1]}))
        ident += 1
    return {"schemaVersion": 1,
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 3},
            "traceEvents": events}


def main():
    out = os.path.join(HERE, "kineto3")
    os.makedirs(out, exist_ok=True)
    for rank, spec in RANKS.items():
        with open(os.path.join(out, "rank-%d.json" % rank), "w") as f:
            json.dump(rank_trace(rank, spec), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
