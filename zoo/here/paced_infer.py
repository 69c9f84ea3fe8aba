#!/usr/bin/env python3
"""paced-infer: a paced inference server (written here for bench_mps's zoo; standard torch only).

Requests arrive at a fixed rate on an absolute schedule: request k is due at t0 + k/rate (default 400
per second); the server sleeps until then (it never skips a request: one that is late runs at once).
Each request is a forward of a small MLP (--layers Linear+ReLU of --hidden units, a batch of --batch
inputs of --features) under torch.no_grad(): its input is copied from pinned host memory to the GPU and
its result back to the host (.cpu(), which waits for it). For each request it prints one line,
flushed,

    latency_ms=<float>

the time from the request's due time to its result on the host. After a warm-up of --warmup requests
(unpaced, unprinted), --requests paced ones; then one summary line (p50, p99, late requests) that does
not match the regex latency_ms=([0-9.]+).
"""
import argparse
import sys
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=1200, help="paced requests (default 1200: 3 s at 400/s)")
    p.add_argument("--rate", type=float, default=400.0, help="requests per second (default 400)")
    p.add_argument("--warmup", type=int, default=20, help="unpaced, unprinted requests first (default 20)")
    p.add_argument("--batch", type=int, default=32, help="inputs per request (default 32)")
    p.add_argument("--features", type=int, default=1024, help="input features (default 1024)")
    p.add_argument("--hidden", type=int, default=2048, help="hidden units (default 2048)")
    p.add_argument("--layers", type=int, default=4, help="Linear layers (default 4)")
    p.add_argument("--classes", type=int, default=1000, help="outputs (default 1000)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("paced_infer.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)

    dev = torch.device("cuda")
    torch.manual_seed(0)
    dims = [args.features] + [args.hidden] * (args.layers - 1) + [args.classes]
    mods = []
    for i in range(len(dims) - 1):
        mods.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            mods.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*mods).to(dev).eval()
    inputs = [torch.randn(args.batch, args.features).pin_memory() for _ in range(8)]

    def serve(k):
        with torch.no_grad():
            x = inputs[k % len(inputs)].to(dev, non_blocking=True)
            return model(x).softmax(dim=1).cpu()

    for k in range(args.warmup):
        serve(k)
    torch.cuda.synchronize()

    lat = []
    out = sys.stdout
    t0 = time.perf_counter() + 0.005
    for k in range(args.requests):
        due = t0 + k / args.rate
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        serve(k)
        ms = (time.perf_counter() - due) * 1e3
        lat.append(ms)
        out.write("latency_ms=%.4f\n" % ms)
        out.flush()

    s = sorted(lat)
    q = lambda f: s[min(len(s) - 1, int(f * len(s)))] if s else float("nan")
    late = sum(1 for v in lat if v > 1e3 / args.rate)
    print("paced-infer: %d requests at %.0f/s: p50 %.3f ms, p99 %.3f ms, max %.3f ms, %d finished after "
          "the next was due" % (len(lat), args.rate, q(0.5), q(0.99), s[-1] if s else float("nan"), late))


if __name__ == "__main__":
    main()
