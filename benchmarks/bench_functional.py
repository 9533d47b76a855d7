"""tensorcore.nn.functional's non-loss ops vs PyTorch, through their Python API, side by side.

    .venv/bin/python benchmarks/bench_functional.py [--reps 30] [--threads N]

Times activations (out of place and inplace=True), the softmax family, dropout, linear maps,
norms, distances, padding and interpolation at a small size (64x256, where the per-call
overhead of the Python layer shows) and a larger one (256x1024), forward and forward+backward.
Prints per-case medians (us) for tensorcore and torch 1.13 and the ratio (ours / torch; < 1 is
faster). The two libraries are timed interleaved in one process with the same thread count.
"""

import argparse
import statistics

import numpy as np
import torch
import torch.nn.functional as TF

import tensorcore as tc
import tensorcore.nn.functional as F
from _common import geometric_mean, parse_bench_args, ratio_row, run_times


def _pair(shape, requires_grad=False, positive=False):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    if positive:
        a = np.abs(a) + 0.1
    x = tc.from_numpy(a.copy())
    t = torch.from_numpy(a.copy())
    if requires_grad:
        x.requires_grad_(True)
        t.requires_grad_(True)
    return x, t


def cases(n, c):
    x, t = _pair((n, c))
    x4, t4 = _pair((n // 8, 8, 16, c // 128))
    xg, tg = _pair((n, c), requires_grad=True)
    w, tw = _pair((c // 2, c))
    b, tb = _pair((c // 2,))
    lw, tlw = _pair((c,))
    y, ty = _pair((n, c))
    rm, trm = _pair((8,))
    rv, trv = _pair((8,), positive=True)
    fwd = {
        "relu": (lambda: F.relu(x), lambda: TF.relu(t)),
        "relu inplace": (lambda: F.relu(x, inplace=True), lambda: TF.relu(t, inplace=True)),
        "leaky_relu": (lambda: F.leaky_relu(x, 0.1), lambda: TF.leaky_relu(t, 0.1)),
        "elu": (lambda: F.elu(x), lambda: TF.elu(t)),
        "gelu": (lambda: F.gelu(x), lambda: TF.gelu(t)),
        "silu": (lambda: F.silu(x), lambda: TF.silu(t)),
        "hardswish": (lambda: F.hardswish(x), lambda: TF.hardswish(t)),
        "softplus": (lambda: F.softplus(x), lambda: TF.softplus(t)),
        "hardtanh": (lambda: F.hardtanh(x), lambda: TF.hardtanh(t)),
        "softmax": (lambda: F.softmax(x, 1), lambda: TF.softmax(t, 1)),
        "log_softmax": (lambda: F.log_softmax(x, 1), lambda: TF.log_softmax(t, 1)),
        "dropout": (lambda: F.dropout(x, 0.2), lambda: TF.dropout(t, 0.2)),
        "dropout2d": (lambda: F.dropout2d(x4, 0.2), lambda: TF.dropout2d(t4, 0.2)),
        "linear": (lambda: F.linear(x, w, b), lambda: TF.linear(t, tw, tb)),
        "layer_norm": (lambda: F.layer_norm(x, (c,), lw), lambda: TF.layer_norm(t, (c,), tlw)),
        "batch_norm eval": (
            lambda: F.batch_norm(x4, rm, rv),
            lambda: TF.batch_norm(t4, trm, trv),
        ),
        "normalize": (lambda: F.normalize(x), lambda: TF.normalize(t)),
        "cosine_similarity": (
            lambda: F.cosine_similarity(x, y),
            lambda: TF.cosine_similarity(t, ty),
        ),
        "pad reflect": (
            lambda: F.pad(x4, (1, 1, 1, 1), mode="reflect"),
            lambda: TF.pad(t4, (1, 1, 1, 1), mode="reflect"),
        ),
        "interpolate bilinear": (
            lambda: F.interpolate(x4, scale_factor=2, mode="bilinear"),
            lambda: TF.interpolate(t4, scale_factor=2, mode="bilinear"),
        ),
    }
    bwd = {
        "relu fwd+bwd": (lambda: F.relu(xg).sum().backward(), lambda: TF.relu(tg).sum().backward()),
        "gelu fwd+bwd": (lambda: F.gelu(xg).sum().backward(), lambda: TF.gelu(tg).sum().backward()),
        "softmax fwd+bwd": (
            lambda: F.softmax(xg, 1).sum().backward(),
            lambda: TF.softmax(tg, 1).sum().backward(),
        ),
        "linear fwd+bwd": (
            lambda: F.linear(xg, w, b).sum().backward(),
            lambda: TF.linear(tg, tw, tb).sum().backward(),
        ),
    }
    return {**fwd, **bwd}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    args = parse_bench_args(ap, torch, 0)
    torch.set_num_threads(tc.get_num_threads())
    ratios = []
    for n, c in ((64, 256), (256, 1024)):
        for name, (ours, ref) in cases(n, c).items():
            t_ours, t_ref = [], []
            for _ in range(3):  # interleaved rounds
                t_ours += run_times(ours, min_runs=args.reps // 3, max_runs=args.reps // 3)
                t_ref += run_times(ref, min_runs=args.reps // 3, max_runs=args.reps // 3)
            label = f"{n}x{c:<5d} {name:22s}"
            ratios.append(ratio_row(label, statistics.median(t_ours), statistics.median(t_ref)))
    print(f"geometric mean ratio over {len(ratios)} cases: {geometric_mean(ratios):.2f}")


if __name__ == "__main__":
    main()
