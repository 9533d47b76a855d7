"""tensorcore.fx: symbolic_trace time and the traced resnet18's forward time against eager, and
the same through torch.fx (torch 1.13) when it is importable. Median of repeats, interleaved.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_fx.py
"""

import statistics
import time

import tensorcore as tc
import tensorcore.fx as fx
from tensorcore.vision import models


def _median(fn, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    tc.manual_seed(0)
    model = models.resnet18().eval()
    x = tc.randn(1, 3, 64, 64)
    trace_s = _median(lambda: fx.symbolic_trace(model))
    gm = fx.symbolic_trace(model)
    with tc.no_grad():
        eager_s = _median(lambda: model(x), 15)
        traced_s = _median(lambda: gm(x), 15)
    print(f"tensorcore.fx symbolic_trace(resnet18): {trace_s * 1e3:.1f} ms, {len(gm.graph)} nodes")
    print(
        f"resnet18 1x3x64x64 forward: eager {eager_s * 1e3:.2f} ms, traced {traced_s * 1e3:.2f} ms "
        f"(traced/eager {traced_s / eager_s:.2f}x)"
    )
    try:
        import torch
        import torch.fx
        import torchvision
    except ImportError:
        return
    t_model = torchvision.models.resnet18().eval()
    t_trace_s = _median(lambda: torch.fx.symbolic_trace(t_model))
    print(
        f"torch.fx symbolic_trace(torchvision resnet18): {t_trace_s * 1e3:.1f} ms "
        f"(tensorcore/torch {trace_s / t_trace_s:.2f}x)"
    )


if __name__ == "__main__":
    main()
