"""Vision kernels on CUDA: tensorcore vs torchvision on the same GPU in one run.

  python3 benchmarks/bench_vision_cuda.py

nms on 10k boxes, roi_align forward+backward on FPN-sized inputs, antialiased Resize
1920x1080 -> 224 (uint8 and float32). Times are CUDA-event medians; ratio = tc / torchvision
(below 1 = tensorcore faster). Exits with a message when no GPU is available.
"""
import sys

import numpy as np

import tensorcore as tc
from bench_cuda import gpu_time  # CUDA-event median, shared with the core GPU benchmark
from tensorcore.vision import ops
from tensorcore.vision.transforms import functional as F

try:
    import torch
    import torchvision
    from torchvision.transforms import functional as TF
    if not torch.cuda.is_available():
        torch = None
except Exception:  # pragma: no cover
    torch = None


def report(name, tc_fn, torch_fn):
    t = gpu_time(tc, tc_fn, 7, 5)
    line = f"{name:44s} tc {t:8.3f} ms"
    if torch is not None and torch_fn is not None:
        r = gpu_time(torch, torch_fn, 7, 5)
        line += f"   torchvision {r:8.3f} ms   ratio {t / r:5.2f}"
    print(line, flush=True)


def main():
    if not tc.cuda.is_available():
        print("no CUDA device available: nothing to benchmark")
        return 0
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 1000, (10000, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(5, 200, (10000, 2))], 1).astype(np.float32)
    scores = rng.uniform(0, 1, 10000).astype(np.float32)
    tb, ts = tc.from_numpy(boxes).cuda(), tc.from_numpy(scores).cuda()
    pb = torch.from_numpy(boxes).cuda() if torch else None
    psc = torch.from_numpy(scores).cuda() if torch else None
    report("nms 10k boxes (iou 0.5)", lambda: ops.nms(tb, ts, 0.5),
           (lambda: torchvision.ops.nms(pb, psc, 0.5)) if torch else None)

    feats = rng.standard_normal((2, 256, 200, 272)).astype(np.float32)
    b = np.sort(rng.uniform(0, 1600, (1000, 4)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (1000, 1)), b], 1).astype(np.float32)
    tx, tr = tc.from_numpy(feats).cuda(), tc.from_numpy(rois).cuda()
    args = dict(output_size=7, spatial_scale=0.25, sampling_ratio=2, aligned=True)
    px = torch.from_numpy(feats).cuda() if torch else None
    pr = torch.from_numpy(rois).cuda() if torch else None
    report("roi_align fwd 2x256x200x272, 1000 rois", lambda: ops.roi_align(tx, tr, **args),
           (lambda: torchvision.ops.roi_align(px, pr, **args)) if torch else None)
    txg = tx.clone().requires_grad_()
    pxg = px.clone().requires_grad_() if torch else None
    report("roi_align fwd+bwd", lambda: ops.roi_align(txg, tr, **args).sum().backward(),
           (lambda: torchvision.ops.roi_align(pxg, pr, **args).sum().backward()) if torch else None)

    img = rng.integers(0, 256, (3, 1080, 1920), dtype=np.uint8)
    ti = tc.from_numpy(img).cuda()
    pi = torch.from_numpy(img).cuda() if torch else None
    report("resize uint8 1080p -> 224 antialias", lambda: F.resize(ti, 224, antialias=True),
           (lambda: TF.resize(pi, 224, antialias=True)) if torch else None)
    tf = ti.float()
    pf = pi.float() if torch else None
    report("resize float32 1080p -> 224 antialias", lambda: F.resize(tf, 224, antialias=True),
           (lambda: TF.resize(pf, 224, antialias=True)) if torch else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
