"""ConvTasNet source separation on LibriMix (python -m tensorcore.pipelines.convtasnet)."""

from .task import ConvTasNetTask  # noqa: F401
