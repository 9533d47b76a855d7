"""tensorcore.vision.models vs torchvision 0.14 on the same machine, thread count and weights:

- resnet50 inference, batch 8, 3x224x224 (eval, no_grad)            target ratio <= 0.9
- resnet50 training step, batch 8 (forward + cross-entropy + backward + SGD momentum)   <= 1.0
- deeplabv3_resnet50 inference, batch 1, 3x520x520                 <= 1.0
- peak memory of a resnet50 training step, batch 16                <= 1.05

Timings are medians over --runs calls after one warm-up call each, the two libraries alternating
call by call so that load from other processes on a shared machine hits both alike. Memory is
measured in two child processes (one per library, nothing else imported): the peak resident
size (VmHWM) after two training steps minus the resident size just before them (model,
optimizer and batch already built), so the figure is what the step itself needs (activations, gradients,
momentum buffers); the processes' whole peaks are printed too. The children run with glibc's
mmap threshold fixed (MALLOC_MMAP_THRESHOLD_=131072): by default glibc raises the threshold
after large frees, so whether freed activations leave the resident set depends on allocation
history and the figures swing by +-10% between runs of either library; fixed, every large block
is mapped and unmapped, and the resident size follows the live memory of both alike.

Run: PYTHONPATH=python python benchmarks/bench_vision_models.py [--threads N] [--runs 3]
     [--only resnet50_infer,resnet50_train,deeplabv3_infer,memory] [--profile]
--profile adds, per case, tensorcore's time per native call (cProfile over one call; backward is
one engine call) and for the training step the forward / backward / optimizer split of both.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import tensorcore as tc
import tensorcore.nn.functional as tF
from tensorcore.vision import models as tcm
from _common import apply_threads, run_times

try:
    import torch
    import torchvision
except Exception:  # pragma: no cover
    torch = torchvision = None

CASES = ("resnet50_infer", "resnet50_train", "deeplabv3_infer", "memory")


def median_times(fn_tc, fn_torch, runs):
    """Medians of tensorcore's and torch's call times (torch's None when fn_torch is None), calls
    alternating after one warm-up call of each."""
    if fn_torch is None:
        return statistics.median(run_times(fn_tc, min_runs=runs, max_runs=runs)), None
    fn_tc()
    fn_torch()
    times_tc, times_torch = [], []
    for _ in range(runs):
        for fn, times in ((fn_tc, times_tc), (fn_torch, times_torch)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(times_tc), statistics.median(times_torch)


def same_weights(tmodel, model):
    model.load_state_dict(
        {k: tc.from_numpy(v.detach().numpy().copy()) for k, v in tmodel.state_dict().items()}
    )
    return model


def report(name, t_tc, t_torch, target):
    line = f"{name}: tensorcore {t_tc * 1e3:.1f} ms"
    if t_torch is not None:
        line += f"  torch {t_torch * 1e3:.1f} ms  ratio {t_tc / t_torch:.2f} (target <= {target})"
    print(line, flush=True)


def maybe_profile(enabled, fn, label):
    if not enabled:
        return
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.runcall(fn)
    print(f"--- tensorcore, one call of: {label}")
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def phase_split(step_parts, runs):
    """Median seconds of each phase (forward, backward, optimizer) of a training step."""
    times = [[], [], []]
    for _ in range(runs + 1):
        for i, part in enumerate(step_parts()):
            times[i].append(part)
    return [statistics.median(t[1:]) for t in times]


def bench_inference(args, name, tv_fn, tc_fn, shape, target):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(shape).astype(np.float32)
    model = tc_fn().eval()
    tmodel = None
    if torch is not None:
        torch.manual_seed(0)
        tmodel = tv_fn().eval()
        same_weights(tmodel, model)
    x = tc.from_numpy(x_np)

    def tc_call():
        with tc.no_grad():
            model(x)

    torch_call = None
    if tmodel is not None:
        tx = torch.from_numpy(x_np)

        def torch_call():
            with torch.no_grad():
                tmodel(tx)

    t_tc, t_torch = median_times(tc_call, torch_call, args.runs)
    report(name, t_tc, t_torch, target)
    maybe_profile(args.profile, tc_call, name)


def bench_train(args, batch=8):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
    y_np = rng.integers(0, 1000, batch).astype(np.int64)
    model = tcm.resnet50()
    tmodel = None
    if torch is not None:
        torch.manual_seed(0)
        tmodel = torchvision.models.resnet50()
        same_weights(tmodel, model)
    x, y = tc.from_numpy(x_np), tc.from_numpy(y_np)
    opt = tc.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def tc_step():
        opt.zero_grad()
        tF.cross_entropy(model(x), y).backward()
        opt.step()

    torch_step = None
    if tmodel is not None:
        tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np)
        topt = torch.optim.SGD(tmodel.parameters(), lr=0.01, momentum=0.9)

        def torch_step():
            topt.zero_grad()
            torch.nn.functional.cross_entropy(tmodel(tx), ty).backward()
            topt.step()

    t_tc, t_torch = median_times(tc_step, torch_step, args.runs)
    report(f"resnet50 train step, batch {batch}, 224x224", t_tc, t_torch, 1.0)
    if args.profile:

        def print_phases(lib_name, optimizer, net, loss_fn, inputs, targets):
            def parts():
                optimizer.zero_grad()
                t0 = time.perf_counter()
                loss = loss_fn(net(inputs), targets)
                t1 = time.perf_counter()
                loss.backward()
                t2 = time.perf_counter()
                optimizer.step()
                return t1 - t0, t2 - t1, time.perf_counter() - t2

            print(
                f"{lib_name} forward / backward / step: "
                + " / ".join(f"{t * 1e3:.0f} ms" for t in phase_split(parts, args.runs))
            )

        print_phases("tensorcore", opt, model, tF.cross_entropy, x, y)
        if tmodel is not None:
            print_phases("torch", topt, tmodel, torch.nn.functional.cross_entropy, tx, ty)
    maybe_profile(args.profile, tc_step, "resnet50 train step")


# One library per child process, so neither's allocations or imports count against the other.
_MEMORY_CHILD = r"""
import json, resource, sys
import numpy as np
lib, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (resource.getpagesize() // 1024)

rng = np.random.default_rng(0)
x_np = rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
y_np = rng.integers(0, 1000, batch).astype(np.int64)
if lib == "tc":
    import tensorcore as tc, tensorcore.nn.functional as F
    from tensorcore.vision import models
    if threads:
        tc.set_num_threads(threads)
    model = models.resnet50()
    x, y = tc.from_numpy(x_np), tc.from_numpy(y_np)
    opt = tc.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    ce = F.cross_entropy
else:
    import torch, torchvision
    if threads:
        torch.set_num_threads(threads)
    model = torchvision.models.resnet50()
    x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    ce = torch.nn.functional.cross_entropy
before = rss_kib()
for _ in range(2):
    opt.zero_grad()
    ce(model(x), y).backward()
    opt.step()
# VmHWM, the peak of this process's own memory map: ru_maxrss would also count the parent's
# resident size at fork (Linux carries it over exec), which is larger when the parent keeps
# freed blocks cached
with open("/proc/self/status") as f:
    peak = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
print(json.dumps({"before_kib": before, "peak_kib": peak}))
"""


def measure_memory(lib, batch, threads):
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072")
    # the child imports the same tensorcore as this process (the source tree or the .venv install)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(tc.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD, lib, str(batch), str(threads or 0)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_memory(args, batch=16):
    ours = measure_memory("tc", batch, args.threads)
    step = (ours["peak_kib"] - ours["before_kib"]) / 1024
    line = (
        f"resnet50 train step memory, batch {batch}: tensorcore +{step:.0f} MiB over "
        f"{ours['before_kib'] / 1024:.0f} MiB (peak {ours['peak_kib'] / 1024:.0f} MiB)"
    )
    if torch is not None:
        theirs = measure_memory("torch", batch, args.threads)
        tstep = (theirs["peak_kib"] - theirs["before_kib"]) / 1024
        line += (
            f"  torch +{tstep:.0f} MiB over {theirs['before_kib'] / 1024:.0f} MiB (peak "
            f"{theirs['peak_kib'] / 1024:.0f} MiB)  ratio of the step {step / tstep:.2f} (target <= 1.05), "
            f"of the whole process {ours['peak_kib'] / theirs['peak_kib']:.2f}"
        )
    print(line, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--only", default=",".join(CASES), help="comma-separated subset of " + ", ".join(CASES)
    )
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    only = [c.strip() for c in args.only.split(",") if c.strip()]
    unknown = sorted(set(only) - set(CASES))
    if unknown:
        ap.error(f"unknown case(s) {unknown}; choose from {', '.join(CASES)}")
    apply_threads(args.threads, torch)
    if torch is None:
        print("torch/torchvision not installed: tensorcore timings only")
    if "resnet50_infer" in only:
        bench_inference(
            args,
            "resnet50 inference, batch 8, 224x224",
            lambda: torchvision.models.resnet50(),
            tcm.resnet50,
            (8, 3, 224, 224),
            0.9,
        )
    if "resnet50_train" in only:
        bench_train(args)
    if "deeplabv3_infer" in only:
        bench_inference(
            args,
            "deeplabv3_resnet50 inference, batch 1, 520x520",
            lambda: torchvision.models.segmentation.deeplabv3_resnet50(weights_backbone=None),
            tcm.segmentation.deeplabv3_resnet50,
            (1, 3, 520, 520),
            1.0,
        )
    if "memory" in only:
        bench_memory(args)


if __name__ == "__main__":
    main()
