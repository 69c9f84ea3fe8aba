#!/usr/bin/env python3
"""host_loop: the host calibration's two loops (issue 45 item 3; docs/PREDICT.md "The host, calibrated").

How N copies of a program slow each other's host part, apart from the GPU: each copy runs one of two loops and
prints the mean of its timed steps as "<ms> ms each" (bench_mps --exec-metric '([0-9.]+) ms each').
  launch  a Python loop that launches --launches tiny kernels a step (x.add_(1) on a 1-element tensor) and
          times only their launching: the step's clock stops when the last launch returns, before the
          synchronize that ends the step (the GPU's share of the step is a few microseconds a kernel, so the
          queue never fills and no launch waits for the GPU).
  cpu     a Python loop of arithmetic, no GPU work in the timed part (--work iterations a step).
Both initialise CUDA and launch one kernel before a warm-up (--warmup steps), so bench_mps's start gate
(--exec-gate first-kernel) releases the copies at once; then --steps timed steps.
"""
import argparse
import sys
import time

import torch


def launch_steps(x, steps, launches):
    """Each step's launching time, in seconds (the synchronize after it not counted)."""
    out = []
    for _ in range(steps):
        t0 = time.perf_counter()
        for _ in range(launches):
            x.add_(1)
        out.append(time.perf_counter() - t0)
        torch.cuda.synchronize()
    return out


def cpu_steps(steps, work):
    out = []
    acc = 0
    for _ in range(steps):
        t0 = time.perf_counter()
        for i in range(work):
            acc = (acc + i * i) % 1000003
        out.append(time.perf_counter() - t0)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", choices=("launch", "cpu"))
    p.add_argument("--steps", type=int, default=3000, help="timed steps (default 3000)")
    p.add_argument("--warmup", type=int, default=200, help="untimed steps first (default 200)")
    p.add_argument("--launches", type=int, default=50, help="launch: kernels a step (default 50)")
    p.add_argument("--work", type=int, default=4000, help="cpu: loop iterations a step (default 4000)")
    args = p.parse_args()
    if args.steps < 1 or args.warmup < 0 or args.launches < 1 or args.work < 1:
        print("host_loop.py: --steps, --launches and --work must be at least 1, --warmup at least 0", file=sys.stderr)
        sys.exit(2)
    if not torch.cuda.is_available():
        print("host_loop.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)
    x = torch.empty(1, device="cuda")
    x.fill_(0)  # the first kernel: the gate's point
    torch.cuda.synchronize()
    if args.kind == "launch":
        launch_steps(x, args.warmup, args.launches)
        times = launch_steps(x, args.steps, args.launches)
        what = "%d launches a step" % args.launches
    else:
        cpu_steps(args.warmup, args.work)
        times = cpu_steps(args.steps, args.work)
        what = "%d iterations a step" % args.work
    mean_ms = 1e3 * sum(times) / len(times)
    print("host_loop %s: %d steps (%s) in %.3f s: %.4f ms each" % (args.kind, len(times), what, sum(times), mean_ms))


if __name__ == "__main__":
    main()
