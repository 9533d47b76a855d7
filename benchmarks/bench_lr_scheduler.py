"""Per-step cost of every LR scheduler, tensorcore.optim.lr_scheduler vs torch.optim.lr_scheduler
(1.13), same two-group SGD optimizer, interleaved in one process; median of repeats.

    .venv/bin/python benchmarks/bench_lr_scheduler.py [--steps 2000] [--repeats 7]

CPU time of this process (time.process_time), as bench_optim_all: on a shared machine the wall
clock also counts other processes. Prints microseconds per scheduler.step() and the ratio
tc / torch (< 1: faster). The schedule
math is C++ (tensorcore/optim/lr_schedule_rules.h) behind one pybind11 call per step.
"""

import argparse
import statistics
import time
import warnings

import tensorcore as tc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def _opt(lib):
    groups = [
        {"params": [lib.zeros(2, requires_grad=True)]},
        {"params": [lib.zeros(3, requires_grad=True)], "lr": 0.05},
    ]
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


CASES = {
    "LambdaLR": lambda L, o, n: L.LambdaLR(o, lambda e: 0.99**e),
    "StepLR": lambda L, o, n: L.StepLR(o, 30, 0.5),
    "MultiStepLR": lambda L, o, n: L.MultiStepLR(o, [100, 500, 900], 0.5),
    "LinearLR": lambda L, o, n: L.LinearLR(o, 0.2, 1.0, n // 2),
    "ExponentialLR": lambda L, o, n: L.ExponentialLR(o, 0.999),
    "CosineAnnealingLR": lambda L, o, n: L.CosineAnnealingLR(o, 50, 0.001),
    "CosineAnnealingWarmRestarts": lambda L, o, n: L.CosineAnnealingWarmRestarts(o, 10, 2),
    "CyclicLR": lambda L, o, n: L.CyclicLR(o, 0.01, 0.1, step_size_up=20),
    "OneCycleLR": lambda L, o, n: L.OneCycleLR(o, 1.0, total_steps=n + 1),
}


def _time(lib, make, steps):
    o = _opt(lib)
    s = make(lib.optim.lr_scheduler, o, steps)
    t0 = time.process_time()
    for _ in range(steps):
        s.step()
    return (time.process_time() - t0) / steps * 1e6


def _time_plateau(lib, steps):
    o = _opt(lib)
    s = lib.optim.lr_scheduler.ReduceLROnPlateau(o, patience=3, min_lr=1e-6)
    metrics = [1.0 / (1 + (i % 7)) for i in range(steps)]
    t0 = time.process_time()
    for m in metrics:
        s.step(m)
    return (time.process_time() - t0) / steps * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    libs = [("tc", tc)] + ([("torch", torch)] if torch is not None else [])
    print(f"{'scheduler':30s} {'tc us':>8s} {'torch us':>9s} {'ratio':>6s}")
    names = list(CASES) + ["ReduceLROnPlateau"]
    for name in names:
        times = {k: [] for k, _ in libs}
        for _ in range(args.repeats):
            for key, lib in libs:
                if name == "ReduceLROnPlateau":
                    times[key].append(_time_plateau(lib, args.steps))
                else:
                    times[key].append(_time(lib, CASES[name], args.steps))
        med = {k: statistics.median(v) for k, v in times.items()}
        ratio = f"{med['tc'] / med['torch']:.2f}" if "torch" in med else "-"
        print(f"{name:30s} {med['tc']:8.2f} {med.get('torch', float('nan')):9.2f} {ratio:>6s}")


if __name__ == "__main__":
    main()
