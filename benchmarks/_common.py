"""Pieces shared by the benchmark scripts: the timing loop (each script keeps its own budget and
statistic) and the --threads setting."""

import time

import tensorcore as tc


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


def apply_threads(threads, torch):
    """--threads N: N intra-op threads for tensorcore and torch (None when torch is absent);
    prints the counts in use either way."""
    if threads:
        tc.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
    print(f"threads: tc={tc.get_num_threads()} torch={torch.get_num_threads() if torch else '-'}")
