#!/usr/bin/env python3
"""torch_peers.py - PyTorch's own rates, to set beside roofline's measured ceilings.

tests/gpu/device-run puts these next to `roofline bench`: torch.matmul BF16
and torch._scaled_mm FP8 on 8192^3 against our wgmma peak and our cuBLASLt
GEMM, and a device-to-device copy against our HBM copy. One JSON line per
figure: {"name": "torch_bf16_tflops", "value": 712.3, "origin": "measured", ...}
Each result is checked against the same product in FP32 on a slice.

FLOPs of an M x N x K GEMM: 2MNK (one multiply and one add per term).
Bytes of a copy of B bytes: 2B (read once, written once).
"""
import json
import sys

import torch


def timed_ms(fn, reps):
    """Median of reps timed runs (CUDA events), after two warm-ups."""
    fn()
    fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def emit(name, value, **more):
    print(json.dumps({"name": name, "value": round(value, 3), "origin": "measured", **more}),
          flush=True)


failures = []


def check(c, a, b, what, tol):
    """Rows 0..63 of c against the FP32 product (b: [N, K], c = a @ b.T); a
    miss is recorded (the run exits 1 at the end, every figure printed)."""
    ref = a[:64].float() @ b.float().t()
    err = ((c[:64].float() - ref).abs().max() / ref.abs().max()).item()
    if not err < tol:
        failures.append(f"{what}: relative error {err:.3g} above {tol}")
    return err


def main():
    dev = torch.device("cuda")
    n = 8192
    flops = 2.0 * n * n * n
    g = torch.Generator(device=dev).manual_seed(7)
    a = torch.randn(n, n, device=dev, generator=g).to(torch.bfloat16)
    b = torch.randn(n, n, device=dev, generator=g).to(torch.bfloat16)
    c = torch.empty(n, n, device=dev, dtype=torch.bfloat16)
    ms = timed_ms(lambda: torch.matmul(a, b.t(), out=c), 10)
    err = check(c, a, b, "bf16 matmul", 2e-2)
    emit("torch_bf16_tflops", flops / ms / 1e9, shape=[n, n, n], ms=ms, max_rel_err=err)

    if hasattr(torch, "_scaled_mm") and hasattr(torch, "float8_e4m3fn"):
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.to(torch.float8_e4m3fn)  # [N, K] row-major: b8.t() is column-major
        one = torch.ones((), device=dev)
        out = {}

        def fp8():
            out["c"] = torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
        try:
            ms = timed_ms(fp8, 10)
            err = check(out["c"], a8.to(torch.bfloat16), b8.to(torch.bfloat16),
                        "fp8 _scaled_mm", 2e-2)
            emit("torch_fp8_tflops", flops / ms / 1e9, shape=[n, n, n], ms=ms, max_rel_err=err)
        except Exception as e:  # the copy below still runs
            failures.append(f"fp8: torch._scaled_mm refused: {type(e).__name__}: {e}")
    del a, b, c

    nbytes = 4 << 30
    src = torch.randint(0, 255, (nbytes,), device=dev, dtype=torch.uint8)
    dst = torch.empty_like(src)
    ms = timed_ms(lambda: dst.copy_(src), 10)
    if not torch.equal(dst[:: 1 << 20], src[:: 1 << 20]):
        failures.append("copy: destination differs")
    emit("torch_copy_gbs", 2.0 * nbytes / ms / 1e6, bytes=nbytes, ms=ms)
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
