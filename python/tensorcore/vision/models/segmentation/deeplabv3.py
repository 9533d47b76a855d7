"""DeepLabV3 with a dilated ResNet-50/101 backbone (torchvision.models.segmentation.deeplabv3):
atrous spatial pyramid pooling head, optional FCN auxiliary head."""

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F

from .._api import register_model
from .._utils import IntermediateLayerGetter
from .._weights import load_weights, make_weights_enum
from ..resnet import ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, segmentation_weights
from .fcn import FCNHead

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
        size = x.shape[-2:]  # a Size (as torchvision), so tensorcore.fx can trace it
        for module in self:
            x = module(x)
        # Bilinear from 1x1 is a broadcast; kept as interpolate so the op sequence matches torchvision.
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


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


_URL = "https://download.pytorch.org/models/"
DeepLabV3_ResNet50_Weights = make_weights_enum(
    "DeepLabV3_ResNet50_Weights",
    {"COCO_WITH_VOC_LABELS_V1": (_URL + "deeplabv3_resnet50_coco-cd0a2569.pth", 21)},
    "COCO_WITH_VOC_LABELS_V1",
)
DeepLabV3_ResNet101_Weights = make_weights_enum(
    "DeepLabV3_ResNet101_Weights",
    {"COCO_WITH_VOC_LABELS_V1": (_URL + "deeplabv3_resnet101_coco-586e9e4e.pth", 21)},
    "COCO_WITH_VOC_LABELS_V1",
)


def _deeplabv3_resnet(backbone, num_classes, aux):
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
    aux_classifier = FCNHead(1024, num_classes) if aux else None
    return DeepLabV3(backbone, DeepLabHead(2048, num_classes), aux_classifier)


def _build(
    resnet_fn,
    enum_cls,
    backbone_enum,
    weights,
    progress,
    num_classes,
    aux_loss,
    weights_backbone,
    pretrained,
    pretrained_backbone,
    kwargs,
    builder,
):
    state, backbone_state, num_classes, aux_loss = segmentation_weights(
        enum_cls,
        backbone_enum,
        weights,
        pretrained,
        weights_backbone,
        pretrained_backbone,
        num_classes,
        aux_loss,
        progress,
        builder,
        kwargs,
    )
    backbone = resnet_fn(weights=backbone_state, replace_stride_with_dilation=[False, True, True])
    return load_weights(_deeplabv3_resnet(backbone, num_classes, aux_loss), state)


# weights / weights_backbone (and the legacy pretrained / pretrained_backbone) as in _weights.py;
# weights_backbone defaults to None here (torchvision 0.14: ImageNet weights, which need a download).


@register_model(DeepLabV3_ResNet50_Weights)
def deeplabv3_resnet50(
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=None,
    *,
    pretrained=None,
    pretrained_backbone=None,
    **kwargs,
):
    return _build(
        resnet50,
        DeepLabV3_ResNet50_Weights,
        ResNet50_Weights,
        weights,
        progress,
        num_classes,
        aux_loss,
        weights_backbone,
        pretrained,
        pretrained_backbone,
        kwargs,
        "deeplabv3_resnet50",
    )


@register_model(DeepLabV3_ResNet101_Weights)
def deeplabv3_resnet101(
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=None,
    *,
    pretrained=None,
    pretrained_backbone=None,
    **kwargs,
):
    return _build(
        resnet101,
        DeepLabV3_ResNet101_Weights,
        ResNet101_Weights,
        weights,
        progress,
        num_classes,
        aux_loss,
        weights_backbone,
        pretrained,
        pretrained_backbone,
        kwargs,
        "deeplabv3_resnet101",
    )
