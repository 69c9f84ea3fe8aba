#!/usr/bin/env python3
"""amp-train: mixed-precision training of a small transformer encoder (written here for bench_mps's zoo;
standard torch only).

It follows PyTorch's documented automatic mixed precision recipe (torch.amp: "Typical Mixed Precision
Training"): the forward pass and the loss under torch.autocast("cuda", dtype=torch.float16), the backward
pass and the optimizer step through a torch.amp.GradScaler (scaled loss, unscaled step, scale updated every
step). The model: token embeddings, --layers torch.nn.TransformerEncoderLayer of --width units (8 heads,
batch first), a linear head over a --vocab vocabulary; each step trains it to predict every token of a random
sequence batch (--batch x --seq, a pool of 8 batches already on the GPU) shifted by one, with AdamW, and reads
the loss to the host (.item(), a host wait every step). After --warmup untimed steps, --iters timed ones; it
prints nothing per step, and one summary line at the end.
"""
import argparse
import sys
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iters", type=int, default=600, help="timed steps (default 600)")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    p.add_argument("--batch", type=int, default=32, help="sequences per batch (default 32)")
    p.add_argument("--seq", type=int, default=128, help="tokens per sequence (default 128)")
    p.add_argument("--width", type=int, default=256, help="model width (default 256)")
    p.add_argument("--layers", type=int, default=4, help="encoder layers (default 4)")
    p.add_argument("--vocab", type=int, default=8000, help="vocabulary size (default 8000)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("amp_train.py: CUDA is not available (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)

    dev = torch.device("cuda")
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(args.width, 8, 4 * args.width, dropout=0.1, batch_first=True)
    model = torch.nn.ModuleDict({
        "embed": torch.nn.Embedding(args.vocab, args.width),
        "encoder": torch.nn.TransformerEncoder(layer, args.layers, enable_nested_tensor=False),
        "head": torch.nn.Linear(args.width, args.vocab),
    }).to(dev)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    loss_fn = torch.nn.CrossEntropyLoss()
    mask = torch.nn.Transformer.generate_square_subsequent_mask(args.seq, device=dev)
    pool = [torch.randint(0, args.vocab, (args.batch, args.seq + 1), device=dev) for _ in range(8)]

    def run(count):
        last = 0.0
        for i in range(count):
            tokens = pool[i % len(pool)]
            x, y = tokens[:, :-1], tokens[:, 1:]
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                h = model["encoder"](model["embed"](x), mask=mask, is_causal=True)
                loss = loss_fn(model["head"](h).reshape(-1, args.vocab), y.reshape(-1))
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            last = loss.item()
        return last

    run(args.warmup)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    last = run(args.iters)
    dt = time.perf_counter() - t0
    print("amp-train: %d float16-autocast steps of a %d-layer transformer encoder (width %d, batch %dx%d) in "
          "%.3f s: %.4f ms each, last loss %.4f" % (args.iters, args.layers, args.width, args.batch, args.seq, dt,
                                                   1e3 * dt / max(1, args.iters), last))


if __name__ == "__main__":
    main()
