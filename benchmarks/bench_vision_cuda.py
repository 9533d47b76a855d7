"""Vision kernels on CUDA: tensorcore vs torchvision on the same GPU in one run.

  python3 benchmarks/bench_vision_cuda.py

nms on 10k boxes, roi_align forward+backward on FPN-sized inputs, antialiased Resize
1920x1080 -> 224 (uint8 and float32), and the kernels added later: rotate / perspective and
gaussian_blur on a 64x3x224x224 batch, ColorJitter-style adjustments, equalize, roi_pool,
ps_roi_align, deform_conv2d forward+backward, grid_sample forward+backward and ctc_loss. Times are CUDA-event medians; ratio = tc / torchvision
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
    report(
        "nms 10k boxes (iou 0.5)",
        lambda: ops.nms(tb, ts, 0.5),
        (lambda: torchvision.ops.nms(pb, psc, 0.5)) if torch else None,
    )

    feats = rng.standard_normal((2, 256, 200, 272)).astype(np.float32)
    b = np.sort(rng.uniform(0, 1600, (1000, 4)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (1000, 1)), b], 1).astype(np.float32)
    tx, tr = tc.from_numpy(feats).cuda(), tc.from_numpy(rois).cuda()
    args = dict(output_size=7, spatial_scale=0.25, sampling_ratio=2, aligned=True)
    px = torch.from_numpy(feats).cuda() if torch else None
    pr = torch.from_numpy(rois).cuda() if torch else None
    report(
        "roi_align fwd 2x256x200x272, 1000 rois",
        lambda: ops.roi_align(tx, tr, **args),
        (lambda: torchvision.ops.roi_align(px, pr, **args)) if torch else None,
    )
    txg = tx.clone().requires_grad_()
    pxg = px.clone().requires_grad_() if torch else None
    report(
        "roi_align fwd+bwd",
        lambda: ops.roi_align(txg, tr, **args).sum().backward(),
        (lambda: torchvision.ops.roi_align(pxg, pr, **args).sum().backward()) if torch else None,
    )

    img = rng.integers(0, 256, (3, 1080, 1920), dtype=np.uint8)
    ti = tc.from_numpy(img).cuda()
    pi = torch.from_numpy(img).cuda() if torch else None
    report(
        "resize uint8 1080p -> 224 antialias",
        lambda: F.resize(ti, 224, antialias=True),
        (lambda: TF.resize(pi, 224, antialias=True)) if torch else None,
    )
    tf = ti.float()
    pf = pi.float() if torch else None
    report(
        "resize float32 1080p -> 224 antialias",
        lambda: F.resize(tf, 224, antialias=True),
        (lambda: TF.resize(pf, 224, antialias=True)) if torch else None,
    )
    transforms_and_ops(rng)
    return 0


def transforms_and_ops(rng):
    batch = rng.integers(0, 256, (64, 3, 224, 224), dtype=np.uint8)
    tb = tc.from_numpy(batch).cuda()
    pb = torch.from_numpy(batch).cuda() if torch else None
    persp = ([[0, 0], [223, 0], [223, 223], [0, 223]], [[10, 5], [210, 12], [220, 215], [3, 200]])
    for name, ours, theirs in [
        (
            "rotate 30 bilinear uint8 64x3x224x224",
            lambda: F.rotate(tb, 30.0, interpolation="bilinear"),
            lambda: TF.rotate(pb, 30.0, interpolation=TF.InterpolationMode.BILINEAR),
        ),
        (
            "perspective bilinear uint8 64x3x224x224",
            lambda: F.perspective(tb, *persp, interpolation="bilinear"),
            lambda: TF.perspective(pb, *persp, interpolation=TF.InterpolationMode.BILINEAR),
        ),
        (
            "gaussian_blur 9 uint8 64x3x224x224",
            lambda: F.gaussian_blur(tb, 9, 2.0),
            lambda: TF.gaussian_blur(pb, 9, 2.0),
        ),
        (
            "adjust_saturation 1.5 uint8 64x3x224x224",
            lambda: F.adjust_saturation(tb, 1.5),
            lambda: TF.adjust_saturation(pb, 1.5),
        ),
        (
            "adjust_hue 0.2 uint8 64x3x224x224",
            lambda: F.adjust_hue(tb, 0.2),
            lambda: TF.adjust_hue(pb, 0.2),
        ),
        ("equalize uint8 64x3x224x224", lambda: F.equalize(tb), lambda: TF.equalize(pb)),
    ]:
        report(name, ours, theirs if torch else None)

    feats = rng.standard_normal((2, 256, 100, 136)).astype(np.float32)
    b = np.sort(rng.uniform(0, 800, (500, 4)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (500, 1)), b], 1).astype(np.float32)
    tx, tr = tc.from_numpy(feats).cuda(), tc.from_numpy(rois).cuda()
    px = torch.from_numpy(feats).cuda() if torch else None
    pr = torch.from_numpy(rois).cuda() if torch else None
    report(
        "roi_pool 7x7 fwd 2x256x100x136, 500 rois",
        lambda: ops.roi_pool(tx, tr, 7, spatial_scale=0.125),
        (lambda: torchvision.ops.roi_pool(px, pr, 7, spatial_scale=0.125)) if torch else None,
    )
    report(
        "ps_roi_align 7x7 fwd (245 channels)",
        lambda: ops.ps_roi_align(tx[:, :245], tr, 7, spatial_scale=0.125, sampling_ratio=2),
        (
            lambda: torchvision.ops.ps_roi_align(
                px[:, :245], pr, 7, spatial_scale=0.125, sampling_ratio=2
            )
        )
        if torch
        else None,
    )

    x = rng.standard_normal((8, 64, 56, 56)).astype(np.float32)
    off = (rng.standard_normal((8, 18, 56, 56)) * 2).astype(np.float32)
    w = (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)
    tx, toff, tw = (tc.from_numpy(a).cuda().requires_grad_() for a in (x, off, w))
    px, poff, pw = (
        (torch.from_numpy(a).cuda().requires_grad_() for a in (x, off, w))
        if torch
        else (None, None, None)
    )
    report(
        "deform_conv2d 8x64x56x56 3x3 fwd+bwd",
        lambda: ops.deform_conv2d(tx, toff, tw, padding=1).sum().backward(),
        (lambda: torchvision.ops.deform_conv2d(px, poff, pw, padding=1).sum().backward())
        if torch
        else None,
    )

    inp = rng.standard_normal((16, 32, 64, 64)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (16, 64, 64, 2)).astype(np.float32)
    ti, tg = (tc.from_numpy(a).cuda().requires_grad_() for a in (inp, grid))
    pi, pg = (
        (torch.from_numpy(a).cuda().requires_grad_() for a in (inp, grid))
        if torch
        else (None, None)
    )
    report(
        "grid_sample bilinear 16x32x64x64 fwd+bwd",
        lambda: tc.nn.functional.grid_sample(ti, tg, align_corners=False).sum().backward(),
        (lambda: torch.nn.functional.grid_sample(pi, pg, align_corners=False).sum().backward())
        if torch
        else None,
    )

    lp = rng.standard_normal((200, 32, 40)).astype(np.float32)
    targets = rng.integers(1, 40, (32, 50))
    tl = tc.nn.functional.log_softmax(tc.from_numpy(lp).cuda(), 2).detach().requires_grad_()
    tt = tc.from_numpy(targets).cuda()
    lengths_in, lengths_t = [200] * 32, [50] * 32
    if torch:
        pl = torch.from_numpy(lp).cuda().log_softmax(2).detach().requires_grad_()
        pt = torch.from_numpy(targets).cuda()
    report(
        "ctc_loss T=200 N=32 C=40 S=50 fwd+bwd",
        lambda: tc.nn.functional.ctc_loss(tl, tt, lengths_in, lengths_t).backward(),
        (lambda: torch.nn.functional.ctc_loss(pl, pt, lengths_in, lengths_t).backward())
        if torch
        else None,
    )


if __name__ == "__main__":
    sys.exit(main())
