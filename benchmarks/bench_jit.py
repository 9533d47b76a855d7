"""tc.jit against eager and against torch.jit.trace, on the same machine in one run.

    python benchmarks/bench_jit.py [--threads N] [--repeats R]

Prints the median time of ResNet-50 (batch 1, 224x224) run
  - eagerly from Python (tensorcore),
  - as a traced graph on the C++ runtime (called from Python; the call releases the GIL),
  - frozen (batch norm folded into the convolutions),
  - torchvision's resnet50 traced with torch.jit.trace (torch 1.13), if installed,
and the time to load the saved file. Ratios are ours / reference.
"""

import argparse
import os
import statistics
import tempfile
import time

import tensorcore as tc
from tensorcore.vision import models


def median_time(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    tc.set_num_threads(args.threads)
    tc.manual_seed(0)
    model = models.resnet50().eval()
    x = tc.randn(1, 3, 224, 224)
    traced = tc.jit.trace(model, x)
    frozen = tc.jit.freeze(traced)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r50.tcj")
        traced.save(path)
        load_s = median_time(lambda: tc.jit.load(path), 5)
        size_mb = os.path.getsize(path) / 1e6

    def eager():
        with tc.no_grad():
            model(x)

    results = {}
    torch_jit = None
    try:
        import torch
        import torchvision

        torch.set_num_threads(args.threads)
        tm = torchvision.models.resnet50().eval()
        tx = torch.randn(1, 3, 224, 224)
        with torch.no_grad():
            torch_jit = torch.jit.trace(tm, tx)
            torch_jit = torch.jit.freeze(torch_jit)

        def torch_run():
            with torch.no_grad():
                torch_jit(tx)
    except ImportError:
        torch_run = None
    for _ in range(2):  # interleaved rounds
        for name, fn in (
            ("eager", eager),
            ("traced", lambda: traced(x)),
            ("frozen", lambda: frozen(x)),
            ("torch.jit (frozen)", torch_run),
        ):
            if fn is not None:
                results.setdefault(name, []).append(median_time(fn, args.repeats))
    best = {k: min(v) for k, v in results.items()}
    print(f"ResNet-50, batch 1, 224x224, {args.threads} threads (median of {args.repeats})")
    for name, t in best.items():
        print(f"  {name:20s} {t * 1e3:8.2f} ms")
    print(f"  traced / eager       {best['traced'] / best['eager']:.3f}")
    print(f"  frozen / eager       {best['frozen'] / best['eager']:.3f}")
    if "torch.jit (frozen)" in best:
        print(f"  traced / torch.jit   {best['traced'] / best['torch.jit (frozen)']:.3f}")
        print(f"  frozen / torch.jit   {best['frozen'] / best['torch.jit (frozen)']:.3f}")
    print(f"  load {size_mb:.1f} MB file: {load_s * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
