"""FCN with a dilated ResNet-50/101 backbone (torchvision.models.segmentation.fcn)."""

import tensorcore.nn as nn

from ..resnet import ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, resnet_builder, voc_weights_enum

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


FCN_ResNet50_Weights = voc_weights_enum("FCN_ResNet50_Weights", "fcn_resnet50_coco-1167a1af.pth")
FCN_ResNet101_Weights = voc_weights_enum("FCN_ResNet101_Weights", "fcn_resnet101_coco-7ecb50ca.pth")


fcn_resnet50 = resnet_builder(
    "fcn_resnet50", FCN, FCNHead, resnet50, FCN_ResNet50_Weights, ResNet50_Weights
)
fcn_resnet101 = resnet_builder(
    "fcn_resnet101", FCN, FCNHead, resnet101, FCN_ResNet101_Weights, ResNet101_Weights
)
