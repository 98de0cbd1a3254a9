#!/usr/bin/env python3
"""Hand counts for the across-ranks analysis of the real two-rank set
tests/data/torch-real/sampled-ranks (HTA's sampled_rank-0/1), computed here
independently of roofline's C code (python3, json + gzip only):
python3 tests/data/ranks/across_facts.py. tests/check_across.c asserts them.

Definitions (docs/ranks.md): a GPU activity is every event of cat kernel,
gpu_memcpy or gpu_memset; communication = kernels named nccl*; compute =
the other kernels. Times in ns, from the epoch microseconds of the trace.
Unions: time covered by at least one interval. The n-th NCCL kernel of a
collective on one rank (by start) is the n-th on the other."""
import decimal
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.path.join(HERE, "..", "torch-real", "sampled-ranks")


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(iv):
    return sum(b - a for a, b in iv)


def overlap(x, y):
    s = 0
    for a, b in x:
        for c, d in y:
            s += max(0, min(b, d) - max(a, c))
    return s


def main():
    ranks = []
    for r in (0, 1):
        doc = json.load(gzip.open(os.path.join(SET, "sampled_rank-%d.json.gz" % r)),
                        parse_float=decimal.Decimal)  # exact: epoch us x 1000 is past 2^53
        ev = doc["traceEvents"]
        gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        # microseconds to ns, exactly (Decimal)
        span = lambda e: (int(e["ts"] * 1000), int(e["ts"] * 1000 + e["dur"] * 1000))
        comm = [span(e) for e in gpu if e["cat"] == "kernel" and e["name"].startswith("nccl")]
        comp = [span(e) for e in gpu if e["cat"] == "kernel" and not e["name"].startswith("nccl")]
        every = union([span(e) for e in gpu])
        uc, uk = union(comm), union(comp)
        steps = [int(e["dur"] * 1000) for e in ev if e.get("name", "").startswith("ProfilerStep#")]
        first = min(a for a, _ in every)
        last = max(b for _, b in every)
        hidden = overlap(uc, uk)
        info = {"rank": r, "busy_ns": length(every), "span_ns": last - first,
                "idle_ns": last - first - length(every), "compute_ns": length(uk),
                "comm_ns": length(uc), "comm_hidden_ns": hidden,
                "comm_exposed_ns": length(uc) - hidden, "steps": len(steps),
                "step_mean_ns": sum(steps) / len(steps), "comm": sorted(comm)}
        ranks.append(info)
    calls = []
    for k in range(min(len(x["comm"]) for x in ranks)):
        starts = [x["comm"][k][0] for x in ranks]
        last = max(range(len(ranks)), key=lambda r: (starts[r], -r))
        calls.append({"ordinal": k, "skew_ns": max(starts) - min(starts), "last_rank": last,
                      "transfer_ns": ranks[last]["comm"][k][1] - ranks[last]["comm"][k][0]})
    for x in ranks:
        x["last_at"] = sum(1 for c in calls if c["last_rank"] == x["rank"])
        x["waited_for_ns"] = sum(c["skew_ns"] for c in calls if c["last_rank"] == x["rank"])
        del x["comm"]
    out = {"ranks": ranks, "calls": calls,
           "skew_max_ns": max(c["skew_ns"] for c in calls),
           "skew_sum_ns": sum(c["skew_ns"] for c in calls)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
