#!/usr/bin/env python3
"""cuda-graphs: a training step captured whole in a CUDA graph (written here for bench_mps's zoo;
standard torch only).

It follows PyTorch's documented "whole network capture" pattern (CUDA semantics notes, "CUDA Graphs"):
static input and target tensors; a few warm-up steps on a side stream; then forward, loss, backward
and optimizer.step() captured in one torch.cuda.CUDAGraph (Adam with capturable=True, so its state
updates stay on the GPU), and replayed in a loop: each step copies a new batch into the static
tensors, replays the graph, and reads the loss to the host (.item(), a host wait every step).
The model is an MLP of --layers Linear+ReLU layers of --width units on a batch of --batch, in float32.
After --warmup untimed replays, --iters timed ones; it prints nothing per step, and one summary line
at the end.
"""
import argparse
import sys
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iters", type=int, default=10000, help="timed replays (default 10000)")
    p.add_argument("--warmup", type=int, default=10, help="untimed replays first (default 10)")
    p.add_argument("--batch", type=int, default=256, help="batch size (default 256)")
    p.add_argument("--width", type=int, default=1024, help="units per layer (default 1024)")
    p.add_argument("--layers", type=int, default=8, help="Linear layers (default 8)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("cuda_graphs.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)

    dev = torch.device("cuda")
    torch.manual_seed(0)
    mods = []
    for i in range(args.layers):
        mods.append(torch.nn.Linear(args.width, args.width))
        if i < args.layers - 1:
            mods.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*mods).to(dev)
    loss_fn = torch.nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, capturable=True)

    # A small pool of batches, already on the GPU: a step's input copy is device to device.
    pool = [(torch.randn(args.batch, args.width, device=dev), torch.randn(args.batch, args.width, device=dev))
            for _ in range(8)]
    static_input = torch.empty(args.batch, args.width, device=dev)
    static_target = torch.empty(args.batch, args.width, device=dev)
    static_input.copy_(pool[0][0])
    static_target.copy_(pool[0][1])

    # Warm up on a side stream (as documented: before capture, outside the default stream).
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(static_input), static_target)
            loss.backward()
            optimizer.step()
    torch.cuda.current_stream().wait_stream(s)

    # Capture forward, backward and the optimizer step whole.
    g = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static_loss = loss_fn(model(static_input), static_target)
        static_loss.backward()
        optimizer.step()

    def run(count):
        last = 0.0
        for i in range(count):
            x, y = pool[i % len(pool)]
            static_input.copy_(x)
            static_target.copy_(y)
            g.replay()
            last = static_loss.item()
        return last

    run(args.warmup)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    last = run(args.iters)
    dt = time.perf_counter() - t0
    print("cuda-graphs: %d replays of a %d-layer MLP step (batch %d, width %d) in %.3f s: %.4f ms each, "
          "last loss %.5f" % (args.iters, args.layers, args.batch, args.width, dt,
                              1e3 * dt / max(1, args.iters), last))


if __name__ == "__main__":
    main()
