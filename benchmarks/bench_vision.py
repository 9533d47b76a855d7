"""Side-by-side benchmarks: tensorcore.vision vs torchvision on the same machine, same threads.

Run: .venv/bin/python benchmarks/bench_vision.py [--threads N]
Prints one row per case with both medians and the ratio tc/torchvision (< 1 means faster).
"""

import argparse
import statistics

import numpy as np

import tensorcore as tc
from tensorcore.vision import ops as tc_ops
from tensorcore.vision import transforms as T
from _common import run_times

try:
    import torch
    import torchvision
    from torchvision import transforms as TVT
except Exception:  # pragma: no cover
    torch = torchvision = TVT = None


def median_time(fn, min_time=1.0, max_runs=200):
    return statistics.median(run_times(fn, min_time, 5, max_runs))


def fmt(t):
    return f"{t * 1e3:.2f} ms" if t >= 1e-3 else f"{t * 1e6:.0f} us"


def cases():
    rng = np.random.default_rng(0)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    out = []

    batch = rng.integers(0, 256, (64, 3, 256, 256), dtype=np.uint8)
    tc_b, th_b = tc.from_numpy(batch), torch.from_numpy(batch)
    ours = T.Compose(
        [
            T.RandomCrop(224),
            T.RandomHorizontalFlip(0.3),
            T.ConvertImageDtype(tc.float32),
            T.Normalize(mean, std),
        ]
    )
    ref = TVT.Compose(
        [
            TVT.RandomCrop(224),
            TVT.RandomHorizontalFlip(0.3),
            TVT.ConvertImageDtype(torch.float32),
            TVT.Normalize(mean, std),
        ]
    )
    out.append(
        (
            "seed pipeline 64x3x256x256 uint8 (crop, flip, convert, normalize)",
            lambda: ours(tc_b),
            lambda: ref(th_b),
        )
    )
    same = T.Compose(
        [
            T.RandomCrop(224, same_on_batch=True),
            T.RandomHorizontalFlip(0.3, same_on_batch=True),
            T.ConvertImageDtype(tc.float32),
            T.Normalize(mean, std),
        ]
    )
    out.append(("  same, same_on_batch=True", lambda: same(tc_b), lambda: ref(th_b)))

    hd = rng.integers(0, 256, (3, 1080, 1920), dtype=np.uint8)
    tc_hd, th_hd = tc.from_numpy(hd), torch.from_numpy(hd)
    r_ours, r_ref = T.Resize(224, antialias=True), TVT.Resize(224, antialias=True)
    out.append(
        (
            "Resize 3x1080x1920 uint8 -> 224 antialias bilinear",
            lambda: r_ours(tc_hd),
            lambda: r_ref(th_hd),
        )
    )
    hdf = hd.astype(np.float32) / 255
    tc_hdf, th_hdf = tc.from_numpy(hdf), torch.from_numpy(hdf)
    out.append(
        (
            "Resize 3x1080x1920 float32 -> 224 antialias bilinear",
            lambda: r_ours(tc_hdf),
            lambda: r_ref(th_hdf),
        )
    )

    cj_batch = rng.integers(0, 256, (16, 3, 224, 224), dtype=np.uint8)
    tc_cj, th_cj = tc.from_numpy(cj_batch), torch.from_numpy(cj_batch)
    cj_ours = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    cj_same = T.ColorJitter(0.4, 0.4, 0.4, 0.1, same_on_batch=True)
    cj_ref = TVT.ColorJitter(0.4, 0.4, 0.4, 0.1)
    out.append(
        (
            "ColorJitter(0.4,0.4,0.4,0.1) 16x3x224x224 uint8, per-sample",
            lambda: cj_ours(tc_cj),
            lambda: cj_ref(th_cj),
        )
    )
    out.append(("  same, same_on_batch=True", lambda: cj_same(tc_cj), lambda: cj_ref(th_cj)))

    blur_ours = T.GaussianBlur(9, (0.1, 2.0))
    blur_ref = TVT.GaussianBlur(9, (0.1, 2.0))
    out.append(
        (
            "GaussianBlur(9, (0.1, 2.0)) 16x3x224x224 uint8, per-sample sigma",
            lambda: blur_ours(tc_cj),
            lambda: blur_ref(th_cj),
        )
    )
    cjf = cj_batch.astype(np.float32) / 255
    tc_cjf, th_cjf = tc.from_numpy(cjf), torch.from_numpy(cjf)
    out.append(("  same, float32", lambda: blur_ours(tc_cjf), lambda: blur_ref(th_cjf)))
    rot_ours = T.RandomRotation(30, interpolation="bilinear")
    rot_ref = TVT.RandomRotation(30, interpolation=TVT.InterpolationMode.BILINEAR)
    out.append(
        (
            "RandomRotation(30, bilinear) 16x3x224x224 uint8, per-sample angle",
            lambda: rot_ours(tc_cj),
            lambda: rot_ref(th_cj),
        )
    )
    aff_ours = T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)
    aff_ref = TVT.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)
    out.append(
        (
            "RandomAffine(15, translate, scale, shear) 16x3x224x224 uint8, per-sample",
            lambda: aff_ours(tc_cj),
            lambda: aff_ref(th_cj),
        )
    )
    eq_ours, eq_ref = T.RandomEqualize(1.0), TVT.RandomEqualize(1.0)
    out.append(
        ("RandomEqualize(p=1) 16x3x224x224 uint8", lambda: eq_ours(tc_cj), lambda: eq_ref(th_cj))
    )
    sh_ours, sh_ref = T.RandomAdjustSharpness(2.0, 1.0), TVT.RandomAdjustSharpness(2.0, 1.0)
    out.append(
        (
            "RandomAdjustSharpness(2, p=1) 16x3x224x224 uint8",
            lambda: sh_ours(tc_cj),
            lambda: sh_ref(th_cj),
        )
    )
    er_ours, er_ref = T.RandomErasing(1.0), TVT.RandomErasing(1.0)
    out.append(
        (
            "RandomErasing(p=1) 16x3x224x224 float32, per-sample box",
            lambda: er_ours(tc_cjf),
            lambda: er_ref(th_cjf),
        )
    )

    xy = rng.uniform(0, 1000, (10000, 2))
    wh = rng.uniform(10, 200, (10000, 2))
    boxes = np.concatenate([xy, xy + wh], 1).astype(np.float32)
    scores = rng.random(10000).astype(np.float32)
    tb, ts = tc.from_numpy(boxes), tc.from_numpy(scores)
    rb, rs = torch.from_numpy(boxes), torch.from_numpy(scores)
    out.append(
        (
            "nms 10k boxes, iou 0.5",
            lambda: tc_ops.nms(tb, ts, 0.5),
            lambda: torchvision.ops.nms(rb, rs, 0.5),
        )
    )

    feat = rng.standard_normal((2, 256, 200, 272)).astype(np.float32)
    xy = rng.uniform(0, 900, (1000, 2))
    wh = rng.uniform(16, 300, (1000, 2))
    rois = np.concatenate([rng.integers(0, 2, (1000, 1)), xy, xy + wh], 1).astype(np.float32)
    tf_, tr = tc.from_numpy(feat), tc.from_numpy(rois)
    rf, rr = torch.from_numpy(feat), torch.from_numpy(rois)
    out.append(
        (
            "roi_align 2x256x200x272, 1000 rois, 7x7, sr=2, aligned",
            lambda: tc_ops.roi_align(tf_, tr, 7, 0.25, 2, True),
            lambda: torchvision.ops.roi_align(rf, rr, 7, 0.25, 2, True),
        )
    )
    out.append(
        (
            "roi_align same, adaptive sampling (sr=0)",
            lambda: tc_ops.roi_align(tf_, tr, 7, 0.25, 0, True),
            lambda: torchvision.ops.roi_align(rf, rr, 7, 0.25, 0, True),
        )
    )
    tg = tc.from_numpy(feat).requires_grad_()
    rg = torch.from_numpy(feat).requires_grad_()
    out.append(
        (
            "roi_align forward+backward, sr=2",
            lambda: tc_ops.roi_align(tg, tr, 7, 0.25, 2, True).sum().backward(),
            lambda: torchvision.ops.roi_align(rg, rr, 7, 0.25, 2, True).sum().backward(),
        )
    )
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--filter", default="", help="only cases whose name contains this text")
    args = ap.parse_args()
    if torch is None:
        raise SystemExit("bench_vision needs torch and torchvision for the side-by-side run")
    if args.threads:
        tc.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    print(
        f"threads: tensorcore {tc.get_num_threads()}, torch {torch.get_num_threads()}; "
        f"torchvision {torchvision.__version__}"
    )
    print("| case | tensorcore | torchvision | ratio |\n|---|---|---|---|")
    for name, ours, ref in cases():
        if args.filter not in name:
            continue
        a, b = median_time(ours), median_time(ref)
        print(f"| {name} | {fmt(a)} | {fmt(b)} | {a / b:.2f} |", flush=True)


if __name__ == "__main__":
    main()
