#!/usr/bin/env python3
"""gemm: a GEMM-bound loop (written here for bench_mps's zoo; standard torch only).

A chain of square matrix products x <- x @ w (bf16 by default, n = 4096: 2*n^3 = 137 GFLOP each,
about 0.2 ms on an H100), with a host sync (torch.cuda.synchronize) every --sync-every products.
w is a random orthogonal matrix, so the chain keeps its scale; every --renorm-every products x is
rescaled to unit RMS all the same (two small kernels), against bf16 rounding drift.
A warm-up of --warmup products (cuBLAS heuristics, clocks), then --iters timed products; it prints
nothing per step, and one summary line at the end.
"""
import argparse
import sys
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iters", type=int, default=15000, help="timed matrix products (default 15000)")
    p.add_argument("--warmup", type=int, default=20, help="untimed products first (default 20)")
    p.add_argument("--n", type=int, default=4096, help="matrix side (default 4096)")
    p.add_argument("--sync-every", type=int, default=4, help="products between host syncs (default 4)")
    p.add_argument("--renorm-every", type=int, default=64, help="products between rescalings (default 64)")
    p.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("gemm.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)

    dev = torch.device("cuda")
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    gen = torch.Generator(device=dev).manual_seed(0)
    q, _ = torch.linalg.qr(torch.randn(args.n, args.n, device=dev, generator=gen))
    w = q.to(dtype)
    bufs = [torch.randn(args.n, args.n, device=dev, generator=gen).to(dtype), torch.empty(args.n, args.n, device=dev, dtype=dtype)]

    def run(count):
        for i in range(1, count + 1):
            torch.mm(bufs[0], w, out=bufs[1])
            bufs.reverse()
            if i % args.renorm_every == 0:
                bufs[0].mul_(bufs[0].float().square().mean().rsqrt().to(dtype))
            if i % args.sync_every == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()

    run(args.warmup)
    t0 = time.perf_counter()
    run(args.iters)
    dt = time.perf_counter() - t0
    flop = 2.0 * args.n ** 3 * args.iters
    print("gemm: %d products of %dx%d %s in %.3f s: %.4f ms each, %.1f TFLOP/s"
          % (args.iters, args.n, args.n, args.dtype, dt, 1e3 * dt / max(1, args.iters), flop / dt / 1e12))


if __name__ == "__main__":
    main()
