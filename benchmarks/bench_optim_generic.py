"""Optimizer step cost on the CPU: tensorcore's fused loops vs its device-generic tensor-op path
(the one CUDA and strided parameters take, forced here with _C._optim._force_generic) vs
torch.optim's single-tensor and foreach paths, same parameters and gradients.

    .venv/bin/python benchmarks/bench_optim_generic.py [--numel 1000000] [--params 10]
"""

import argparse

import numpy as np

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.optim as optim
from _common import best_of


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, default=1_000_000)
    ap.add_argument("--params", type=int, default=10)
    args = ap.parse_args()
    per = args.numel // args.params
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(per).astype(np.float32) for _ in range(args.params)]
    grads = [rng.standard_normal(per).astype(np.float32) * 1e-3 for _ in range(args.params)]
    try:
        import torch
    except ImportError:
        torch = None
    configs = [
        ("SGD", {"lr": 0.01, "momentum": 0.9}),
        ("Adam", {"lr": 1e-3}),
        ("Adam", {"lr": 1e-3, "amsgrad": True}),
        ("RMSprop", {"lr": 1e-3, "centered": True, "momentum": 0.9}),
    ]
    print(
        f"{args.params} float32 parameters, {args.numel} elements in all, ms per step (best of 5x10)"
    )
    print(
        f"{'optimizer':60s} {'tc fused':>9s} {'tc generic':>10s} {'torch':>8s} {'foreach':>8s}"
        f" {'generic/fused':>13s}"
    )
    for name, kw in configs:
        ps = [nn.Parameter(tc.from_numpy(a.copy())) for a in init]
        for p, g in zip(ps, grads):
            p.grad = tc.from_numpy(g.copy())
        opt = getattr(optim, name)(ps, **kw)
        fused = best_of(opt.step)
        tc._C._optim._force_generic(True)
        try:
            generic = best_of(opt.step)
        finally:
            tc._C._optim._force_generic(False)
        row = f"{name + ' ' + str(kw):60s} {fused * 1e3:9.2f} {generic * 1e3:10.2f}"
        if torch is not None:
            tref = []
            for foreach in (False, True):
                tps = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
                for p, g in zip(tps, grads):
                    p.grad = torch.from_numpy(g.copy())
                topt = getattr(torch.optim, name)(tps, foreach=foreach, **kw)
                tref.append(best_of(topt.step))
            row += f" {tref[0] * 1e3:8.2f} {tref[1] * 1e3:8.2f}"
        else:
            row += f" {'-':>8s} {'-':>8s}"
        print(row + f" {generic / fused:13.2f}")


if __name__ == "__main__":
    main()
