"""tensorcore.vision.models: torchvision.models' classification and segmentation models, with the
same constructors, module trees and state-dict keys (docs/vision_models.md)."""
from ._weights import WeightsEnum, Weights, checkpoint_dir  # noqa: F401
from .resnet import *  # noqa: F401,F403
