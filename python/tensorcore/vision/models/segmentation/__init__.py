"""tensorcore.vision.models.segmentation: FCN and DeepLabV3 on ResNet backbones
(torchvision.models.segmentation), returning {"out": ..., "aux": ...}."""

from .fcn import *  # noqa: F401,F403
from .deeplabv3 import *  # noqa: F401,F403
