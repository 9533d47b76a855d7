"""tensorcore.vision: torchvision's transforms and detection ops on tensorcore tensors."""
import os as _os

from . import ops  # noqa: F401
from . import transforms  # noqa: F401

# Image/video IO lives in its own area; import it once its folder exists.
if _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "io")):
    from . import io  # noqa: F401
