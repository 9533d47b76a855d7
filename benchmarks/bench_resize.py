"""Antialiased uint8 resize of a 1080p image, tensorcore vs torchvision (and Pillow) on one thread.

Run: .venv/bin/python benchmarks/bench_resize.py [--threads 1] [--rounds 15]
Times each library interleaved (one call of each per round, --rounds rounds after a warm-up) and
prints the median wall and CPU (thread) time, the input megapixels per second (1920 x 1080 = 2.07 MP
per call), the ratio to torchvision and, as a check, the largest difference from torchvision's
result. On a shared machine the CPU time is the steadier figure (one thread: wall >= CPU).
"""

import argparse
import statistics
import time

import numpy as np

import tensorcore as tc
from tensorcore.vision import transforms as T
from _common import parse_bench_args

try:
    import torch
    from torchvision import transforms as TVT
except Exception:  # pragma: no cover
    torch = TVT = None
try:
    from PIL import Image
except Exception:  # pragma: no cover
    Image = None


def photo(h, w, seed=0):
    """A smooth picture with texture (resampling cost does not depend on content; realistic
    content keeps the result check meaningful)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack(
        [128 + 100 * np.sin(x / 37 + c) * np.cos(y / 53 - c) for c in (0.0, 1.0, 2.0)], 0
    )
    return np.clip(base + rng.normal(0, 12, (3, h, w)), 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    args = parse_bench_args(ap, torch, 1)
    hd = photo(1080, 1920)
    mp = hd.shape[1] * hd.shape[2] / 1e6
    cases = []
    for interp in ("bilinear", "bicubic"):
        ours = T.Resize(224, interpolation=T.InterpolationMode(interp), antialias=True)
        x = tc.from_numpy(hd)
        libs = {"tensorcore": lambda ours=ours, x=x: ours(x)}
        if torch is not None:
            ref = TVT.Resize(224, interpolation=TVT.InterpolationMode(interp), antialias=True)
            xt = torch.from_numpy(hd)
            libs["torchvision"] = lambda ref=ref, xt=xt: ref(xt)
        if Image is not None:
            pil = Image.fromarray(np.ascontiguousarray(hd.transpose(1, 2, 0)))
            f = Image.BILINEAR if interp == "bilinear" else Image.BICUBIC
            libs["Pillow"] = lambda pil=pil, f=f: pil.resize((398, 224), f)
        cases.append((f"3x1080x1920 uint8 -> 224 antialias {interp}", libs))

    for name, libs in cases:
        for fn in libs.values():
            fn()
        times = {k: [] for k in libs}
        cpu = {k: [] for k in libs}
        for _ in range(args.rounds):
            for k, fn in libs.items():
                t0, c0 = time.perf_counter(), time.thread_time()
                fn()
                cpu[k].append(time.thread_time() - c0)
                times[k].append(time.perf_counter() - t0)
        med = {k: statistics.median(v) for k, v in times.items()}
        med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
        print(name)
        for k, t in med.items():
            c = med_cpu[k]
            print(f"  {k:12s} wall {t * 1e3:7.2f} ms {mp / t:6.0f} MP/s   "
                  f"cpu {c * 1e3:7.2f} ms {mp / c:6.0f} MP/s")  # fmt: skip
        if "torchvision" in med:
            print(
                f"  tc/torchvision time: wall {med['tensorcore'] / med['torchvision']:.3f}, "
                f"cpu {med_cpu['tensorcore'] / med_cpu['torchvision']:.3f}"
            )
            out = libs["tensorcore"]().numpy().astype(int)
            ref = libs["torchvision"]().numpy().astype(int)
            print(f"  max |tc - torchvision|: {np.abs(out - ref).max()}")
        if "Pillow" in med:
            print(f"  tc/Pillow cpu time: {med_cpu['tensorcore'] / med_cpu['Pillow']:.3f}")


if __name__ == "__main__":
    main()
