"""Native nn kernels (tensorcore._C._nn) with torch.nn.functional's names and signatures.

tensorcore.nn.functional re-exports everything listed in __all__.
"""

from tensorcore._C import _nn as _C_nn

conv1d = _C_nn.conv1d
conv2d = _C_nn.conv2d
conv3d = _C_nn.conv3d
conv_transpose1d = _C_nn.conv_transpose1d
conv_transpose2d = _C_nn.conv_transpose2d
conv_transpose3d = _C_nn.conv_transpose3d

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]

max_pool1d = _C_nn.max_pool1d
max_pool2d = _C_nn.max_pool2d
max_pool1d_with_indices = _C_nn.max_pool1d_with_indices
max_pool2d_with_indices = _C_nn.max_pool2d_with_indices
max_unpool2d = _C_nn.max_unpool2d
avg_pool1d = _C_nn.avg_pool1d
avg_pool2d = _C_nn.avg_pool2d
adaptive_avg_pool1d = _C_nn.adaptive_avg_pool1d
adaptive_avg_pool2d = _C_nn.adaptive_avg_pool2d
adaptive_max_pool1d = _C_nn.adaptive_max_pool1d
adaptive_max_pool2d = _C_nn.adaptive_max_pool2d

__all__ += [
    "max_pool1d",
    "max_pool2d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_unpool2d",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
]

batch_norm = _C_nn.batch_norm
instance_norm = _C_nn.instance_norm
layer_norm = _C_nn.layer_norm
group_norm = _C_nn.group_norm
local_response_norm = _C_nn.local_response_norm

__all__ += ["batch_norm", "instance_norm", "layer_norm", "group_norm", "local_response_norm"]

ctc_loss = _C_nn.ctc_loss

__all__ += ["ctc_loss"]

# Recurrent cells (torch._VF.lstm_cell / gru_cell / rnn_tanh_cell / rnn_relu_cell).
lstm_cell = _C_nn.lstm_cell
gru_cell = _C_nn.gru_cell
rnn_tanh_cell = _C_nn.rnn_tanh_cell
rnn_relu_cell = _C_nn.rnn_relu_cell

__all__ += ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _ntuple(value, n, name):
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(
                f"interpolate: {name} must have {n} entries for a {n + 2}-d input, got {len(value)}"
            )
        return list(value)
    return [value] * n


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """torch.nn.functional.interpolate: resolves size/scale_factor as torch 1.13 does, then runs
    the native separable resampler (or adaptive average pooling for mode='area')."""
    import math

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "interpolate: align_corners option can only be set with the "
                "interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if dim < 1:
        raise ValueError(
            f"interpolate: expected a 3-d, 4-d or 5-d input, got shape {tuple(input.shape)}"
        )
    if size is not None and scale_factor is not None:
        raise ValueError("interpolate: only one of size or scale_factor should be defined")
    if size is not None:
        output_size = [int(s) for s in _ntuple(size, dim, "size")]
        scale_factors = None
    elif scale_factor is not None:
        scale_factors = [float(s) for s in _ntuple(scale_factor, dim, "scale_factor")]
        if not all(math.isfinite(s) and s > 0 for s in scale_factors):
            raise ValueError(
                f"interpolate: scale_factor must be positive and finite, got {scale_factor!r}"
            )
        output_size = None
    else:
        raise ValueError("interpolate: either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError(
            "interpolate: recompute_scale_factor is not meaningful with an explicit size."
        )
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if output_size is None:
        output_size = [
            int(math.floor(float(input.shape[i + 2]) * scale_factors[i])) for i in range(dim)
        ]
        if recompute_scale_factor:
            scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError(
            "interpolate: anti-alias option is only supported for bilinear and bicubic modes"
        )
    if mode == "area":
        if dim == 1:
            return _C_nn.adaptive_avg_pool1d(input, output_size)
        if dim == 2:
            return _C_nn.adaptive_avg_pool2d(input, output_size)
        return _C_nn.adaptive_avg_pool3d(input, output_size)
    return _C_nn._interpolate(
        input, output_size, mode, bool(align_corners), scale_factors, antialias
    )


__all__ += ["interpolate"]


def _interpolate_like(input, ref, mode="nearest", align_corners=None):
    """interpolate(input, size=ref.shape[-d:], ...) with the size read from ref when it runs, so a
    traced graph (tc.jit) follows ref's size instead of fixing the traced one."""
    return _C_nn._interpolate_like(input, ref, mode, bool(align_corners))


pad = _C_nn.pad
pixel_shuffle = _C_nn.pixel_shuffle
pixel_unshuffle = _C_nn.pixel_unshuffle
unfold = _C_nn.unfold
fold = _C_nn.fold

__all__ += ["pad", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold"]

embedding = _C_nn.embedding
embedding_bag = _C_nn.embedding_bag

__all__ += ["embedding", "embedding_bag"]

grid_sample = _C_nn.grid_sample
affine_grid = _C_nn.affine_grid

__all__ += ["grid_sample", "affine_grid"]

# One recurrent layer over a whole (T, N, input_size) sequence, one direction:
# lstm_layer(input, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse, w_hr=None) -> (output, h_T, c_T)
# (w_hr: the LSTM projection [proj_size, hidden_size])
# gru_layer(input, h0, w_ih, w_hh, b_ih, b_hh, reverse) -> (output, h_T)
lstm_layer = _C_nn.lstm_layer
gru_layer = _C_nn.gru_layer
# rnn_layer(input, h0, w_ih, w_hh, b_ih, b_hh, nonlinearity="tanh"|"relu", reverse) -> (output, h_T)
rnn_layer = _C_nn.rnn_layer

# The same over a packed batch (PackedSequence data and batch_sizes; h0/c0 in the packed order):
# lstm_layer_packed(data, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse, w_hr) -> (out, h_n, c_n)
lstm_layer_packed = _C_nn.lstm_layer_packed
gru_layer_packed = _C_nn.gru_layer_packed
rnn_layer_packed = _C_nn.rnn_layer_packed

__all__ += [
    "lstm_layer",
    "gru_layer",
    "rnn_layer",
    "lstm_layer_packed",
    "gru_layer_packed",
    "rnn_layer_packed",
]

dropout = _C_nn.dropout
alpha_dropout = _C_nn.alpha_dropout
feature_alpha_dropout = _C_nn.feature_alpha_dropout


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs."""
    if input.dim() not in (2, 3):
        raise ValueError(f"dropout1d: expected a 2-d or 3-d input, got shape {tuple(input.shape)}")
    if input.dim() == 2:
        return _C_nn.feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _C_nn.feature_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) inputs, with torch 1.13's warnings.

    As torch 1.13 does, a 3-d input is taken as (N, C, L) (channel-wise 1-d dropout) and other
    ranks of at least 2 drop along dims 0 and 1, with a deprecation warning.
    """
    import warnings

    ndim = input.dim()
    if ndim < 2:
        raise ValueError(
            f"dropout2d: feature dropout needs at least 2 dimensions, got shape {tuple(input.shape)}"
        )
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _C_nn.feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    if input.dim() not in (4, 5):
        raise ValueError(f"dropout3d: expected a 4-d or 5-d input, got shape {tuple(input.shape)}")
    if input.dim() == 4:
        return _C_nn.feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _C_nn.feature_dropout(input, p, training, inplace)


__all__ += [
    "dropout",
    "alpha_dropout",
    "feature_alpha_dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
]

max_pool3d = _C_nn.max_pool3d
max_pool3d_with_indices = _C_nn.max_pool3d_with_indices
avg_pool3d = _C_nn.avg_pool3d
adaptive_avg_pool3d = _C_nn.adaptive_avg_pool3d
adaptive_max_pool3d = _C_nn.adaptive_max_pool3d

__all__ += [
    "max_pool3d",
    "max_pool3d_with_indices",
    "avg_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
]

max_unpool1d = _C_nn.max_unpool1d
max_unpool3d = _C_nn.max_unpool3d

__all__ += ["max_unpool1d", "max_unpool3d"]
