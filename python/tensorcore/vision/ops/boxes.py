"""Box utilities (torchvision.ops.boxes) written over tensor ops; nms runs in C++."""

import tensorcore as tc
from tensorcore import _C

_V = _C._vision


def _check_boxes(op, boxes, last=4):
    if not isinstance(boxes, tc.Tensor):
        raise TypeError(f"{op}: boxes must be a Tensor, got {type(boxes).__name__}")
    if boxes.dim() < 1 or boxes.shape[-1] != last:
        raise ValueError(f"{op}: boxes should have shape (..., {last}), got {list(boxes.shape)}")


def nms(boxes, scores, iou_threshold):
    """Indices of the boxes kept by greedy non-maximum suppression, sorted by decreasing score."""
    _check_boxes("nms", boxes)
    return _V.nms(boxes, scores, float(iou_threshold))


def batched_nms(boxes, scores, idxs, iou_threshold):
    """NMS within each category: boxes of different categories never suppress each other.
    Small sets shift each category apart and run one NMS; large ones run one NMS per category
    (as torchvision chooses), so results match torchvision's exactly."""
    _check_boxes("batched_nms", boxes)
    return _V.batched_nms(boxes, scores, idxs, float(iou_threshold))


def remove_small_boxes(boxes, min_size):
    """Indices of the boxes whose sides are both at least min_size."""
    _check_boxes("remove_small_boxes", boxes)
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    return tc.where(keep)[0]


def clip_boxes_to_image(boxes, size):
    """Clamps xyxy boxes to an image of size (height, width)."""
    _check_boxes("clip_boxes_to_image", boxes)
    height, width = size
    x = boxes[..., 0::2].clamp(min=0, max=width)
    y = boxes[..., 1::2].clamp(min=0, max=height)
    return tc.stack((x, y), dim=boxes.dim()).reshape(boxes.shape)


def box_convert(boxes, in_fmt, out_fmt):
    """Converts boxes between 'xyxy', 'xywh' and 'cxcywh'."""
    _check_boxes("box_convert", boxes)
    allowed = ("xyxy", "xywh", "cxcywh")
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError(
            f"box_convert: unsupported format pair ({in_fmt!r}, {out_fmt!r}); "
            f"expected formats among {allowed}"
        )
    if in_fmt == out_fmt:
        return boxes.clone()
    a, b, c, d = boxes.unbind(-1)
    if in_fmt == "xywh":
        x1, y1, x2, y2 = a, b, a + c, b + d
    elif in_fmt == "cxcywh":
        x1, y1, x2, y2 = a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d
    else:
        x1, y1, x2, y2 = a, b, c, d
    if out_fmt == "xywh":
        out = (x1, y1, x2 - x1, y2 - y1)
    elif out_fmt == "cxcywh":
        out = ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)
    else:
        out = (x1, y1, x2, y2)
    return tc.stack(out, dim=-1)


def _upcast(t):
    if t.is_floating_point():
        return t if t.dtype in (tc.float32, tc.float64) else t.float()
    return t if t.dtype in (tc.int32, tc.int64) else t.int()


def box_area(boxes):
    """Area of xyxy boxes."""
    _check_boxes("box_area", boxes)
    boxes = _upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _box_inter_union(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = tc.maximum(boxes1[:, None, :2], boxes2[:, :2])
    rb = tc.minimum(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = _upcast(rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    return inter, union


def box_iou(boxes1, boxes2):
    """(N, M) IoU matrix of two sets of xyxy boxes."""
    _check_boxes("box_iou", boxes1)
    _check_boxes("box_iou", boxes2)
    inter, union = _box_inter_union(boxes1, boxes2)
    return inter / union


def generalized_box_iou(boxes1, boxes2):
    """(N, M) generalized IoU (Rezatofighi et al. 2019)."""
    _check_boxes("generalized_box_iou", boxes1)
    _check_boxes("generalized_box_iou", boxes2)
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union
    lti = tc.minimum(boxes1[:, None, :2], boxes2[:, :2])
    rbi = tc.maximum(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = _upcast(rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def _diou_parts(boxes1, boxes2, eps):
    iou = box_iou(boxes1, boxes2)
    lti = tc.minimum(boxes1[:, None, :2], boxes2[:, :2])
    rbi = tc.maximum(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = _upcast(rbi - lti).clamp(min=0)
    diagonal_sq = whi[:, :, 0] ** 2 + whi[:, :, 1] ** 2 + eps
    cx1, cy1 = (boxes1[:, 0] + boxes1[:, 2]) / 2, (boxes1[:, 1] + boxes1[:, 3]) / 2
    cx2, cy2 = (boxes2[:, 0] + boxes2[:, 2]) / 2, (boxes2[:, 1] + boxes2[:, 3]) / 2
    centers_sq = (cx1[:, None] - cx2[None, :]) ** 2 + (cy1[:, None] - cy2[None, :]) ** 2
    return iou, iou - centers_sq / diagonal_sq


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """(N, M) distance IoU (Zheng et al. 2020)."""
    _check_boxes("distance_box_iou", boxes1)
    _check_boxes("distance_box_iou", boxes2)
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    return _diou_parts(boxes1, boxes2, eps)[1]


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """(N, M) complete IoU (Zheng et al. 2020): distance IoU plus an aspect-ratio term."""
    _check_boxes("complete_box_iou", boxes1)
    _check_boxes("complete_box_iou", boxes2)
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    iou, diou = _diou_parts(boxes1, boxes2, eps)
    w1, h1 = boxes1[:, None, 2] - boxes1[:, None, 0], boxes1[:, None, 3] - boxes1[:, None, 1]
    w2, h2 = boxes2[:, 2] - boxes2[:, 0], boxes2[:, 3] - boxes2[:, 1]
    v = (4 / (3.141592653589793**2)) * (tc.atan(w1 / h1) - tc.atan(w2 / h2)) ** 2
    with tc.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def masks_to_boxes(masks):
    """(N, 4) xyxy boxes enclosing the non-zero pixels of each of N (H, W) masks; float32.

    Example::

        >>> m = tc.zeros(1, 4, 5)
        >>> m[0, 1:3, 2:4] = 1
        >>> tc.vision.ops.masks_to_boxes(m)
        tensor([[2., 1., 3., 2.]])
    """
    if not isinstance(masks, tc.Tensor):
        raise TypeError(f"masks_to_boxes: masks must be a Tensor, got {type(masks).__name__}")
    if masks.dim() != 3:
        raise ValueError(
            f"masks_to_boxes: masks should have shape (N, H, W), got {list(masks.shape)}"
        )
    n = masks.shape[0]
    if n == 0:
        return tc.zeros((0, 4), dtype=tc.float32, device=masks.device)
    present = masks != 0
    rows = present.any(dim=2)  # (N, H): which rows hold a pixel
    cols = present.any(dim=1)  # (N, W)
    empty = (~rows.any(dim=1)).nonzero()
    if empty.numel() > 0:
        raise ValueError(
            f"masks_to_boxes: mask {int(empty[0, 0])} has no non-zero pixel, so it has no box"
        )
    h, w = masks.shape[1], masks.shape[2]
    ys = tc.arange(h, device=masks.device, dtype=tc.float32)
    xs = tc.arange(w, device=masks.device, dtype=tc.float32)
    big = float(max(h, w))
    # min/max over the occupied coordinates: unoccupied ones are pushed out of the reduction.
    y_min = tc.where(rows, ys, big).amin(dim=1)
    y_max = tc.where(rows, ys, -1.0).amax(dim=1)
    x_min = tc.where(cols, xs, big).amin(dim=1)
    x_max = tc.where(cols, xs, -1.0).amax(dim=1)
    return tc.stack([x_min, y_min, x_max, y_max], dim=1)
