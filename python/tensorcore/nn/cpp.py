"""C++ frontend modules (tc::nn) inside Python models, and Python modules inside C++ ones.

    from tensorcore.nn import cpp
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = cpp.Sequential(cpp.Linear(4, 8), cpp.GELU(), MyPythonBlock(8))
            self.head = nn.Linear(8, 2)

`cpp.Linear(...)` etc. build the C++ layer and wrap it in a `CppModule`, an ordinary
`nn.Module` whose Parameters are the C++ module's own tensors (same objects the C++ code updates
and reads), so `parameters()`, `state_dict()`, `load_state_dict()`, `.to(dtype)`, optimizers and
Python hooks see them. `cpp.Sequential` accepts C++ modules and Python modules alike: a Python
entry is mirrored on the C++ side (its parameters appear in the C++ module's state_dict under the
same keys) and called back from C++ with the GIL held.
"""

from .. import _C
from .._C import Tensor
from .modules.module import Module
from .parameter import Parameter

_cpp = _C._nncpp
_set_data = _C._nn_py.set_data

__all__ = [
    "CppModule",
    "CppSequential",
    "Linear",
    "Conv1d",
    "Conv2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "LayerNorm",
    "GroupNorm",
    "MaxPool2d",
    "AdaptiveAvgPool2d",
    "Flatten",
    "ReLU",
    "GELU",
    "SiLU",
    "Tanh",
    "Sigmoid",
    "Dropout",
    "Embedding",
    "LSTM",
    "GRU",
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "Transformer",
    "Sequential",
]


# Argument names of the C++ forwards that take more than one argument (keywords map onto these).
_TWO_TENSOR_LOSSES = (
    "CrossEntropyLoss",
    "NLLLoss",
    "BCEWithLogitsLoss",
    "BCELoss",
    "MSELoss",
    "L1Loss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    "PoissonNLLLoss",
    "HingeEmbeddingLoss",
    "SoftMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
)
_SIGNATURES = {name: ("input", "target") for name in _TWO_TENSOR_LOSSES}
_SIGNATURES.update(
    {
        "LSTM": ("input", "hx"),
        "GRU": ("input", "hx"),
        "MultiheadAttention": (
            "query",
            "key",
            "value",
            "key_padding_mask",
            "need_weights",
            "attn_mask",
        ),
        "TransformerEncoderLayer": ("src", "src_mask", "src_key_padding_mask"),
        "TransformerEncoder": ("src", "mask", "src_key_padding_mask"),
        "TransformerDecoderLayer": (
            "tgt",
            "memory",
            "tgt_mask",
            "memory_mask",
            "tgt_key_padding_mask",
            "memory_key_padding_mask",
        ),
        "Transformer": (
            "src",
            "tgt",
            "src_mask",
            "tgt_mask",
            "memory_mask",
            "src_key_padding_mask",
            "tgt_key_padding_mask",
            "memory_key_padding_mask",
        ),
        "RNN": ("input", "hx"),
        "ConvTranspose1d": ("input", "output_size"),
        "ConvTranspose2d": ("input", "output_size"),
        "ConvTranspose3d": ("input", "output_size"),
        "EmbeddingBag": ("input", "offsets", "per_sample_weights"),
        "MaxUnpool1d": ("input", "indices", "output_size"),
        "MaxUnpool2d": ("input", "indices", "output_size"),
        "MaxUnpool3d": ("input", "indices", "output_size"),
        "Bilinear": ("input1", "input2"),
        "CTCLoss": ("log_probs", "targets", "input_lengths", "target_lengths"),
        "MarginRankingLoss": ("input1", "input2", "target"),
        "CosineEmbeddingLoss": ("input1", "input2", "target"),
        "TripletMarginLoss": ("anchor", "positive", "negative"),
        "GaussianNLLLoss": ("input", "target", "var"),
        "CosineSimilarity": ("x1", "x2"),
        "PairwiseDistance": ("x1", "x2"),
    }
)


def _adopt(t):
    """A Parameter that is the C++ tensor itself (same TensorImpl), not an alias."""
    if isinstance(t, Parameter):
        return t
    p = Parameter.__new__(Parameter)
    Tensor.__init__(p, t, t.requires_grad, True)
    return p


class CppModule(Module):
    """An nn.Module view of a tc::nn C++ module (and of its C++ children, recursively)."""

    def __init__(self, handle, python_children=None):
        super().__init__()
        object.__setattr__(self, "_cpp_module", handle)
        for name, t in handle.own_parameters():
            self._parameters[name] = _adopt(t)
        for name, t, persistent in handle.own_buffers():
            self._buffers[name] = t
            if not persistent:
                self._non_persistent_buffers_set.add(name)
        python_children = python_children or {}
        for name, child in handle.named_children():
            self._modules[name] = (
                python_children[name] if name in python_children else CppModule(child)
            )
        self.training = handle.is_training()

    @property
    def cpp(self):
        """The bound C++ module (tensorcore._C._nncpp.Module)."""
        return self._cpp_module

    def forward(self, *args, **kwargs):
        if kwargs:
            name = self._cpp_module.type_name
            sig = _SIGNATURES.get(name)
            if sig is None:
                raise TypeError(f"{name}.forward() takes no keyword arguments")
            full = list(args) + [None] * (len(sig) - len(args))
            for k, v in kwargs.items():
                if k not in sig:
                    raise TypeError(f"{name}.forward() got an unexpected keyword argument '{k}'")
                full[sig.index(k)] = v
            if name == "MultiheadAttention" and full[4] is None:
                full[4] = True
            while full and full[-1] is None:
                full.pop()
            args = full
        return self._cpp_module.forward(*args)

    def train(self, mode=True):
        super().train(mode)
        self._cpp_module.train(mode)
        return self

    def _apply(self, fn):
        # Convert in place: the C++ module keeps pointing at the same tensors.
        for m in self.children():
            m._apply(fn)
        from ..autograd.grad_mode import no_grad

        with no_grad():
            for p in self._parameters.values():
                if p is not None:
                    _set_data(p, fn(p))
                    if p.grad is not None:
                        _set_data(p.grad, fn(p.grad))
            for b in self._buffers.values():
                if b is not None:
                    _set_data(b, fn(b))
        return self

    def _get_name(self):
        return "Cpp" + self._cpp_module.type_name

    def extra_repr(self):
        text = self._cpp_module.pretty_print()
        start = text.find("(")
        return text[start + 1 : -1] if start >= 0 and text.endswith(")") else ""


class CppSequential(CppModule):
    """A C++ Sequential: indexable and iterable like nn.Sequential."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range for a Sequential of {n} modules")
        return self._modules[str(i % n)]


def _mirror(module, call=True):
    """The C++ mirror of a Python module: the same parameter/buffer tensors and structure."""
    mirror = _cpp.PythonModule(module if call else None, type(module).__name__)
    for name, p in module._parameters.items():
        if p is not None:
            mirror.add_parameter(name, p)
    for name, b in module._buffers.items():
        if b is not None:
            mirror.add_buffer(name, b, name not in module._non_persistent_buffers_set)
    for name, child in module._modules.items():
        if child is not None:
            mirror.add_child(
                name, child.cpp if isinstance(child, CppModule) else _mirror(child, False)
            )
    return mirror


def _wrap(factory):
    def make(*args, **kwargs):
        return CppModule(factory(*args, **kwargs))

    make.__name__ = factory.__name__
    make.__doc__ = f"The C++ tc::nn::{factory.__name__} (torch's arguments), as a CppModule."
    return make


def _ints(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def _conv(factory, name):
    def make(
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
    ):
        args = (stride, padding, dilation, groups, bias, padding_mode)
        return CppModule(factory(in_channels, out_channels, kernel_size, *args))

    make.__name__ = name
    make.__doc__ = (
        f"The C++ tc::nn::{name} (padding numbers, 'same' or 'valid'; any padding_mode), as a "
        "CppModule."
    )
    return make


Conv1d = _conv(_cpp.Conv1dFull, "Conv1d")
Conv2d = _conv(_cpp.Conv2dFull, "Conv2d")


class CppMaxPool(CppModule):
    """A C++ max pool; return_indices=True makes forward return (values, indices) as torch."""

    def __init__(self, handle, return_indices=False):
        super().__init__(handle)
        self.return_indices = return_indices

    def forward(self, input):
        if self.return_indices:
            return _cpp.forward_with_indices(self._cpp_module, input)
        return self._cpp_module.forward(input)


def _max_pool(factory):
    def make(
        kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ):
        return CppMaxPool(
            factory(kernel_size, stride, padding, dilation, ceil_mode), return_indices
        )

    make.__name__ = factory.__name__
    make.__doc__ = f"The C++ tc::nn::{factory.__name__} (torch's arguments), as a CppModule."
    return make


def _adaptive_max_pool(factory):
    def make(output_size, return_indices=False):
        return CppMaxPool(factory(output_size), return_indices)

    make.__name__ = factory.__name__
    make.__doc__ = f"The C++ tc::nn::{factory.__name__} (torch's arguments), as a CppModule."
    return make


MaxPool1d = _max_pool(_cpp.MaxPool1d)
MaxPool2d = _max_pool(_cpp.MaxPool2dFull)
MaxPool2d.__name__ = "MaxPool2d"
MaxPool3d = _max_pool(_cpp.MaxPool3d)
AdaptiveMaxPool1d = _adaptive_max_pool(_cpp.AdaptiveMaxPool1d)
AdaptiveMaxPool2d = _adaptive_max_pool(_cpp.AdaptiveMaxPool2d)
AdaptiveMaxPool3d = _adaptive_max_pool(_cpp.AdaptiveMaxPool3d)


def AdaptiveAvgPool2d(output_size):
    """The C++ tc::nn::AdaptiveAvgPool2d, as a CppModule."""
    return CppModule(_cpp.AdaptiveAvgPool2d(_ints(output_size)))


def LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True):
    """The C++ tc::nn::LayerNorm, as a CppModule."""
    return CppModule(_cpp.LayerNorm(_ints(normalized_shape), eps, elementwise_affine))


Linear = _wrap(_cpp.Linear)
BatchNorm1d = _wrap(_cpp.BatchNorm1d)
BatchNorm2d = _wrap(_cpp.BatchNorm2d)
ReLU = _wrap(_cpp.ReLU)
GELU = _wrap(_cpp.GELU)
Dropout = _wrap(_cpp.Dropout)
Embedding = _wrap(_cpp.Embedding)
LSTM = _wrap(_cpp.LSTM)
GRU = _wrap(_cpp.GRU)
TransformerEncoderLayer = _wrap(_cpp.TransformerEncoderLayer)
TransformerDecoderLayer = _wrap(_cpp.TransformerDecoderLayer)
Transformer = _wrap(_cpp.Transformer)
MultiheadAttention = _wrap(_cpp.MultiheadAttention)
GroupNorm = _wrap(_cpp.GroupNorm)
Flatten = _wrap(_cpp.Flatten)
SiLU = _wrap(_cpp.SiLU)
Tanh = _wrap(_cpp.Tanh)
Sigmoid = _wrap(_cpp.Sigmoid)

# Layers bound in python/src/nncpp_layers.cpp (torch's arguments; sizes as ints or tuples).
_MORE = (
    (
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "AvgPool1d",
        "AvgPool2d",
        "AvgPool3d",
        "AdaptiveAvgPool1d",
        "AdaptiveAvgPool3d",
        "MaxUnpool1d",
        "MaxUnpool2d",
        "MaxUnpool3d",
        "BatchNorm3d",
        "SyncBatchNorm",
        "InstanceNorm1d",
        "InstanceNorm2d",
        "InstanceNorm3d",
        "LocalResponseNorm",
        "ReflectionPad1d",
        "ReflectionPad2d",
        "ReflectionPad3d",
        "ReplicationPad1d",
        "ReplicationPad2d",
        "ReplicationPad3d",
        "ZeroPad2d",
        "ConstantPad1d",
        "ConstantPad2d",
        "ConstantPad3d",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "AlphaDropout",
        "FeatureAlphaDropout",
        "Bilinear",
        "CosineSimilarity",
        "PairwiseDistance",
        "EmbeddingBag",
        "RNN",
        "Unfold",
        "Fold",
        "PixelShuffle",
        "PixelUnshuffle",
        "Unflatten",
        "Upsample",
        "ReLU6",
        "SELU",
        "Hardswish",
        "Hardsigmoid",
        "Mish",
        "Softsign",
        "Tanhshrink",
        "Identity",
        "LeakyReLU",
        "ELU",
        "CELU",
        "Hardtanh",
        "Softplus",
        "Threshold",
        "PReLU",
        "Softmax",
        "LogSoftmax",
        "Softmin",
        "GLU",
        "LogSigmoid",
        "Softmax2d",
        "Hardshrink",
        "Softshrink",
        "ChannelShuffle",
        "LPPool1d",
        "LPPool2d",
    )
    + _TWO_TENSOR_LOSSES
    + (
        "CTCLoss",
        "MarginRankingLoss",
        "CosineEmbeddingLoss",
        "TripletMarginLoss",
        "GaussianNLLLoss",
    )
)
for _name in _MORE:
    globals()[_name] = _wrap(getattr(_cpp, _name))
del _name
__all__ += list(_MORE) + [
    "MaxPool1d",
    "MaxPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "CppMaxPool",
]


def Sequential(*modules):
    """A C++ tc::nn::Sequential over C++ modules (CppModule) and Python nn.Modules (called back
    from C++), as a CppModule whose children are the given module objects."""
    handles, python_children = [], {}
    for i, m in enumerate(modules):
        if isinstance(m, CppModule):
            handles.append(m.cpp)
        elif isinstance(m, Module):
            handles.append(_mirror(m))
        else:
            raise TypeError(
                f"cpp.Sequential: entry {i} must be an nn.Module, got {type(m).__name__}"
            )
        python_children[str(i)] = m
    return CppSequential(_cpp.Sequential(handles), python_children)
