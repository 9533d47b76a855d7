"""tensorcore.utils.benchmark: Timer and Measurement as in torch.utils.benchmark."""

from .timer import Timer, Measurement  # noqa: F401
