"""Dense-detector post-processing (RetinaNet's) batched over images, and the training-target checks.

The post-processing runs natively (models/vision/detection.cpp), so eager runs and traced graphs
share it: torchvision's detections (same score threshold, per-level top-k, box decoding, clipping,
class-wise NMS and detections_per_img), with the work arranged to run few, large ops:
- the threshold runs once per pyramid level for all images, on the logits: sigmoid is monotone,
  so only logits above logit(score_thresh) minus a safety margin can pass, and sigmoid plus the
  exact `score > score_thresh` test run on those candidates only (torchvision takes the sigmoid of
  every logit, ~15M per 800x1066 image);
- decoding and clipping run once per level for all images' candidates;
- NMS runs per image, per class on large sets as torchvision does (batched_nms)."""

import tensorcore as tc

__all__ = ["postprocess_detections", "check_targets"]

_native = tc._C._models_vision


def _level_anchors(anchors, num_levels):
    """Per level: the anchors shared by every image (HWA_l, 4), or stacked per image."""
    out = []
    for level in range(num_levels):
        per_image = [a[level] for a in anchors]
        if all(a is per_image[0] for a in per_image):
            out.append(per_image[0])
        else:
            out.append(tc.stack(per_image))
    return out


def _sizes_tensor(image_shapes):
    if isinstance(image_shapes, tc.Tensor):
        return image_shapes
    return tc.tensor([[int(h), int(w)] for h, w in image_shapes], dtype=tc.int64).reshape(-1, 2)


def decode_options(box_coder, score_thresh, nms_thresh, topk_candidates, detections_per_img):
    """The box-decoding and selection arguments every native dense post-processing op ends with."""
    return [
        [float(w) for w in box_coder.weights],
        float(box_coder.bbox_xform_clip),
        float(score_thresh),
        float(nms_thresh),
        int(topk_candidates),
        int(detections_per_img),
    ]


def as_dicts(detections):
    """The native ops' per-image (boxes, scores, labels) as torchvision's detection dicts."""
    return [{"boxes": b, "scores": s, "labels": lab} for b, s, lab in detections]


def postprocess_detections(
    cls_logits,
    bbox_regression,
    anchors,
    image_shapes,
    box_coder,
    score_thresh=0.05,
    nms_thresh=0.5,
    topk_candidates=1000,
    detections_per_img=300,
):
    """Per image {"boxes", "scores", "labels"} from per-level outputs: cls_logits[l] is
    (N, HWA_l, K), bbox_regression[l] (N, HWA_l, 4), anchors[i][l] (HWA_l, 4) for image i."""
    num_images = len(image_shapes)
    if len(cls_logits) != len(bbox_regression):
        raise ValueError(
            f"postprocess_detections: {len(cls_logits)} levels of logits but "
            f"{len(bbox_regression)} of box regression"
        )
    if len(anchors) != num_images:
        raise ValueError(
            f"postprocess_detections: anchors for {len(anchors)} images, image_shapes for {num_images}"
        )
    detections = _native.dense_postprocess(
        list(cls_logits),
        list(bbox_regression),
        _level_anchors(anchors, len(cls_logits)),
        _sizes_tensor(image_shapes),
        *decode_options(box_coder, score_thresh, nms_thresh, topk_candidates, detections_per_img),
    )
    return as_dicts(detections)


def check_targets(targets, num_classes=None):
    """Training targets: a list of dicts with finite float "boxes" (N, 4) and integer "labels" (N,)
    in [0, num_classes); anything else is a ValueError/TypeError naming the image and the problem."""
    if not isinstance(targets, (list, tuple)):
        raise TypeError(
            f"targets should be a list of dicts (one per image), got {type(targets).__name__}"
        )
    for i, target in enumerate(targets):
        if not isinstance(target, dict) or "boxes" not in target or "labels" not in target:
            raise ValueError(
                f"targets[{i}] should be a dict with 'boxes' and 'labels', got "
                f"{sorted(target) if isinstance(target, dict) else type(target).__name__}"
            )
        boxes, labels = target["boxes"], target["labels"]
        if not isinstance(boxes, tc.Tensor):
            raise TypeError(
                f"Expected target boxes to be of type Tensor, got {type(boxes).__name__} in targets[{i}]"
            )
        if boxes.dim() != 2 or boxes.shape[-1] != 4:
            raise ValueError(
                f"Expected target boxes to be a tensor of shape [N, 4], got {list(boxes.shape)} "
                f"in targets[{i}]"
            )
        if not boxes.is_floating_point():
            raise TypeError(
                f"Expected target boxes to be floating point, got {boxes.dtype} in targets[{i}]"
            )
        if not isinstance(labels, tc.Tensor) or labels.dim() != 1 or labels.is_floating_point():
            raise TypeError(
                f"Expected target labels to be a 1-d integer tensor, got "
                f"{list(labels.shape) if isinstance(labels, tc.Tensor) else type(labels).__name__} "
                f"in targets[{i}]"
            )
        if labels.shape[0] != boxes.shape[0]:
            raise ValueError(
                f"targets[{i}] has {boxes.shape[0]} boxes but {labels.shape[0]} labels"
            )
        if boxes.numel() and not bool(tc.isfinite(boxes).all()):
            bad = tc.where(~tc.isfinite(boxes).all(dim=1))[0][0]
            raise ValueError(
                f"targets[{i}]['boxes'] contains NaN or infinite values: box {int(bad)} is "
                f"{boxes[bad].tolist()}"
            )
        if num_classes is not None and labels.numel():
            low, high = int(labels.min()), int(labels.max())
            if low < 0 or high >= num_classes:
                raise ValueError(
                    f"targets[{i}]['labels'] must be in [0, {num_classes}) for a model with "
                    f"num_classes={num_classes}, got values from {low} to {high}"
                )
