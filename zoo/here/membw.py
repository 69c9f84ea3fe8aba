#!/usr/bin/env python3
"""membw: a memory-bandwidth-bound loop (written here for bench_mps's zoo; standard torch only).

The STREAM triad a = b + s*c over three float32 tensors of --gib GiB each (default 1: one kernel
reads 2 GiB and writes 1 GiB, about 1 ms at 3 TB/s), as one fused torch.add(b, c, alpha=s, out=a),
with a host sync (torch.cuda.synchronize) every --sync-every triads. It needs 3 x --gib GiB of GPU
memory per copy. A warm-up of --warmup triads, then --iters timed triads; it prints nothing per step,
and one summary line at the end.
"""
import argparse
import sys
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iters", type=int, default=3000, help="timed triads (default 3000)")
    p.add_argument("--warmup", type=int, default=10, help="untimed triads first (default 10)")
    p.add_argument("--gib", type=float, default=1.0, help="GiB per tensor (default 1)")
    p.add_argument("--sync-every", type=int, default=4, help="triads between host syncs (default 4)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("membw.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)

    dev = torch.device("cuda")
    n = int(args.gib * 2 ** 30) // 4
    a = torch.empty(n, device=dev, dtype=torch.float32)
    b = torch.full((n,), 1.0, device=dev, dtype=torch.float32)
    c = torch.full((n,), 2.0, device=dev, dtype=torch.float32)
    s = 3.0

    def run(count):
        for i in range(1, count + 1):
            torch.add(b, c, alpha=s, out=a)
            if i % args.sync_every == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()

    run(args.warmup)
    t0 = time.perf_counter()
    run(args.iters)
    dt = time.perf_counter() - t0
    moved = 3.0 * 4 * n * args.iters
    print("membw: %d triads over 3 x %.3f GiB in %.3f s: %.4f ms each, %.1f GB/s"
          % (args.iters, 4 * n / 2 ** 30, dt, 1e3 * dt / max(1, args.iters), moved / dt / 1e9))


if __name__ == "__main__":
    main()
