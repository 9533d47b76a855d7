"""RetinaNet-ResNet50-FPN on the CPU, tensorcore vs torchvision 0.14 in one run, same weights and
thread count:

- eval: forward of 2 images of 800x1066 (resized to 800x1066, batched to 800x1088), no_grad;
- postprocess: RetinaNet.postprocess_detections alone, both fed the same head outputs;
- train: one step with targets (forward, backward, SGD) on the same 2 images, in the fine-tuning
  setup of retinanet_resnet50_fpn(weights_backbone=...): frozen backbone norm, 3 trainable stages.

The heads' last layers get a slightly wider random init than torchvision's, so ~14,000 scores per
image pass score_thresh=0.05 (with torchvision's init ~1,000) and top-k, decoding and NMS do real
work, as with a trained model on a busy image.

Run: PYTHONPATH=python python benchmarks/bench_detection.py [--threads N] [--runs 3]
     [--only eval,postprocess,train]
Prints medians and the ratio tc/torch (< 1: tensorcore is faster). Targets: eval <= 0.9,
postprocess <= 0.5, train <= 1.0.
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import tensorcore as tc
from tensorcore.vision.models import detection as D
from _common import apply_threads, run_times

try:
    import torch
    import torchvision
except Exception:  # pragma: no cover
    torch = torchvision = None

TARGETS = {"eval": 0.9, "postprocess": 0.5, "train": 1.0}


def median_time(fn, runs):
    return statistics.median(run_times(fn, min_runs=runs, max_runs=runs))


def spread_heads(model):
    torch.manual_seed(1)
    with torch.no_grad():
        # 0.0115 instead of 0.01: ~14,000 scores per image pass 0.05 (torchvision's init: ~1,000)
        model.head.classification_head.cls_logits.weight.normal_(std=0.0115)
        model.head.regression_head.bbox_reg.weight.normal_(std=0.03)


def transfer(ref, ours, tmp):
    path = os.path.join(tmp, "retinanet.pth")
    torch.save(ref.state_dict(), path)
    ours.load_state_dict(tc.load(path), strict=True)


def images_np():
    rng = np.random.default_rng(0)
    return [rng.random((3, 800, 1066), dtype=np.float32) for _ in range(2)]


def targets_np():
    rng = np.random.default_rng(1)
    out = []
    for n in (7, 3):
        xy = rng.uniform(0, 700, (n, 2))
        wh = rng.uniform(20, 300, (n, 2))
        boxes = np.concatenate([xy, np.minimum(xy + wh, [1066, 800])], axis=1).astype(np.float32)
        out.append({"boxes": boxes, "labels": rng.integers(1, 91, n)})
    return out


def bench_eval_and_postprocess(args, tmp, results):
    torch.manual_seed(0)
    ref = torchvision.models.detection.retinanet_resnet50_fpn(
        weights=None, weights_backbone=None
    ).eval()
    spread_heads(ref)
    ours = D.retinanet_resnet50_fpn().eval()
    transfer(ref, ours, tmp)
    imgs = images_np()
    t_imgs, o_imgs = [torch.from_numpy(i) for i in imgs], [tc.tensor(i) for i in imgs]

    if "eval" in args.only:

        def run_ref():
            with torch.no_grad():
                return ref(t_imgs)

        def run_ours():
            with tc.no_grad():
                return ours(o_imgs)

        counts = [len(d["boxes"]) for d in run_ours()], [len(d["boxes"]) for d in run_ref()]
        print(f"eval detections per image: tc {counts[0]}, torch {counts[1]}")
        results["eval"] = (median_time(run_ours, args.runs), median_time(run_ref, args.runs))

    if "postprocess" in args.only:
        # Head outputs and anchors exactly as RetinaNet.forward hands them to postprocess_detections.
        with torch.no_grad():
            image_list, _ = ref.transform(t_imgs)
            features = list(ref.backbone(image_list.tensors).values())
            head = ref.head(features)
            anchors = ref.anchor_generator(image_list, features)
        sizes = [x.shape[2] * x.shape[3] * 9 for x in features]
        t_head = {k: list(v.split(sizes, dim=1)) for k, v in head.items()}
        t_anchors = [list(a.split(sizes)) for a in anchors]
        o_head = {k: list(tc.tensor(v.numpy()).split(sizes, dim=1)) for k, v in head.items()}
        o_anchor_levels = list(tc.tensor(anchors[0].numpy()).split(sizes))
        o_anchors = [o_anchor_levels for _ in anchors]
        shapes = image_list.image_sizes
        logits = tc.tensor(head["cls_logits"].numpy())
        print(
            f"postprocess input: {logits.shape[1]} anchors x {logits.shape[2]} classes per image, "
            f"{int((logits > -2.944439).sum())} scores > 0.05 over both images"
        )

        def run_ref():
            with torch.no_grad():
                return ref.postprocess_detections(t_head, t_anchors, shapes)

        def run_ours():
            with tc.no_grad():
                return ours.postprocess_detections(o_head, o_anchors, shapes)

        got, want = run_ours(), run_ref()
        same = all(
            np.array_equal(g["labels"].numpy(), w["labels"].numpy()) for g, w in zip(got, want)
        )
        print(
            f"postprocess detections: tc {[len(d['boxes']) for d in got]}, torch "
            f"{[len(d['boxes']) for d in want]}, same labels in order: {same}"
        )
        runs = max(args.runs, 5)
        results["postprocess"] = (median_time(run_ours, runs), median_time(run_ref, runs))
        if args.profile:
            profile_postprocess(ours, o_head, o_anchors, shapes)


def profile_postprocess(ours, head, anchors, shapes):
    """Time of each stage of our post-processing (the candidates, top-k, decoding, NMS)."""
    from tensorcore.vision.models.detection import postprocess as P

    stages = {}

    def timed(name, fn):
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            out = fn(*a, **k)
            stages[name] = stages.get(name, 0.0) + time.perf_counter() - t0
            return out

        return wrapper

    originals = {
        n: getattr(P, n) for n in ("_candidates", "_top_per_image", "_clip_rows", "batched_nms")
    }
    for name, fn in originals.items():
        setattr(P, name, timed(name, fn))
    try:
        reps = 5
        t0 = time.perf_counter()
        for _ in range(reps):
            with tc.no_grad():
                ours.postprocess_detections(head, anchors, shapes)
        total = (time.perf_counter() - t0) / reps
    finally:
        for name, fn in originals.items():
            setattr(P, name, fn)
    print(f"postprocess profile (tc, per call, total {total * 1e3:.1f} ms):")
    for name, seconds in stages.items():
        print(f"  {name:16s} {seconds / reps * 1e3:8.2f} ms")


def bench_train(args, tmp, results):
    from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
    from torchvision.ops import FrozenBatchNorm2d
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7

    torch.manual_seed(0)
    body = torchvision.models.resnet50(norm_layer=FrozenBatchNorm2d)
    body_path = os.path.join(tmp, "resnet50.pth")
    torch.save(body.state_dict(), body_path)
    backbone = _resnet_fpn_extractor(
        body, 3, returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256)
    )
    ref = torchvision.models.detection.RetinaNet(backbone, 91).train()
    ours = D.retinanet_resnet50_fpn(weights_backbone=body_path).train()
    transfer(ref, ours, tmp)
    imgs, targets = images_np(), targets_np()
    t_imgs = [torch.from_numpy(i) for i in imgs]
    t_targets = [{k: torch.from_numpy(np.asarray(v)) for k, v in t.items()} for t in targets]
    o_imgs = [tc.tensor(i) for i in imgs]
    o_targets = [{k: tc.tensor(np.asarray(v)) for k, v in t.items()} for t in targets]
    t_opt = torch.optim.SGD([p for p in ref.parameters() if p.requires_grad], lr=1e-4, momentum=0.9)
    o_opt = tc.optim.SGD([p for p in ours.parameters() if p.requires_grad], lr=1e-4, momentum=0.9)

    def step_ref():
        t_opt.zero_grad()
        losses = ref(t_imgs, t_targets)
        sum(losses.values()).backward()
        t_opt.step()

    def step_ours():
        o_opt.zero_grad()
        losses = ours(o_imgs, o_targets)
        sum(losses.values()).backward()
        o_opt.step()

    results["train"] = (median_time(step_ours, args.runs), median_time(step_ref, args.runs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="eval,postprocess,train")
    ap.add_argument("--profile", action="store_true", help="time the stages of our post-processing")
    args = ap.parse_args()
    args.only = set(args.only.split(","))
    if torch is None:
        raise SystemExit("bench_detection.py needs torch and torchvision installed (the reference)")
    apply_threads(args.threads, torch)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.only & {"eval", "postprocess"}:
            bench_eval_and_postprocess(args, tmp, results)
        if "train" in args.only:
            bench_train(args, tmp, results)
    print(f"{'case':12s} {'tc (ms)':>10s} {'torch (ms)':>11s} {'ratio':>7s} {'target':>7s}")
    for name, (ours, ref) in results.items():
        print(
            f"{name:12s} {ours * 1e3:10.1f} {ref * 1e3:11.1f} {ours / ref:7.2f} {TARGETS[name]:7.2f}"
        )


if __name__ == "__main__":
    main()
