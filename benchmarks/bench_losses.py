"""Every loss of tensorcore.nn.functional vs torch.nn.functional, forward + input gradient.

    .venv/bin/python benchmarks/bench_losses.py [--reps 31] [--sizes 64x10,512x100] [--threads N]

Both libraries run the same calls in one process, interleaved per case (tc, torch, tc, ...),
and the median of each is printed with the ratio (ours / torch; < 1 is faster). Small sizes
measure the per-call overhead (argument handling, validation), larger ones the arithmetic.
"""

import argparse
import statistics
import time
import warnings

import numpy as np
import torch

import tensorcore as tc
from _common import geometric_mean, parse_bench_args, ratio_row


def cases(lib, F, n, c, rng):
    def t(a, grad=False):
        x = lib.tensor(np.ascontiguousarray(a))
        return x.requires_grad_(True) if grad else x

    x = rng.standard_normal((n, c)).astype(np.float32)
    tgt = rng.standard_normal((n, c)).astype(np.float32)
    prob = rng.uniform(0.05, 0.95, (n, c)).astype(np.float32)
    cls = rng.integers(0, c, n)
    sign = (rng.integers(0, 2, (n, c)) * 2 - 1).astype(np.float32)
    ml = np.full((n, c), -1)
    ml[:, :3] = rng.integers(0, c, (n, 3))
    X = lambda: t(x, True)  # noqa: E731
    T, P, S = t(tgt), t(prob), t(sign)
    C = lib.tensor(cls)
    return {
        "mse_loss": lambda: F.mse_loss(X(), T),
        "l1_loss": lambda: F.l1_loss(X(), T),
        "smooth_l1_loss": lambda: F.smooth_l1_loss(X(), T),
        "huber_loss": lambda: F.huber_loss(X(), T),
        "bce": lambda: F.binary_cross_entropy(X().sigmoid(), P),
        "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(X(), P),
        "cross_entropy": lambda: F.cross_entropy(X(), C),
        "cross_entropy_ls0.1": lambda: F.cross_entropy(X(), C, label_smoothing=0.1),
        "cross_entropy_probs": lambda: F.cross_entropy(X(), P),
        "nll_loss": lambda: F.nll_loss(X(), C),
        "kl_div": lambda: F.kl_div(X(), P, reduction="batchmean"),
        "margin_ranking": lambda: F.margin_ranking_loss(X(), T, S),
        "hinge_embedding": lambda: F.hinge_embedding_loss(X(), S),
        "soft_margin": lambda: F.soft_margin_loss(X(), S),
        "multilabel_soft_margin": lambda: F.multilabel_soft_margin_loss(X(), P),
        "multi_margin": lambda: F.multi_margin_loss(X(), C),
        "multilabel_margin": lambda: F.multilabel_margin_loss(X(), lib.tensor(ml)),
        "triplet_margin": lambda: F.triplet_margin_loss(X(), T, P),
        "poisson_nll": lambda: F.poisson_nll_loss(X(), P),
        "gaussian_nll": lambda: F.gaussian_nll_loss(X(), T, P),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=31)
    ap.add_argument("--sizes", default="64x10,512x100")
    args = parse_bench_args(ap, torch, 0)
    warnings.simplefilter("ignore")
    ratios = []
    for size in args.sizes.split(","):
        n, c = (int(v) for v in size.split("x"))
        ours = cases(tc, tc.nn.functional, n, c, np.random.default_rng(0))
        ref = cases(torch, torch.nn.functional, n, c, np.random.default_rng(0))
        for name in ours:

            def step(lib, make):
                loss = make()
                x = loss.grad_fn  # keep the graph alive until backward
                loss.backward()
                return x

            times = {"tc": [], "torch": []}
            for lib, make in (("tc", ours[name]), ("torch", ref[name])):
                step(tc if lib == "tc" else torch, make)  # warm up
            for _ in range(args.reps):
                for lib, make in (("tc", ours[name]), ("torch", ref[name])):
                    t0 = time.perf_counter()
                    step(None, make)
                    times[lib].append(time.perf_counter() - t0)
            label = f"{size:>8s} {name:24s}"
            ratios.append(ratio_row(label, *(statistics.median(times[k]) for k in ("tc", "torch"))))
    print(f"geometric mean ratio (tc / torch): {geometric_mean(ratios):.2f}")


if __name__ == "__main__":
    main()
