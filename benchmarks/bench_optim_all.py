"""Every optimizer's step, tensorcore's fused loops vs torch.optim (its better of the for-loop and
foreach paths), same float32 parameters and gradients, same thread count, in one run.

    .venv/bin/python benchmarks/bench_optim_all.py [--threads 1] [--sizes 1000000,25000000]
        [--only RMSprop]

CPU time of this process (time.process_time) is measured, not wall time: on a shared machine the
wall clock also counts the time other processes hold the core. With more than one thread it sums
the threads, so compare multi-threaded runs on an idle machine only.
1M elements are split into 10 tensors of 100k; larger sizes into ResNet-like 1M matrices plus
512-element vectors. Prints ms per step (best of several) and the ratio tc / torch (< 1: faster).
"""

import argparse
import time

import numpy as np

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.optim as optim
import _common
from _common import parse_bench_args

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

CONFIGS = [
    ("SGD", {"lr": 0.01, "momentum": 0.9}),
    ("Adam", {"lr": 1e-3}),
    ("AdamW", {"lr": 1e-3, "weight_decay": 0.01}),
    ("Adam", {"lr": 1e-3, "amsgrad": True}),
    ("Adagrad", {"lr": 1e-2}),
    ("RMSprop", {"lr": 1e-3}),
    ("RMSprop", {"lr": 1e-3, "centered": True}),
    ("RMSprop", {"lr": 1e-3, "momentum": 0.9}),
    ("RMSprop", {"lr": 1e-3, "centered": True, "momentum": 0.9}),
    ("Adadelta", {}),
    ("Adamax", {"lr": 2e-3}),
    ("NAdam", {"lr": 2e-3}),
    ("RAdam", {"lr": 1e-3}),
]


def shapes_for(total):
    if total <= 1_000_000:
        return [total // 10] * 10
    shapes, count = [], 0
    while count < total:
        big = min(total - count, 1_000_000)
        shapes.append(big)
        count += big
        if count < total:
            shapes.append(512)
            count += 512
    return shapes


def best_of(fn, repeat, number):
    # Process CPU time: steadier than wall time on a shared machine.
    return _common.best_of(fn, repeat, number, clock=time.process_time)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000000,25000000")
    ap.add_argument("--only", default=None, help="run only this optimizer name")
    args = parse_bench_args(ap, torch, 1)
    rng = np.random.default_rng(0)
    print(
        f"threads: tc={tc.get_num_threads()} torch={torch.get_num_threads() if torch else '-'}; ms per step"
    )
    print(f"{'size':>5s} {'optimizer':55s} {'tc':>8s} {'torch':>8s} {'ratio':>6s}")
    for total in (int(s) for s in args.sizes.split(",")):
        shapes = shapes_for(total)
        init = [rng.standard_normal(n).astype(np.float32) for n in shapes]
        grads = [rng.standard_normal(n).astype(np.float32) * 1e-2 for n in shapes]
        repeat, number = (5, 10) if total <= 1_000_000 else (3, 2)
        for name, kw in CONFIGS:
            if args.only and name != args.only:
                continue
            ps = [nn.Parameter(tc.from_numpy(a.copy())) for a in init]
            for p, g in zip(ps, grads):
                p.grad = tc.from_numpy(g.copy())
            t_tc = best_of(getattr(optim, name)(ps, **kw).step, repeat, number)
            del ps
            t_torch = None
            if torch is not None:
                for foreach in (False, True):
                    tps = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
                    for p, g in zip(tps, grads):
                        p.grad = torch.from_numpy(g.copy())
                    t = best_of(
                        getattr(torch.optim, name)(tps, foreach=foreach, **kw).step, repeat, number
                    )
                    t_torch = t if t_torch is None else min(t_torch, t)
                    del tps
            ratio = f"{t_tc / t_torch:6.2f}" if t_torch else "     -"
            torch_ms = f"{t_torch * 1e3:8.2f}" if t_torch else f"{'-':>8s}"
            print(
                f"{total / 1e6:4.0f}M {name + ' ' + str(kw):55s} {t_tc * 1e3:8.2f} {torch_ms} {ratio}",
                flush=True,
            )


if __name__ == "__main__":
    main()
