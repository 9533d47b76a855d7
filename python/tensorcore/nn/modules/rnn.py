"""RNN, LSTM, GRU (multi-layer, bidirectional, batch_first, dropout, packed sequences) and their cells.

RNN, LSTM and GRU layers run as one native call per layer and direction (lstm_layer / gru_layer /
rnn_layer on padded input, lstm_layer_packed / gru_layer_packed / rnn_layer_packed on a
PackedSequence's data, LSTM projections through lstm_layer's w_hr): on the CPU the whole
sequence is one autograd node. The layer loop, direction handling and state permutations live
here; builds without the native layer ops fall back to a Python loop over the cells.
"""

import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _empty
from .module import Module


def _cell_fn(mode):
    name = {
        "LSTM": "lstm_cell",
        "GRU": "gru_cell",
        "RNN_TANH": "rnn_tanh_cell",
        "RNN_RELU": "rnn_relu_cell",
    }[mode]
    fn = getattr(F, name, None)
    if fn is None:
        raise NotImplementedError(
            f"{mode} needs the native nn kernels (tensorcore._C._nn: {name}), which this "
            "build does not include"
        )
    return fn


class RNNBase(Module):
    _gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

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
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError(
                f"{mode}: hidden_size and num_layers must be positive, got {hidden_size}, {num_layers}"
            )
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = self._gates[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        # With projections (LSTM proj_size) the hidden state h has proj_size features.
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    shapes += [(gate_size,), (gate_size,)]
                if proj_size > 0:
                    names.append(f"weight_hr_l{layer}{suffix}")
                    shapes.append((proj_size, hidden_size))
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(_empty(*shape, device=device, dtype=dtype)))
                self._flat_weights_names += names
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        w_ih = getattr(self, f"weight_ih_l{layer}{suffix}")
        w_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
        if self.bias:
            return (
                w_ih,
                w_hh,
                getattr(self, f"bias_ih_l{layer}{suffix}"),
                getattr(self, f"bias_hh_l{layer}{suffix}"),
            )
        return w_ih, w_hh, None, None

    def _run_direction(self, cell, x, state, weights, reverse, lengths, w_hr=None):
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outputs = [None] * x.shape[0]
        is_lstm = self.mode == "LSTM"
        for t in steps:
            new = cell(x[t], state, *weights)
            if w_hr is not None:
                new = (_C.matmul(new[0], w_hr.t()), new[1])
            if lengths is not None:
                # Padded steps keep the previous state and emit zeros (packed-sequence semantics).
                mask = (lengths > t).unsqueeze(1)
                if is_lstm:
                    new = (_C.where(mask, new[0], state[0]), _C.where(mask, new[1], state[1]))
                else:
                    new = _C.where(mask, new, state)
                h = new[0] if is_lstm else new
                outputs[t] = _C.where(mask, h, _C.zeros_like(h))
            else:
                outputs[t] = new[0] if is_lstm else new
            state = new
        return _C.stack(outputs), state

    def _native_layer(self, packed):
        """The native layer op for this mode (None in builds without it), called as
        fn(x, [batch_sizes,] h0, c0, w_ih, w_hh, b_ih, b_hh, reverse=, w_hr=) -> (out, h_n, c_n)."""
        suffix = "_packed" if packed else ""
        if self.mode == "LSTM":
            return getattr(F, "lstm_layer" + suffix, None)
        fn = getattr(F, ("gru_layer" if self.mode == "GRU" else "rnn_layer") + suffix, None)
        if fn is None:
            return None
        kwargs = (
            {}
            if self.mode == "GRU"
            else {"nonlinearity": "relu" if self.mode == "RNN_RELU" else "tanh"}
        )
        c = 3 if packed else 2  # where c0 (no such state here) sits in the arguments

        def layer(*args, reverse, w_hr):
            return tuple(fn(*args[:c], *args[c + 1 :], reverse=reverse, **kwargs)) + (None,)

        return layer

    def _state_shapes(self, batch):
        """Shapes of (h, c) initial and final states for this batch size."""
        layers = self.num_layers * (2 if self.bidirectional else 1)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (layers, batch, real_hidden), (layers, batch, self.hidden_size)

    def _check_states(self, h0, c0, batch):
        for name, st, shape in zip(("hx", "cx"), (h0, c0), self._state_shapes(batch)):
            if st is not None and tuple(st.shape) != shape:
                raise ValueError(
                    f"{type(self).__name__}: Expected hidden size {shape}, got "
                    f"{tuple(st.shape)} for {name}"
                )

    def _run_layers(self, x, run, cat_dim):
        """Every layer and direction through run(layer_input, layer, direction, state_index, w_hr)
        -> (out, h, c or None), directions concatenated along cat_dim and dropout between layers
        as torch. Returns (last layer's output, h_n, c_n or None)."""
        num_directions = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        layer_input = x
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                suffix = "_reverse" if direction == 1 else ""
                w_hr = getattr(self, f"weight_hr_l{layer}{suffix}") if self.proj_size > 0 else None
                out, h, c = run(
                    layer_input, layer, direction, layer * num_directions + direction, w_hr
                )
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            layer_input = outs[0] if num_directions == 1 else _C.cat(outs, cat_dim)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, _C.stack(h_n), (_C.stack(c_n) if self.mode == "LSTM" else None)

    def _forward_packed(self, input, hx, layer_fn):
        """A PackedSequence through the packed layer ops: data stays packed from layer to layer."""
        from ..utils.rnn import PackedSequence

        data, batch_sizes = input.data, input.batch_sizes
        if data.dim() != 2 or data.shape[-1] != self.input_size:
            raise ValueError(
                f"{type(self).__name__}: input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {data.shape[-1]} (packed data of shape {tuple(data.shape)})"
            )
        sizes = [int(b) for b in batch_sizes.tolist()]
        is_lstm = self.mode == "LSTM"
        h0 = c0 = None
        if hx is not None:
            h0, c0 = hx if is_lstm else (hx, None)
            self._check_states(h0, c0, sizes[0])
            if input.sorted_indices is not None:  # states come in the caller's order
                h0 = h0.index_select(1, input.sorted_indices)
                c0 = c0.index_select(1, input.sorted_indices) if c0 is not None else None

        def run(layer_input, layer, direction, idx, w_hr):
            return layer_fn(
                layer_input,
                sizes,
                None if h0 is None else h0[idx],
                None if c0 is None else c0[idx],
                *self._weights(layer, direction),
                reverse=direction == 1,
                w_hr=w_hr,
            )

        layer_input, h_n, c_n = self._run_layers(data, run, cat_dim=1)
        if input.unsorted_indices is not None:
            h_n = h_n.index_select(1, input.unsorted_indices)
            c_n = c_n.index_select(1, input.unsorted_indices) if is_lstm else None
        output = PackedSequence(
            layer_input, batch_sizes, input.sorted_indices, input.unsorted_indices
        )
        return output, ((h_n, c_n) if is_lstm else h_n)

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

        packed = isinstance(input, PackedSequence)
        lengths = None
        if packed:
            layer_fn = self._native_layer(True)
            if layer_fn is not None:
                return self._forward_packed(input, hx, layer_fn)
            # Run on the padded batch in the original order (pad_packed_sequence restores it); padded
            # steps are masked per sequence and the result is re-packed below.
            x, lengths = pad_packed_sequence(input, batch_first=False)
            is_batched = True
        else:
            is_batched = input.dim() == 3
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead "
                    f"(shape {tuple(input.shape)})"
                )
            x = input if is_batched else input.unsqueeze(1)
            if self.batch_first and is_batched:
                x = x.transpose(0, 1)
        if x.shape[-1] != self.input_size:
            raise ValueError(
                f"{type(self).__name__}: input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {x.shape[-1]}"
            )
        state_shape, cell_shape = self._state_shapes(x.shape[1])
        is_lstm = self.mode == "LSTM"
        if hx is None:
            h0 = _C.zeros(state_shape, dtype=x.dtype, device=x.device)
            c0 = _C.zeros(cell_shape, dtype=x.dtype, device=x.device)
        else:
            if is_lstm:
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if not is_batched and not packed:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            self._check_states(h0, c0, x.shape[1])
        # Whole-sequence layers (one native node per layer and direction); builds without them
        # (and packed input there) run the cells step by step.
        layer_fn = self._native_layer(False) if lengths is None else None
        cell = None
        if layer_fn is None:
            cell = _cell_fn(self.mode)

        def run(layer_input, layer, direction, idx, w_hr):
            if layer_fn is not None:
                return layer_fn(
                    layer_input,
                    h0[idx],
                    c0[idx] if is_lstm else None,
                    *self._weights(layer, direction),
                    reverse=direction == 1,
                    w_hr=w_hr,
                )
            state = (h0[idx], c0[idx]) if is_lstm else h0[idx]
            out, final = self._run_direction(
                cell,
                layer_input,
                state,
                self._weights(layer, direction),
                direction == 1,
                lengths,
                w_hr,
            )
            return (out,) + tuple(final) if is_lstm else (out, final, None)

        output, h_n, c_n = self._run_layers(x, run, cat_dim=2)
        if packed:
            output = pack_padded_sequence(output, lengths, batch_first=False, enforce_sorted=False)
        else:
            if self.batch_first and is_batched:
                output = output.transpose(0, 1)
            if not is_batched:
                output = output.squeeze(1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
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
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"RNN: Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
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
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

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
