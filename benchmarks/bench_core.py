"""Side-by-side CPU benchmarks: tensorcore vs PyTorch on the same machine, same thread count.

Run: .venv/bin/python benchmarks/bench_core.py [--threads N] [--suite core|unary|math|half|all]
Prints one row per case with both medians and the ratio tc/torch (< 1 means tensorcore is faster).
On a shared machine the load drifts between measurements, so each case alternates tensorcore and
PyTorch for --rounds rounds and reports the median time of each and the median per-round ratio.
"""

import argparse
import statistics
import sys
import time

import numpy as np

import tensorcore as tc
from _common import run_times

try:
    import torch
except Exception:  # pragma: no cover
    torch = None


# --clock cpu times with the process CPU clock: on a machine shared with other jobs, wall time
# mostly measures the scheduler; with one thread CPU time is the work done (with more threads it
# adds the threads' times up, so use wall time there).
CLOCK = time.perf_counter


def median_time(fn, min_time=0.3, max_runs=2000):
    return statistics.median(run_times(fn, min_time, 5, max_runs, clock=CLOCK))


def per_call_overhead(fn, number=20000):
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def cases(lib, mod):
    rng = np.random.default_rng(0)

    def arr(*shape):
        return mod.from_numpy(rng.standard_normal(shape).astype(np.float32))

    tiny_a, tiny_b = mod.ones(1), mod.ones(1)
    out = {"a + b, 1-element (call overhead)": ("overhead", lambda: tiny_a + tiny_b)}
    # The module functions (these carry torch's out= keyword; the common call must not pay it).
    out["add(a, b), 1-element (call overhead)"] = ("overhead", lambda: mod.add(tiny_a, tiny_b))
    out["mul(a, b), 1-element (call overhead)"] = ("overhead", lambda: mod.mul(tiny_a, tiny_b))
    out["sum(a), 1-element (call overhead)"] = ("overhead", lambda: mod.sum(tiny_a))
    out["exp(a), 1-element (call overhead)"] = ("overhead", lambda: mod.exp(tiny_a))
    for n, label in ((1 << 20, "1M"), (1 << 24, "16M")):
        a, b = arr(n), arr(n)
        out[f"add {label} float32"] = ("time", lambda a=a, b=b: a + b)
        out[f"mul {label} float32"] = ("time", lambda a=a, b=b: a * b)
        out[f"exp {label} float32"] = ("time", lambda a=a: a.exp())
    big = arr(1 << 24)
    out["sum 16M float32"] = ("time", lambda: big.sum())
    x = arr(4096, 1024)
    if hasattr(x, "amax"):

        def softmax_like(x=x):
            e = (x - x.amax(1, keepdim=True)).exp()
            return e / e.sum(1, keepdim=True)

        out["softmax-like (4096, 1024)"] = ("time", softmax_like)
    if hasattr(mod, "matmul"):
        for n in (256, 1024, 2048):
            m1, m2 = arr(n, n), arr(n, n)
            out[f"matmul {n}x{n} float32"] = ("time", lambda m1=m1, m2=m2: mod.matmul(m1, m2))
    xt = arr(4096, 4096).t()
    out["transposed copy 4096^2 float32"] = ("time", lambda: xt.contiguous())
    return out


def unary_cases(lib, mod):
    """exp/tanh/sigmoid/erf/gelu at 1M and 16M in float32 and float64 (--suite unary)."""
    rng = np.random.default_rng(1)
    gelu = mod.nn.functional.gelu if hasattr(mod, "nn") else None
    out = {}
    for dt in ("float32", "float64"):
        for n, label in ((1 << 20, "1M"), (1 << 24, "16M")):
            a = mod.from_numpy((rng.standard_normal(n) * 3).astype(dt))
            for op in ("exp", "tanh", "sigmoid", "erf"):
                out[f"{op} {label} {dt}"] = ("time", lambda a=a, op=op: getattr(a, op)())
            if gelu is not None:
                out[f"gelu {label} {dt}"] = ("time", lambda a=a: gelu(a))
    return out


def math_cases(lib, mod):
    """Other 1M-element float32/float64 math and reductions (--suite math)."""
    rng = np.random.default_rng(2)

    def ops(x, y, p):  # a function scope per dtype, so the lambdas keep their own tensors
        return {
            "log": lambda: mod.log(p),
            "log1p": lambda: mod.log1p(p),
            "expm1": lambda: mod.expm1(x),
            "exp2": lambda: mod.exp2(x),
            "sin": lambda: mod.sin(x),
            "cos": lambda: mod.cos(x),
            "sqrt": lambda: mod.sqrt(p),
            "rsqrt": lambda: mod.rsqrt(p),
            "floor": lambda: mod.floor(x),
            "erfc": lambda: mod.erfc(x),
            "atan2": lambda: mod.atan2(x, y),
            "hypot": lambda: mod.hypot(x, y),
            "pow": lambda: mod.pow(p, y),
            "var": lambda: mod.var(x),
            "std": lambda: mod.std(x),
            "amax": lambda: mod.amax(x),
            "prod": lambda: mod.prod(p),
            "logsumexp": lambda: mod.logsumexp(x, 0),
        }

    def out_ops(x, y, o):  # out= writes into an existing tensor; compare with the fresh rows
        return {
            "exp(x, out=o)": lambda: mod.exp(x, out=o),
            "sin(x, out=o)": lambda: mod.sin(x, out=o),
            "add(x, y, out=o)": lambda: mod.add(x, y, out=o),
        }

    out = {}
    for dt in ("float32", "float64"):
        x = mod.from_numpy(rng.standard_normal(1 << 20).astype(dt))
        y = mod.from_numpy(rng.standard_normal(1 << 20).astype(dt))
        p = mod.from_numpy((np.abs(rng.standard_normal(1 << 20)) + 0.1).astype(dt))
        for name, fn in ops(x, y, p).items():
            out[f"{name} 1M {dt}"] = ("time", fn)
        o = mod.empty_like(x)
        out[f"exp 1M {dt}"] = ("time", lambda x=x: mod.exp(x))
        out[f"add 1M {dt}"] = ("time", lambda x=x, y=y: mod.add(x, y))
        for name, fn in out_ops(x, y, o).items():
            out[f"{name} 1M {dt}"] = ("time", fn)
    return out


def half_cases(lib, mod):
    """bfloat16/float16 elementwise ops and sum on 8x64x112x112 (6.4M elements) (--suite half):
    the autocast training hot spots (gradient accumulation, zero_grad's fill_)."""
    rng = np.random.default_rng(3)
    shape = (8, 64, 112, 112)
    out = {}

    def ops(a, b, c, x32):  # a function scope per dtype, so the lambdas keep their own tensors
        return {
            "a + b": lambda: a + b,
            "a - b": lambda: a - b,
            "a * b": lambda: a * b,
            "a / b": lambda: a / b,
            "a + 2.5": lambda: a + 2.5,
            "add_(b, alpha=0.5)": lambda: c.add_(b, alpha=0.5),
            "mul_(1.0)": lambda: c.mul_(1.0),
            "fill_(1.0)": lambda: c.fill_(1.0),
            "zero_()": lambda: c.zero_(),
            "exp": lambda: a.exp(),
            "tanh": lambda: a.tanh(),
            "sigmoid": lambda: a.sigmoid(),
            "neg": lambda: a.neg(),
            "sum": lambda: a.sum(),
            "mean": lambda: a.mean(),
            "to(float32)": lambda: a.to(mod.float32),
            "float32 .to(dtype)": lambda: x32.to(a.dtype),
        }

    for dt in ("bfloat16", "float16"):
        x = rng.standard_normal(shape).astype(np.float32)
        y = (np.abs(rng.standard_normal(shape)) + 0.5).astype(np.float32)
        a = mod.from_numpy(x).to(getattr(mod, dt))
        b = mod.from_numpy(y).to(getattr(mod, dt))
        c = mod.from_numpy(x.copy()).to(getattr(mod, dt))
        x32 = mod.from_numpy(x)
        for name, fn in ops(a, b, c, x32).items():
            out[f"{name} 6.4M {dt}"] = ("time", fn)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=3, help="alternating tc/torch rounds per case")
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: perf_counter; cpu: process CPU time (1 thread on a loaded machine)",
    )
    ap.add_argument("--filter", default="", help="only cases whose name contains this text")
    ap.add_argument(
        "--suite",
        choices=("core", "unary", "math", "half", "all"),
        default="core",
        help="core: the issue's cases; unary: exp/tanh/sigmoid/erf/gelu, f32 and f64; "
        "math: other 1M float math and reductions; half: bfloat16/float16 "
        "elementwise and sum on 6.4M elements",
    )
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    threads = args.threads or (torch.get_num_threads() if torch else tc.get_num_threads())
    tc.set_num_threads(threads)
    if torch:
        torch.set_num_threads(threads)
    print(
        f"threads: {threads}; clock: {args.clock}; torch: {torch.__version__ if torch else 'absent'}"
    )

    def collect(lib, mod):
        out = {}
        if args.suite in ("core", "all"):
            out.update(cases(lib, mod))
        if args.suite in ("unary", "all"):
            out.update(unary_cases(lib, mod))
        if args.suite in ("math", "all"):
            out.update(math_cases(lib, mod))
        if args.suite in ("half", "all"):
            out.update(half_cases(lib, mod))
        return out

    tc_cases = collect("tc", tc)
    torch_cases = collect("torch", torch) if torch else {}
    print(f"{'case':40s} {'tensorcore':>12s} {'torch':>12s} {'ratio':>7s}")
    for name, (kind, fn) in tc_cases.items():
        if args.filter not in name:
            continue
        measure = per_call_overhead if kind == "overhead" else median_time
        tcs, refs = [], []
        for _ in range(max(1, args.rounds)):
            tcs.append(measure(fn))
            try:  # torch 1.13 lacks some float16 CPU kernels (exp): report nan there
                refs.append(measure(torch_cases[name][1]) if name in torch_cases else float("nan"))
            except RuntimeError:
                refs.append(float("nan"))
        t_tc, t_ref = statistics.median(tcs), statistics.median(refs)
        ratio = statistics.median(a / b for a, b in zip(tcs, refs))
        unit = 1e6
        print(f"{name:40s} {t_tc * unit:10.2f}us {t_ref * unit:10.2f}us {ratio:7.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
