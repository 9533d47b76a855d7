"""FCN with a dilated ResNet-50/101 backbone (torchvision.models.segmentation.fcn)."""

import tensorcore.nn as nn

from .._weights import make_weights_enum
from ..resnet import ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, resnet_builder

__all__ = [
    "FCN",
    "FCNHead",
    "FCN_ResNet50_Weights",
    "FCN_ResNet101_Weights",
    "fcn_resnet50",
    "fcn_resnet101",
]


class FCN(_SimpleSegmentationModel):
    """Fully Convolutional Network (Long et al. 2015): backbone features {"out", "aux"}, a head
    on each, logits upsampled to the input size."""


class FCNHead(nn.Sequential):
    def __init__(self, in_channels, channels):
        inter_channels = in_channels // 4
        super().__init__(
            nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Conv2d(inter_channels, channels, 1),
        )


_URL = "https://download.pytorch.org/models/"
FCN_ResNet50_Weights = make_weights_enum(
    "FCN_ResNet50_Weights",
    {"COCO_WITH_VOC_LABELS_V1": (_URL + "fcn_resnet50_coco-1167a1af.pth", 21)},
    "COCO_WITH_VOC_LABELS_V1",
)
FCN_ResNet101_Weights = make_weights_enum(
    "FCN_ResNet101_Weights",
    {"COCO_WITH_VOC_LABELS_V1": (_URL + "fcn_resnet101_coco-7ecb50ca.pth", 21)},
    "COCO_WITH_VOC_LABELS_V1",
)


fcn_resnet50 = resnet_builder(
    "fcn_resnet50", FCN, FCNHead, resnet50, FCN_ResNet50_Weights, ResNet50_Weights
)
fcn_resnet101 = resnet_builder(
    "fcn_resnet101", FCN, FCNHead, resnet101, FCN_ResNet101_Weights, ResNet101_Weights
)
