"""torch 1.13's top-level (aten-signature) forms of nn ops: torch.batch_norm, torch.embedding,
torch.kl_div(..., reduction=1), torch.grid_sampler(..., 0, 0, False), torch.convolution ...
They adapt argument order and the integer reduction/mode codes of the aten schemas onto
tensorcore.nn.functional, which holds the behaviour. Installed by tensorcore/__init__.py."""

from . import _C
from .nn import functional as F

# aten's Reduction enum and grid sampler codes.
_REDUCTIONS = ("none", "mean", "sum")
_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _code(table, value, op, what):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(table):
        raise ValueError(
            f"{op}(): {what} must be an int code in 0..{len(table) - 1} "
            f"({', '.join(f'{i}={n}' for i, n in enumerate(table))}), got {value!r}"
        )
    return table[value]


def _reduction(value, op):
    return _code(_REDUCTIONS, value, op, "reduction")


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """torch.batch_norm: F.batch_norm with aten's argument order (weight and bias first)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """torch.instance_norm: F.instance_norm with aten's argument order."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding: rows of weight at indices (weight first; padding_idx -1 means none)."""
    return F.embedding(
        indices,
        weight,
        None if padding_idx == -1 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescales, in place and without recording gradients, the rows of input named by indices
    whose norm_type-norm exceeds max_norm down to max_norm (what F.embedding's max_norm does)."""
    if input.dim() != 2:
        raise ValueError(f"embedding_renorm_(): input must be 2-D, got {input.dim()}-D")
    from .autograd import no_grad

    with no_grad():
        rows = _C.unique(indices.reshape(-1).long())
        norms = input[rows].norm(p=norm_type, dim=1)
        over = norms > max_norm
        if bool(over.any()):
            scale = max_norm / (norms[over] + 1e-7)
            input[rows[over]] = input[rows[over]] * scale.unsqueeze(1)
    return input


def kl_div(input, target, reduction=1, log_target=False):
    """torch.kl_div: pointwise KL divergence, reduction as aten's code (1: mean over all
    elements, without F.kl_div's batchmean advice)."""
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    return _reduce_code(loss, reduction, "kl_div")


def _reduce_code(loss, reduction, op):
    mode = _reduction(reduction, op)
    if mode == "mean":
        return loss.mean()
    if mode == "sum":
        return loss.sum()
    return loss


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """torch.binary_cross_entropy_with_logits with aten's integer reduction."""
    return F.binary_cross_entropy_with_logits(
        input,
        target,
        weight,
        pos_weight=pos_weight,
        reduction=_reduction(reduction, "binary_cross_entropy_with_logits"),
    )


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """torch.cosine_embedding_loss with aten's integer reduction."""
    return F.cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction(reduction, "cosine_embedding_loss")
    )


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """torch.hinge_embedding_loss with aten's integer reduction."""
    return F.hinge_embedding_loss(
        input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss")
    )


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """torch.margin_ranking_loss with aten's integer reduction."""
    return F.margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction(reduction, "margin_ranking_loss")
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """torch.poisson_nll_loss (every argument required, integer reduction)."""
    return F.poisson_nll_loss(
        input,
        target,
        log_input,
        full,
        eps=eps,
        reduction=_reduction(reduction, "poisson_nll_loss"),
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1
):
    """torch.triplet_margin_loss with aten's integer reduction."""
    return F.triplet_margin_loss(
        anchor,
        positive,
        negative,
        margin,
        p,
        eps,
        swap,
        reduction=_reduction(reduction, "triplet_margin_loss"),
    )


def dropout_(input, p, train):
    """``torch.dropout_``: F.dropout in place."""
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_``: F.alpha_dropout in place."""
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_``: F.feature_alpha_dropout in place."""
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def _feature_mask(input, p, op):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}(): dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() < 2:
        raise ValueError(
            f"{op}(): feature dropout needs at least 2 dimensions (N, C, ...), got {input.dim()}"
        )
    shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    keep = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
    return keep / (1.0 - p) if p < 1.0 else keep


def feature_dropout(input, p, train):
    """torch.feature_dropout: zeroes whole channels (dim 1) of each sample with probability p
    and scales the rest by 1/(1-p); identity when not training."""
    if not train or p == 0.0:
        return input
    return input * _feature_mask(input, p, "feature_dropout")


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_``: feature_dropout in place."""
    if not train or p == 0.0:
        return input
    return input.mul_(_feature_mask(input, p, "feature_dropout_"))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: F.grid_sample with aten's integer codes (interpolation 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    return F.grid_sample(
        input,
        grid,
        _code(_INTERPOLATION, interpolation_mode, "grid_sampler", "interpolation_mode"),
        _code(_PADDING, padding_mode, "grid_sampler", "padding_mode"),
        align_corners,
    )


def _grid_sampler_nd(n):
    def fn(input, grid, interpolation_mode, padding_mode, align_corners):
        if input.dim() != n + 2:
            raise ValueError(
                f"grid_sampler_{n}d(): expected a {n + 2}-D input, got {input.dim()}-D"
            )
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    fn.__name__ = f"grid_sampler_{n}d"
    fn.__doc__ = f"torch.grid_sampler_{n}d: grid_sampler on a {n + 2}-D input."
    return fn


grid_sampler_2d = _grid_sampler_nd(2)
grid_sampler_3d = _grid_sampler_nd(3)


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: F.affine_grid with align_corners required."""
    return F.affine_grid(theta, size, align_corners)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch.convolution: the 1-, 2- or 3-d (transposed) convolution input's rank selects."""
    n = input.dim() - 2
    if n not in (1, 2, 3):
        raise ValueError(
            f"convolution(): expected a 3-, 4- or 5-D input (N, C, ...), got {input.dim()}-D"
        )
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc: 1-d convolution of a (time, batch, channel) input with a
    (kernel, in_channels, out_channels) weight; output (time', batch, out_channels)."""
    if input.dim() != 3 or weight.dim() != 3:
        raise ValueError(
            f"conv_tbc(): expected a 3-D input (T, B, C) and a 3-D weight (K, C, O), got "
            f"{list(input.shape)} and {list(weight.shape)}"
        )
    out = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dimension but dim, shaped to broadcast against v (size
    v.size(dim) there, 1 elsewhere); dim=-1: the norm of the whole tensor (weight_norm's helper)."""
    if dim == -1:
        return v.norm(pow)
    d = dim % v.dim()
    others = [k for k in range(v.dim()) if k != d]
    return v.norm(pow, dim=others, keepdim=True) if others else v.abs()


def constant_pad_nd(input, pad, value=0):
    """torch.constant_pad_nd: F.pad in constant mode (negative pads crop)."""
    return F.pad(input, list(pad), mode="constant", value=value)


def _cell(name):
    native = getattr(_C._nn, name)

    def fn(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        return native(input, hx, w_ih, w_hh, b_ih, b_hh)

    fn.__name__ = name
    fn.__doc__ = f"torch.{name}: one step of the recurrent cell (the native kernel)."
    return fn


_FUNCTIONS = (
    batch_norm,
    instance_norm,
    embedding,
    embedding_renorm_,
    kl_div,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    poisson_nll_loss,
    triplet_margin_loss,
    dropout_,
    alpha_dropout_,
    feature_alpha_dropout_,
    feature_dropout,
    feature_dropout_,
    grid_sampler,
    grid_sampler_2d,
    grid_sampler_3d,
    affine_grid_generator,
    convolution,
    conv_tbc,
    norm_except_dim,
    constant_pad_nd,
) + tuple(_cell(n) for n in ("lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"))


def install(namespace):
    from ._argcheck import harden

    table = {fn.__name__: fn for fn in _FUNCTIONS}
    harden(table, "tensorcore")
    for name, fn in table.items():
        namespace.setdefault(name, fn)
