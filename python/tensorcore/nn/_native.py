"""Native nn kernels (tensorcore._C._nn) whose bindings already have torch.nn.functional's names
and signatures, so tensorcore.nn.functional re-exports them as they are (everything in __all__).
The ops that need a Python signature of their own (inplace=, dtype=, defaults computed from the
input) are thin functions in nn/functional.py over the same module.
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


def _interpolate_like(input, ref, mode="nearest", align_corners=None):
    """interpolate(input, size=ref.shape[-d:], ...) with the size read from ref when it runs, so a
    traced graph (tc.jit) follows ref's size instead of fixing the traced one."""
    return _C_nn._interpolate_like(input, ref, mode, bool(align_corners))


pixel_shuffle = _C_nn.pixel_shuffle
pixel_unshuffle = _C_nn.pixel_unshuffle
unfold = _C_nn.unfold
fold = _C_nn.fold

__all__ += ["pixel_shuffle", "pixel_unshuffle", "unfold", "fold"]

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
