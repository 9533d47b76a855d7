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
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
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
    "max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_unpool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_max_pool1d", "adaptive_max_pool2d",
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
