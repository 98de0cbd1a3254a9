#!/usr/bin/env python3
"""torch_llm.py - one Llama-3-8B-shaped layer in PyTorch, decode and prefill, under NVTX ranges.

The PyTorch program `tests/gpu/device-run` traces through roofline's
injection library, and times with and without it (the timing-only
overhead). It prints one JSON line per phase:
    {"phase": "decode", "iters": 50, "ms_per_iter": 1.23, "max_rel_err": 0.004}
Each phase's output is checked once against the same layer in FP32.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn.functional as F

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN = 4096, 32, 8, 128, 14336


def rms_norm(x, w, eps=1e-5):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


class Layer:
    def __init__(self, dtype, device):
        g = torch.Generator(device="cpu").manual_seed(1234)

        def weight(out, inp):
            return (torch.randn(out, inp, generator=g) / inp ** 0.5).to(device=device, dtype=dtype)

        self.wqkv = weight((HEADS + 2 * KV_HEADS) * HEAD_DIM, HIDDEN)
        self.wo = weight(HIDDEN, HIDDEN)
        self.wgate = weight(FFN, HIDDEN)
        self.wup = weight(FFN, HIDDEN)
        self.wdown = weight(HIDDEN, FFN)
        self.n1 = torch.ones(HIDDEN, device=device, dtype=dtype)
        self.n2 = torch.ones(HIDDEN, device=device, dtype=dtype)

    def to(self, dtype):
        other = object.__new__(Layer)
        for k, v in vars(self).items():
            setattr(other, k, v.to(dtype))
        return other

    def forward(self, x, kv=None):
        """x: [tokens, HIDDEN]. kv: (k, v) caches [KV_HEADS, ctx, HEAD_DIM] for decode."""
        nvtx = torch.cuda.nvtx
        t = x.shape[0]
        nvtx.range_push("attention")
        h = rms_norm(x, self.n1)
        qkv = F.linear(h, self.wqkv)
        q, k, v = qkv.split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], -1)
        q = q.view(t, HEADS, HEAD_DIM).transpose(0, 1)
        k = k.view(t, KV_HEADS, HEAD_DIM).transpose(0, 1)
        v = v.view(t, KV_HEADS, HEAD_DIM).transpose(0, 1)
        if kv is not None:
            k = torch.cat([kv[0], k], 1)
            v = torch.cat([kv[1], v], 1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=kv is None, enable_gqa=True)
        x = x + F.linear(a.transpose(0, 1).reshape(t, HIDDEN), self.wo)
        nvtx.range_pop()
        nvtx.range_push("mlp")
        h = rms_norm(x, self.n2)
        x = x + F.linear(F.silu(F.linear(h, self.wgate)) * F.linear(h, self.wup), self.wdown)
        nvtx.range_pop()
        return x


def run(phase, layer, ref_layer, iters, ctx, tokens):
    dev = layer.wo.device
    g = torch.Generator(device="cpu").manual_seed(99)
    if phase == "decode":
        x = torch.randn(1, HIDDEN, generator=g).to(dev, torch.bfloat16)
        kv = tuple(torch.randn(KV_HEADS, ctx, HEAD_DIM, generator=g).to(dev, torch.bfloat16)
                   for _ in range(2))
    else:
        x = torch.randn(tokens, HIDDEN, generator=g).to(dev, torch.bfloat16)
        kv = None
    with torch.no_grad():
        # Check once against FP32 (relative to the output's RMS).
        y = layer.forward(x, kv).float()
        ref = ref_layer.forward(x.float(), None if kv is None else tuple(c.float() for c in kv))
        err = ((y - ref).abs().max() / ref.pow(2).mean().sqrt()).item()
        for _ in range(3):
            layer.forward(x, kv)
        torch.cuda.synchronize()
        start = time.perf_counter()
        torch.cuda.nvtx.range_push(phase)
        for _ in range(iters):
            layer.forward(x, kv)
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - start) * 1e3 / iters
    return {"phase": phase, "iters": iters, "ms_per_iter": round(ms, 4), "max_rel_err": err}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--phase", choices=["decode", "prefill", "both"], default="both")
    p.add_argument("--context", type=int, default=2048)
    p.add_argument("--tokens", type=int, default=2048)
    a = p.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA GPU", file=sys.stderr)
        return 77
    layer = Layer(torch.bfloat16, "cuda")
    ref = layer.to(torch.float32)
    failed = False
    for phase in (["decode", "prefill"] if a.phase == "both" else [a.phase]):
        r = run(phase, layer, ref, a.iters, a.context, a.tokens)
        r["ok"] = r["max_rel_err"] < 0.05  # BF16 through a whole layer
        failed |= not r["ok"]
        print(json.dumps(r), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
