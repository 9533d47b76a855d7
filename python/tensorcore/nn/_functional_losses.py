"""Loss functions of tensorcore.nn.functional, written over core ops."""

import math

from .. import _C
from ..amp._op_hooks import autocast_op
from .._tensor import tensor as _tensor
from .._C import Tensor

__all__ = [
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "cosine_embedding_loss",
    "margin_ranking_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "soft_margin_loss",
    "multilabel_soft_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
]


def _check_tensor(x, op, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected {name} to be a Tensor, got {type(x).__name__}")


def _legacy_reduction(size_average, reduce, reduction):
    """Maps the deprecated size_average/reduce flags to a reduction string, as torch does."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduce(loss, reduction, op):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(
        f"{op}: {reduction} is not a valid value for reduction (use 'none', 'mean' or 'sum')"
    )


def _check_same_shape(input, target, op):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"{op}: Using a target size ({tuple(target.shape)}) that is different to the input size "
            f"({tuple(input.shape)}) is not supported; make sure they have the same size."
        )


# Inputs the fused CPU kernels (log_softmax, cross_entropy) take.
_FUSED_DTYPES = (_C.float32, _C.float64)


def _log_softmax(x, dim):
    if x.dtype in _FUSED_DTYPES and x.is_cpu:
        return _C._nnfused.log_softmax(x, dim)
    return x - _C.logsumexp(x, dim, keepdim=True)


def _check_index_target(input, target, weight, op):
    """Shape and dtype checks for class-index targets; returns (input, target, unbatched) with
    unbatched input/target given a batch dim."""
    _check_tensor(input, op, "input")
    _check_tensor(target, op, "target")
    if input.dim() < 1:
        raise ValueError(
            f"{op}: input must have at least 1 dimension (C) or 2 (N, C), got a 0-d tensor"
        )
    if target.dtype not in (_C.int64, _C.int32, _C.int16, _C.int8, _C.uint8):
        raise TypeError(
            f"{op}: expected target of an integer dtype (class indices), got {target.dtype}"
        )
    target = target.long()
    unbatched = input.dim() == 1
    if unbatched:
        if target.dim() != 0:
            raise ValueError(
                f"{op}: for a 1-D input of shape {tuple(input.shape)} expected a 0-d target, "
                f"got shape {tuple(target.shape)}"
            )
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    n_classes = input.shape[1]
    expected = (input.shape[0],) + tuple(input.shape[2:])
    if tuple(target.shape) != expected:
        raise ValueError(
            f"{op}: expected target of shape {expected} for input of shape {tuple(input.shape)}, "
            f"got {tuple(target.shape)}"
        )
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != n_classes):
        raise ValueError(
            f"{op}: weight tensor should be defined either for all {n_classes} classes or no classes "
            f"but got weight tensor of shape: {tuple(weight.shape)}"
        )
    return input, target, unbatched


def _nll_parts(input, target, weight, ignore_index, op):
    """Per-element -input[target] * w and the matching weights (0 where ignored)."""
    input, target, unbatched = _check_index_target(input, target, weight, op)
    n_classes = input.shape[1]
    valid = target != ignore_index
    safe = _C.where(valid, target, _C.zeros_like(target))
    if safe.numel():
        lo, hi = int(safe.min().item()), int(safe.max().item())
        if lo < 0 or hi >= n_classes:
            bad = lo if lo < 0 else hi
            raise IndexError(
                f"{op}: Target {bad} is out of bounds (number of classes: {n_classes})."
            )
    picked = -input.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = valid.to(input.dtype)
    if weight is not None:
        w = w * weight.to(input.dtype).index_select(0, safe.reshape(-1)).reshape(tuple(safe.shape))
    return picked, w, safe, valid, unbatched


@autocast_op("nll_loss")
def nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    picked, w, _, _, unbatched = _nll_parts(input, target, weight, ignore_index, "nll_loss")
    loss = picked * w
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / w.sum()
    raise ValueError(f"nll_loss: {reduction} is not a valid value for reduction")


@autocast_op("cross_entropy_loss")
def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """Log-softmax over dim 1 (dim 0 for unbatched input) followed by NLL, or by a dot with target
    probabilities when target is floating point and has input's shape."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if (
        type(input) is Tensor
        and type(target) is Tensor
        and target.dtype is _C.int64
        and input.dtype in _FUSED_DTYPES
        and input.is_cpu
    ):
        # The fused kernel checks shapes, weight, reduction, smoothing and target range itself;
        # the Python checks below would triple a small call's time.
        return _C._nncpp.cross_entropy(
            input, target, weight, ignore_index, reduction, label_smoothing
        )
    _check_tensor(input, "cross_entropy", "input")
    _check_tensor(target, "cross_entropy", "target")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}"
        )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"cross_entropy: {reduction} is not a valid value for reduction")
    class_dim = 0 if input.dim() == 1 else 1
    if not target.is_floating_point() and input.dtype in _FUSED_DTYPES and input.is_cpu:
        # Fused kernel: log-softmax + NLL (+ weights, smoothing) in one pass, the gradient in
        # another; out-of-range targets raise the same IndexError there.
        _check_index_target(input, target, weight, "cross_entropy")
        return _C._nncpp.cross_entropy(
            input, target.long(), weight, ignore_index, reduction, label_smoothing
        )
    logp = _log_softmax(input, class_dim)
    n_classes = input.shape[class_dim]

    if target.is_floating_point():
        _check_same_shape(input, target, "cross_entropy (probability targets)")
        if label_smoothing > 0:
            target = target * (1.0 - label_smoothing) + label_smoothing / n_classes
        terms = logp * target
        if weight is not None:
            terms = terms * weight.reshape((n_classes,) + (1,) * (input.dim() - class_dim - 1))
        loss = -terms.sum(class_dim)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return loss.sum()
        return loss.sum() / (input.numel() / n_classes) if input.numel() else loss.sum() / 0.0

    picked, w, safe, valid, unbatched = _nll_parts(
        logp, target, weight, ignore_index, "cross_entropy"
    )
    nll = picked * w
    if label_smoothing > 0:
        lp = logp.unsqueeze(0) if unbatched else logp
        if weight is not None:
            lp = lp * weight.to(lp.dtype).reshape((n_classes,) + (1,) * (lp.dim() - 2))
        smooth = -lp.sum(1) * valid.to(lp.dtype)
    if reduction == "none":
        loss = (
            nll
            if label_smoothing == 0
            else (1 - label_smoothing) * nll + label_smoothing / n_classes * smooth
        )
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        loss = nll.sum()
        if label_smoothing > 0:
            loss = (1 - label_smoothing) * loss + label_smoothing / n_classes * smooth.sum()
        return loss
    denom = w.sum()
    loss = nll.sum() / denom
    if label_smoothing > 0:
        loss = (1 - label_smoothing) * loss + label_smoothing / n_classes * (smooth.sum() / denom)
    return loss


_BCE_FUNCTION = None


def _bce_elementwise():
    """The elementwise BCE as torch computes it, forward and backward.

    torch clamps each log at -100 so that a probability of exactly 0 or 1 gives a finite loss,
    and its input gradient is (x - y) / max(x (1 - x), 1e-12): finite (huge) at 0 and 1, where
    differentiating the clamped logs would give 0 * inf = NaN.
    """
    global _BCE_FUNCTION
    if _BCE_FUNCTION is None:
        from ..autograd.function import Function

        class BinaryCrossEntropy(Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return -(y * _clamped_log(x) + (1.0 - y) * _clamped_log(1.0 - x))

            @staticmethod
            def backward(ctx, grad):
                x, y = ctx.saved_tensors
                grad_x = grad * (x - y) / _C.clamp((1.0 - x) * x, min=1e-12)
                grad_y = grad * (_C.log(1.0 - x) - _C.log(x))  # unclamped, as torch
                return grad_x, grad_y

        _BCE_FUNCTION = BinaryCrossEntropy
    return _BCE_FUNCTION


def _clamped_log(x):
    return _C.clamp(_C.log(x), min=-100.0)


@autocast_op("binary_cross_entropy")
def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_shape(input, target, "binary_cross_entropy")
    if input.numel():
        lo, hi = float(input.min().item()), float(input.max().item())
        if lo < 0 or hi > 1 or math.isnan(lo):
            raise ValueError(
                "binary_cross_entropy: all elements of input should be between 0 and 1"
            )
    loss = _bce_elementwise().apply(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy")


@autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_shape(input, target, "binary_cross_entropy_with_logits")
    # log(1 + e^-x) computed stably: max(-x, 0) + log1p(e^-|x|).
    log_sig_neg = _C.clamp(-input, min=0.0) + _C.log1p(_C.exp(-_C.abs(input)))
    if pos_weight is not None:
        log_weight = (pos_weight - 1.0) * target + 1.0
        loss = (1.0 - target) * input + log_weight * log_sig_neg
    else:
        loss = (1.0 - target) * input + log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


def _pointwise(input, target, op):
    _check_tensor(input, op, "input")
    _check_tensor(target, op, "target")
    if tuple(input.shape) != tuple(target.shape):
        import warnings

        warnings.warn(
            f"{op}: Using a target size ({tuple(target.shape)}) that is different to the input size "
            f"({tuple(input.shape)}). This will likely lead to incorrect results due to broadcasting.",
            stacklevel=3,
        )
    return input - target


@autocast_op("mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    d = _pointwise(input, target, "mse_loss")
    return _reduce(d * d, _legacy_reduction(size_average, reduce, reduction), "mse_loss")


@autocast_op("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    d = _pointwise(input, target, "l1_loss")
    return _reduce(_C.abs(d), _legacy_reduction(size_average, reduce, reduction), "l1_loss")


@autocast_op("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    d = _C.abs(_pointwise(input, target, "smooth_l1_loss"))
    if beta == 0:
        loss = d
    else:
        loss = _C.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction), "smooth_l1_loss")


@autocast_op("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0):
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    d = _C.abs(_pointwise(input, target, "huber_loss"))
    loss = _C.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss, reduction, "huber_loss")


@autocast_op("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if log_target:
        loss = _C.exp(target) * (target - input)
    else:
        # xlogy: 0 * log 0 = 0 (the where keeps the unused branch out of the gradient).
        positive = target > 0
        safe_t = _C.where(positive, target, _C.ones_like(target))
        loss = _C.where(positive, target * (_C.log(safe_t) - input), _C.zeros_like(target) * input)
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction, "kl_div")


@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input1.dim() not in (1, 2) or tuple(input1.shape) != tuple(input2.shape):
        raise ValueError(
            f"cosine_embedding_loss: expected 1-D or 2-D inputs of equal shape, got "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    dim = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag = _C.sqrt(((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps))
    cos = prod / mag
    zeros = _C.zeros_like(cos)
    pos = _C.where(target == 1, 1.0 - cos, zeros)
    neg = _C.where(target == -1, _C.clamp(cos - margin, min=0.0), zeros)
    return _reduce(pos + neg, reduction, "cosine_embedding_loss")


@autocast_op("margin_ranking_loss")
def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not (input1.dim() == input2.dim() == target.dim()):
        raise ValueError(
            f"margin_ranking_loss: all input tensors should have same dimension but got sizes: "
            f"input1: {tuple(input1.shape)}, input2: {tuple(input2.shape)}, target: {tuple(target.shape)}"
        )
    loss = _C.clamp(-target * (input1 - input2) + margin, min=0.0)
    return _reduce(loss, reduction, "margin_ranking_loss")


def _pairwise(x1, x2, p, eps):
    return _C.norm(x1 - x2 + eps, p, x1.dim() - 1 if x1.dim() else 0)


@autocast_op("triplet_margin_loss")
def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1 or dims[0] not in (1, 2):
        raise ValueError(
            f"triplet_margin_loss: expected anchor, positive and negative to be 1-D or 2-D with the "
            f"same number of dimensions, got {dims}"
        )
    d_pos = _pairwise(anchor, positive, p, eps)
    d_neg = _pairwise(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, _pairwise(positive, negative, p, eps))
    return _reduce(_C.clamp(d_pos - d_neg + margin, min=0.0), reduction, "triplet_margin_loss")


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    dist = (
        distance_function
        if distance_function is not None
        else (lambda a, b: _pairwise(a, b, 2, 1e-6))
    )
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, dist(positive, negative))
    return _reduce(
        _C.clamp(d_pos - d_neg + margin, min=0.0), reduction, "triplet_margin_with_distance_loss"
    )


@autocast_op("poisson_nll_loss")
def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if log_input:
        loss = _C.exp(input) - target * input
    else:
        loss = input - target * _C.log(input + eps)
    if full:
        # Stirling's approximation of log(target!), applied where target > 1 as torch does.
        safe = _C.where(target > 1, target, _C.ones_like(target))
        stirling = safe * _C.log(safe) - safe + 0.5 * _C.log(2 * math.pi * safe)
        loss = loss + _C.where(target > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)):
        var = _C.full(tuple(input.shape), float(var), dtype=input.dtype)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError(
                f"gaussian_nll_loss: var is of incorrect size {tuple(var.shape)} for input of shape "
                f"{tuple(input.shape)}"
            )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"gaussian_nll_loss: {reduction} is not valid")
    if var.numel() and float(var.min().item()) < 0:
        raise ValueError("gaussian_nll_loss: var has negative entry/entries")
    # Clamp for stability without blocking the gradient (torch clamps a no-grad copy).
    var = var + (_C.clamp(var.detach(), min=eps) - var.detach())
    loss = 0.5 * (_C.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    zeros = _C.zeros_like(input)
    pos = _C.where(target == 1, input, zeros)
    neg = _C.where(target == -1, _C.clamp(margin - input, min=0.0), zeros)
    return _reduce(pos + neg, reduction, "hinge_embedding_loss")


@autocast_op("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    z = -target * input
    loss = _C.clamp(z, min=0.0) + _C.log1p(_C.exp(-_C.abs(z)))
    return _reduce(loss, reduction, "soft_margin_loss")


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)

    def logsig(x):
        return -(_C.clamp(-x, min=0.0) + _C.log1p(_C.exp(-_C.abs(x))))

    loss = -(target * logsig(input) + (1 - target) * logsig(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.dim() - 1) / input.shape[-1]
    return _reduce(loss, reduction, "multilabel_soft_margin_loss")


@autocast_op("multi_margin_loss")
def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("multi_margin_loss: only p == 1 and p == 2 supported")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target.reshape(-1).long()
    picked = x.gather(1, t.unsqueeze(1))
    m = _C.clamp(margin - picked + x, min=0.0)
    if p == 2:
        m = m * m
    if weight is not None:
        m = m * weight.index_select(0, t).unsqueeze(1)
    mask = _C.ones_like(x).scatter_(1, t.unsqueeze(1), 0.0)
    loss = (m * mask).sum(1) / x.shape[1]
    if input.dim() == 1:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction, "multi_margin_loss")


@autocast_op("multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target if target.dim() == 2 else target.unsqueeze(0)
    n, c = x.shape
    losses = []
    # Targets are class indices terminated by the first -1.
    for i in range(n):
        row = t[i].tolist()
        labels = []
        for v in row:
            if v < 0:
                break
            labels.append(int(v))
        is_target = _C.zeros(c, dtype=_C.bool)
        if labels:
            is_target[_tensor(labels)] = True
        total = x[i].sum() * 0.0
        non_target = is_target.logical_not()
        for j in labels:
            total = (
                total + (_C.clamp(1.0 - (x[i, j] - x[i]), min=0.0) * non_target.to(x.dtype)).sum()
            )
        losses.append(total / c)
    loss = _C.stack(losses)
    if input.dim() == 1:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction, "multilabel_margin_loss")
