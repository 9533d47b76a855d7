"""Composite (tensor-op) versions of functional layers that also have native kernels.

They are torch-exact references, differentiable to any order, and serve as the implementation
when the native nn kernels (tensorcore._C._nn) are not built; nn/functional.py re-exports them
and replaces them by the native ones when nn/_native.py exists.
"""

from .. import _C
from .._tensor import tensor as _tensor
from ..autograd.grad_mode import no_grad

__all__ = [
    "layer_norm",
    "group_norm",
    "batch_norm",
    "instance_norm",
    "embedding",
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "pixel_shuffle",
    "pixel_unshuffle",
    "pad_reflect_replicate_circular",
]


def _normalize(x, dims, eps):
    mean = x.mean(dims, keepdim=True)
    centered = x - mean
    var = (centered * centered).mean(dims, keepdim=True)
    return centered * _C.rsqrt(var + eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    n = len(normalized_shape)
    if tuple(input.shape[input.dim() - n :]) != tuple(normalized_shape):
        raise ValueError(
            f"layer_norm: expected input with trailing shape {tuple(normalized_shape)}, got "
            f"{tuple(input.shape)}"
        )
    out = _normalize(input, tuple(range(input.dim() - n, input.dim())), eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def _channel_shape(x):
    return (1, -1) + (1,) * (x.dim() - 2)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2 or input.shape[1] % num_groups != 0:
        raise ValueError(
            f"group_norm: expected input with channels divisible by num_groups={num_groups}, got "
            f"shape {tuple(input.shape)}"
        )
    n = input.shape[0]
    grouped = input.reshape(n, num_groups, -1)
    out = _normalize(grouped, (2,), eps).reshape(tuple(input.shape))
    if weight is not None:
        out = out * weight.reshape(_channel_shape(input))
    if bias is not None:
        out = out + bias.reshape(_channel_shape(input))
    return out


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    if input.dim() < 2:
        raise ValueError(f"batch_norm: expected at least 2-D input, got shape {tuple(input.shape)}")
    dims = (0,) + tuple(range(2, input.dim()))
    shape = _channel_shape(input)
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{tuple(input.shape)}"
            )
        mean = input.mean(dims)
        centered = input - mean.reshape(shape)
        var = (centered * centered).mean(dims)
        if running_mean is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * count / (count - 1)))
        out = centered * _C.rsqrt(var + eps).reshape(shape)
    else:
        if running_mean is None or running_var is None:
            raise ValueError(
                "batch_norm: running_mean and running_var are required when training=False"
            )
        out = (input - running_mean.reshape(shape)) * _C.rsqrt(running_var + eps).reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    dims = tuple(range(2, input.dim()))
    shape = _channel_shape(input)
    if use_input_stats:
        out = _normalize(input, dims, eps)
        if running_mean is not None:
            count = 1
            for d in dims:
                count *= input.shape[d]
            with no_grad():
                mean = input.mean(dims).mean(0)
                var = input.var(dims, unbiased=True).mean(0) if count > 1 else _C.zeros_like(mean)
                running_mean.mul_(1 - momentum).add_(mean * momentum)
                running_var.mul_(1 - momentum).add_(var * momentum)
    else:
        out = (input - running_mean.reshape(shape)) * _C.rsqrt(running_var + eps).reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    if input.dtype not in (_C.int64, _C.int32):
        raise TypeError(f"embedding: expected indices of dtype int64 or int32, got {input.dtype}")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: scale_grad_by_freq and sparse need the native nn kernels"
        )
    flat = input.reshape(-1).long()
    if flat.numel():
        lo, hi = int(flat.min().item()), int(flat.max().item())
        if lo < 0 or hi >= weight.shape[0]:
            raise IndexError(
                f"embedding: index {lo if lo < 0 else hi} is out of range for {weight.shape[0]} "
                "embeddings"
            )
    if max_norm is not None:
        with no_grad():
            rows = _C.unique(flat)
            norms = _C.norm(weight.index_select(0, rows), norm_type, 1, keepdim=True)
            scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
            weight.index_copy_(0, rows, weight.index_select(0, rows) * scale)
    out = weight.index_select(0, flat)
    if padding_idx is not None:
        # The padding row receives no gradient.
        keep = (flat != padding_idx).unsqueeze(1).to(out.dtype)
        out = out * keep + out.detach() * (1 - keep)
    return out.reshape(tuple(input.shape) + (weight.shape[1],))


def _gates(input, hx, w_ih, w_hh, b_ih, b_hh):
    gi = _C.matmul(input, w_ih.t())
    gh = _C.matmul(hx, w_hh.t())
    if b_ih is not None:
        gi = gi + b_ih
    if b_hh is not None:
        gh = gh + b_hh
    return gi, gh


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    h, c = hx
    gi, gh = _gates(input, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = _C.chunk(gi + gh, 4, 1)
    c_new = _C.sigmoid(f) * c + _C.sigmoid(i) * _C.tanh(g)
    return _C.sigmoid(o) * _C.tanh(c_new), c_new


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    i_r, i_z, i_n = _C.chunk(gi, 3, 1)
    h_r, h_z, h_n = _C.chunk(gh, 3, 1)
    r = _C.sigmoid(i_r + h_r)
    z = _C.sigmoid(i_z + h_z)
    n = _C.tanh(i_n + r * h_n)
    return (1 - z) * n + z * hx


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return _C.tanh(gi + gh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return _C.relu(gi + gh)


def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r) != 0:
        raise ValueError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    lead = tuple(lead)
    x = input.reshape(lead + (c // (r * r), r, r, h, w))
    k = len(lead)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    *lead, c, h, w = input.shape
    if h % r != 0 or w % r != 0:
        raise ValueError(
            f"pixel_unshuffle expects height and width to be divisible by downscale_factor={r}, got "
            f"{(h, w)}"
        )
    lead = tuple(lead)
    x = input.reshape(lead + (c, h // r, r, w // r, r))
    k = len(lead)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(lead + (c * r * r, h // r, w // r))


def pad_reflect_replicate_circular(input, pad, mode):
    """Non-constant padding by gathering indices along each padded dimension."""
    if len(pad) % 2 != 0 or len(pad) // 2 > input.dim():
        raise ValueError(f"pad: padding length {len(pad)} is invalid for a {input.dim()}-D input")
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        n = out.shape[dim]
        if mode == "reflect":
            if left >= n or right >= n:
                raise ValueError(
                    f"pad: padding ({left}, {right}) should be less than the input size {n} of "
                    f"dimension {dim} in reflect mode"
                )
            idx = list(range(left, 0, -1)) + list(range(n)) + list(range(n - 2, n - 2 - right, -1))
        elif mode == "replicate":
            idx = [0] * left + list(range(n)) + [n - 1] * right
        elif mode == "circular":
            if left > n or right > n:
                raise ValueError(
                    f"pad: padding ({left}, {right}) is larger than the size {n} of dimension {dim} in "
                    "circular mode"
                )
            idx = list(range(n - left, n)) + list(range(n)) + list(range(right))
        else:
            raise ValueError(
                f"pad: unsupported padding mode '{mode}' (constant, reflect, replicate, circular)"
            )
        out = out.index_select(dim, _tensor(idx, dtype=_C.int64))
    return out
