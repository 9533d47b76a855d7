"""load / save / info (torchaudio 0.8+ sox_io API) over libsox."""

import os

from .. import _C

_audio = _C._audio


class AudioMetaData:
    """What `info` reports. num_frames is exactly what `load` returns for the same file."""

    __slots__ = ("sample_rate", "num_frames", "num_channels", "bits_per_sample", "encoding")

    def __init__(self, sample_rate, num_frames, num_channels, bits_per_sample, encoding):
        self.sample_rate = sample_rate
        self.num_frames = num_frames
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    def __repr__(self):
        return (
            f"AudioMetaData(sample_rate={self.sample_rate}, num_frames={self.num_frames}, "
            f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
            f"encoding={self.encoding})"
        )

    def __eq__(self, other):
        return isinstance(other, AudioMetaData) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__
        )


def _as_source(filepath, op):
    """Returns ("path", str) or ("bytes", bytes) for a path, file-like object or buffer."""
    if isinstance(filepath, (bytes, bytearray, memoryview)):
        return "bytes", bytes(filepath)
    if hasattr(filepath, "read"):
        data = filepath.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(
                f"{op}: the file-like object must be opened in binary mode "
                f"(read() returned {type(data).__name__})"
            )
        return "bytes", bytes(data)
    try:
        return "path", os.fspath(filepath)
    except TypeError:
        raise TypeError(
            f"{op}: expected a path, a binary file-like object or bytes, "
            f"got {type(filepath).__name__}"
        ) from None


def info(filepath, format=None):
    """Metadata of an audio file (path, binary file-like object or bytes)."""
    kind, src = _as_source(filepath, "audio.info")
    fn = _audio.info if kind == "path" else _audio.info_bytes
    return AudioMetaData(*fn(src, format or ""))


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True, format=None):
    """Decodes audio into a (channels, frames) tensor (or (frames, channels)).

    normalize=True gives float32 in [-1, 1). normalize=False keeps a WAV file's PCM integer
    type (uint8 / int16 / int32); other formats still return float32.
    Returns (waveform, sample_rate).
    """
    kind, src = _as_source(filepath, "audio.load")
    fn = _audio.load if kind == "path" else _audio.load_bytes
    return fn(
        src, int(frame_offset), int(num_frames), bool(normalize), bool(channels_first), format or ""
    )


def decode_audio(data, normalize=True, channels_first=True, format=None):
    """Decodes the encoded bytes of an audio file held in a 1-d uint8 tensor (as
    tensorcore.vision.io.decode_image does for images); returns (waveform, sample_rate). Traced
    graphs (tc.jit) can start from a file's bytes through it."""
    return _audio.decode_audio(data, bool(normalize), bool(channels_first), format or "")


# SoX's writers of these formats take one channel and would interleave more into it
_MONO_FORMATS = ("gsm", "htk", "amr-nb")


def _check_mono_format(filepath, src, channels_first, format):
    if format:
        fmt = format.lower()
    elif isinstance(filepath, (str, os.PathLike)):
        fmt = os.path.splitext(os.fspath(filepath))[1].lstrip(".").lower()
    else:
        return
    if fmt in _MONO_FORMATS and getattr(src, "dim", lambda: 0)() == 2:
        channels = src.shape[0 if channels_first else 1]
        if channels != 1:
            raise ValueError(
                f"audio.save: the {fmt} format only supports single channel audio, "
                f"got {channels} channels"
            )


def save(
    filepath,
    src,
    sample_rate,
    channels_first=True,
    compression=None,
    format=None,
    encoding=None,
    bits_per_sample=None,
):
    """Encodes `src` (2-d; float32/float64/int32/int16/uint8) to a path or binary file object.

    WAV/SPH encodings follow the dtype unless `encoding` ("PCM_S", "PCM_U", "PCM_F", "ULAW",
    "ALAW") or `bits_per_sample` say otherwise, so an int16 tensor is written as 16-bit PCM.
    `compression`: FLAC level 0-8, MP3 bit rate in kbps, Vorbis quality -1..10.
    """
    _check_mono_format(filepath, src, channels_first, format)
    args = (
        bool(channels_first),
        format or "",
        encoding or "",
        int(bits_per_sample or 0),
        None if compression is None else float(compression),
    )
    if hasattr(filepath, "write"):
        if not format:
            raise ValueError("audio.save: format= is required when saving to a file-like object")
        filepath.write(_audio.save_bytes(src, int(sample_rate), *args))
        return
    try:
        path = os.fspath(filepath)
    except TypeError:
        raise TypeError(
            f"audio.save: expected a path or a binary file-like object, "
            f"got {type(filepath).__name__}"
        ) from None
    _audio.save(path, src, int(sample_rate), *args)
