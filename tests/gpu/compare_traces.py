#!/usr/bin/env python3
"""compare_traces.py - what tests/gpu/device-run reads from two of its traces: the Tensor Core counter check, and a PyTorch program's FLOPs from shapes beside counted FLOPs, kernel by kernel.

    tests/gpu/compare_traces.py TORCH_REPORT_JSON TRACE_REPORT_JSON -o PREFIX

The second form writes PREFIX.json and PREFIX.md from two `roofline report
--json` files of the same program's kernels: one of its torch.profiler trace
(`report --torch`: FLOPs from each operator's shapes, on its longest
kernel), one of its `roofline trace` (FLOPs counted). Python 3 standard
library only.
"""
import json
import statistics
import sys

# The microbenchmark's BF16 Tensor Core kernels (microbench/bench.c, catalog
# entry "bf16") and their FLOPs per block and loop iteration:
#   wgmma (sm_90a): 8 x m64n256k16 per 128-thread block = 8 x 2 x 64 x 256 x 16;
#   tcgen05 (sm_100a, sm_103a): 8 x 128x256x16 per CTA = 8 x 2 x 128 x 256 x 16;
#   mma.sync (elsewhere): 16 x m16n8k16 per warp, 8 warps = 8 x 16 x 2 x 16 x 8 x 16.
# `roofline bench`'s first launch of each kernel is its 1-iteration check
# (microbench/runner.c), the launch `trace --samples 1` counts: its FLOPs are
# grid x the figure below.
TENSOR_KERNELS = {"rl_mb_wgmma_bf16": 8 * 2 * 64 * 256 * 16,
                  "rl_mb_tc05_bf16": 8 * 2 * 128 * 256 * 16,
                  "rl_mb_mma_bf16_16816": 8 * 16 * 2 * 16 * 8 * 16}
TENSOR_REGEX = "^(" + "|".join(TENSOR_KERNELS) + ")$"


def number(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def tensor_check(doc):
    """The counted launch of a BF16 Tensor Core kernel of known FLOPs in a
    `roofline trace` of `roofline bench --only bf16`. Returns (verdict,
    figures): verdict "ok" (FLOPs within 1%), "zero" (the BF16 op counter
    read 0: nothing counted rests on anything), "off" (counters
    unavailable), "missing" (no such launch counted), "mismatch"."""
    c = doc.get("counters", {})
    fig = {"counters": c.get("status"), "tensor_flops_per_op": c.get("tensor_flops_per_op"),
           "tensor_check": c.get("tensor_check")}
    if c.get("status") != "ok":
        fig["reason"] = c.get("reason")
        return "off", fig
    for k in doc.get("kernels", []):
        per_block = TENSOR_KERNELS.get(k.get("name"))
        if per_block is None or k.get("counts") != "counters":
            continue
        known = (k.get("grid") or [0])[0] * per_block
        ops = number(k.get("counters", {}).get("tensor_bf16_ops"))
        fig.update(tensor_kernel=k["name"], tensor_known_flops=known, tensor_bf16_ops=ops,
                   tensor_flops=number(k.get("flops_tensor")))
        if k.get("flops_note"):
            fig["flops_note"] = k["flops_note"]
        if not ops:
            return "zero", fig
        if fig["tensor_flops"] is None:
            return "mismatch", fig
        fig["tensor_flops_vs_known"] = round(fig["tensor_flops"] / known, 4)
        return ("ok" if abs(fig["tensor_flops_vs_known"] - 1) <= 0.01 else "mismatch"), fig
    return "missing", fig


def rows_by_kernel(report):
    """A report's kernel rows by (name, grid, block)."""
    out = {}
    for k in report.get("kernels", []):
        out[(k.get("name"), tuple(k.get("grid") or []), tuple(k.get("block") or []))] = k
    return out


def per_launch(row, key):
    v, n = number(row.get(key)), number(row.get("launches"))
    return v / n if v is not None and n else None


def pair(torch_report, trace_report):
    """One row per kernel of either report: launches, time, FLOPs and DRAM
    bytes per launch on each side, counted / shapes."""
    t, c = rows_by_kernel(torch_report), rows_by_kernel(trace_report)
    rows = []
    for key in list(t) + [k for k in c if k not in t]:
        a, b = t.get(key, {}), c.get(key, {})
        fs, fc = per_launch(a, "flops"), per_launch(b, "flops")
        rows.append({
            "name": key[0], "grid": list(key[1]), "block": list(key[2]),
            "in": "both" if a and b else "torch" if a else "trace",
            "op": a.get("op"), "shapes": a.get("shapes"), "dtype": a.get("dtype"),
            "launches_torch": a.get("launches"), "launches_trace": b.get("launches"),
            "time_ns_torch": a.get("time_ns"), "time_ns_trace": b.get("time_ns"),
            "flops_per_launch_shapes": fs, "flops_per_launch_counted": fc,
            "counted_over_shapes": round(fc / fs, 4) if fs and fc is not None else None,
            "dram_bytes_per_launch_shapes": per_launch(a, "dram_bytes"),
            "dram_bytes_per_launch_counted": per_launch(b, "dram_bytes"),
            "roof_torch": a.get("roof"), "roof_trace": b.get("roof")})
    rows.sort(key=lambda r: -(number(r["time_ns_torch"]) or number(r["time_ns_trace"]) or 0))
    return rows


def summarize(rows):
    both = [r for r in rows if r["in"] == "both"]
    ratios = [r["counted_over_shapes"] for r in both if r["counted_over_shapes"] is not None]
    fig = {"shapes_kernels": len(rows), "shapes_kernels_paired": len(both),
           "shapes_kernels_with_both_flops": len(ratios),
           "shapes_only_torch": sum(r["in"] == "torch" for r in rows),
           "shapes_only_trace": sum(r["in"] == "trace" for r in rows)}
    if ratios:
        fig["shapes_flops_ratio_median"] = round(statistics.median(ratios), 4)
        fig["shapes_flops_ratio_min"] = min(ratios)
        fig["shapes_flops_ratio_max"] = max(ratios)
        fig["shapes_within_5pct"] = sum(abs(x - 1) <= 0.05 for x in ratios)
    return fig


def fmt(x):
    if x is None:
        return "-"
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def write(rows, fig, prefix, note):
    with open(prefix + ".json", "w") as f:
        json.dump({"format": "roofline-torch-shapes-compare", "schema_version": 1, "note": note,
                   "figures": fig, "kernels": rows}, f, indent=1)
    lines = [f"# FLOPs from shapes (torch.profiler) beside counted (roofline trace)", "", note, "",
             " ".join(f"{k}={v}" for k, v in fig.items()), "",
             "| kernel | op | dtype | launches torch/trace | GFLOP/launch shapes | counted | "
             "counted/shapes |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        gs, gc = r["flops_per_launch_shapes"], r["flops_per_launch_counted"]
        lines.append(f"| {r['name'][:70]} {r['grid']} | {fmt(r['op'])} | {fmt(r['dtype'])} | "
                     f"{fmt(r['launches_torch'])}/{fmt(r['launches_trace'])} | "
                     f"{fmt(gs / 1e9 if gs is not None else None)} | "
                     f"{fmt(gc / 1e9 if gc is not None else None)} | "
                     f"{fmt(r['counted_over_shapes'])} |")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")


NOTE = ("Same program, same order, two runs: FLOPs per launch from the operator's shapes "
        "(report --torch; the operator's cost sits on its longest kernel, other kernels have "
        "none) and counted by roofline trace (--metrics full, --samples 1: the first launch of "
        "each kernel/grid/block counted, the others lent its counts). A ratio far from 1 is a "
        "defect of one side's model or counters, or a kernel the shapes do not describe.")


def main(argv):
    if len(argv) != 5 or argv[3] != "-o":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        t = json.load(f)
    with open(argv[2]) as f:
        c = json.load(f)
    rows = pair(t, c)
    fig = summarize(rows)
    write(rows, fig, argv[4], NOTE)
    print(json.dumps(fig))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
