"""tensorcore.vision: torchvision's IO, transforms and detection ops on tensorcore tensors."""

from . import io  # noqa: F401
from . import ops  # noqa: F401
from . import transforms  # noqa: F401
from . import datasets  # noqa: F401
from . import models  # noqa: F401
from . import utils  # noqa: F401

__version__ = "0.1.0"
