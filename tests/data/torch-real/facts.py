#!/usr/bin/env python3
"""Independent reference facts for the real PyTorch-profiler (Kineto) traces in
this folder.  Uses only json + gzip from the standard library.

Usage: python3 facts.py > facts.json   (run from this folder)

Definitions
-----------
* kernel   : events with cat "kernel" (new Kineto) or "Kernel" (old format)
* memcpy   : cat "gpu_memcpy" / "Memcpy";  memset: cat "gpu_memset" / "Memset"
* GPU activity = kernel + memcpy + memset events
* cpu_op   : cat "cpu_op" (new) or "Operator" (old format)
* runtime  : cat whose lower-case form contains "runtime" or "driver"
* External id key: args["External id"]; the old format spells it
  args["external id"], which is used as a fallback when the former is absent.
* A = GPU activities whose External id equals some cpu_op's External id
* B = of the rest, those whose args.correlation equals the correlation of a
      runtime/driver event whose External id equals some cpu_op's External id
* C = total GPU activities - A - B  (no time-span fallback applied here)
* Supplementary (not part of A/B/C): "span_fallback_of_C" = of the C
  activities, how many have a launching runtime event (same correlation) whose
  [ts, ts+dur] lies inside a cpu_op's [ts, ts+dur] on the same pid/tid;
  "first_gemms_by_span" = first 3 aten::mm/addmm (with Input Dims) that own at
  least one kernel when kernels are attributed to the innermost enclosing
  cpu_op of their launching runtime event.
* flops of a GEMM = 2*M*N*K, aten::mm: dims[0]=[M,K], dims[1]=[K,N];
  aten::addmm: dims[1]=[M,K], dims[2]=[K,N].  Calls whose dims are not
  2-D/consistent are counted in "mm_calls_bad_dims" and contribute no flops.
"""
import gzip, json, os, sys, collections

KERNEL = {"kernel", "Kernel"}
MEMCPY = {"gpu_memcpy", "Memcpy"}
MEMSET = {"gpu_memset", "Memset"}
CPUOP = {"cpu_op", "Operator"}


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def ext_id(e):
    a = e.get("args") or {}
    if "External id" in a:
        return a["External id"]
    return a.get("external id")


def in_dims(a):
    """record_shapes dims: "Input Dims" (PyTorch >= 1.9); the PyTorch 1.8-era
    Kineto format spells it "Input dims"."""
    d = a.get("Input Dims")
    return d if d is not None else a.get("Input dims")


def corr(e):
    return (e.get("args") or {}).get("correlation")


def is_runtime(e):
    c = (e.get("cat") or "").lower()
    return "runtime" in c or "driver" in c


def gemm_flops(name, dims):
    try:
        if name == "aten::mm":
            a, b = dims[0], dims[1]
        else:
            a, b = dims[1], dims[2]
        if len(a) != 2 or len(b) != 2 or a[1] != b[0]:
            return None
        m, k = a
        n = b[1]
        return 2 * m * n * k
    except (IndexError, TypeError):
        return None


def facts(path):
    d = load(path)
    ev = d if isinstance(d, list) else d.get("traceEvents", [])
    ev = [e for e in ev if isinstance(e, dict)]
    meta = {} if isinstance(d, list) else d
    cats = collections.Counter(str(e.get("cat")) for e in ev)
    kern = [e for e in ev if e.get("cat") in KERNEL]
    mcpy = [e for e in ev if e.get("cat") in MEMCPY]
    mset = [e for e in ev if e.get("cat") in MEMSET]
    gpu = kern + mcpy + mset
    cpuops = [e for e in ev if e.get("cat") in CPUOP]
    cpu_ext = {ext_id(e) for e in cpuops if ext_id(e) is not None}
    rts = [e for e in ev if is_runtime(e)]
    rt_corr_linked = {corr(e) for e in rts
                      if corr(e) is not None and ext_id(e) in cpu_ext}
    A = B = 0
    for g in gpu:
        x = ext_id(g)
        if x is not None and x in cpu_ext:
            A += 1
        elif corr(g) is not None and corr(g) in rt_corr_linked:
            B += 1
    kcorr = {corr(k) for k in kern if corr(k) is not None}
    launch_names = collections.Counter(e.get("name") for e in rts
                                       if corr(e) is not None and corr(e) in kcorr)
    # kernels per External id (direct, or through the launching runtime event)
    rt_ext_by_corr = {}
    for r in rts:
        if corr(r) is not None and ext_id(r) is not None:
            rt_ext_by_corr.setdefault(corr(r), ext_id(r))
    kern_by_ext = collections.defaultdict(list)
    for i, k in enumerate(kern):
        keys = set()
        if ext_id(k) is not None:
            keys.add(ext_id(k))
        if corr(k) in rt_ext_by_corr:
            keys.add(rt_ext_by_corr[corr(k)])
        for x in keys:
            kern_by_ext[x].append(k)
    first = []
    n_mm = 0; n_bad = 0; total_flops = 0
    n_mm_name = collections.Counter()
    for e in sorted(cpuops, key=lambda e: e.get("ts", 0)):
        if e.get("name") not in ("aten::mm", "aten::addmm"):
            continue
        a = e.get("args") or {}
        dims = in_dims(a)
        if not dims:
            continue
        n_mm += 1; n_mm_name[e["name"]] += 1
        fl = gemm_flops(e["name"], dims)
        if fl is None:
            n_bad += 1
        else:
            total_flops += fl
        ks = kern_by_ext.get(ext_id(e), [])
        if ks and len(first) < 3:
            first.append({
                "name": e["name"], "ts": e.get("ts"),
                "Input Dims": dims, "Input type": a.get("Input type"),
                "External id": ext_id(e),
                "kernels": [{"name": k.get("name"), "dur": k.get("dur")} for k in ks],
                "flops_2MNK": fl,
            })
    # ---- supplementary time-span attribution ----
    import bisect
    by_thread = collections.defaultdict(list)
    for e in cpuops:
        if "ts" in e and "dur" in e:
            by_thread[(e.get("pid"), e.get("tid"))].append(e)
    starts = {}
    for key, lst in by_thread.items():
        lst.sort(key=lambda e: (e["ts"], -e["dur"]))
        starts[key] = [e["ts"] for e in lst]

    def innermost(r):
        key = (r.get("pid"), r.get("tid"))
        lst = by_thread.get(key)
        if not lst or "ts" not in r:
            return None
        t0 = r["ts"]; t1 = t0 + r.get("dur", 0)
        i = bisect.bisect_right(starts[key], t0) - 1
        while i >= 0:
            o = lst[i]
            if o["ts"] <= t0 and t1 <= o["ts"] + o["dur"]:
                return o
            i -= 1
        return None

    rt_by_corr = {}
    for r in rts:
        if corr(r) is not None:
            rt_by_corr.setdefault(corr(r), r)
    span_C = 0
    for g in gpu:
        x = ext_id(g)
        if x is not None and x in cpu_ext:
            continue
        if corr(g) is not None and corr(g) in rt_corr_linked:
            continue
        r = rt_by_corr.get(corr(g))
        if r is not None and innermost(r) is not None:
            span_C += 1
    kern_by_op = collections.defaultdict(list)
    for k in kern:
        r = rt_by_corr.get(corr(k))
        if r is None:
            continue
        o = innermost(r)
        if o is not None:
            kern_by_op[id(o)].append(k)
    first_span = []
    for e in sorted(cpuops, key=lambda e: e.get("ts", 0)):
        if len(first_span) >= 3:
            break
        a = e.get("args") or {}
        if e.get("name") not in ("aten::mm", "aten::addmm") or not in_dims(a):
            continue
        ks = kern_by_op.get(id(e), [])
        if ks:
            first_span.append({
                "name": e["name"], "ts": e.get("ts"),
                "Input Dims": in_dims(a), "Input type": a.get("Input type"),
                "External id": ext_id(e),
                "kernels": [{"name": k.get("name"), "dur": k.get("dur")} for k in ks],
                "flops_2MNK": gemm_flops(e["name"], in_dims(a)),
            })

    # ---- added facts (second pass of the collection) ----
    # kernels whose correlation matches a runtime/driver event, and of those
    # the ones whose runtime event's External id names a cpu_op
    rt_corrs = {corr(r) for r in rts if corr(r) is not None}
    k_rt = [k for k in kern if corr(k) is not None and corr(k) in rt_corrs]
    k_rt_op = [k for k in k_rt if rt_ext_by_corr.get(corr(k)) in cpu_ext]
    # aten::bmm, [B,M,K] x [B,K,N] -> 2*B*M*N*K
    first_bmm = []
    n_bmm = 0
    for e in sorted(cpuops, key=lambda e: e.get("ts", 0)):
        if e.get("name") != "aten::bmm":
            continue
        a = e.get("args") or {}
        dims = in_dims(a)
        if not dims:
            continue
        n_bmm += 1
        ks = kern_by_ext.get(ext_id(e), [])
        if ks and len(first_bmm) < 3:
            try:
                (b, m, k1), (b2, k2, n) = dims[0], dims[1]
                fl = 2 * b * m * n * k1 if (b == b2 and k1 == k2) else None
            except (ValueError, TypeError, IndexError):
                fl = None
            first_bmm.append({"name": e["name"], "ts": e.get("ts"), "Input Dims": dims,
                              "Input type": a.get("Input type"), "External id": ext_id(e),
                              "kernels": [{"name": k.get("name"), "dur": k.get("dur")} for k in ks],
                              "flops_2BMNK": fl})
    # timestamp-unit evidence
    tss = [e["ts"] for e in ev if isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M"]
    durs = [e["dur"] for e in ev if isinstance(e.get("dur"), (int, float))]
    def _isint(v):
        return isinstance(v, int) or float(v).is_integer()
    ts_units = {
        "displayTimeUnit": meta.get("displayTimeUnit"),
        "baseTimeNanoseconds": meta.get("baseTimeNanoseconds"),
        "ts_json_int": sum(1 for v in tss if isinstance(v, int)),
        "ts_json_float": sum(1 for v in tss if isinstance(v, float)),
        "ts_with_fraction": sum(1 for v in tss if not _isint(v)),
        "dur_json_int": sum(1 for v in durs if isinstance(v, int)),
        "dur_json_float": sum(1 for v in durs if isinstance(v, float)),
        "dur_with_fraction": sum(1 for v in durs if not _isint(v)),
        "ts_min": min(tss) if tss else None,
        "ts_max": max(tss) if tss else None,
        "ts_span": (max(tss) - min(tss)) if tss else None,
        "ts_digits_before_point": len(str(int(min(tss)))) if tss else None,
        "kernel_dur_median": (sorted(k.get("dur", 0) for k in kern)[len(kern) // 2]
                              if kern else None),
    }
    top_level = {k: v for k, v in meta.items()
                 if k not in ("traceEvents", "deviceProperties")
                 and isinstance(v, (str, int, float, bool))
                 and k not in ("INFO",) and len(str(v)) < 200}
    n_flops_arg = sum(1 for e in cpuops if "flops" in (e.get("args") or {}))
    dp = meta.get("deviceProperties") or []
    dp0 = next((p for p in dp if p.get("id") == 0), dp[0] if dp else None)
    return {
        "file_bytes": os.path.getsize(path),
        "num_events": len(ev),
        "schemaVersion": meta.get("schemaVersion"),
        "events_by_cat": dict(sorted(cats.items())),
        "distinct_cats": sorted(cats),
        "num_kernels": len(kern),
        "num_memcpy": len(mcpy),
        "num_memset": len(mset),
        "num_gpu_activities": len(gpu),
        "kernel_dur_sum_us": round(sum(k.get("dur", 0) for k in kern), 6),
        "gpu_activity_dur_sum_us": round(sum(g.get("dur", 0) for g in gpu), 6),
        "num_cpu_ops": len(cpuops),
        "link_A_external_id": A,
        "link_B_via_runtime_correlation": B,
        "link_C_unlinked": len(gpu) - A - B,
        "span_fallback_of_C": span_C,
        "device0": None if dp0 is None else {k: dp0.get(k) for k in
                                             ("name", "numSms", "totalGlobalMem", "warpSize")},
        "num_devices_listed": len(dp),
        "distributedInfo": meta.get("distributedInfo"),
        "kernel_launch_runtime_names": dict(sorted(launch_names.items())),
        "first_gemms": first,
        "first_gemms_by_span": first_span,
        "mm_addmm_calls_with_shapes": n_mm,
        "mm_addmm_calls_by_name": dict(n_mm_name),
        "mm_calls_bad_dims": n_bad,
        "mm_addmm_flops_sum": total_flops,
        # ---- added in the second pass ----
        "top_level_scalars": top_level,
        "ts_units": ts_units,
        "kernels_corr_matches_runtime": len(k_rt),
        "kernels_corr_matches_runtime_and_runtime_ext_id_is_cpu_op": len(k_rt_op),
        "cpu_ops_with_flops_arg": n_flops_arg,
        "nccl_or_rccl_kernels": sum(1 for k in kern if "nccl" in (k.get("name") or "").lower()),
        "bmm_calls_with_shapes": n_bmm,
        "first_bmms": first_bmm,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = {}
    for root, _, files in sorted(os.walk(here)):
        for f in sorted(files):
            if f.endswith(".json.gz") or (f.endswith(".json") and f != "facts.json"):
                p = os.path.join(root, f)
                out[os.path.relpath(p, here)] = facts(p)
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
