"""tensorcore.vision.transforms: torchvision.transforms on tensors (batched, per-sample random
parameters) and on PIL images."""

from . import functional  # noqa: F401
from ._common import InterpolationMode  # noqa: F401
from .transforms import *  # noqa: F401,F403
from .transforms import (  # noqa: F401
    Compose,
    ConvertImageDtype,
    Normalize,
    Lambda,
    LinearTransformation,
    PILToTensor,
    ToPILImage,
    ToTensor,
    RandomApply,
    RandomChoice,
    RandomOrder,
    load,
)
