"""Pieces shared by the benchmark scripts: the timing loops (each script keeps its own budget and
statistic) and the --threads setting. tensorcore is imported where used, so a script can set
OPENBLAS_NUM_THREADS (preset_blas_threads) before any BLAS loads."""

import math
import os
import statistics
import sys
import time


def run_times(fn, min_time=0.0, min_runs=5, max_runs=500, clock=time.perf_counter):
    """Calls fn once to warm up (plans, caches, primitive creation), then times calls until
    min_time seconds have passed and min_runs calls are done, max_runs at most; returns the times."""
    fn()
    times = []
    start = time.perf_counter()
    while (time.perf_counter() - start < min_time or len(times) < min_runs) and len(
        times
    ) < max_runs:
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return times


def best_of(fn, repeat=5, number=10, clock=time.perf_counter):
    """The fastest of `repeat` rounds of `number` calls, per call, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = clock()
        for _ in range(number):
            fn()
        times.append((clock() - t0) / number)
    return min(times)


def median_time(fn, runs):
    """The median of `runs` timed calls after one warm-up call."""
    return statistics.median(run_times(fn, min_runs=runs, max_runs=runs))


def race(ours, ref, reps, clock=time.perf_counter):
    """Medians of `reps` interleaved calls of ours and ref (each warmed up once), so a change in
    the machine's load hits both sides."""
    ours()
    ref()
    a, b = [], []
    for _ in range(reps):
        t = clock()
        ours()
        a.append(clock() - t)
        t = clock()
        ref()
        b.append(clock() - t)
    return statistics.median(a), statistics.median(b)


def ratio_row(label, ours, ref):
    """Prints one case's tensorcore and torch times (microseconds) and their ratio; returns it."""
    print(
        f"{label} tc {ours * 1e6:9.1f} us   torch {ref * 1e6:9.1f} us   ratio {ours / ref:5.2f}",
        flush=True,
    )
    return ours / ref


def geometric_mean(ratios):
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def preset_blas_threads(default):
    """OPENBLAS_NUM_THREADS from the command line's --threads (`default` without it), for scripts
    whose libraries both call OpenBLAS: call before importing tensorcore or torch."""
    threads = default
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            threads = sys.argv[i + 1]
        elif a.startswith("--threads="):
            threads = a.split("=", 1)[1]
    os.environ.setdefault("OPENBLAS_NUM_THREADS", threads)


def parse_bench_args(parser, torch, threads=0):
    """Adds --threads (`threads` when not given), parses the command line and applies the thread
    count (apply_threads); returns the parsed arguments."""
    parser.add_argument("--threads", type=int, default=threads)
    args = parser.parse_args()
    apply_threads(args.threads, torch)
    return args


def apply_threads(threads, torch):
    """--threads N: N intra-op threads for tensorcore and torch (None when torch is absent);
    prints the counts in use either way."""
    import tensorcore as tc

    if threads:
        tc.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
    print(f"threads: tc={tc.get_num_threads()} torch={torch.get_num_threads() if torch else '-'}")
