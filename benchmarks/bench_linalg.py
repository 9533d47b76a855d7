"""tensorcore.linalg vs torch.linalg (torch 1.13) in one process, same threads, same inputs.

    .venv/bin/python benchmarks/bench_linalg.py [--threads 2] [--reps 5] [--only batched,single]
        [--cpu-time]

Cases (the targets of issue #22): a batch of 64 256x256 float64 matrices (cholesky, solve, inv,
det, svd, eigh, qr) and one 1024x1024 float64 matrix (cholesky, solve, inv, svd, eigh). Each
repetition runs tensorcore then torch (so load changes hit both); the script prints the medians
and their ratio (< 1: tensorcore is faster). Wall-clock time by default: the batched cases
spread the batch over the threads, which process CPU time would not credit.

Both libraries call the same OpenBLAS/LAPACK (Debian's torch uses the system liblapack);
OPENBLAS_NUM_THREADS is set to --threads before either library loads.
"""

import argparse
import os
import sys
import time

from _common import preset_blas_threads, race  # noqa: E402

if __name__ == "__main__":
    preset_blas_threads(str(os.cpu_count() or 1))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tensorcore as tc  # noqa: E402


def inputs(shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    n = shape[-1]
    h = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    b = rng.standard_normal(shape[:-1] + (8,))
    return a, h, b


def cases(shape):
    a, h, b = inputs(shape)
    A, H, B = tc.from_numpy(a), tc.from_numpy(h), tc.from_numpy(b)
    tA, tH, tB = torch.from_numpy(a), torch.from_numpy(h), torch.from_numpy(b)
    L, TL = tc.linalg, torch.linalg
    return {
        "cholesky": (lambda: L.cholesky(H), lambda: TL.cholesky(tH)),
        "solve": (lambda: L.solve(A, B), lambda: TL.solve(tA, tB)),
        "inv": (lambda: L.inv(A), lambda: TL.inv(tA)),
        "det": (lambda: L.det(A), lambda: TL.det(tA)),
        "svd": (lambda: L.svd(A, full_matrices=False), lambda: TL.svd(tA, full_matrices=False)),
        "eigh": (lambda: L.eigh(H), lambda: TL.eigh(tH)),
        "qr": (lambda: L.qr(A), lambda: TL.qr(tA)),
    }


GROUPS = {
    "batched": ((64, 256, 256), ["cholesky", "solve", "inv", "det", "svd", "eigh", "qr"]),
    "single": ((1024, 1024), ["cholesky", "solve", "inv", "svd", "eigh"]),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--only", default="batched,single")
    p.add_argument("--cpu-time", action="store_true")
    p.add_argument("--cases", default="", help="comma-separated subset, e.g. cholesky,solve")
    args = p.parse_args()
    tc.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    clock = time.process_time if args.cpu_time else time.perf_counter
    print(f"threads={args.threads} reps={args.reps} clock={'cpu' if args.cpu_time else 'wall'}")
    print(f"{'case':<34}{'tensorcore ms':>15}{'torch ms':>12}{'ratio':>8}")
    for group in args.only.split(","):
        shape, names = GROUPS[group]
        table = cases(shape)
        for name in names:
            if args.cases and name not in args.cases.split(","):
                continue
            ours, ref = table[name]
            a, b = race(ours, ref, args.reps, clock)
            label = f"{name} {'x'.join(map(str, shape))} f64"
            print(f"{label:<34}{a * 1e3:>15.2f}{b * 1e3:>12.2f}{a / b:>8.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
