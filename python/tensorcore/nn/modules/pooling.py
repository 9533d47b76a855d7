"""Pooling modules over the native pooling kernels."""

from ... import _C
from .. import functional as F
from .conv import _tuple
from .module import Module


def _check_pool(module, kernel_size, stride, padding, dilation=1):
    # The rules and their messages are C++'s (tensorcore/nn/modules/rules.h), shared with tc::nn.
    n = module._dims
    if isinstance(stride, (list, tuple)) and len(stride) == 0:
        stride = kernel_size
    _C._nn_modules.check_pool_options(
        type(module).__name__,
        n,
        _tuple(kernel_size, n),
        _tuple(stride, n),
        _tuple(padding, n),
        _tuple(dilation, n),
    )


class _MaxPoolNd(Module):
    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode
        _check_pool(self, kernel_size, self.stride, padding, dilation)

    def forward(self, input):
        return getattr(F, self._fn_name)(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    _dims, _fn_name = 1, "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    _dims, _fn_name = 2, "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    _dims, _fn_name = 3, "max_pool3d"


class _MaxUnpoolNd(Module):
    _fn_name = ""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding

    def forward(self, input, indices, output_size=None):
        return getattr(F, self._fn_name)(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _fn_name = "max_unpool1d"


class MaxUnpool2d(_MaxUnpoolNd):
    _fn_name = "max_unpool2d"


class MaxUnpool3d(_MaxUnpoolNd):
    _fn_name = "max_unpool3d"


class _AvgPoolNd(Module):
    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override
        _check_pool(self, kernel_size, self.stride, padding)
        _C._nn_modules.check_avg_pool_divisor(type(self).__name__, divisor_override)

    def forward(self, input):
        return getattr(F, self._fn_name)(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    _dims = 1

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def forward(self, input):
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class AvgPool2d(_AvgPoolNd):
    _dims, _fn_name = 2, "avg_pool2d"


class AvgPool3d(_AvgPoolNd):
    _dims, _fn_name = 3, "avg_pool3d"


class _AdaptivePool(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _FractionalMaxPoolNd(Module):
    _fn_name = ""

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        super().__init__()
        if (output_size is None) == (output_ratio is None):
            raise ValueError(
                f"{type(self).__name__} requires specifying either an output size, or a pooling "
                "ratio"
            )
        self.kernel_size, self.output_size, self.output_ratio = (
            kernel_size,
            output_size,
            output_ratio,
        )
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)

    def forward(self, input):
        return getattr(F, self._fn_name)(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, H, W) (Graham 2014); see F.fractional_max_pool2d."""

    _fn_name = "fractional_max_pool2d"


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, T, H, W); see F.fractional_max_pool3d."""

    _fn_name = "fractional_max_pool3d"


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = (
            norm_type,
            kernel_size,
            stride,
            ceil_mode,
        )
        _C._nn_modules.check_lp_pool_options(type(self).__name__, float(norm_type))

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    def forward(self, input):
        return F.lp_pool1d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )


class LPPool2d(_LPPoolNd):
    def forward(self, input):
        return F.lp_pool2d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )
