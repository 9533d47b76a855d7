"""Wav2Letter + CTC speech recognition on LibriSpeech (python -m tensorcore.pipelines.wav2letter)."""

from .task import Wav2LetterTask  # noqa: F401
