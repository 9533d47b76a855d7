"""tensorcore.nn.functional: torch.nn.functional's API.

Each op is implemented once, in C++ (tc::nn::functional, tensorcore/nn/functional.h). The
functions here are thin bindings over tensorcore._C._nn that keep torch's Python signatures
(keyword names, defaults, inplace=, _stacklevel, dtype=); the computation, the argument checks,
the error messages and the autocast policy are the C++ function's. The losses are bound the
same way (python/src/nn_losses.cpp).
"""

from .. import _C
from .._C import _nn as _C_nn
from .._C._nn import (  # noqa: F401  (the losses: one C++ implementation each)
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)

# ---------------------------------------------------------------- linear maps


def linear(input, weight, bias=None):
    """y = input @ weight.T + bias."""
    return _C_nn.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T W_k x2 + b_k over the last dimension of both inputs."""
    return _C_nn.bilinear(input1, input2, weight, bias)


def identity(input):
    return input


# ---------------------------------------------------------------- activations


def relu(input, inplace=False):
    return _C_nn.relu(input, inplace)


def relu_(input):
    return _C_nn.relu(input, True)


def threshold(input, threshold, value, inplace=False):
    return _C_nn.threshold(input, threshold, value, inplace)


def threshold_(input, threshold, value):
    return _C_nn.threshold(input, threshold, value, True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _C_nn.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _C_nn.hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    return _C_nn.relu6(input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _C_nn.leaky_relu(input, negative_slope, inplace)


def leaky_relu_(input, negative_slope=0.01):
    return _C_nn.leaky_relu(input, negative_slope, True)


def prelu(input, weight):
    return _C_nn.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _C_nn.rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _C_nn.rrelu(input, lower, upper, training, True)


def elu(input, alpha=1.0, inplace=False):
    return _C_nn.elu(input, alpha, inplace)


def elu_(input, alpha=1.0):
    return _C_nn.elu(input, alpha, True)


def selu(input, inplace=False):
    return _C_nn.selu(input, inplace)


def selu_(input):
    return _C_nn.selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    return _C_nn.celu(input, alpha, inplace)


def celu_(input, alpha=1.0):
    return _C_nn.celu(input, alpha, True)


def gelu(input, approximate="none"):
    return _C_nn.gelu(input, approximate)


def silu(input, inplace=False):
    return _C_nn.silu(input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return _C_nn.softplus(input, beta, threshold)


def mish(input, inplace=False):
    return _C_nn.mish(input, inplace)


def hardswish(input, inplace=False):
    return _C_nn.hardswish(input, inplace)


def hardsigmoid(input, inplace=False):
    return _C_nn.hardsigmoid(input, inplace)


def tanh(input):
    return _C.tanh(input)


def sigmoid(input):
    return _C.sigmoid(input)


def logsigmoid(input):
    return _C_nn.logsigmoid(input)


def softsign(input):
    return _C_nn.softsign(input)


def tanhshrink(input):
    return _C_nn.tanhshrink(input)


def hardshrink(input, lambd=0.5):
    return _C_nn.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    return _C_nn.softshrink(input, lambd)


def glu(input, dim=-1):
    return _C_nn.glu(input, dim)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C_nn.softmax(input, dim, _stacklevel, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C_nn.log_softmax(input, dim, _stacklevel, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _C_nn.softmin(input, dim, _stacklevel, dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    return _C_nn.gumbel_softmax(logits, tau, hard, eps, dim)


# ---------------------------------------------------------------- dropout


# The binding's signature is torch's: re-exported as it is.
dropout = _C_nn.dropout
alpha_dropout = _C_nn.alpha_dropout
feature_alpha_dropout = _C_nn.feature_alpha_dropout


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _C_nn.dropout1d(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _C_nn.dropout2d(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _C_nn.dropout3d(input, p, training, inplace)


# ---------------------------------------------------------------- distances, encodings


def one_hot(tensor, num_classes=-1):
    return _C_nn.one_hot(tensor, num_classes)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    return _C_nn.normalize(input, p, dim, eps, out)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return _C_nn.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _C_nn.pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input, p=2):
    return _C_nn.pdist(input, p)


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


# ---------------------------------------------------------------- padding, resampling, pooling


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad)//2 dimensions."""
    return _C_nn.pad(input, pad, mode, value)


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    return _C_nn.interpolate(
        input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate (kept as torch does)."""
    return _C_nn.interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return _C_nn.interpolate(input, size, scale_factor, "nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return _C_nn.interpolate(input, size, scale_factor, "bilinear", True)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _C_nn.lp_pool1d(input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _C_nn.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode)


def channel_shuffle(input, groups):
    return _C_nn.channel_shuffle(input, groups)


native_channel_shuffle = channel_shuffle


# ---------------------------------------------------------------- native kernels re-exported
# (convolution, pooling, normalization, embedding, CTC, recurrent cells and layers, fold,
# grid_sample): their bindings already have torch's names and keywords.

from ._native import *  # noqa: E402,F401,F403
from ._native import _interpolate_like  # noqa: E402,F401


# ---------------------------------------------------------------- pooling forms with indices


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d returning (output, indices)."""
    return _C_nn.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d returning (output, indices)."""
    return _C_nn.adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d returning (output, indices)."""
    return _C_nn.adaptive_max_pool3d(input, output_size, True)


def _fractional_max_pool(n):
    native = getattr(_C_nn, f"fractional_max_pool{n}d_with_indices")
    shape = "(N, C, H, W) or (C, H, W)" if n == 2 else "(N, C, T, H, W) or (C, T, H, W)"

    def with_indices(
        input,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        return native(input, kernel_size, output_size, output_ratio, _random_samples)

    def pool(
        input,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        out, indices = native(input, kernel_size, output_size, output_ratio, _random_samples)
        return (out, indices) if return_indices else out

    pool.__name__ = pool.__qualname__ = f"fractional_max_pool{n}d"
    with_indices.__name__ = with_indices.__qualname__ = pool.__name__ + "_with_indices"
    pool.__doc__ = (
        f"Fractional max pooling (Graham 2014) over {shape}: windows of kernel_size at "
        "pseudo-random increasing positions, sized to output_size or to output_ratio of the "
        "input; with return_indices=True also the flat index of each maximum within its plane. "
        f"The same _random_samples (N, C, {n}) give torch's windows and results."
    )
    with_indices.__doc__ = f"fractional_max_pool{n}d returning (output, indices)."
    return pool, with_indices


fractional_max_pool2d, fractional_max_pool2d_with_indices = _fractional_max_pool(2)
fractional_max_pool3d, fractional_max_pool3d_with_indices = _fractional_max_pool(3)


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution of a (time, batch, channel) input with a (kernel, in, out) weight."""
    import tensorcore

    return tensorcore.conv_tbc(input, weight, bias, pad)


from tensorcore._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "nn.functional")
del _harden
