"""Detection building blocks shared by the detectors (torchvision.models.detection._utils):
box encoding, anchor-to-ground-truth matching, the sampler and the box regression losses."""

import math

import numpy as np

import tensorcore as tc
from tensorcore.nn import functional as F

from ...ops import (
    FrozenBatchNorm2d,
    complete_box_iou_loss,
    distance_box_iou_loss,
    generalized_box_iou_loss,
    sigmoid_focal_loss,
)

__all__ = [
    "BalancedPositiveNegativeSampler",
    "BoxCoder",
    "BoxLinearCoder",
    "Matcher",
    "SSDMatcher",
    "encode_boxes",
    "overwrite_eps",
    "retrieve_out_channels",
]


def _float_tensor(values, dtype, device=None):
    """A tensor of Python floats in `dtype`. Built from float64 NumPy data because tc.tensor(list,
    dtype=float64) rounds the values through float32 first (a core bug, docs/detection.md)."""
    return tc.as_tensor(np.asarray(values, dtype=np.float64)).to(dtype=dtype, device=device)


class BalancedPositiveNegativeSampler:
    """Draws at most `batch_size_per_image` anchors per image, a `positive_fraction` of them
    positive (matched index >= 1), the rest negative (== 0); -1 entries are never drawn."""

    def __init__(self, batch_size_per_image, positive_fraction):
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def __call__(self, matched_idxs):
        pos_masks, neg_masks = [], []
        for matched in matched_idxs:
            positive = tc.where(matched >= 1)[0]
            negative = tc.where(matched == 0)[0]
            num_pos = min(positive.numel(), int(self.batch_size_per_image * self.positive_fraction))
            num_neg = min(negative.numel(), self.batch_size_per_image - num_pos)
            chosen_pos = positive[tc.randperm(positive.numel())[:num_pos]]
            chosen_neg = negative[tc.randperm(negative.numel())[:num_neg]]
            pos_mask = tc.zeros_like(matched, dtype=tc.uint8)
            neg_mask = tc.zeros_like(matched, dtype=tc.uint8)
            pos_mask[chosen_pos] = 1
            neg_mask[chosen_neg] = 1
            pos_masks.append(pos_mask)
            neg_masks.append(neg_mask)
        return pos_masks, neg_masks


def _corners_to_centers(boxes):
    widths = boxes[:, 2] - boxes[:, 0]
    heights = boxes[:, 3] - boxes[:, 1]
    return boxes[:, 0] + 0.5 * widths, boxes[:, 1] + 0.5 * heights, widths, heights


def encode_boxes(reference_boxes, proposals, weights):
    """Regression targets (dx, dy, dw, dh) that move each proposal onto its reference box."""
    wx, wy, ww, wh = (weights[i] for i in range(4))
    ex_x, ex_y, ex_w, ex_h = _corners_to_centers(proposals)
    gt_x, gt_y, gt_w, gt_h = _corners_to_centers(reference_boxes)
    # torchvision's operation order (weight times offset, then divide) keeps results bit-identical.
    return tc.stack(
        (
            wx * (gt_x - ex_x) / ex_w,
            wy * (gt_y - ex_y) / ex_h,
            ww * tc.log(gt_w / ex_w),
            wh * tc.log(gt_h / ex_h),
        ),
        dim=1,
    )


class BoxCoder:
    """Encodes boxes as offsets from reference boxes (Faster R-CNN's parametrisation) and back."""

    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        if len(weights) != 4:
            raise ValueError(
                f"BoxCoder: weights must have 4 entries (x, y, w, h), got {len(weights)}"
            )
        self.weights = tuple(weights)
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes, proposals):
        counts = [len(b) for b in reference_boxes]
        codes = self.encode_single(
            tc.cat(list(reference_boxes), dim=0), tc.cat(list(proposals), dim=0)
        )
        return codes.split(counts, 0)

    def encode_single(self, reference_boxes, proposals):
        weights = _float_tensor(self.weights, reference_boxes.dtype, reference_boxes.device)
        return encode_boxes(reference_boxes, proposals, weights)

    def decode(self, rel_codes, boxes):
        if not isinstance(boxes, (list, tuple)):
            raise TypeError(
                f"BoxCoder.decode: boxes must be a list or tuple of tensors, got {type(boxes).__name__}"
            )
        if not isinstance(rel_codes, tc.Tensor):
            raise TypeError(
                f"BoxCoder.decode: rel_codes must be a Tensor, got {type(rel_codes).__name__}"
            )
        total = sum(b.shape[0] for b in boxes)
        if total > 0:
            rel_codes = rel_codes.reshape(total, -1)
        decoded = self.decode_single(rel_codes, tc.cat(list(boxes), dim=0))
        return decoded.reshape(total, -1, 4) if total > 0 else decoded

    def decode_single(self, rel_codes, boxes):
        """Boxes (x1, y1, x2, y2) from codes (N, 4k) relative to reference boxes (N, 4)."""
        boxes = boxes.to(rel_codes.dtype)
        ctr_x, ctr_y, widths, heights = _corners_to_centers(boxes)
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        # Clamped so exp() cannot overflow on wild predictions.
        dw = (rel_codes[:, 2::4] / ww).clamp(max=self.bbox_xform_clip)
        dh = (rel_codes[:, 3::4] / wh).clamp(max=self.bbox_xform_clip)
        pred_x = dx * widths[:, None] + ctr_x[:, None]
        pred_y = dy * heights[:, None] + ctr_y[:, None]
        half_w = 0.5 * (tc.exp(dw) * widths[:, None])
        half_h = 0.5 * (tc.exp(dh) * heights[:, None])
        return tc.stack(
            (pred_x - half_w, pred_y - half_h, pred_x + half_w, pred_y + half_h), dim=2
        ).flatten(1)


class BoxLinearCoder:
    """FCOS's coder: distances from the reference box centre to the four sides of the target box,
    optionally divided by the reference box size."""

    def __init__(self, normalize_by_size=True):
        self.normalize_by_size = normalize_by_size

    @staticmethod
    def _sizes(boxes):
        w = boxes[..., 2] - boxes[..., 0]
        h = boxes[..., 3] - boxes[..., 1]
        return tc.stack((w, h, w, h), dim=-1)

    def encode(self, reference_boxes, proposals):
        cx = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        cy = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        codes = tc.stack(
            (
                cx - proposals[..., 0],
                cy - proposals[..., 1],
                proposals[..., 2] - cx,
                proposals[..., 3] - cy,
            ),
            dim=-1,
        )
        return codes / self._sizes(reference_boxes) if self.normalize_by_size else codes

    def decode(self, rel_codes, boxes):
        boxes = boxes.to(dtype=rel_codes.dtype)
        cx = 0.5 * (boxes[..., 0] + boxes[..., 2])
        cy = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            rel_codes = rel_codes * self._sizes(boxes)
        return tc.stack(
            (
                cx - rel_codes[..., 0],
                cy - rel_codes[..., 1],
                cx + rel_codes[..., 2],
                cy + rel_codes[..., 3],
            ),
            dim=-1,
        )


class Matcher:
    """Assigns each prediction (column of an M x N quality matrix) the ground truth it overlaps
    most, or BELOW_LOW_THRESHOLD (-1) / BETWEEN_THRESHOLDS (-2) when that overlap is too low."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, high_threshold, low_threshold, allow_low_quality_matches=False):
        if low_threshold > high_threshold:
            raise ValueError(
                f"Matcher: low_threshold ({low_threshold}) should be <= high_threshold "
                f"({high_threshold})"
            )
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix):
        if match_quality_matrix.dim() != 2:
            raise ValueError(
                f"Matcher: expected an (M ground truths, N predictions) matrix, got shape "
                f"{list(match_quality_matrix.shape)}"
            )
        if match_quality_matrix.numel() == 0:
            which = "ground-truth" if match_quality_matrix.shape[0] == 0 else "proposal"
            raise ValueError(f"No {which} boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        best_any_quality = matches.clone() if self.allow_low_quality_matches else None
        below = matched_vals < self.low_threshold
        between = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below] = self.BELOW_LOW_THRESHOLD
        matches[between] = self.BETWEEN_THRESHOLDS
        if self.allow_low_quality_matches:
            self.set_low_quality_matches_(matches, best_any_quality, match_quality_matrix)
        return matches

    def set_low_quality_matches_(self, matches, all_matches, match_quality_matrix):
        """Gives every ground truth its best predictions (ties included) even below the low
        threshold: those predictions take their own best ground truth back."""
        best_per_gt = match_quality_matrix.max(dim=1)[0]
        preds = tc.where(match_quality_matrix == best_per_gt[:, None])[1]
        matches[preds] = all_matches[preds]


class SSDMatcher(Matcher):
    """Matcher with one threshold where every ground truth also claims its best prediction."""

    def __init__(self, threshold):
        super().__init__(threshold, threshold, allow_low_quality_matches=False)

    def __call__(self, match_quality_matrix):
        matches = super().__call__(match_quality_matrix)
        best_pred = match_quality_matrix.max(dim=1)[1]
        matches[best_pred] = tc.arange(best_pred.shape[0], dtype=tc.int64, device=best_pred.device)
        return matches


def overwrite_eps(model, eps):
    """Sets eps of every FrozenBatchNorm2d: checkpoints trained before torchvision fixed the
    frozen norm's eps (pytorch/vision#2933) expect 0."""
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def retrieve_out_channels(model, size):
    """Channel count of each feature map a backbone returns for a (width, height) input."""
    was_training = model.training
    model.eval()
    with tc.no_grad():
        device = next(iter(model.parameters())).device
        features = model(tc.zeros((1, 3, size[1], size[0]), device=device))
        if isinstance(features, tc.Tensor):
            features = {"0": features}
        channels = [f.shape[1] for f in features.values()]
    if was_training:
        model.train()
    return channels


def _topk_min(input, orig_kval, axis):
    return min(orig_kval, input.shape[axis])


class _NegativeFocalSum(tc.autograd.Function):
    """sum_r row_weight[r] * sum_k FL(logits[r, k], target 0): the focal loss every entry of a
    one-hot target has before its few positives are corrected. One node that keeps only the
    logits and recomputes the rest in backward, in place where it can: autograd over the
    elementwise formula would keep a dozen (anchors x classes) intermediates alive (~60 MB each
    for an 800x1066 image), and allocating them costs as much as computing them."""

    @staticmethod
    def _terms(x, gamma):
        p = tc.sigmoid(x)
        # BCE with logits for target 0: max(x, 0) + log1p(exp(-|x|)), two buffers in all.
        ce = x.abs().neg_().exp_().log1p_().add_(x.clamp(min=0))
        modulation = p * p if gamma == 2.0 else p**gamma
        return p, ce, modulation

    @staticmethod
    def forward(ctx, logits, row_weight, alpha, gamma):
        _, ce, modulation = _NegativeFocalSum._terms(logits, gamma)
        scale = (1.0 - alpha) if alpha >= 0 else 1.0
        ctx.save_for_backward(logits, row_weight)
        ctx.alpha_scale, ctx.gamma = scale, gamma
        return (ce.mul_(modulation).sum(dim=1) * row_weight).sum() * scale

    @staticmethod
    def backward(ctx, grad_output):
        logits, row_weight = ctx.saved_tensors
        p, ce, modulation = _NegativeFocalSum._terms(logits, ctx.gamma)
        # d/dx [ce * p^g] = p^g * (p + g * (1 - p) * ce)
        local = (1 - p).mul_(ce).mul_(ctx.gamma).add_(p).mul_(modulation)
        return local.mul_((row_weight * (grad_output * ctx.alpha_scale))[:, None]), None, None, None


def _one_hot_focal_loss_sum(
    logits, row_weight, positive_rows, positive_classes, alpha=0.25, gamma=2.0
):
    """sigmoid_focal_loss(logits, one_hot, alpha, gamma) summed over the rows with row_weight 1,
    where one_hot is 1 at (positive_rows, positive_classes) only (positives lie in weighted rows).
    Equals torchvision's RetinaNet classification loss without building the (anchors x classes)
    target or copying the kept rows."""
    total = _NegativeFocalSum.apply(logits, row_weight, float(alpha), float(gamma))
    if positive_rows.numel() == 0:
        return total
    x = logits[positive_rows, positive_classes]
    ones = tc.ones_like(x)
    # Replace the target-0 loss counted above by the target-1 loss at the positives.
    correction = (
        sigmoid_focal_loss(x, ones, alpha, gamma) - sigmoid_focal_loss(x, 1 - ones, alpha, gamma)
    ).sum()
    return total + correction


_BOX_LOSSES = ("l1", "smooth_l1", "ciou", "diou", "giou")


def _box_loss(
    type,
    box_coder,
    anchors_per_image,
    matched_gt_boxes_per_image,
    bbox_regression_per_image,
    cnf=None,
):
    """Summed regression loss of one image's foreground anchors."""
    if type not in _BOX_LOSSES:
        raise ValueError(f"Unsupported loss: {type!r}; expected one of {_BOX_LOSSES}")
    cnf = cnf or {}
    if type in ("l1", "smooth_l1"):
        target = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        if type == "l1":
            return F.l1_loss(bbox_regression_per_image, target, reduction="sum")
        return F.smooth_l1_loss(
            bbox_regression_per_image, target, reduction="sum", beta=cnf.get("beta", 1.0)
        )
    predicted = box_coder.decode_single(bbox_regression_per_image, anchors_per_image)
    loss_fn = {
        "ciou": complete_box_iou_loss,
        "diou": distance_box_iou_loss,
        "giou": generalized_box_iou_loss,
    }[type]
    return loss_fn(predicted, matched_gt_boxes_per_image, reduction="sum", eps=cnf.get("eps", 1e-7))


# torchvision switches from the coordinate trick to one NMS per class above this many box
# coordinates (CPU, CUDA); the two differ in float rounding, so the same switch keeps results equal.
def batched_nms(boxes, scores, idxs, iou_threshold):
    """Class-aware NMS giving torchvision's results (models/vision/detection.cpp): the coordinate
    trick (each class shifted apart, one NMS) for small sets, one exact NMS per class for large
    ones, where the shifted, rounded coordinates would change which boxes survive. Kept indices
    are sorted by decreasing score."""
    return tc._C._vision.batched_nms(boxes, scores, idxs, float(iou_threshold))
