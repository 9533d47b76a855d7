"""Vision: torchvision's feature set over tensorcore (image IO lives in tensorcore.vision.io)."""
from . import io  # noqa: F401
