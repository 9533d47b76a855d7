"""Image decoding/encoding with torchvision.io's API.

Decoders return C x H x W tensors (uint8, or uint16 for 16-bit PNGs). Like torchvision's, the
result is a channels-first view of the interleaved pixels (call ``.contiguous()`` for planar
memory). Corrupt, truncated, empty or non-image input raises ``tensorcore.DecodeError`` (a
RuntimeError) naming the problem. Decoding releases the GIL; a list of inputs is decoded in
parallel.
"""

import os
from enum import Enum

from ..._C import _image_io as _C

__all__ = [
    "ImageReadMode",
    "read_file",
    "write_file",
    "decode_jpeg",
    "encode_jpeg",
    "decode_png",
    "encode_png",
    "decode_image",
    "read_image",
    "write_jpeg",
    "write_png",
]


class ImageReadMode(Enum):
    """How to convert the decoded pixels: ``UNCHANGED`` keeps the file's channels (palettes and
    CMYK become RGB), the others convert to 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


_MODE_NAMES = {
    "UNCHANGED": 0,
    "GRAY": 1,
    "L": 1,
    "GRAY_ALPHA": 2,
    "LA": 2,
    "RGB": 3,
    "RGB_ALPHA": 4,
    "RGBA": 4,
}


def _mode_value(mode):
    # Accepts our enum, torchvision's ImageReadMode (same values), a plain int, or a name as
    # newer torchvision does ("RGB", "RGBA", "GRAY", ...).
    if isinstance(mode, str):
        try:
            return _MODE_NAMES[mode.upper()]
        except KeyError:
            raise ValueError(
                f"unknown image read mode {mode!r}; expected one of {sorted(_MODE_NAMES)}"
            ) from None
    value = getattr(mode, "value", mode)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"mode must be an ImageReadMode, got {mode!r}")
    if not 0 <= value <= 4:
        raise ValueError(f"mode must be an ImageReadMode (0..4), got {value}")
    return value


def _check_device(device, op):
    if str(device) != "cpu":
        raise NotImplementedError(f"{op}: only device='cpu' is supported, got {device!r}")


def read_file(path):
    """Reads a file's bytes into a 1-D uint8 tensor."""
    return _C.read_file(os.fspath(path))


def write_file(filename, data):
    """Writes the bytes of a 1-D uint8 tensor to a file."""
    _C.write_file(os.fspath(filename), data)


def decode_jpeg(
    input,
    mode=ImageReadMode.UNCHANGED,
    device="cpu",
    *,
    apply_exif_orientation=False,
    num_threads=0,
):
    """Decodes JPEG bytes into a C x H x W uint8 tensor.

    ``input`` may be a list of byte tensors: they are decoded in parallel on ``num_threads``
    threads (0: tensorcore.get_num_threads()) and a list is returned.
    """
    _check_device(device, "decode_jpeg")
    m = _mode_value(mode)
    if isinstance(input, (list, tuple)):
        return _C.decode_jpeg_batch(list(input), m, bool(apply_exif_orientation), int(num_threads))
    return _C.decode_jpeg(input, m, bool(apply_exif_orientation))


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decodes PNG bytes into a C x H x W tensor (uint8, or uint16 for 16-bit files)."""
    return _C.decode_png(input, _mode_value(mode), bool(apply_exif_orientation))


def decode_image(
    input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False, *, num_threads=0
):
    """Decodes JPEG or PNG bytes, picking the format from the magic bytes.

    ``input`` may be a list of byte tensors, decoded in parallel (see decode_jpeg).
    """
    m = _mode_value(mode)
    if isinstance(input, (list, tuple)):
        return _C.decode_image_batch(list(input), m, bool(apply_exif_orientation), int(num_threads))
    return _C.decode_image(input, m, bool(apply_exif_orientation))


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Reads a JPEG or PNG file into a C x H x W tensor."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


def encode_jpeg(input, quality=75):
    """Encodes a C x H x W uint8 tensor (C = 1 or 3) as JPEG bytes (1-D uint8 tensor)."""
    return _C.encode_jpeg(input, int(quality))


def encode_png(input, compression_level=6):
    """Encodes a C x H x W uint8/uint16 tensor (C = 1..4) as PNG bytes (1-D uint8 tensor)."""
    return _C.encode_png(input, int(compression_level))


def write_jpeg(input, filename, quality=75):
    """Encodes ``input`` as JPEG and writes it to ``filename``."""
    write_file(filename, encode_jpeg(input, quality))


def write_png(input, filename, compression_level=6):
    """Encodes ``input`` as PNG and writes it to ``filename``."""
    write_file(filename, encode_png(input, compression_level))
