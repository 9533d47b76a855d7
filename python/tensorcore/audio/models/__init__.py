"""tensorcore.audio.models: torchaudio.models' Wav2Letter, WaveRNN (native sampling loop) and
ConvTasNet, with the same module trees so torchaudio state dicts load; docs/audio_models.md."""

from .conv_tasnet import ConvTasNet, conv_tasnet_base  # noqa: F401
from .conv_tasnet_stream import separate_chunked, separate_stream  # noqa: F401
from .wav2letter import Wav2Letter  # noqa: F401
from .wavernn import WaveRNN  # noqa: F401

__all__ = [
    "ConvTasNet",
    "conv_tasnet_base",
    "separate_chunked",
    "separate_stream",
    "Wav2Letter",
    "WaveRNN",
]
