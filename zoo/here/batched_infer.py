#!/usr/bin/env python3
"""batched-infer: closed-loop batched inference of a small convolutional classifier (written here for
bench_mps's zoo; standard torch only).

An offline scorer: batches of --batch 3x--size x--size images, already on the GPU (a pool of 8), go through a
ResNet-like network (a stem, --blocks residual blocks of two 3x3 convolutions with batch norm, global average
pooling, a linear head) in float16 under torch.inference_mode(), and each batch's predicted classes are copied
back to the host (.cpu(), a host wait every batch) before the next is launched: the next batch waits for the
last, as a scorer that writes its results does. After --warmup untimed batches, --iters timed ones; it prints
nothing per batch, and one summary line at the end.
"""
import argparse
import sys
import time

import torch


class Block(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.na = torch.nn.BatchNorm2d(c)
        self.b = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.nb = torch.nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.na(self.a(x)))
        return torch.relu(x + self.nb(self.b(y)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iters", type=int, default=2000, help="timed batches (default 2000)")
    p.add_argument("--warmup", type=int, default=10, help="untimed batches first (default 10)")
    p.add_argument("--batch", type=int, default=128, help="images per batch (default 128)")
    p.add_argument("--size", type=int, default=32, help="image side in pixels (default 32)")
    p.add_argument("--width", type=int, default=64, help="channels of the residual blocks (default 64)")
    p.add_argument("--blocks", type=int, default=4, help="residual blocks (default 4)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("batched_infer.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)

    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, args.width, 3, padding=1, bias=False), torch.nn.BatchNorm2d(args.width), torch.nn.ReLU(),
        *[Block(args.width) for _ in range(args.blocks)],
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(args.width, 10),
    ).to(dev).half().eval()
    pool = [torch.randn(args.batch, 3, args.size, args.size, device=dev, dtype=torch.float16) for _ in range(8)]

    def run(count):
        seen = 0
        with torch.inference_mode():
            for i in range(count):
                seen += int(model(pool[i % len(pool)]).argmax(dim=1).cpu()[0])
        return seen

    run(args.warmup)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    run(args.iters)
    dt = time.perf_counter() - t0
    print("batched-infer: %d batches of %d %dx%d images through %d residual blocks (width %d) in %.3f s: "
          "%.4f ms each, %.0f images/s" % (args.iters, args.batch, args.size, args.size, args.blocks, args.width, dt,
                                          1e3 * dt / max(1, args.iters), args.iters * args.batch / max(dt, 1e-9)))


if __name__ == "__main__":
    main()
