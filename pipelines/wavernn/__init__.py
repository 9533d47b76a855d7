"""WaveRNN vocoder on LibriTTS / LJSpeech (python -m tensorcore.pipelines.wavernn)."""

from .task import WaveRNNTask  # noqa: F401
