"""RNN, LSTM, GRU (multi-layer, bidirectional, batch_first, dropout, packed sequences) and their cells.

The behaviour is C++'s (tensorcore/nn/rnn_stack.h, shared with tc::nn::LSTM / GRU / RNN):
option validation, parameter names and shapes, initialisation and the whole forward (one native
layer op per layer and direction; on the CPU each is one autograd node) run through
tensorcore._C._nn_modules. These classes hold the parameters as ordinary nn.Module attributes
(state_dict, hooks, subclassing) and adapt PackedSequence objects.
"""

from ... import _C
from .. import functional as F
from ..parameter import Parameter
from .linear import _empty
from .module import Module

_native = _C._nn_modules


def _cell_fn(mode):
    name = {
        "LSTM": "lstm_cell",
        "GRU": "gru_cell",
        "RNN_TANH": "rnn_tanh_cell",
        "RNN_RELU": "rnn_relu_cell",
    }[mode]
    return getattr(F, name)


class RNNBase(Module):
    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        shapes = _native.rnn_flat_weight_shapes(
            mode,
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
        )
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        self._flat_weights_names = []
        for name, shape in shapes:
            setattr(self, name, Parameter(_empty(*shape, device=device, dtype=dtype)))
            self._flat_weights_names.append(name)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        _native.rnn_reset_parameters(list(self.parameters()), self.hidden_size)

    def _options(self):
        return (
            self.input_size,
            self.hidden_size,
            self.num_layers,
            self.bias,
            self.batch_first,
            self.dropout,
            self.bidirectional,
            self.proj_size,
        )

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence

        is_lstm = self.mode == "LSTM"
        h0, c0 = (hx if is_lstm else (hx, None)) if hx is not None else (None, None)
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            data, h_n, c_n = _native.rnn_forward_packed(
                name,
                self.mode,
                self._flat_weights,
                input.data,
                input.batch_sizes,
                input.sorted_indices,
                input.unsorted_indices,
                h0,
                c0,
                self.training,
                *self._options(),
            )
            output = PackedSequence(
                data, input.batch_sizes, input.sorted_indices, input.unsorted_indices
            )
        else:
            output, h_n, c_n = _native.rnn_forward(
                name, self.mode, self._flat_weights, input, h0, c0, self.training, *self._options()
            )
        return output, ((h_n, c_n) if is_lstm else h_n)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if (
            len(args) > 3
        ):  # torch's positional order: input_size, hidden_size, num_layers, nonlinearity, ...
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        _native.check_rnn_nonlinearity(nonlinearity)
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(
            _empty(num_chunks * hidden_size, input_size, device=device, dtype=dtype)
        )
        self.weight_hh = Parameter(
            _empty(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(_empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(_empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        _native.rnn_reset_parameters(list(self.parameters()), self.hidden_size)

    def _prepare(self, input, hx, zeros_count):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise ValueError(
                f"{name}: input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            z = _C.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
            hx = (z, z) if zeros_count == 2 else z
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(0)
        return x, hx, batched

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        return s


class RNNCell(RNNCellBase):
    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, hx, batched = self._prepare(input, hx, 1)
        h = _cell_fn("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")(
            x, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        )
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, hx, batched = self._prepare(input, hx, 2)
        h, c = _cell_fn("LSTM")(x, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, hx, batched = self._prepare(input, hx, 1)
        h = _cell_fn("GRU")(x, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)
