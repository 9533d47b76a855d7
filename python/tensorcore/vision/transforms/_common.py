"""Shared helpers for the functional transforms."""

import enum

import tensorcore as tc
from tensorcore import _C

V = _C._vision


class InterpolationMode(enum.Enum):
    NEAREST = "nearest"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"


_KERNEL_CODE = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
}
# PIL's integer codes, accepted like torchvision does.
_PIL_CODES = {
    0: InterpolationMode.NEAREST,
    2: InterpolationMode.BILINEAR,
    3: InterpolationMode.BICUBIC,
}


def interpolation_mode(value, op="transform"):
    if isinstance(value, InterpolationMode):
        return value
    if isinstance(value, str):
        try:
            return InterpolationMode(value.lower())
        except ValueError:
            pass
    if isinstance(value, int) and value in _PIL_CODES:
        return _PIL_CODES[value]
    raise ValueError(
        f"{op}: unsupported interpolation {value!r}; expected nearest, bilinear or "
        "bicubic (an InterpolationMode)"
    )


def kernel_code(mode):
    return _KERNEL_CODE[mode]


def check_image(img, op, min_dims=2):
    if not isinstance(img, tc.Tensor):
        raise TypeError(f"{op}: expected a tensorcore Tensor image, got {type(img).__name__}")
    if img.dim() < min_dims:
        raise ValueError(
            f"{op}: expected an image with at least {min_dims} dims "
            f"(..., C, H, W), got shape {list(img.shape)}"
        )


_INT_MAX = {
    tc.uint8: 2**8 - 1,
    tc.int8: 2**7 - 1,
    tc.int16: 2**15 - 1,
    tc.uint16: 2**16 - 1,
    tc.int32: 2**31 - 1,
    tc.int64: 2**63 - 1,
}


def max_value(dtype):
    """The value of a full-intensity pixel: the dtype's maximum for integers, 1.0 otherwise."""
    return _INT_MAX.get(dtype, 1.0)


def channels(img):
    return img.shape[-3] if img.dim() >= 3 else 1


def as_batch(img):
    """(..., C, H, W) -> (N, C, H, W) plus a function restoring the leading dims."""
    shape = list(img.shape)
    if img.dim() == 2:
        return img.reshape([1, 1] + shape), lambda out: out.reshape(list(out.shape[-2:]))
    lead = shape[:-3]
    batch = img.reshape([-1] + shape[-3:])
    return batch, lambda out: out.reshape(lead + list(out.shape[-3:]))
