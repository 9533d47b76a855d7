"""RNG fills (normal_, randn, uniform_, rand, bernoulli_) against torch 1.13, same process,
interleaved repeats, median times and ratios (tensorcore / torch; < 1 is faster).

    python benchmarks/bench_rng.py [--sizes 1000 100000 10000000] [--repeats 15]
"""

import argparse
import statistics
import time

import tensorcore as tc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def _time(fn, repeats):
    fn()  # warm-up
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def cases(lib, n):
    buf = lib.empty(n)
    return {
        "normal_": lambda: buf.normal_(),
        "randn": lambda: lib.randn(n),
        "uniform_": lambda: buf.uniform_(),
        "rand": lambda: lib.rand(n),
        "bernoulli_(0.5)": lambda: buf.bernoulli_(0.5),
        "randn float64": lambda: lib.randn(n, dtype=lib.float64),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=0, help="0: library default")
    args = parser.parse_args()
    if args.threads:
        tc.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    print(f"{'op':<16}{'n':>10}{'tensorcore ms':>15}{'torch ms':>11}{'ratio':>8}")
    for n in args.sizes:
        ours, theirs = cases(tc, n), cases(torch, n) if torch is not None else {}
        for name in ours:
            a, b = [], []
            for _ in range(3):  # interleave the libraries so load changes hit both
                a += _time(ours[name], max(args.repeats // 3, 1))
                if theirs:
                    b += _time(theirs[name], max(args.repeats // 3, 1))
            ma = statistics.median(a) * 1e3
            mb = statistics.median(b) * 1e3 if b else float("nan")
            print(f"{name:<16}{n:>10}{ma:>15.3f}{mb:>11.3f}{ma / mb:>8.2f}")


if __name__ == "__main__":
    main()
