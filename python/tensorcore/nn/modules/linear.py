"""Identity, Linear, Bilinear, LazyLinear-free versions of torch.nn's linear layers."""

import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _empty(*shape, device=None, dtype=None):
    return _C.empty(
        shape,
        dtype=dtype if dtype is not None else _C.get_default_dtype(),
        device=device if device is not None else "cpu",
    )


def _optional_parameter(module, name, present, *shape, device=None, dtype=None):
    """module.<name> = an uninitialized Parameter of shape, or registered as None when the layer
    is built without it (bias=False, affine=False), so state dicts and repr list it as torch's."""
    if present:
        setattr(module, name, Parameter(_empty(*shape, device=device, dtype=dtype)))
    else:
        module.register_parameter(name, None)


def _reset_like_linear(module):
    # torch's default (kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))),
    # C++'s (tensorcore/nn/modules/rules.h), shared with tc::nn's Linear and convolutions.
    init._warn_if_empty(module.weight)
    _C._nn_modules.reset_linear_parameters(module.weight, module.bias)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with W of shape (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in_features, device=device, dtype=dtype))
        _optional_parameter(self, "bias", bias, out_features, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_like_linear(self)

    def forward(self, input):
        if input.dim() == 0 or input.shape[-1] != self.in_features:
            raise ValueError(
                f"Linear: expected input with last dimension {self.in_features}, got shape "
                f"{tuple(input.shape)}"
            )
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    def __init__(
        self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None
    ):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            _empty(out_features, in1_features, in2_features, device=device, dtype=dtype)
        )
        _optional_parameter(self, "bias", bias, out_features, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
