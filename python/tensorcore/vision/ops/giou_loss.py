"""Box regression losses of torchvision.ops: generalized, distance and complete IoU losses.

Unlike box_iou & co. (an N x M matrix), these pair boxes1[i] with boxes2[i] over any leading
shape (..., 4), which is what a regression loss compares."""

import math

import tensorcore as tc

from .boxes import _check_boxes, _upcast


def _check_pair(op, boxes1, boxes2, reduction):
    _check_boxes(op, boxes1)
    _check_boxes(op, boxes2)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{op}: invalid reduction {reduction!r}; expected 'none', 'mean' or 'sum'")
    try:
        tc.broadcast_shapes(tuple(boxes1.shape), tuple(boxes2.shape))
    except (RuntimeError, ValueError):
        raise ValueError(
            f"{op}: boxes1 {list(boxes1.shape)} and boxes2 {list(boxes2.shape)} do not broadcast"
        ) from None
    return _upcast(boxes1), _upcast(boxes2)


def _reduce(loss, reduction):
    if reduction == "mean":
        # An empty batch gives 0 (still connected to the graph), not NaN.
        return loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    return loss


def _inter_union(boxes1, boxes2):
    x1, y1, x2, y2 = boxes1.unbind(-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(-1)
    inter_w = (tc.minimum(x2, x2g) - tc.maximum(x1, x1g)).clamp(min=0)
    inter_h = (tc.minimum(y2, y2g) - tc.maximum(y1, y1g)).clamp(min=0)
    inter = inter_w * inter_h
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    return inter, union


def _enclosing(boxes1, boxes2):
    """Width and height of the smallest box enclosing each pair."""
    x1, y1, x2, y2 = boxes1.unbind(-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(-1)
    return tc.maximum(x2, x2g) - tc.minimum(x1, x1g), tc.maximum(y2, y2g) - tc.minimum(y1, y1g)


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - GIoU of paired xyxy boxes (Rezatofighi et al. 2019); boxes1/boxes2: (..., 4)."""
    boxes1, boxes2 = _check_pair("generalized_box_iou_loss", boxes1, boxes2, reduction)
    inter, union = _inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    enclose_w, enclose_h = _enclosing(boxes1, boxes2)
    enclose_area = enclose_w * enclose_h
    giou = iou - (enclose_area - union) / (enclose_area + eps)
    return _reduce(1 - giou, reduction)


def _diou_loss(boxes1, boxes2, eps):
    inter, union = _inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    enclose_w, enclose_h = _enclosing(boxes1, boxes2)
    diagonal_sq = enclose_w**2 + enclose_h**2 + eps
    x1, y1, x2, y2 = boxes1.unbind(-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(-1)
    centers_sq = ((x1 + x2) / 2 - (x1g + x2g) / 2) ** 2 + ((y1 + y2) / 2 - (y1g + y2g) / 2) ** 2
    return 1 - iou + centers_sq / diagonal_sq, iou


def distance_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - DIoU of paired xyxy boxes (Zheng et al. 2020): IoU loss plus the squared centre
    distance over the squared diagonal of the enclosing box."""
    boxes1, boxes2 = _check_pair("distance_box_iou_loss", boxes1, boxes2, reduction)
    loss, _ = _diou_loss(boxes1, boxes2, eps)
    return _reduce(loss, reduction)


def complete_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - CIoU of paired xyxy boxes (Zheng et al. 2020): the DIoU loss plus an aspect-ratio
    consistency term; boxes1 are the predictions, boxes2 the targets."""
    boxes1, boxes2 = _check_pair("complete_box_iou_loss", boxes1, boxes2, reduction)
    diou_loss, iou = _diou_loss(boxes1, boxes2, eps)
    x1, y1, x2, y2 = boxes1.unbind(-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(-1)
    w_pred, h_pred = x2 - x1, y2 - y1
    w_gt, h_gt = x2g - x1g, y2g - y1g
    v = (4 / math.pi**2) * (tc.atan(w_gt / h_gt) - tc.atan(w_pred / h_pred)) ** 2
    # alpha is a weight, not a path for gradients (as in the paper and torchvision).
    with tc.no_grad():
        alpha = v / (1 - iou + v + eps)
    return _reduce(diou_loss + alpha * v, reduction)
