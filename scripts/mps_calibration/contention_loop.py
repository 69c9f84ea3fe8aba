#!/usr/bin/env python3
"""contention_loop: the MPS contention calibration's programs (issue 45 item 2; docs/PREDICT.md "MPS contention,
calibrated").

How N copies under MPS slow each other's kernels where the simulator's share model (1 / max(1, the SM shares added
up, the memory bandwidth demands added up)) sees room for all: each copy runs one synthetic kernel shape, back to back
with no host work between (a step: --kernels kernels, then a synchronize), and prints the mean of its timed steps as
"<ms> ms each" (bench_mps --exec-metric '([0-9.]+) ms each').
  gemmS   an fp16 S x S matrix product (cuBLAS; S 256-8192): its grid, and so its share of the SMs, grows with S
  streamM a STREAM-like add over three fp32 tensors of M MiB each (M 8-4096): memory bound, the GPU's whole grid
Nothing of a program predicted enters these: they are shapes, their shares read from their own profile alone.
The first kernel comes before a warm-up (--warmup steps), so bench_mps's start gate (--exec-gate first-kernel)
releases the copies at once; then timed steps for --seconds.
"""
import argparse
import re
import sys
import time

import torch


def make_step(kind):
    """The step's kernels as a function, from the kind's word: gemmS or streamM."""
    m = re.fullmatch(r"(gemm|stream)([0-9]+)", kind)
    if not m:
        raise ValueError("kind '%s': gemmS (S 256-8192) or streamM (M 8-4096 MiB)" % kind)
    size = int(m.group(2))
    if m.group(1) == "gemm":
        if not 256 <= size <= 8192:
            raise ValueError("kind '%s': a gemm's size is 256-8192" % kind)
        a = torch.randn(size, size, device="cuda", dtype=torch.float16)
        b = torch.randn(size, size, device="cuda", dtype=torch.float16)
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        return lambda: torch.mm(a, b, out=c)
    if not 8 <= size <= 4096:
        raise ValueError("kind '%s': a stream's size is 8-4096 MiB" % kind)
    n = size * 1024 * 1024 // 4
    x = torch.ones(n, device="cuda")
    y = torch.ones(n, device="cuda")
    z = torch.empty(n, device="cuda")
    return lambda: torch.add(x, y, out=z)


def run_steps(step, steps, kernels, seconds=0.0):
    """Each step's time, in seconds: `steps` of them, or as many as `seconds` hold where it is given."""
    out = []
    until = time.perf_counter() + seconds
    while (time.perf_counter() < until) if seconds else (len(out) < steps):
        t0 = time.perf_counter()
        for _ in range(kernels):
            step()
        torch.cuda.synchronize()
        out.append(time.perf_counter() - t0)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", help="gemmS (an S x S fp16 product) or streamM (an add over M MiB tensors)")
    p.add_argument("--seconds", type=float, default=2.0,
                   help="timed steps for this long (default 2 s: copies at N end about together)")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps first (default 20)")
    p.add_argument("--kernels", type=int, default=20, help="kernels a step, back to back (default 20)")
    args = p.parse_args()
    if not 0.1 <= args.seconds <= 600 or args.warmup < 0 or args.kernels < 1:
        print("contention_loop.py: --seconds must be 0.1-600, --kernels at least 1, --warmup at least 0",
              file=sys.stderr)
        sys.exit(2)
    if not torch.cuda.is_available():
        print("contention_loop.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)
    try:
        step = make_step(args.kind)  # its tensors' initialisation: the first kernels, the gate's point
    except ValueError as e:
        print("contention_loop.py: %s" % e, file=sys.stderr)
        sys.exit(2)
    torch.cuda.synchronize()
    run_steps(step, args.warmup, args.kernels)
    times = run_steps(step, 0, args.kernels, args.seconds)
    mean_ms = 1e3 * sum(times) / len(times)
    print("contention_loop %s: %d steps (%d kernels a step) in %.3f s: %.4f ms each" %
          (args.kind, len(times), args.kernels, sum(times), mean_ms))


if __name__ == "__main__":
    main()
