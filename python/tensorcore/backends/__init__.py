"""tensorcore.backends: backend switches (torch.backends names)."""

from . import cuda  # noqa: F401
from . import cudnn  # noqa: F401
from . import mps  # noqa: F401
from . import openmp  # noqa: F401
