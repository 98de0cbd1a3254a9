#!/usr/bin/env python3
"""torch_shapes.py - one short PyTorch program whose FLOPs the trace import derives from shapes and `roofline trace` counts.

    python3 tests/gpu/torch_shapes.py [--profile FILE] [--iters N]

GEMMs in FP32 (TF32 off), TF32, BF16 and FP8 (torch._scaled_mm, compute
capability 8.9+), a 3x3 convolution forward and backward (FP32 and BF16),
scaled-dot-product attention (BF16), and an all-reduce over every GPU when
there is more than one (torch.cuda.nccl, one process). The same work in the
same order on every run, so tests/gpu/device-run can pair its kernels:
once under torch.profiler (`--profile FILE`: record_shapes=True, the Chrome
trace exported to FILE, which `roofline report --torch` reads), once plain
under `roofline trace`, which counts them. cuDNN autotuning is off so both
runs pick the same kernels. Prints one JSON line per operation that ran or
was skipped, then {"done": ...}.

Shapes (FLOPs as torch.utils.flop_counter counts them, 2 per multiply-add):
  GEMM  4096 x 4096 x 4096: 2 M N K = 137.4 GFLOP each precision;
  conv  N 32, C 64 -> 64, 56 x 56, 3 x 3, pad 1: forward 2 N K C R S P Q =
        2 x 32 x 64 x 64 x 9 x 3136 = 7.4 GFLOP, backward twice that (input
        and weight gradients);
  SDPA  B 8, H 16, S 1024, D 64, not causal: 4 B H S^2 D = 34.4 GFLOP.
"""
import argparse
import json
import sys


def say(**row):
    print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", help="write torch.profiler's Chrome trace here")
    ap.add_argument("--iters", type=int, default=2, help="timed iterations after one warm-up")
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        say(error=f"no PyTorch: {e}")
        return 1
    if not torch.cuda.is_available():
        say(error="no CUDA device")
        return 1
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    dev = torch.device("cuda", 0)
    cc = torch.cuda.get_device_capability(dev)
    n = 4096
    a32 = torch.randn(n, n, device=dev)
    b32 = torch.randn(n, n, device=dev)
    a16, b16 = a32.bfloat16(), b32.bfloat16()
    fp8 = cc >= (8, 9) and hasattr(torch, "float8_e4m3fn") and hasattr(torch, "_scaled_mm")
    if fp8:
        a8 = a32.to(torch.float8_e4m3fn)
        b8 = b32.to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
        one = torch.ones((), device=dev)
    x = torch.randn(32, 64, 56, 56, device=dev, requires_grad=True)
    w = torch.randn(64, 64, 3, 3, device=dev, requires_grad=True)
    xb = x.detach().bfloat16().requires_grad_()
    wb = w.detach().bfloat16().requires_grad_()
    q, k, v = (torch.randn(8, 16, 1024, 64, device=dev, dtype=torch.bfloat16) for _ in range(3))
    gpus = torch.cuda.device_count()
    shards = [torch.randn(1 << 24, device=torch.device("cuda", i)) for i in range(gpus)] \
        if gpus > 1 else []

    def step():
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.mm(a32, b32)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.mm(a32, b32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.mm(a16, b16)
        if fp8:
            torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        for xi, wi in ((x, w), (xb, wb)):
            y = F.conv2d(xi, wi, padding=1)
            y.sum().backward()
        F.scaled_dot_product_attention(q, k, v)
        if shards:
            torch.cuda.nccl.all_reduce(shards)
        torch.cuda.synchronize()

    step()  # warm-up: cuBLAS / cuDNN handles, workspaces
    say(op="gemm", precisions=["fp32", "tf32", "bf16"] + (["fp8"] if fp8 else []), m=n, n=n, k=n)
    if not fp8:
        say(op="gemm-fp8", skipped=f"needs compute capability 8.9+ and torch._scaled_mm (cc {cc})")
    say(op="conv2d", input=[32, 64, 56, 56], weight=[64, 64, 3, 3], dtypes=["fp32", "bf16"],
        backward=True)
    say(op="sdpa", shape=[8, 16, 1024, 64], dtype="bf16")
    say(op="all_reduce", gpus=gpus, **({} if shards else {"skipped": "one GPU"}))
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     record_shapes=True) as prof:
            for _ in range(args.iters):
                step()
        prof.export_chrome_trace(args.profile)
    else:
        for _ in range(args.iters):
            step()
    say(done=True, iters=args.iters, profiled=bool(args.profile), gpu=torch.cuda.get_device_name(dev))
    return 0


if __name__ == "__main__":
    sys.exit(main())
