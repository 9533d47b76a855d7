"""Optimizer-step and DataLoader benchmarks: tensorcore vs PyTorch in one run, same thread count.

Run: .venv/bin/python benchmarks/bench_optim_data.py [--threads N] [--params 25000000]
Prints both medians and the ratio tc/torch (< 1 means tensorcore is faster).
"""

import argparse
import statistics

import numpy as np

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.optim as optim
from tensorcore.utils.data import DataLoader, Dataset
from _common import parse_bench_args, run_times

try:
    import torch
    import torch.utils.data as tdata
except Exception:  # pragma: no cover
    torch = None


def median_time(fn, runs=7):
    return statistics.median(run_times(fn, min_runs=runs, max_runs=runs))


def param_shapes(total):
    # A ResNet-like mix: a few large matrices plus many small vectors (biases, norms).
    shapes, count = [], 0
    while count < total:
        big = min(total - count, 1_000_000)
        shapes.append((big,))
        count += big
        if count < total:
            shapes.append((512,))
            count += 512
    return shapes


def bench_optimizer(name, total, kwargs):
    rng = np.random.default_rng(0)
    shapes = param_shapes(total)
    inits = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ps = [nn.Parameter(tc.from_numpy(a.copy())) for a in inits]
    for p, g in zip(ps, grads):
        p.grad = tc.from_numpy(g.copy())
    opt = getattr(optim, name)(ps, **kwargs)
    t_tc = median_time(opt.step)
    rows = [(f"{name} step, {total / 1e6:.0f}M params in {len(shapes)} tensors", t_tc, None, None)]
    if torch is not None:
        best = None
        for foreach in (False, True):
            tps = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in inits]
            for p, g in zip(tps, grads):
                p.grad = torch.from_numpy(g.copy())
            topt = getattr(torch.optim, name)(tps, foreach=foreach, **kwargs)
            t = median_time(topt.step)
            label = "foreach" if foreach else "for-loop"
            best = (t, label) if best is None or t < best[0] else best
        rows[0] = (rows[0][0], t_tc, best[0], best[1])
    return rows


class SyntheticImages(Dataset):
    """Decode-like per-sample CPU work: build a 3x64x64 image from a seed and normalise it."""

    def __init__(self, n, lib):
        self.n, self.lib = n, lib

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)
        x = (img.astype(np.float32) / 255.0 - 0.5) / 0.25
        x = np.ascontiguousarray(x.transpose(2, 0, 1))
        return self.lib.from_numpy(x), i % 10


def bench_loader(n, batch_size, workers):
    def run(loader):
        count = 0
        for x, y in loader:
            count += x.shape[0]
        assert count == n

    ours = DataLoader(SyntheticImages(n, tc), batch_size=batch_size, num_workers=workers)
    t_tc = median_time(lambda: run(ours), runs=3)
    t_torch = None
    if torch is not None:
        theirs = tdata.DataLoader(
            SyntheticImages(n, torch), batch_size=batch_size, num_workers=workers
        )
        t_torch = median_time(lambda: run(theirs), runs=3)
    return [
        (
            f"DataLoader {n} samples 3x64x64, batch {batch_size}, {workers} workers (samples/s: tc "
            f"{n / t_tc:.0f})",
            t_tc,
            t_torch,
            "",
        )
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=int, default=25_000_000)
    args = parse_bench_args(ap, torch, None)
    rows = []
    rows += bench_optimizer("Adam", args.params, {"lr": 1e-3})
    rows += bench_optimizer("AdamW", args.params, {"lr": 1e-3, "weight_decay": 0.01})
    rows += bench_optimizer("SGD", args.params, {"lr": 1e-2, "momentum": 0.9})
    rows += bench_loader(4096, 64, 2)
    print(f"{'case':<78} {'tc ms':>9} {'torch ms':>9} {'ratio':>6}")
    for name, t_tc, t_torch, note in rows:
        ratio = f"{t_tc / t_torch:.2f}" if t_torch else "-"
        torch_ms = f"{t_torch * 1e3:9.2f}" if t_torch else f"{'-':>9}"
        note = f"  (torch best: {note})" if note else ""
        print(f"{name:<78} {t_tc * 1e3:9.2f} {torch_ms} {ratio:>6}{note}")


if __name__ == "__main__":
    main()
