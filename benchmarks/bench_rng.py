"""RNG fills against torch 1.13 in the same process: normal_, randn, uniform_, rand, randint,
bernoulli_, exponential_ for float32 and float64 (randint: int64), at several sizes, for each
thread count. The two libraries run interleaved (rounds alternate between them so load changes
hit both); prints median times and the ratio tensorcore / torch (< 1: tensorcore faster).

    python benchmarks/bench_rng.py [--sizes 1000 100000 10000000] [--repeats 15]
                                   [--threads 1 2] [--ops normal_ randn] [--dtypes float32]
"""

import argparse
import statistics

from _common import run_times

import tensorcore as tc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

OPS = ["normal_", "randn", "uniform_", "rand", "randint", "bernoulli_", "exponential_"]


def cases(lib, n, dtype_name):
    dtype = getattr(lib, dtype_name)
    buf = lib.empty(n, dtype=dtype)
    return {
        "normal_": lambda: buf.normal_(),
        "randn": lambda: lib.randn(n, dtype=dtype),
        "uniform_": lambda: buf.uniform_(),
        "rand": lambda: lib.rand(n, dtype=dtype),
        # randint is integer-valued: int64 output for both dtype rows
        "randint": lambda: lib.randint(0, 1000, (n,)),
        "bernoulli_": lambda: buf.bernoulli_(0.5),
        "exponential_": lambda: buf.exponential_(),
    }


def median_ms(fn, repeats):
    return run_times(fn, min_runs=repeats, max_runs=repeats)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--ops", nargs="+", default=OPS)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float64"])
    args = parser.parse_args()
    print(f"{'threads':<8}{'op':<14}{'dtype':<9}{'n':>10}{'tc ms':>11}{'torch ms':>11}{'ratio':>8}")
    for threads in args.threads:
        tc.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
        for n in args.sizes:
            # the largest size gets fewer repeats so a full run stays in minutes
            reps = max(3, args.repeats // 3) if n >= 5_000_000 else args.repeats
            for dtype_name in args.dtypes:
                ours = cases(tc, n, dtype_name)
                theirs = cases(torch, n, dtype_name) if torch is not None else {}
                for op in args.ops:
                    if op == "randint" and dtype_name != args.dtypes[0]:
                        continue
                    a, b = [], []
                    for _ in range(3):
                        a += median_ms(ours[op], max(reps // 3, 1))
                        if theirs:
                            b += median_ms(theirs[op], max(reps // 3, 1))
                    ma = statistics.median(a) * 1e3
                    mb = statistics.median(b) * 1e3 if b else float("nan")
                    shown = "int64" if op == "randint" else dtype_name
                    print(
                        f"{threads:<8}{op:<14}{shown:<9}{n:>10}{ma:>11.3f}{mb:>11.3f}"
                        f"{ma / mb:>8.2f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
