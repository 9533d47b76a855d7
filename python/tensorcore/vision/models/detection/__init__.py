"""tensorcore.vision.models.detection: torchvision.models.detection's RetinaNet and the pieces it
is built from, each usable on its own (docs/detection.md)."""

from . import _utils, anchor_utils, backbone_utils, image_list, postprocess, transform  # noqa: F401
from .retinanet import *  # noqa: F401,F403
from .retinanet import __all__ as _retinanet_all

__all__ = list(_retinanet_all)
