"""FCN with a dilated ResNet-50/101 backbone (torchvision.models.segmentation.fcn)."""

import tensorcore.nn as nn

from .._api import register_model
from .._utils import IntermediateLayerGetter
from .._weights import load_weights, make_weights_enum
from ..resnet import ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, segmentation_weights

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


def _fcn_resnet(backbone, num_classes, aux):
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
    aux_classifier = FCNHead(1024, num_classes) if aux else None
    return FCN(backbone, FCNHead(2048, num_classes), aux_classifier)


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
    # Output stride 8: layer3 and layer4 dilate instead of striding.
    backbone = resnet_fn(weights=backbone_state, replace_stride_with_dilation=[False, True, True])
    return load_weights(_fcn_resnet(backbone, num_classes, aux_loss), state)


# weights / weights_backbone (and the legacy pretrained / pretrained_backbone) as in _weights.py;
# weights_backbone defaults to None here (torchvision 0.14: ImageNet weights, which need a download).


@register_model(FCN_ResNet50_Weights)
def fcn_resnet50(
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
        FCN_ResNet50_Weights,
        ResNet50_Weights,
        weights,
        progress,
        num_classes,
        aux_loss,
        weights_backbone,
        pretrained,
        pretrained_backbone,
        kwargs,
        "fcn_resnet50",
    )


@register_model(FCN_ResNet101_Weights)
def fcn_resnet101(
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
        FCN_ResNet101_Weights,
        ResNet101_Weights,
        weights,
        progress,
        num_classes,
        aux_loss,
        weights_backbone,
        pretrained,
        pretrained_backbone,
        kwargs,
        "fcn_resnet101",
    )
