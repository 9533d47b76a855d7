"""PIL images in transforms, as torchvision 0.14 handles them.

to_tensor / pil_to_tensor / to_pil_image / to_grayscale follow torchvision's conversions. Other
transforms take a PIL image, run on its pixels as a uint8 (C, H, W) tensor (or int32/float32
for modes 'I'/'F', palette indices for 'P') and give back a PIL image of the same mode. Resize
(and the resize of RandomResizedCrop) calls Pillow's own resampling, as torchvision does, so
those results are Pillow's to the pixel.
"""

import numpy as np

import tensorcore as tc

from ._common import InterpolationMode

try:  # Pillow is optional: without it, PIL inputs simply never occur.
    from PIL import Image as _Image
except ImportError:  # pragma: no cover
    _Image = None

__all__ = ["is_pil", "to_tensor", "pil_to_tensor", "to_pil_image", "to_grayscale"]

# NumPy dtype of the pixels per mode where it is not uint8 (torchvision's table).
_MODE_DTYPES = {"I": np.int32, "I;16": np.int16, "F": np.float32}


def is_pil(img):
    return _Image is not None and isinstance(img, _Image.Image)


def _require_pil(img, op):
    if not is_pil(img):
        raise TypeError(f"{op}: pic should be a PIL Image, got {type(img).__name__}")


def _pixels(pic):
    """The (H, W, C) NumPy pixels of a PIL image, in torchvision's dtype for its mode."""
    if pic.mode == "1":
        arr = np.array(pic, np.uint8, copy=True) * 255
    elif pic.mode == "I;16":
        arr = np.array(pic, np.uint16, copy=True).astype(np.int16)
    else:
        arr = np.array(pic, _MODE_DTYPES.get(pic.mode, np.uint8), copy=True)
    return arr.reshape(pic.size[1], pic.size[0], len(pic.getbands()))


def to_tensor(pic):
    """PIL image or (H, W[, C]) ndarray -> (C, H, W) tensor; uint8 data scaled to [0, 1] float."""
    if not (is_pil(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"to_tensor: pic should be PIL Image or ndarray, got {type(pic).__name__}")
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"to_tensor: pic should be 2/3 dimensional, got {pic.ndim} dims")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        arr = _pixels(pic)
    img = tc.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    if img.dtype == tc.uint8:
        return img.to(tc.get_default_dtype()).div(255)
    return img


def pil_to_tensor(pic):
    """PIL image -> (C, H, W) tensor of its pixels, unscaled (uint8 for 8-bit modes)."""
    _require_pil(pic, "pil_to_tensor")
    if pic.mode == "1":
        arr = np.array(pic, copy=True).astype(np.bool_)
        arr = arr.reshape(pic.size[1], pic.size[0], 1)
    else:
        arr = np.array(pic, copy=True)
        if arr.dtype == np.uint16:
            arr = arr.astype(np.int32) if pic.mode != "I;16" else arr.astype(np.int16)
        arr = arr.reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    return tc.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


_CHANNEL_MODES = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}
_DEFAULT_MODES = {2: "LA", 3: "RGB", 4: "RGBA"}


def to_pil_image(pic, mode=None):
    """(C, H, W) tensor or (H, W, C) ndarray -> PIL image (float data is scaled by 255)."""
    if _Image is None:
        raise RuntimeError("to_pil_image needs Pillow (python3-pil), which is not installed")
    if isinstance(pic, tc.Tensor):
        if pic.dim() not in (2, 3):
            raise ValueError(f"to_pil_image: pic should be 2/3 dimensional, got {pic.dim()} dims")
        if pic.dim() == 2:
            pic = pic.unsqueeze(0)
        if pic.shape[-3] > 4:
            raise ValueError(
                f"to_pil_image: pic should not have > 4 channels, got {pic.shape[-3]} channels"
            )
        if pic.is_floating_point() and mode != "F":
            pic = pic.mul(255).to(tc.uint8)  # truncates, as torchvision's .byte()
        npimg = np.transpose(pic.cpu().numpy(), (1, 2, 0))
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"to_pil_image: pic should be 2/3 dimensional, got {pic.ndim} dims")
        npimg = pic[:, :, None] if pic.ndim == 2 else pic
        if npimg.shape[-1] > 4:
            raise ValueError(
                f"to_pil_image: pic should not have > 4 channels, got {npimg.shape[-1]} channels"
            )
    else:
        raise TypeError(f"to_pil_image: pic should be Tensor or ndarray, got {type(pic).__name__}")
    channels = npimg.shape[2]
    if channels == 1:
        npimg = npimg[:, :, 0]
        expected = {
            np.dtype(np.uint8): "L",
            np.dtype(np.int16): "I;16",
            np.dtype(np.int32): "I",
            np.dtype(np.float32): "F",
        }.get(npimg.dtype)
        if mode is not None and mode != expected:
            raise ValueError(
                f"to_pil_image: incorrect mode ({mode}) supplied for input type {npimg.dtype}; "
                f"should be {expected}"
            )
        mode = expected
    else:
        if mode is not None and mode not in _CHANNEL_MODES[channels]:
            raise ValueError(
                f"to_pil_image: only modes {_CHANNEL_MODES[channels]} are supported for "
                f"{channels}-channel inputs, got {mode}"
            )
        if mode is None and npimg.dtype == np.uint8:
            mode = _DEFAULT_MODES[channels]
    if mode is None:
        raise TypeError(f"to_pil_image: input type {npimg.dtype} is not supported")
    return _Image.fromarray(np.ascontiguousarray(npimg), mode=mode)


def to_grayscale(img, num_output_channels=1):
    """PIL image of any mode -> grayscale PIL image with 1 or 3 (equal) channels."""
    if not is_pil(img):
        raise TypeError("to_grayscale: input should be a PIL Image")
    if num_output_channels not in (1, 3):
        raise ValueError("to_grayscale: num_output_channels should be either 1 or 3")
    gray = img.convert("L")
    if num_output_channels == 3:
        gray = _Image.fromarray(np.dstack([np.array(gray)] * 3), "RGB")
    return gray


# -- running tensor transforms on PIL images ---------------------------------------------------


def as_tensor(img):
    """A PIL image's pixels as a (C, H, W) tensor, and a function turning results back."""
    mode, palette = img.mode, img.getpalette() if img.mode == "P" else None
    if mode in ("1", "I;16"):
        raise TypeError(
            f"transforms on PIL images of mode '{mode}' are not supported; convert it first "
            "(e.g. img.convert('L'))"
        )
    arr = np.array(img, _MODE_DTYPES.get(mode, np.uint8), copy=True)
    arr = arr.reshape(img.size[1], img.size[0], len(img.getbands()))
    tensor = tc.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))

    def back(out):
        if isinstance(out, (tuple, list)):
            return type(out)(back(o) for o in out)
        pixels = np.ascontiguousarray(np.transpose(out.numpy(), (1, 2, 0)))
        c = pixels.shape[2]
        if c != len(img.getbands()):  # Grayscale(3) of an L image, (1) of RGB
            out_mode = {1: "L", 3: "RGB"}.get(c)
            if out_mode is None:
                raise ValueError(f"cannot make a PIL image of {c} channels from mode {mode}")
            return _Image.fromarray(pixels[:, :, 0] if c == 1 else pixels, out_mode)
        result = _Image.fromarray(pixels[:, :, 0] if c == 1 else pixels, mode)
        if palette is not None:
            result.putpalette(palette)
        return result

    return tensor, back


_PIL_FILTERS = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
}


def pil_resize(img, oh, ow, interpolation):
    """Pillow's resampling (always antialiased), as torchvision's PIL backend."""
    if interpolation not in _PIL_FILTERS:
        raise ValueError(f"resize: interpolation {interpolation} is not supported for PIL images")
    return img.resize((ow, oh), _PIL_FILTERS[interpolation])


def _pil_fill(fill, img):
    """torchvision's fill for Pillow: one value per channel, ints unless the mode is 'F'."""
    channels = len(img.getbands())
    fill = 0 if fill is None else fill
    if isinstance(fill, (int, float)) and channels > 1:
        fill = (fill,) * channels
    if isinstance(fill, (list, tuple)):
        if len(fill) != channels:
            raise ValueError(
                f"the number of elements in 'fill' does not match the number of channels of the "
                f"image ({len(fill)} != {channels})"
            )
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return fill


def pil_rotate(img, angle, interpolation, expand=False, center=None, fill=None):
    if interpolation not in _PIL_FILTERS:
        raise ValueError(f"rotate: interpolation {interpolation} is not supported for PIL images")
    return img.rotate(
        angle, _PIL_FILTERS[interpolation], expand, center, fillcolor=_pil_fill(fill, img)
    )


def pil_adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor ({hue_factor}) is not in [-0.5, 0.5]")
    if img.mode in ("L", "1", "I", "F"):
        return img  # no hue to shift
    h, s, v = img.convert("HSV").split()
    # The hue channel is a uint8 angle: the shift wraps around modulo 256.
    shifted = np.array(h, dtype=np.uint8).astype(np.int64) + int(hue_factor * 255)
    h = _Image.fromarray((shifted % 256).astype(np.uint8), "L")
    return _Image.merge("HSV", (h, s, v)).convert(img.mode)
