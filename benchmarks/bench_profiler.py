"""Profiler overhead: a ResNet-18 training step (forward, cross entropy, backward, SGD step)
with the profiler off and on, for tensorcore (tc.profiler) and PyTorch 1.13 (torch.profiler)
side by side in one process, interleaved; plus the per-op cost of recording and how much of
the step's wall time the recorded ops account for.

Run: .venv/bin/python benchmarks/bench_profiler.py [--threads N] [--reps 7] [--batch 8]
     [--size 224] [--memory] [--shapes]

Prints, per framework: median step time off / on and the ratio on/off (target for tensorcore:
<= 1.05, and below torch's own ratio on the same step); the per-op recording cost (a tiny op
called 20000 times, on minus off); the coverage of the step's wall time by the top-level spans
inside it (target: within 5%).
"""

import argparse
import statistics
import time

import tensorcore as tc
from _common import parse_bench_args

try:
    import torch
    import torchvision
except Exception:  # pragma: no cover - reference absent
    torch = torchvision = None


def step_fn(lib, resnet18, batch, size):
    """A ResNet-18 SGD training step in lib (tensorcore or torch) on a fixed random batch."""
    model = resnet18()
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.randn(batch, 3, size, size)
    y = lib.randint(0, 1000, (batch,))

    def step():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return step


def tc_step_fn(batch, size):
    from tensorcore.vision.models import resnet18

    return step_fn(tc, resnet18, batch, size)


def torch_step_fn(batch, size):
    return step_fn(torch, torchvision.models.resnet18, batch, size)


def timed(fn):
    """(wall seconds, process CPU seconds) of one call. On a shared, loaded machine the CPU time
    is the steadier measure of the work done; both are reported."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def tc_on(step, shapes, memory):
    """The step timed while the profiler runs (session start/stop and collection outside the
    timer, reported separately)."""

    def run():
        with tc.profiler.profile(record_shapes=shapes, profile_memory=memory):
            t = timed(step)
        return t

    return run


def torch_on(step, shapes, memory):
    def run():
        with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            record_shapes=shapes,
            profile_memory=memory,
        ):
            t = timed(step)
        return t

    return run


def op_cost_us(n=20000):
    """Per-call recording cost of a tiny op (tc.add on 1-element tensors): on minus off."""
    a, b = tc.ones(1), tc.ones(1)

    def loop():
        for _ in range(n):
            tc.add(a, b)

    loop()
    off = statistics.median(timed(loop)[1] for _ in range(7))
    on_times = []
    for _ in range(7):
        with tc.profiler.profile():
            on_times.append(timed(loop)[1])
    on = statistics.median(on_times)
    return off / n * 1e6, on / n * 1e6


def coverage(step):
    """Share of the step's wall time covered by the spans directly inside it (ops, autograd
    nodes, optimizer step): what the per-op totals account for."""
    with tc.profiler.profile() as prof:
        t0 = time.perf_counter()
        with tc.profiler.record_function("train_step"):
            step()
        wall_us = (time.perf_counter() - t0) * 1e6
    ev = prof.events()
    root = next(e for e in ev if e.name == "train_step")
    top = [e for e in ev if e.cpu_parent is root]
    # backward() runs the autograd nodes outside any op span: they are top level too.
    covered = sum(e.cpu_time_total for e in top)
    return covered / root.cpu_time_total, root.cpu_time_total / wall_us, len(ev)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--shapes", action="store_true", help="record_shapes=True in both")
    p.add_argument("--memory", action="store_true", help="profile_memory=True in both")
    args = parse_bench_args(p, torch, 0)
    print(
        f"ResNet-18 training step, batch {args.batch} x 3 x {args.size} x {args.size}, "
        f"record_shapes={args.shapes} profile_memory={args.memory}, {args.reps} reps"
    )

    cases = {"tensorcore": (tc_step_fn(args.batch, args.size), tc_on)}
    if torch is not None:
        cases["torch 1.13"] = (torch_step_fn(args.batch, args.size), torch_on)
    times = {name: {"off": [], "on": [], "session": []} for name in cases}  # (wall, cpu)
    for name, (step, on) in cases.items():  # warm-up: allocations, oneDNN primitives
        step()
        on(step, args.shapes, args.memory)()
    for _ in range(args.reps):  # interleaved: load changes hit both alike
        for name, (step, on) in cases.items():
            times[name]["off"].append(timed(step))
            t0 = time.perf_counter()
            t_step = on(step, args.shapes, args.memory)()
            times[name]["on"].append(t_step)
            times[name]["session"].append(time.perf_counter() - t0 - t_step[0])
    ratios = {}
    for name, t in times.items():
        session = statistics.median(t["session"]) * 1e3
        for k, label in ((0, "wall"), (1, "cpu ")):
            off = statistics.median(x[k] for x in t["off"])
            on = statistics.median(x[k] for x in t["on"])
            ratios[(name, k)] = on / off
            print(
                f"  {name:11s} {label} off {off * 1e3:8.1f} ms   on {on * 1e3:8.1f} ms   "
                f"on/off {on / off:.3f}"
            )
        print(f"  {name:11s} session start + stop + collection {session:.1f} ms (outside the step)")
    if "torch 1.13" in {n for n, _ in ratios}:
        for k, label in ((0, "wall"), (1, "cpu")):
            print(
                f"  overhead ({label}) tensorcore {100 * (ratios[('tensorcore', k)] - 1):+.1f}% "
                f"vs torch {100 * (ratios[('torch 1.13', k)] - 1):+.1f}% "
                "(target: <= +5% and below torch's)"
            )
    off_us, on_us = op_cost_us()
    print(
        f"tiny op (tc.add, 1 element): off {off_us:.3f} us/call, on {on_us:.3f} us/call, "
        f"recording cost {on_us - off_us:.3f} us/op (target <= 1 us)"
    )
    share, span_share, n = coverage(cases["tensorcore"][0])
    print(
        f"coverage: top-level spans cover {100 * share:.1f}% of the step span "
        f"(target >= 95%); the step span is {100 * span_share:.1f}% of the measured wall "
        f"time; {n} events per step"
    )


if __name__ == "__main__":
    main()
