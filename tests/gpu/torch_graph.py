#!/usr/bin/env python3
"""torch_graph.py - a CUDA graph captured and replayed in PyTorch, for `roofline trace`.

tests/gpu/device-run traces it with counters on every launch (--samples 0):
a launch into a stream being captured must never be counted (the profiler's
per-kernel synchronisation would break the capture), so the program must
finish, its replayed result must match an eager run, and the trace must
say how many launches it left uncounted (counters.launches_in_capture).
Prints one JSON line: {"graph": "ok", "max_abs_err": ...}.
"""
import json

import torch

x = torch.randn(1024, 1024, device="cuda")
y = torch.empty_like(x)
# Warm up on a side stream first (cuBLAS creates its handle and workspace
# there, not inside the capture), as PyTorch's CUDA graph notes advise.
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    y.copy_(x @ x)
torch.cuda.current_stream().wait_stream(s)
torch.cuda.synchronize()
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y.copy_(x @ x)
g.replay()
torch.cuda.synchronize()
err = float((y - x @ x).abs().max())
if not err < 1e-2:
    raise SystemExit(f"graph replay differs from eager: {err}")
print(json.dumps({"graph": "ok", "max_abs_err": err}))
