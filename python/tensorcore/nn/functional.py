"""tensorcore.nn.functional: torch.nn.functional's API.

Activations, linear maps, dropout, distances, attention and constant padding are composites over
core ops (so autograd and double backward come for free); losses live in _functional_losses.py.
Convolution, pooling, normalisation, interpolation, embedding, CTC and RNN cells are native
kernels bound in tensorcore._C._nn and imported at the end of this file once that module exists.
"""

import math
import os as _os

from .. import _C
from ..amp._op_hooks import autocast_op
from ._functional_losses import *  # noqa: F401,F403
from ._functional_losses import _check_tensor

# ---------------------------------------------------------------- linear maps


@autocast_op("linear")
def linear(input, weight, bias=None):
    """y = input @ weight.T + bias."""
    _check_tensor(input, "linear", "input")
    if input.dim() == 0:
        raise ValueError("linear: expected input with at least 1 dimension, got a 0-d tensor")
    if weight.dim() not in (1, 2) or input.shape[-1] != weight.shape[-1]:
        raise ValueError(
            f"linear: input's last dimension ({input.shape[-1]}) must match weight's in_features; "
            f"got input shape {tuple(input.shape)} and weight shape {tuple(weight.shape)}"
        )
    if weight.dim() == 1:
        out = _C.matmul(input, weight)
        return out if bias is None else out + bias
    if input.dim() == 2 and bias is not None:
        return _C.addmm(bias, input, weight.t())
    out = _C.matmul(input, weight.t())
    return out if bias is None else out + bias


@autocast_op("bilinear", native=True)
def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T W_k x2 + b_k over the last dimension of both inputs."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise ValueError(
            f"bilinear: input1 and input2 must have the same leading dimensions, got "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    if (
        weight.dim() != 3
        or weight.shape[1] != input1.shape[-1]
        or weight.shape[2] != input2.shape[-1]
    ):
        raise ValueError(
            f"bilinear: weight of shape (out, {input1.shape[-1]}, {input2.shape[-1]}) expected, "
            f"got {tuple(weight.shape)}"
        )
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    # (B, I) @ (I, O*J) -> (B, O, J), then contract J with x2.
    o, i, j = weight.shape
    tmp = _C.matmul(x1, weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    out = _C.bmm(tmp, x2.unsqueeze(2)).squeeze(2)
    if bias is not None:
        out = out + bias
    return out.reshape(lead + (o,))


def identity(input):
    return input


# ---------------------------------------------------------------- activations


def _autograd_source(input, inplace):
    """What an in-place activation computes from: a clone when autograd records it.

    The out-of-place formula saves its input for backward; copying the result back into that
    same tensor would then fail backward's version check. Computing from a clone keeps the
    saved values intact while `input` still becomes the result (torch saves the original the
    same way for in-place ops whose derivative needs it).
    """
    if inplace and input.requires_grad and _C._autograd.is_grad_enabled():
        return input.clone()
    return input


def _inplace_result(input, out, inplace):
    if inplace:
        input.copy_(out)
        return input
    return out


def relu(input, inplace=False):
    if inplace:
        return input.relu_()
    return _C.relu(input)


def relu_(input):
    return input.relu_()


def threshold(input, threshold, value, inplace=False):
    src = _autograd_source(input, inplace)
    out = _C.where(src > threshold, src, _C.scalar_tensor(value, dtype=input.dtype))
    return _inplace_result(input, out, inplace)


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError(
            f"hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})"
        )
    if inplace:
        return input.clamp_(min_val, max_val)
    return _C.clamp(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    src = _autograd_source(input, inplace)
    out = _C.where(src > 0, src, src * negative_slope)
    return _inplace_result(input, out, inplace)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


@autocast_op("prelu")
def prelu(input, weight):
    if weight.numel() != 1:
        if input.dim() < 2 or input.shape[1] != weight.numel():
            channels = input.shape[1] if input.dim() >= 2 else 1
            raise ValueError(
                f"prelu: weight has {weight.numel()} parameters but input has {channels} channels "
                f"(input shape {tuple(input.shape)})"
            )
        weight = weight.reshape((1, -1) + (1,) * (input.dim() - 2))
    return _C.where(input > 0, input, weight * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    src = _autograd_source(input, inplace)
    if training:
        slope = _C.empty_like(input).uniform_(lower, upper)
        out = _C.where(src >= 0, src, src * slope)
    else:
        out = leaky_relu(src, (lower + upper) / 2)
    return _inplace_result(input, out, inplace)


def elu(input, alpha=1.0, inplace=False):
    # expm1 on the clamped input keeps the unused branch finite (no 0*inf in backward).
    src = _autograd_source(input, inplace)
    out = _C.where(src > 0, src, alpha * _C.expm1(_C.clamp(src, max=0.0)))
    return _inplace_result(input, out, inplace)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    out = _SELU_SCALE * elu(_autograd_source(input, inplace), _SELU_ALPHA)
    return _inplace_result(input, out, inplace)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    src = _autograd_source(input, inplace)
    out = _C.where(src > 0, src, alpha * _C.expm1(_C.clamp(src, max=0.0) / alpha))
    return _inplace_result(input, out, inplace)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


_FUSED = _C._nnfused
_FUSED_DTYPES = (_C.float32, _C.float64)


def _fusable(x):
    return x.dtype in _FUSED_DTYPES and x.is_cpu and x.dim() > 0


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got '{approximate}'")
    if _fusable(input):
        return _FUSED.gelu(input, approximate == "tanh")
    if approximate == "none":
        return 0.5 * input * (1.0 + _C.erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1.0 + _C.tanh(inner))
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got '{approximate}'")


def silu(input, inplace=False):
    src = _autograd_source(input, inplace)
    return _inplace_result(input, src * _C.sigmoid(src), inplace)


def _softplus_stable(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): finite everywhere, so where() never sees inf.
    return _C.clamp(x, min=0.0) + _C.log1p(_C.exp(-_C.abs(x)))


@autocast_op("softplus")
def softplus(input, beta=1.0, threshold=20.0):
    scaled = input * beta if beta != 1 else input
    soft = _softplus_stable(scaled)
    if beta != 1:
        soft = soft / beta
    return _C.where(scaled > threshold, input, soft)


def mish(input, inplace=False):
    src = _autograd_source(input, inplace)
    return _inplace_result(input, src * _C.tanh(softplus(src)), inplace)


def hardswish(input, inplace=False):
    src = _autograd_source(input, inplace)
    return _inplace_result(input, src * _C.clamp(src + 3.0, 0.0, 6.0) / 6.0, inplace)


def hardsigmoid(input, inplace=False):
    src = _autograd_source(input, inplace)
    return _inplace_result(input, _C.clamp(src / 6.0 + 0.5, 0.0, 1.0), inplace)


def tanh(input):
    return _C.tanh(input)


def sigmoid(input):
    return _C.sigmoid(input)


def logsigmoid(input):
    return -_softplus_stable(-input)


def softsign(input):
    return input / (1.0 + _C.abs(input))


def tanhshrink(input):
    return input - _C.tanh(input)


def hardshrink(input, lambd=0.5):
    return _C.where(_C.abs(input) > lambd, input, _C.zeros_like(input))


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise ValueError(f"softshrink: lambda must be non-negative, got {lambd}")
    shrunk = input - _C.clamp(input, -lambd, lambd)
    return shrunk


def glu(input, dim=-1):
    if input.dim() == 0:
        raise ValueError("glu: does not support scalars because halving size must be even")
    if input.shape[dim] % 2 != 0:
        raise ValueError(
            f"glu: halving dimension must be even, but dimension {dim} is size {input.shape[dim]}"
        )
    a, b = _C.chunk(input, 2, dim)
    return a * _C.sigmoid(b)


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def _cast_for_softmax(input, dtype):
    return input.to(dtype) if dtype is not None else input


@autocast_op("softmax")
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    x = _cast_for_softmax(input, dtype)
    if _fusable(x):
        return _FUSED.softmax(x, dim)
    if x.dim() == 0:
        return _C.ones_like(x) if not x.requires_grad else _C.exp(x - x)
    shifted = x - x.amax(dim, keepdim=True).detach()
    e = _C.exp(shifted)
    return e / e.sum(dim, keepdim=True)


@autocast_op("log_softmax")
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    x = _cast_for_softmax(input, dtype)
    if _fusable(x):
        return _FUSED.log_softmax(x, dim)
    if x.dim() == 0:
        return x - x
    return x - _C.logsumexp(x, dim, keepdim=True)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-_cast_for_softmax(input, dtype), dim)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    gumbels = -_C.log(_C.empty_like(logits).exponential_())
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------- dropout


def _check_p(p, name):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"{name}: dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(like, shape, p):
    return _C.empty(shape, dtype=like.dtype, device=like.device).bernoulli_(1.0 - p)


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p, "dropout")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _inplace_result(input, input * 0.0, inplace)
    mask = _keep_mask(input, tuple(input.shape), p).div_(1.0 - p)
    return _inplace_result(input, input * mask, inplace)


def _feature_dropout(input, p, training, inplace, name, feature_dims):
    _check_p(p, name)
    if not training or p == 0.0:
        return input
    if input.dim() not in (feature_dims + 1, feature_dims + 2):
        raise ValueError(
            f"{name}: expected {feature_dims + 1}-D or {feature_dims + 2}-D input, "
            f"got shape {tuple(input.shape)}"
        )
    batched = input.dim() == feature_dims + 2
    lead = 2 if batched else 1
    shape = tuple(input.shape[:lead]) + (1,) * (input.dim() - lead)
    if p == 1.0:
        return _inplace_result(input, input * 0.0, inplace)
    mask = _keep_mask(input, shape, p).div_(1.0 - p)
    return _inplace_result(input, input * mask, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, "dropout1d", 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, "dropout2d", 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, "dropout3d", 3)


_ALPHA_DROPOUT = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, shape, name):
    _check_p(p, name)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _inplace_result(input, input * 0.0, inplace)
    a = 1.0 / math.sqrt((_ALPHA_DROPOUT**2 * p + 1) * (1 - p))
    keep = _keep_mask(input, shape, p)
    # Dropped units take SELU's negative saturation value, then an affine map restores mean/var.
    out = input * (keep * a) + (keep - 1.0) * (_ALPHA_DROPOUT * a) + _ALPHA_DROPOUT * a * p
    return _inplace_result(input, out, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, tuple(input.shape), "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    return _alpha_dropout(input, p, training, inplace, shape, "feature_alpha_dropout")


# ---------------------------------------------------------------- distances, encodings


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != _C.int64:
        raise TypeError(f"one_hot is only applicable to index tensor (int64), got {tensor.dtype}")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel():
        lo, hi = int(tensor.min().item()), int(tensor.max().item())
        if lo < 0:
            raise ValueError("one_hot: Class values must be non-negative.")
        if hi >= num_classes:
            raise ValueError(
                f"one_hot: Class values must be smaller than num_classes ({num_classes}), got {hi}."
            )
    out = _C.zeros(tuple(tensor.shape) + (num_classes,), dtype=_C.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = _C.clamp(_C.norm(input, p, dim, keepdim=True), min=eps).expand_as(input)
    result = input / denom
    if out is not None:
        out.copy_(result)
        return out
    return result


@autocast_op("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    x1, x2 = (
        _C.broadcast_tensors(x1, x2)
        if hasattr(_C, "broadcast_tensors")
        else _broadcast_pair(x1, x2)
    )
    n1 = _C.clamp(_C.norm(x1, 2, dim, keepdim=True), min=eps)
    n2 = _C.clamp(_C.norm(x2, 2, dim, keepdim=True), min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _broadcast_pair(a, b):
    shape = _broadcast_shape(tuple(a.shape), tuple(b.shape))
    return a.expand(shape), b.expand(shape)


def _broadcast_shape(s1, s2):
    n = max(len(s1), len(s2))
    s1 = (1,) * (n - len(s1)) + s1
    s2 = (1,) * (n - len(s2)) + s2
    out = []
    for a, b in zip(s1, s2):
        if a != b and a != 1 and b != 1:
            raise ValueError(f"shapes {s1} and {s2} are not broadcastable")
        out.append(max(a, b) if a != 0 and b != 0 else 0)
    return tuple(out)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    ndim = max(x1.dim(), x2.dim())
    dim = -1 if ndim > 0 else 0
    return _C.norm(x1 - x2 + eps, p, dim, keepdim=keepdim)


@autocast_op("pdist")
def pdist(input, p=2):
    if input.dim() != 2:
        raise ValueError(f"pdist: expected a 2-D input, got shape {tuple(input.shape)}")
    if not (p >= 0):  # as torch (NaN included)
        raise ValueError(f"pdist: only supports non-negative p values, got {p}")
    n = input.shape[0]
    if n < 2:
        return _C.empty(0, dtype=input.dtype)
    # The upper-triangle pairs come from NumPy's vectorized triu_indices: the former Python
    # loop over n*(n-1)/2 pairs ran for minutes at n = 20000.
    import numpy as np

    rows, cols = np.triu_indices(n, 1)
    ri = _C.from_numpy(np.ascontiguousarray(rows, dtype=np.int64))
    ci = _C.from_numpy(np.ascontiguousarray(cols, dtype=np.int64))
    return _C.norm(input.index_select(0, ri) - input.index_select(0, ci), p, 1)


# ---------------------------------------------------------------- attention


# The attention functions are tc::nn::functional's (tensorcore/nn/attention.h), shared with the
# C++ frontend's MultiheadAttention.


def _mask_to_additive(mask, dtype):
    return _C._nn_modules.mask_to_additive(mask, dtype)


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None
):
    """softmax(Q K^T * scale + mask) V. A boolean attn_mask marks positions that MAY attend."""
    return _C._nn_modules.scaled_dot_product_attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale
    )


def _in_projection(q, k, v, w, b, E, separate=None):
    wq, wk, wv = separate if separate is not None else (None, None, None)
    return _C._nn_modules.in_projection(q, k, v, w, b, E, wq, wk, wv)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Sequence-first (L, N, E) multi-head attention, as torch.nn.functional's version."""
    return _C._nn_modules.multi_head_attention_forward(
        query,
        key,
        value,
        embed_dim_to_check,
        num_heads,
        in_proj_weight,
        in_proj_bias,
        bias_k,
        bias_v,
        add_zero_attn,
        dropout_p,
        out_proj_weight,
        out_proj_bias,
        training,
        key_padding_mask,
        need_weights,
        attn_mask,
        use_separate_proj_weight,
        q_proj_weight,
        k_proj_weight,
        v_proj_weight,
        static_k,
        static_v,
        average_attn_weights,
        is_causal,
    )


# ---------------------------------------------------------------- padding


def _pad_constant(input, pad, value=0.0):
    if len(pad) % 2 != 0:
        raise ValueError(f"pad: padding length must be divisible by 2, got {len(pad)}")
    if len(pad) // 2 > input.dim():
        raise ValueError(f"pad: padding length ({len(pad)}) too large for a {input.dim()}-D input")
    out = input
    # pad lists (left, right) pairs starting from the last dimension; negative values crop.
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        if left < 0:
            out = out.narrow(dim, -left, out.shape[dim] + left)
            left = 0
        if right < 0:
            out = out.narrow(dim, 0, out.shape[dim] + right)
            right = 0
        if left == 0 and right == 0:
            continue
        pieces = []
        shape = list(out.shape)
        if left:
            shape[dim] = left
            pieces.append(_C.full(tuple(shape), value, dtype=out.dtype, device=out.device))
        pieces.append(out)
        if right:
            shape[dim] = right
            pieces.append(_C.full(tuple(shape), value, dtype=out.dtype, device=out.device))
        out = _C.cat(pieces, dim)
    return out


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad)//2 dimensions (native when the nn kernels are built)."""
    if _native_pad is not None and isinstance(input, _C.Tensor):
        return _native_pad(input, pad, mode=mode, value=value)
    if mode == "constant":
        return _pad_constant(input, pad, 0.0 if value is None else value)
    if _native_pad is None:
        return _composite.pad_reflect_replicate_circular(input, pad, mode)
    return _native_pad(input, pad, mode=mode, value=value)


_native_pad = None

# ---------------------------------------------------------------- wrappers over native kernels


def _native_fn(name):
    fn = globals().get(name)
    if fn is None:
        raise NotImplementedError(
            f"{name} needs the native nn kernels (tensorcore._C._nn), which this build "
            "does not include"
        )
    return fn


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate (kept as torch does)."""
    return _native_fn("interpolate")(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return _native_fn("interpolate")(input, size, scale_factor, "nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return _native_fn("interpolate")(input, size, scale_factor, "bilinear", True)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, dims):
    ks = (kernel_size,) * dims if isinstance(kernel_size, int) else tuple(kernel_size)
    area = 1
    for k in ks:
        area *= k
    pooled = _native_fn(f"avg_pool{dims}d")(input.pow(norm_type), ks, stride, 0, ceil_mode)
    # sign * relu(|x|) as torch does, so a negative average from rounding does not give NaN.
    return (_C.sign(pooled) * _C.relu(_C.abs(pooled))).mul(area).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def channel_shuffle(input, groups):
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise ValueError(f"channel_shuffle: channels ({c}) must be divisible by groups ({groups})")
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)


native_channel_shuffle = channel_shuffle


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


# ---------------------------------------------------------------- native kernels

# Composite versions first; the native kernels replace them below when they are built.
from . import _functional_composite as _composite  # noqa: E402
from ._functional_composite import (  # noqa: E402,F401
    layer_norm,
    group_norm,
    batch_norm,
    instance_norm,
    embedding,
    lstm_cell,
    gru_cell,
    rnn_tanh_cell,
    rnn_relu_cell,
    pixel_shuffle,
    pixel_unshuffle,
)

_NATIVE_NAMES = (
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "max_unpool2d",
    "batch_norm",
    "group_norm",
    "layer_norm",
    "instance_norm",
    "local_response_norm",
    "interpolate",
    "upsample",
    "grid_sample",
    "affine_grid",
    "unfold",
    "fold",
    "pixel_shuffle",
    "pixel_unshuffle",
    "embedding",
    "embedding_bag",
    "ctc_loss",
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
)

if _os.path.exists(_os.path.join(_os.path.dirname(__file__), "_native.py")):
    import types as _types

    from . import _native

    # The listed kernels, plus any other public function the native module exports.
    _exported = getattr(_native, "__all__", None) or [
        n for n in dir(_native) if not n.startswith("_")
    ]
    for _name in dict.fromkeys(list(_NATIVE_NAMES) + list(_exported)):
        _value = getattr(_native, _name, None)
        if _value is None or isinstance(_value, (_types.ModuleType, type)):
            continue
        if _name == "pad":
            _native_pad = _value
        else:
            globals()[_name] = _value
    del _name, _value, _exported


from tensorcore._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "nn.functional")
del _harden
