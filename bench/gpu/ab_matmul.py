#!/usr/bin/env python3
# The exec PI of bench/gpu/ab.yaml: bfloat16 (float32 on the CPU, AB_DEVICE=cpu)
# matmuls, ten a sample, timed between two synchronisations; prints pi.json.
# side "slow" does real extra work inside each timed sample: one more
# matmul of half the size (1/8 of the flops, about +12%), not a scaled number.
import argparse, json, time, torch
p = argparse.ArgumentParser()
p.add_argument("--side", required=True)
p.add_argument("--size", type=int, default=4096)
p.add_argument("--samples", type=int, default=40)
a = p.parse_args()
import os
dev = torch.device(os.environ.get("AB_DEVICE", "cuda"))
sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
dt = torch.bfloat16 if dev.type == "cuda" else torch.float32
g = torch.Generator().manual_seed(1)
n = a.size
x = (torch.rand(n, n, generator=g) + 0.5).to(dev, dt)
y = (torch.rand(n, n, generator=g) + 0.5).to(dev, dt)
h = n // 2
xs, ys = x[:h, :h].contiguous(), y[:h, :h].contiguous()
out = torch.empty(n, n, device=dev, dtype=dt)
outs = torch.empty(h, h, device=dev, dtype=dt)
def op():
    for _ in range(10):
        torch.matmul(x, y, out=out)
        if a.side == "slow":
            torch.matmul(xs, ys, out=outs)
for _ in range(5):
    op()
sync()
samples = []
for _ in range(a.samples):
    sync(); t0 = time.perf_counter(); op(); sync()
    samples.append((time.perf_counter() - t0) * 1e3)
med = sorted(samples)[len(samples) // 2]
print(json.dumps({"component": "torch-ab", "name": "ABMatmul",
    "@parameters": {"matrix_size": n, "side": a.side, "device": "gpu" if dev.type == "cuda" else "cpu"},
    "@result": {"elapsed": med, "samples_ms": samples,
                "tflops": 10 * 2 * n**3 / (med / 1e3) / 1e12},
    "versions": {"torch-ab": torch.__version__}}))
