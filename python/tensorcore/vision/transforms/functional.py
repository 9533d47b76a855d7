"""torchvision.transforms.functional on tensorcore tensors: images are (..., C, H, W), uint8 or
float. Results match torchvision 0.14's tensor backend (see docs/vision.md for the differences)."""

from ._common import InterpolationMode  # noqa: F401
from ._geometry import (  # noqa: F401
    get_dimensions,
    resize,
    crop,
    center_crop,
    resized_crop,
    five_crop,
    ten_crop,
    hflip,
    vflip,
    pad,
    rotate,
    affine,
    perspective,
    affine_matrix,
    perspective_matrix,
    rotation_matrix,
    rotated_size,
)
from ._color import (  # noqa: F401
    convert_image_dtype,
    normalize,
    rgb_to_grayscale,
    adjust_brightness,
    adjust_contrast,
    adjust_saturation,
    adjust_hue,
    adjust_gamma,
    adjust_sharpness,
    invert,
    posterize,
    solarize,
    autocontrast,
    equalize,
    gaussian_blur,
    erase,
)
from ._geometry import _resized_output_size
from . import _pil
from ._pil import to_tensor, pil_to_tensor, to_pil_image, to_grayscale  # noqa: F401


def _pil_aware(fn):
    """fn on a PIL image: runs on its pixels and returns a PIL image of the same mode."""

    def wrapper(img, *args, **kwargs):
        if _pil.is_pil(img):
            pixels, back = _pil.as_tensor(img)
            return back(fn(pixels, *args, **kwargs))
        return fn(img, *args, **kwargs)

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__name__, fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


for _name in (
    "crop",
    "center_crop",
    "five_crop",
    "ten_crop",
    "hflip",
    "vflip",
    "pad",
    "affine",
    "perspective",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_gamma",
    "adjust_sharpness",
    "invert",
    "posterize",
    "solarize",
    "autocontrast",
    "equalize",
    "gaussian_blur",
):
    globals()[_name] = _pil_aware(globals()[_name])
del _name

_tensor_resize, _tensor_resized_crop = resize, resized_crop
_tensor_get_dimensions = get_dimensions


def get_dimensions(img):
    if _pil.is_pil(img):
        return [len(img.getbands()), img.size[1], img.size[0]]
    return _tensor_get_dimensions(img)


def get_image_size(img):
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=None):
    """Resizes (..., H, W) tensors, or a PIL image with Pillow's resampling (as torchvision)."""
    if not _pil.is_pil(img):
        return _tensor_resize(img, size, interpolation, max_size, antialias)
    from ._common import interpolation_mode

    mode = interpolation_mode(interpolation, "resize")
    w, h = img.size
    oh, ow = _resized_output_size(h, w, size, max_size)
    if (oh, ow) == (h, w):
        return img
    return _pil.pil_resize(img, oh, ow, mode)


def resized_crop(
    img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=None
):
    if not _pil.is_pil(img):
        return _tensor_resized_crop(img, top, left, height, width, size, interpolation, antialias)
    return resize(crop(img, top, left, height, width), size, interpolation)


_tensor_rotate, _tensor_rgb_to_grayscale = rotate, rgb_to_grayscale


def rotate(
    img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None
):
    """Rotates (..., H, W) tensors, or a PIL image with Pillow's rotate (as torchvision)."""
    if not _pil.is_pil(img):
        return _tensor_rotate(img, angle, interpolation, expand, center, fill)
    from ._common import interpolation_mode

    mode = interpolation_mode(interpolation, "rotate")
    return _pil.pil_rotate(img, angle, mode, expand, center, fill)


_tensor_adjust_hue = adjust_hue


def adjust_hue(img, hue_factor):
    """Shifts the hue; a PIL image goes through Pillow's HSV conversion, as torchvision."""
    if _pil.is_pil(img):
        return _pil.pil_adjust_hue(img, hue_factor)
    return _tensor_adjust_hue(img, hue_factor)


def rgb_to_grayscale(img, num_output_channels=1):
    if _pil.is_pil(img):
        return to_grayscale(img, num_output_channels)  # Pillow's conversion, as torchvision
    return _tensor_rgb_to_grayscale(img, num_output_channels)


from tensorcore._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "vision.transforms.functional")
del _harden
