"""Conv1d/2d/3d and ConvTranspose1d/2d over the native convolution kernels."""

from ... import _C
from .. import functional as F
from ..parameter import Parameter
from .linear import _empty, _optional_parameter, _reset_like_linear
from .module import Module


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _ConvNd(Module):
    _dims = 2
    _transposed = False

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
        output_padding=0,
    ):
        super().__init__()
        n = self._dims
        string_padding = padding if isinstance(padding, str) else ""
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if string_padding else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.output_padding = _tuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.transposed = self._transposed
        # The rules, their messages and the padding amounts are C++'s
        # (tensorcore/nn/modules/rules.h), shared with tc::nn's convolutions.
        numeric_padding = (0,) * n if string_padding else self.padding
        _C._nn_modules.check_conv_options(
            type(self).__name__,
            n,
            in_channels,
            out_channels,
            groups,
            self.kernel_size,
            self.stride,
            numeric_padding,
            self.dilation,
            self.output_padding,
            string_padding,
            padding_mode,
            self._transposed,
        )
        self._reversed_padding_repeated_twice = _C._nn_modules.conv_reversed_padding(
            self.kernel_size, self.dilation, numeric_padding, string_padding
        )
        if self._transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(_empty(*shape, device=device, dtype=dtype))
        _optional_parameter(self, "bias", bias, out_channels, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_like_linear(self)

    def _check_input(self, input):
        n = self._dims
        name = type(self).__name__
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(
                f"{name}: expected {n + 1}-D (unbatched) or {n + 2}-D (batched) input, got shape "
                f"{tuple(input.shape)}"
            )
        channels = input.shape[-n - 1]
        if channels != self.in_channels:
            raise ValueError(
                f"{name}: expected input with {self.in_channels} channels, got {channels} "
                f"(input shape {tuple(input.shape)})"
            )

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.kernel_size):
            s += f", padding={self.padding if not isinstance(self.padding, str) else repr(self.padding)}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _fn = None

    def forward(self, input):
        self._check_input(input)
        fn = getattr(F, self._fn_name)
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return fn(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class Conv1d(_Conv):
    _dims, _fn_name = 1, "conv1d"


class Conv2d(_Conv):
    _dims, _fn_name = 2, "conv2d"


class Conv3d(_Conv):
    _dims, _fn_name = 3, "conv3d"


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
            output_padding,
        )

    def _output_padding(self, input, output_size):
        # The rule and its message are C++'s (tensorcore/nn/modules/rules.h).
        return tuple(
            _C._nn_modules.conv_transpose_output_padding(
                type(self).__name__,
                input,
                None if output_size is None else [int(v) for v in output_size],
                self.stride,
                self.padding,
                self.dilation,
                self.kernel_size,
                self.output_padding,
            )
        )

    def forward(self, input, output_size=None):
        self._check_input(input)
        fn = getattr(F, self._fn_name)
        return fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTranspose):
    _dims, _fn_name = 1, "conv_transpose1d"


class ConvTranspose2d(_ConvTranspose):
    _dims, _fn_name = 2, "conv_transpose2d"


class ConvTranspose3d(_ConvTranspose):
    _dims, _fn_name = 3, "conv_transpose3d"
