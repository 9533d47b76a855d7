"""Autocast on the CPU: tensorcore's tc.autocast("cpu") vs torch.autocast("cpu") (bfloat16), run
side by side in one process with the same data and thread count.

Run: .venv/bin/python benchmarks/bench_amp.py [--threads N] [--rounds R]
Cases: a bf16-autocast linear forward (the cast of the fp32 weight comes from the cache after the
first call in a region), a linear forward+backward training step, a ResNet-shaped conv2d with
and without autocast, the per-op cost of the
autocast hook (a 1-element mm inside vs outside a region) and a GradScaler step. Each case
alternates the two libraries for --rounds rounds; the ratio is the median per-round tc/torch
(< 1 means tensorcore is faster).
"""

import argparse
import statistics

import numpy as np

import tensorcore as tc
import tensorcore.nn.functional as F
from _common import parse_bench_args, run_times

try:
    import torch
    import torch.nn.functional as TF
except Exception:  # pragma: no cover
    torch = None


def median_time(fn, min_time=0.25, max_runs=500):
    return statistics.median(run_times(fn, min_time, 5, max_runs))


def cases(lib, fn, n=512, k=1024, m=1024):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((n, k)).astype(np.float32))
    w = lib.tensor(rng.standard_normal((m, k)).astype(np.float32) * 0.03, requires_grad=True)
    b = lib.tensor(np.zeros(m, dtype=np.float32), requires_grad=True)
    tiny_a, tiny_b = lib.ones(1, 1), lib.ones(1, 1)

    def forward():
        with lib.autocast("cpu"):
            # Two uses of the same weight in one region: the second cast comes from the cache.
            return fn.linear(fn.linear(x, w, b)[:, :k].float(), w, b)

    def train_step():
        w.grad = None
        b.grad = None
        with lib.autocast("cpu"):
            loss = fn.linear(x, w, b).float().square().mean()
        loss.backward()

    def hook_overhead_in_region():
        with lib.autocast("cpu"):
            for _ in range(100):
                lib.mm(tiny_a, tiny_b)

    def no_region():
        for _ in range(100):
            lib.mm(tiny_a, tiny_b)

    img = lib.tensor(rng.standard_normal((8, 64, 56, 56)).astype(np.float32))
    conv_w = lib.tensor(rng.standard_normal((64, 64, 3, 3)).astype(np.float32) * 0.05)

    def conv_forward():
        with lib.autocast("cpu"):
            return fn.conv2d(img, conv_w, padding=1)

    def conv_forward_fp32():
        return fn.conv2d(img, conv_w, padding=1)

    conv_wg = lib.tensor(
        rng.standard_normal((64, 64, 3, 3)).astype(np.float32) * 0.05, requires_grad=True
    )

    def conv_train_step():
        conv_wg.grad = None
        with lib.autocast("cpu"):
            out = fn.conv2d(img, conv_wg, padding=1)
        out.float().mean().backward()

    return {
        "conv2d 3x3 64->64 8x56x56 fp32 (no autocast)": conv_forward_fp32,
        "conv2d 3x3 64->64 8x56x56 under autocast": conv_forward,
        "conv2d fwd+bwd (weight grad) under autocast": conv_train_step,
        f"autocast linear fwd x2 [{n}x{k}]@[{k}x{m}]": forward,
        f"autocast linear fwd+bwd [{n}x{k}]@[{k}x{m}]": train_step,
        "100 x mm 1x1 inside autocast": hook_overhead_in_region,
        "100 x mm 1x1 outside autocast": no_region,
    }


def scaler_case():
    # tensorcore only: torch 1.13's GradScaler disables itself without CUDA.
    params = [tc.nn.Parameter(tc.randn(256, 256)) for _ in range(20)]
    opt = tc.optim.SGD(params, lr=1e-3)
    scaler = tc.amp.GradScaler()
    scaler.scale(params[0].sum())

    def step():
        for p in params:
            p.grad = tc.ones(256, 256)
        scaler.step(opt)
        scaler.update()

    return median_time(step)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = parse_bench_args(ap, torch, 1)
    ours = cases(tc, F)
    theirs = cases(torch, TF) if torch is not None else {}
    print(f"threads={args.threads}  rounds={args.rounds}")
    print(f"{'case':48s} {'tensorcore':>12s} {'torch':>12s} {'ratio':>7s}")
    for name, fn in ours.items():
        t_ours, t_theirs, ratios = [], [], []
        for _ in range(args.rounds):
            a = median_time(fn)
            t_ours.append(a)
            if name in theirs:
                b = median_time(theirs[name])
                t_theirs.append(b)
                ratios.append(a / b)
        a = statistics.median(t_ours) * 1e3
        if ratios:
            b = statistics.median(t_theirs) * 1e3
            print(f"{name:48s} {a:10.3f}ms {b:10.3f}ms {statistics.median(ratios):7.2f}")
        else:
            print(f"{name:48s} {a:10.3f}ms {'-':>12s}")
    print(
        f"{'GradScaler step+update, 20 x 256x256 grads':48s} {scaler_case() * 1e3:10.3f}ms {'n/a':>12s}"
    )


if __name__ == "__main__":
    main()
