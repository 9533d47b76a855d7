"""Dense-detector post-processing (RetinaNet's) batched over images, and the training-target checks.

Gives torchvision's detections (same score threshold, per-level top-k, box decoding, clipping,
class-wise NMS and detections_per_img), with the work arranged to run few, large ops:
- the threshold runs once per pyramid level for all images, on the logits: sigmoid is monotone,
  so only logits above logit(score_thresh) minus a safety margin can pass, and sigmoid plus the
  exact `score > score_thresh` test run on those candidates only (torchvision takes the sigmoid of
  every logit, ~15M per 800x1066 image);
- decoding and clipping run once per level for all images' candidates;
- NMS runs per image, per class on large sets as torchvision does (_utils.batched_nms)."""

import math

import tensorcore as tc

from ._utils import batched_nms

__all__ = ["postprocess_detections", "check_targets"]

# Candidates are taken from logits above logit(score_thresh) - _LOGIT_MARGIN: far more than the
# float32/float64 rounding of sigmoid can move a score across the threshold (for thresholds up to
# _MAX_PREFILTER_THRESH), so the exact test on the candidates selects what thresholding every
# sigmoid would.
_LOGIT_MARGIN = 0.01
_MAX_PREFILTER_THRESH = 0.999


def _candidates(logits, score_thresh):
    """(image, anchor, class) indices and scores of the entries of logits (N, A, K) whose sigmoid
    exceeds score_thresh, in (image, anchor, class) order."""
    if logits.dtype in (tc.float32, tc.float64) and 0.0 < score_thresh <= _MAX_PREFILTER_THRESH:
        bound = math.log(score_thresh / (1.0 - score_thresh)) - _LOGIT_MARGIN
        img, anchor, label = tc.where(logits > bound)
        scores = tc.sigmoid(logits[img, anchor, label])
        exact = scores > score_thresh
        if not bool(exact.all()):
            keep = tc.where(exact)[0]
            img, anchor, label, scores = img[keep], anchor[keep], label[keep], scores[keep]
        return img, anchor, label, scores
    probabilities = tc.sigmoid(logits)
    img, anchor, label = tc.where(probabilities > score_thresh)
    return img, anchor, label, probabilities[img, anchor, label]


def _top_per_image(img, scores, num_images, k):
    """Positions of each image's k best scores (all of them when it has at most k); img is sorted."""
    counts = tc.bincount(img, minlength=num_images).tolist() if img.numel() else [0] * num_images
    if max(counts) <= k:
        return None
    pieces, start = [], 0
    for count in counts:
        if count > k:
            pieces.append(scores[start : start + count].topk(k)[1] + start)
        else:
            pieces.append(tc.arange(start, start + count, device=img.device))
        start += count
    return tc.cat(pieces)


def _level_anchors(anchors, level, img, anchor):
    per_image = [a[level] for a in anchors]
    if all(a is per_image[0] for a in per_image):  # the usual case: one anchor grid for the batch
        return per_image[0][anchor]
    return tc.stack(per_image)[img, anchor]


def _clip_rows(boxes, img, image_shapes):
    """clip_boxes_to_image with each row's own image size."""
    sizes = tc.tensor(image_shapes, dtype=boxes.dtype, device=boxes.device)[img]
    x = tc.minimum(boxes[:, 0::2].clamp(min=0), sizes[:, 1:2])
    y = tc.minimum(boxes[:, 1::2].clamp(min=0), sizes[:, 0:1])
    return tc.stack((x, y), dim=2).reshape(-1, 4)


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
    image_shapes = [(int(h), int(w)) for h, w in image_shapes]
    found = {"img": [], "scores": [], "labels": [], "boxes": []}
    for level, (logits, regression) in enumerate(zip(cls_logits, bbox_regression)):
        img, anchor, label, scores = _candidates(logits, score_thresh)
        top = _top_per_image(img, scores, num_images, topk_candidates)
        if top is not None:
            img, anchor, label, scores = img[top], anchor[top], label[top], scores[top]
        boxes = box_coder.decode_single(
            regression[img, anchor], _level_anchors(anchors, level, img, anchor)
        )
        found["img"].append(img)
        found["scores"].append(scores)
        found["labels"].append(label)
        found["boxes"].append(_clip_rows(boxes, img, image_shapes))

    # Group all levels' candidates by image (stable: level order is kept within an image).
    img = tc.cat(found["img"])
    order = tc.argsort(img, stable=True)
    scores, labels, boxes = (tc.cat(found[k])[order] for k in ("scores", "labels", "boxes"))
    counts = tc.bincount(img, minlength=num_images).tolist() if img.numel() else [0] * num_images
    detections, start = [], 0
    for count in counts:
        stop = start + count
        keep = batched_nms(boxes[start:stop], scores[start:stop], labels[start:stop], nms_thresh)
        keep = keep[:detections_per_img] + start
        detections.append({"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]})
        start = stop
    return detections


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
