"""torchvision.transforms.functional on tensorcore tensors: images are (..., C, H, W), uint8 or
float. Results match torchvision 0.14's tensor backend (see docs/vision.md for the differences)."""

from ._common import InterpolationMode  # noqa: F401
from ._geometry import (  # noqa: F401
    get_dimensions,
    get_image_size,
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


from tensorcore._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "vision.transforms.functional")
del _harden
