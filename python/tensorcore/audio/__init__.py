"""tensorcore.audio: torchaudio's IO (SoX), sox_effects, functional and transforms."""

from ._io import AudioMetaData, decode_audio, info, load, save  # noqa: F401

from . import sox_effects  # noqa: F401
from . import functional  # noqa: F401
from . import transforms  # noqa: F401
from . import datasets  # noqa: F401
from . import models  # noqa: F401

__version__ = "0.1.0"


def list_audio_backends():
    return ["sox"]


def get_audio_backend():
    return "sox"


def set_audio_backend(backend):
    if backend not in (None, "sox", "sox_io"):
        raise ValueError(f"audio.set_audio_backend: only the 'sox' backend exists, got {backend!r}")
