"""torchvision.io's names over tensorcore's native codecs (libjpeg-turbo, libpng, FFmpeg)."""

from .image import (  # noqa: F401
    ImageReadMode,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)
from ... import _C as _C_ext

if hasattr(_C_ext, "_videoio"):
    from .video import VideoReader, read_video, read_video_timestamps  # noqa: F401
else:  # built with -DTC_SKIP_AREAS=videoio (no FFmpeg on the build machine)

    def _no_video(*args, **kwargs):
        raise RuntimeError(
            "tensorcore was built without FFmpeg (TC_SKIP_AREAS=videoio): "
            "video decoding is unavailable; install libavformat-dev and rebuild"
        )

    VideoReader = read_video = read_video_timestamps = _no_video

__all__ = [
    "ImageReadMode",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
    "VideoReader",
    "read_video",
    "read_video_timestamps",
]
