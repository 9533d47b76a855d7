"""PixelShuffle, PixelUnshuffle, Upsample, Fold/Unfold, ChannelShuffle."""

from ... import _C
from .. import functional as F
from .module import Module


class _Shuffle(Module):
    """A shuffle by one int factor: checked by C++'s rule (tensorcore/nn/modules/rules.h), kept
    under torch's attribute name (_factor) and passed to the functional op (_fn_name)."""

    _factor = _fn_name = ""

    def __init__(self, factor):
        super().__init__()
        _C._nn_modules.check_shuffle_factor(type(self).__name__, self._factor, factor)
        setattr(self, self._factor, factor)

    def forward(self, input):
        return getattr(F, self._fn_name)(input, getattr(self, self._factor))

    def extra_repr(self):
        return f"{self._factor}={getattr(self, self._factor)}"


class PixelShuffle(_Shuffle):
    _factor, _fn_name = "upscale_factor", "pixel_shuffle"

    def __init__(self, upscale_factor):
        super().__init__(upscale_factor)


class PixelUnshuffle(_Shuffle):
    _factor, _fn_name = "downscale_factor", "pixel_unshuffle"

    def __init__(self, downscale_factor):
        super().__init__(downscale_factor)


class ChannelShuffle(_Shuffle):
    """Composite: (N, g*c, ...) -> transpose of the group and channel axes."""

    _factor, _fn_name = "groups", "channel_shuffle"

    def __init__(self, groups):
        super().__init__(groups)


class Upsample(Module):
    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ):
        super().__init__()
        self.size = size
        self.scale_factor = (
            float(scale_factor) if isinstance(scale_factor, (int, float)) else scale_factor
        )
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self):
        info = (
            f"scale_factor={self.scale_factor}"
            if self.scale_factor is not None
            else f"size={self.size}"
        )
        return info + f", mode='{self.mode}'"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _FoldBase(Module):
    """The sliding-block arguments Unfold and Fold share."""

    def __init__(self, kernel_size, dilation, padding, stride):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )


class Unfold(_FoldBase):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(_FoldBase):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, input):
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self):
        return f"output_size={self.output_size}, " + super().extra_repr()
