#!/usr/bin/env python3
"""Seed 001's client: the training part of PyTorch's MNIST example, as the seed ran it (no evaluation).

The seed trained an MLP on MNIST with the example's loop: a DataLoader (batch 64, shuffled) whose
dataset turns each uint8 image into a normalised float tensor on the host, one sample at a time, eager
launches, SGD, and loss.item() after every step. The machines that run bench_mps have no internet, so
the images are synthetic: 60000 random 28x28 uint8 images with random labels, drawn from --seed. The
work per step is the example's; the loss only shows that training runs.

Run it through bench_mps:
  bench_mps --workloads exec --command 'python3 scripts/examples/mnist_train.py' \
            --exec-metric 'step_ms=([0-9.]+)' --procs 1,5,10 --modes timeslice,mps
Each step prints "step_ms=<ms>" (the metric); the last line gives the epoch's time.
"""
import argparse
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.5)
    p.add_argument("--samples", type=int, default=60000, help="synthetic MNIST-shaped training images")
    p.add_argument("--hidden", type=int, default=512, help="width of the two hidden layers (784-H-H-10)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="cuda", help="cuda or cpu")
    args = p.parse_args()

    t_start = time.monotonic()
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, Dataset
    except ImportError as e:
        print(f"mnist_train.py: PyTorch is not importable here: {e}", file=sys.stderr)
        return 2
    if args.device == "cuda" and not torch.cuda.is_available():
        print("mnist_train.py: CUDA is not available to PyTorch (use --device cpu to run without a GPU)", file=sys.stderr)
        return 3

    class SyntheticMnist(Dataset):
        """uint8 28x28 images; __getitem__ does what ToTensor() + Normalize((0.1307,), (0.3081,)) do."""

        def __init__(self, n, seed):
            g = torch.Generator().manual_seed(seed)
            self.images = torch.randint(0, 256, (n, 28, 28), dtype=torch.uint8, generator=g)
            self.labels = torch.randint(0, 10, (n,), generator=g)

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, i):
            x = self.images[i].unsqueeze(0).float().div(255.0)
            return (x - 0.1307) / 0.3081, int(self.labels[i])

    class Net(nn.Module):
        def __init__(self, hidden):
            super().__init__()
            self.fc1 = nn.Linear(784, hidden)
            self.fc2 = nn.Linear(hidden, hidden)
            self.fc3 = nn.Linear(hidden, 10)

        def forward(self, x):
            x = x.view(-1, 784)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return F.log_softmax(self.fc3(x), dim=1)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    loader = DataLoader(SyntheticMnist(args.samples, args.seed), batch_size=args.batch_size, shuffle=True)
    model = Net(args.hidden).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    index = __import__("os").environ.get("BENCH_MPS_WORKER_INDEX", "0")
    print(f"[{index}] training starts: {args.samples} samples, batch {args.batch_size}, device {device}, "
          f"start-up {time.monotonic() - t_start:.3f} s", flush=True)

    t_train = time.monotonic()
    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        t_step = time.monotonic()
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            value = loss.item()  # waits for the GPU, as the example's logging does
            now = time.monotonic()
            step += 1
            print(f"epoch={epoch} step={step} loss={value:.4f} step_ms={(now - t_step) * 1e3:.3f}", flush=True)
            t_step = now
    sys.stdout.flush()
    print(f"[{index}] training ends: {step} steps in {time.monotonic() - t_train:.3f} s "
          f"({time.monotonic() - t_start:.3f} s with start-up)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
