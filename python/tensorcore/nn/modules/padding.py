"""Padding modules: constant padding is composite, reflect/replicate/circular use the native pad."""

from ... import _C
from .. import functional as F
from .module import Module


class _PadNd(Module):
    mode = "constant"
    n_pads = 2

    def __init__(self, padding, value=0.0):
        super().__init__()
        # The rule and its message are C++'s (tensorcore/nn/modules/rules.h).
        amounts = [padding] if isinstance(padding, int) else list(padding)
        self.padding = tuple(
            _C._nn_modules.expand_padding(type(self).__name__, amounts, self.n_pads // 2)
        )
        self.value = value

    def forward(self, input):
        expected = self.n_pads // 2
        if input.dim() not in (expected + 1, expected + 2):
            raise ValueError(
                f"{type(self).__name__}: expected {expected + 1}-D or {expected + 2}-D input, got shape "
                f"{tuple(input.shape)}"
            )
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        if self.mode == "constant":
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


class ConstantPad1d(_PadNd):
    n_pads = 2

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad2d(_PadNd):
    n_pads = 4

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad3d(_PadNd):
    n_pads = 6

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ZeroPad2d(_PadNd):
    n_pads = 4

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    mode, n_pads = "reflect", 2


class ReflectionPad2d(_PadNd):
    mode, n_pads = "reflect", 4


class ReflectionPad3d(_PadNd):
    mode, n_pads = "reflect", 6


class ReplicationPad1d(_PadNd):
    mode, n_pads = "replicate", 2


class ReplicationPad2d(_PadNd):
    mode, n_pads = "replicate", 4


class ReplicationPad3d(_PadNd):
    mode, n_pads = "replicate", 6
