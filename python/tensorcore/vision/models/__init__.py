"""tensorcore.vision.models: torchvision.models' classification and segmentation models, with the
same constructors, module trees and state-dict keys (docs/vision_models.md)."""

import importlib.util as _importlib_util

from ._weights import WeightsEnum, Weights, checkpoint_dir  # noqa: F401
from ._api import list_models, get_model, get_model_builder, get_model_weights, get_weight  # noqa: F401
from .resnet import *  # noqa: F401,F403
from .mobilenetv2 import *  # noqa: F401,F403
from .mobilenetv3 import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from . import segmentation  # noqa: F401

# Detection lives in its own subpackage, added separately; import it when it is there.
if _importlib_util.find_spec(__name__ + ".detection") is not None:
    from . import detection  # noqa: F401
del _importlib_util
