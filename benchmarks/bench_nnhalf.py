"""bfloat16 / float16 norm and pooling kernels (forward + backward) vs PyTorch, in one run.

    .venv/bin/python benchmarks/bench_nnhalf.py [--threads 1] [--reps 7] [--dtype bfloat16]
        [--only bn,ln,gn,maxpool,avgpool,adaptive,stem]

ResNet-sized activations (8x64x112x112 for the norms and pools of the stem). Each case times
y = op(x) and y.backward(g) together, CPU time (time.process_time) per call, median of --reps;
prints tc and torch and the ratio (ours / torch, < 1 is faster). torch 1.13 has no float16 CPU
kernels for these ops, so `--dtype float16` compares tensorcore's float16 with torch's bfloat16.
The `stem` case runs a ResNet stem (conv, BatchNorm2d, relu, max_pool) under CPU autocast.
"""

import argparse
import statistics
import time

import numpy as np
import torch

import tensorcore as tc
import tensorcore.nn.functional as TF
import torch.nn.functional as PF
from _common import parse_bench_args, run_times

ACT = (8, 64, 112, 112)


def cases():
    rng = np.random.default_rng(0)
    c = ACT[1]
    rm, rv = np.zeros(c, np.float32), np.ones(c, np.float32)
    w, b = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    lw, lb = (
        rng.standard_normal(768).astype(np.float32),
        rng.standard_normal(768).astype(np.float32),
    )

    def bn(F, lib, x, half):
        # BatchNorm2d under CPU autocast: bfloat16 activations, float32 parameters and stats.
        wt, bt = lib.tensor(w).requires_grad_(), lib.tensor(b).requires_grad_()
        return lambda: F.batch_norm(x, lib.tensor(rm), lib.tensor(rv), wt, bt, training=True)

    def bn_eval(F, lib, x, half):
        wt, bt = lib.tensor(w), lib.tensor(b)
        return lambda: F.batch_norm(x, lib.tensor(rm), lib.tensor(rv), wt, bt, training=False)

    def ln(F, lib, x, half):
        wt, bt = lib.tensor(lw).to(half).requires_grad_(), lib.tensor(lb).to(half).requires_grad_()
        return lambda: F.layer_norm(x, (768,), wt, bt)

    def gn(F, lib, x, half):
        wt, bt = lib.tensor(w).to(half).requires_grad_(), lib.tensor(b).to(half).requires_grad_()
        return lambda: F.group_norm(x, 32, wt, bt)

    return [
        ("bn", "batch_norm train 8x64x112x112", ACT, bn),
        ("bn", "batch_norm eval 8x64x112x112", ACT, bn_eval),
        ("ln", "layer_norm 8x1024x768", (8, 1024, 768), ln),
        ("gn", "group_norm(32) 8x64x112x112", ACT, gn),
        (
            "maxpool",
            "max_pool2d 3x3s2p1 8x64x112x112",
            ACT,
            lambda F, lib, x, h: lambda: F.max_pool2d(x, 3, 2, 1),
        ),
        (
            "avgpool",
            "avg_pool2d 2x2 8x64x112x112",
            ACT,
            lambda F, lib, x, h: lambda: F.avg_pool2d(x, 2),
        ),
        (
            "avgpool",
            "avg_pool2d 3x3s1p1 8x64x56x56",
            (8, 64, 56, 56),
            lambda F, lib, x, h: lambda: F.avg_pool2d(x, 3, 1, 1),
        ),
        (
            "adaptive",
            "adaptive_avg_pool2d(1) 8x512x7x7",
            (8, 512, 7, 7),
            lambda F, lib, x, h: lambda: F.adaptive_avg_pool2d(x, 1),
        ),
    ]


def stem_step(F, lib, xa, autocast):
    """ResNet stem under CPU autocast: conv 7x7/2 (bf16 via oneDNN) -> BatchNorm2d (bf16 input,
    float32 parameters and running stats) -> relu -> max_pool 3x3/2, forward + backward."""
    rng = np.random.default_rng(5)
    w = lib.tensor(rng.standard_normal((64, 3, 7, 7)).astype(np.float32) * 0.1).requires_grad_()
    gamma = lib.ones(64).requires_grad_()
    beta = lib.zeros(64).requires_grad_()
    rm, rv = lib.zeros(64), lib.ones(64)
    x = lib.tensor(xa)

    def step():
        w.grad = gamma.grad = beta.grad = None
        with autocast():
            y = F.conv2d(x, w, None, 2, 3)
            y = F.batch_norm(y, rm, rv, gamma, beta, training=True)
            y = F.max_pool2d(F.relu(y), 3, 2, 1)
        y.float().sum().backward()

    return step


def fwd_bwd(make_op, F, lib, xa, dtype):
    x = lib.tensor(xa).to(dtype).requires_grad_()
    op = make_op(F, lib, x, dtype)
    g = op().detach() * 0 + 1

    def step():
        x.grad = None
        op().backward(g)

    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16"])
    ap.add_argument("--only", default="")
    args = parse_bench_args(ap, torch, 1)
    only = set(args.only.split(",")) if args.only else None
    rng = np.random.default_rng(1)
    tot = [0.0, 0.0]
    print(
        f"dtype {args.dtype} (torch: bfloat16), forward+backward, CPU time, median of {args.reps}"
    )
    for group, name, shape, make_op in cases():
        if only and group not in only:
            continue
        xa = rng.standard_normal(shape).astype(np.float32)
        ours = fwd_bwd(make_op, TF, tc, xa, getattr(tc, args.dtype))
        ref = fwd_bwd(make_op, PF, torch, xa, torch.bfloat16)
        t_ours = statistics.median(
            run_times(ours, min_runs=args.reps, max_runs=args.reps, clock=time.process_time)
        )
        t_ref = statistics.median(
            run_times(ref, min_runs=args.reps, max_runs=args.reps, clock=time.process_time)
        )
        tot[0] += t_ours
        tot[1] += t_ref
        print(
            f"{name:36s} tc {t_ours * 1e3:8.1f} ms   torch {t_ref * 1e3:8.1f} ms   ratio {t_ours / t_ref:5.2f}",
            flush=True,
        )
    if not only or "stem" in only:
        xa = rng.standard_normal((8, 3, 224, 224)).astype(np.float32)
        ours = stem_step(TF, tc, xa, lambda: tc.autocast("cpu"))
        ref = stem_step(PF, torch, xa, lambda: torch.autocast("cpu"))
        t_ours = statistics.median(
            run_times(ours, min_runs=args.reps, max_runs=args.reps, clock=time.process_time)
        )
        t_ref = statistics.median(
            run_times(ref, min_runs=args.reps, max_runs=args.reps, clock=time.process_time)
        )
        print(
            f"{'stem conv+bn+relu+maxpool autocast':36s} tc {t_ours * 1e3:8.1f} ms   torch {t_ref * 1e3:8.1f} ms"
            f"   ratio {t_ours / t_ref:5.2f}   (not in the total)",
            flush=True,
        )
    if tot[1] > 0:
        print(
            f"{'total':36s} tc {tot[0] * 1e3:8.1f} ms   torch {tot[1] * 1e3:8.1f} ms   ratio {tot[0] / tot[1]:5.2f}"
        )


if __name__ == "__main__":
    main()
