"""torch_phases.py: a PyTorch training loop that marks its training steps with NVTX, as a user's program may, for
the device step `unitrange` (scripts/device_steps/unitrange.sh) of --exec-unit-range.

    python3 torch_phases.py [EPOCHS [STEPS [TEST]]]   (default 3 400 100)

Each epoch: STEPS training steps of an MLP (784-1024-1024-10, batch 256, SGD, loss.item() each step: one host
wait), each inside torch.cuda.nvtx.range_push("train_step"); then a test pass of TEST batches of 8192 without
gradients (one .item() each), inside "test": steps of another kind (no backward pass, a larger batch) that the
steps' lengths alone need not tell apart; the range keeps the training steps. At the end one line: step_ms (the
training steps' mean over all epochs, by the host's clock) and test_ms (the test batches').
"""
import sys
import time

import torch


def count(text, name):
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 < n <= 100000:
        sys.exit(f"torch_phases: {name} '{text}' is not a count of 1 to 100000")
    return n


def main():
    args = sys.argv[1:]
    if len(args) > 3:
        sys.exit("usage: torch_phases.py [EPOCHS [STEPS [TEST]]]")
    defaults = ["3", "400", "100"]
    epochs, steps, tests = (count(a, n) for a, n in zip(args + defaults[len(args):], ("EPOCHS", "STEPS", "TEST")))
    if not torch.cuda.is_available():
        sys.exit("torch_phases: no CUDA device")
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(256, 784, device=dev), torch.randint(0, 10, (256,), device=dev)
    tx = torch.randn(8192, 784, device=dev)
    loss_fn = torch.nn.CrossEntropyLoss()
    train_s = test_s = 0.0
    for _ in range(epochs):
        t = time.perf_counter()
        for _ in range(steps):
            torch.cuda.nvtx.range_push("train_step")
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            loss.item()
            torch.cuda.nvtx.range_pop()
        train_s += time.perf_counter() - t
        t = time.perf_counter()
        torch.cuda.nvtx.range_push("test")
        with torch.no_grad():
            for _ in range(tests):
                model(tx).argmax(1).sum().item()
        torch.cuda.nvtx.range_pop()
        test_s += time.perf_counter() - t
    print(f"step_ms {1e3 * train_s / (epochs * steps):.4f} test_ms {1e3 * test_s / (epochs * tests):.4f}", flush=True)


if __name__ == "__main__":
    main()
