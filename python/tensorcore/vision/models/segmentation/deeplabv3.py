"""DeepLabV3 with a dilated ResNet-50/101 backbone (torchvision.models.segmentation.deeplabv3):
atrous spatial pyramid pooling head, optional FCN auxiliary head."""

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore.nn._native import _interpolate_like

from ..resnet import ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, resnet_builder, voc_weights_enum

__all__ = [
    "DeepLabV3",
    "DeepLabHead",
    "ASPP",
    "ASPPConv",
    "ASPPPooling",
    "DeepLabV3_ResNet50_Weights",
    "DeepLabV3_ResNet101_Weights",
    "deeplabv3_resnet50",
    "deeplabv3_resnet101",
]


class DeepLabV3(_SimpleSegmentationModel):
    """DeepLabV3 (Chen et al. 2017): backbone features {"out", "aux"}, the ASPP head on "out",
    logits upsampled to the input size."""


class DeepLabHead(nn.Sequential):
    def __init__(self, in_channels, num_classes):
        super().__init__(
            ASPP(in_channels, [12, 24, 36]),
            nn.Conv2d(256, 256, 3, padding=1, bias=False),
            nn.BatchNorm2d(256),
            nn.ReLU(),
            nn.Conv2d(256, num_classes, 1),
        )


class ASPPConv(nn.Sequential):
    def __init__(self, in_channels, out_channels, dilation):
        super().__init__(
            nn.Conv2d(
                in_channels, out_channels, 3, padding=dilation, dilation=dilation, bias=False
            ),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )


class ASPPPooling(nn.Sequential):
    """Image-level features: global average, 1x1 conv, then broadcast back over the map."""

    def __init__(self, in_channels, out_channels):
        super().__init__(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def forward(self, x):
        ref = x
        for module in self:
            x = module(x)
        # Bilinear from 1x1 is a broadcast; kept as interpolate so the op sequence matches torchvision.
        return _interpolate_like(x, ref, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    """Parallel 1x1, dilated 3x3 (one per rate) and image-pooling branches, concatenated and projected."""

    def __init__(self, in_channels, atrous_rates, out_channels=256):
        super().__init__()
        branches = [
            nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, bias=False),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(),
            )
        ]
        branches += [ASPPConv(in_channels, out_channels, rate) for rate in tuple(atrous_rates)]
        branches.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(branches)
        self.project = nn.Sequential(
            nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Dropout(0.5),
        )

    def forward(self, x):
        return self.project(tc.cat([conv(x) for conv in self.convs], dim=1))


DeepLabV3_ResNet50_Weights = voc_weights_enum(
    "DeepLabV3_ResNet50_Weights", "deeplabv3_resnet50_coco-cd0a2569.pth"
)
DeepLabV3_ResNet101_Weights = voc_weights_enum(
    "DeepLabV3_ResNet101_Weights", "deeplabv3_resnet101_coco-586e9e4e.pth"
)


deeplabv3_resnet50 = resnet_builder(
    "deeplabv3_resnet50",
    DeepLabV3,
    DeepLabHead,
    resnet50,
    DeepLabV3_ResNet50_Weights,
    ResNet50_Weights,
)
deeplabv3_resnet101 = resnet_builder(
    "deeplabv3_resnet101",
    DeepLabV3,
    DeepLabHead,
    resnet101,
    DeepLabV3_ResNet101_Weights,
    ResNet101_Weights,
)
