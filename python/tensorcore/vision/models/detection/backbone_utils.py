"""Backbones for the detectors (torchvision.models.detection.backbone_utils): a ResNet's stages
under a feature pyramid, with the first stages frozen."""

import warnings

from tensorcore import nn

from ...ops import FrozenBatchNorm2d, FeaturePyramidNetwork, LastLevelMaxPool
from .. import resnet
from .._utils import IntermediateLayerGetter
from .._weights import resolve_weights, weights_state_dict, load_weights

__all__ = ["BackboneWithFPN", "resnet_fpn_backbone"]


class BackboneWithFPN(nn.Module):
    """`body` (the backbone's layers up to the last returned one, IntermediateLayerGetter) followed
    by `fpn` (FeaturePyramidNetwork); out_channels is the pyramid's channel count."""

    def __init__(
        self,
        backbone,
        return_layers,
        in_channels_list,
        out_channels,
        extra_blocks=None,
        norm_layer=None,
    ):
        super().__init__()
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(
            in_channels_list=in_channels_list,
            out_channels=out_channels,
            extra_blocks=extra_blocks,
            norm_layer=norm_layer,
        )
        self.out_channels = out_channels

    def forward(self, x):
        return self.fpn(self.body(x))


def _drop_frozen_bn_counters(model, state_dict):
    """A copy of state_dict without the `num_batches_tracked` entries of the model's
    FrozenBatchNorm2d layers: BatchNorm2d checkpoints carry them, frozen layers have no such
    buffer (torchvision's FrozenBatchNorm2d drops the key while loading; ours does not yet)."""
    frozen = {
        name + "." if name else ""
        for name, m in model.named_modules()
        if isinstance(m, FrozenBatchNorm2d)
    }
    if not frozen:
        return state_dict
    return {
        k: v
        for k, v in state_dict.items()
        if not (k.endswith("num_batches_tracked") and k[: -len("num_batches_tracked")] in frozen)
    }


def _load_backbone(model, state_dict):
    """Strict load that tolerates the batch counters frozen norm layers do not keep."""
    if state_dict is not None:
        load_weights(model, _drop_frozen_bn_counters(model, state_dict))
    return model


def _resnet_with_weights(backbone_name, weights, norm_layer, builder, pretrained=None):
    """resnet.<backbone_name>(norm_layer=...) with weights loaded; frozen norm layers accept
    BatchNorm checkpoints."""
    try:
        constructor = getattr(resnet, backbone_name)
        enum_cls = getattr(resnet, _WEIGHTS_ENUMS[backbone_name])
    except (AttributeError, KeyError):
        raise ValueError(
            f"{builder}: unknown backbone_name {backbone_name!r}; expected one of "
            f"{sorted(_WEIGHTS_ENUMS)}"
        ) from None
    # torchvision's legacy pretrained=True (0.8's second positional argument) means the first
    # ImageNet weights, not DEFAULT.
    if pretrained is True and weights is not None and weights is not False:
        raise ValueError(f"{builder}: pass either 'weights' or 'pretrained', not both")
    if weights is True or pretrained is True:
        weights, pretrained = enum_cls.IMAGENET1K_V1, None
    source = resolve_weights(enum_cls, weights, pretrained, builder=builder)
    state = weights_state_dict(source)
    return _load_backbone(constructor(norm_layer=norm_layer), state)


_WEIGHTS_ENUMS = {
    "resnet18": "ResNet18_Weights",
    "resnet34": "ResNet34_Weights",
    "resnet50": "ResNet50_Weights",
    "resnet101": "ResNet101_Weights",
    "resnet152": "ResNet152_Weights",
    "resnext50_32x4d": "ResNeXt50_32X4D_Weights",
    "resnext101_32x8d": "ResNeXt101_32X8D_Weights",
    "resnext101_64x4d": "ResNeXt101_64X4D_Weights",
    "wide_resnet50_2": "Wide_ResNet50_2_Weights",
    "wide_resnet101_2": "Wide_ResNet101_2_Weights",
}


def resnet_fpn_backbone(
    backbone_name=None,
    weights=None,
    norm_layer=FrozenBatchNorm2d,
    trainable_layers=3,
    returned_layers=None,
    extra_blocks=None,
    *,
    pretrained=None,
    out_channels=256,
):
    """A ResNet (resnet18 ... wide_resnet101_2) with an FPN over its stages `returned_layers`
    (default all four), stages before the last `trainable_layers` frozen. weights: None, a file
    path, a state dict or a weights enum member (pretrained=True: IMAGENET1K_V1, as torchvision).
    out_channels: the pyramid's width (torchvision's fixed 256; narrower ones cut the detection
    heads' work quadratically, for small CPU budgets)."""
    if backbone_name is None:
        raise TypeError("resnet_fpn_backbone() missing required argument: 'backbone_name'")
    backbone = _resnet_with_weights(
        backbone_name, weights, norm_layer, "resnet_fpn_backbone", pretrained
    )
    return _resnet_fpn_extractor(
        backbone, trainable_layers, returned_layers, extra_blocks, out_channels=out_channels
    )


def _resnet_fpn_extractor(
    backbone,
    trainable_layers,
    returned_layers=None,
    extra_blocks=None,
    norm_layer=None,
    out_channels=256,
):
    """Freezes all but the last trainable_layers of layer4, layer3, layer2, layer1, conv1 (5 also
    trains bn1) and wraps the ResNet with an FPN of out_channels channels."""
    if int(out_channels) < 1:
        raise ValueError(f"the FPN's out_channels must be at least 1, got {out_channels}")
    if not 0 <= trainable_layers <= 5:
        raise ValueError(f"Trainable layers should be in the range [0,5], got {trainable_layers}")
    trained = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        trained.append("bn1")
    for name, parameter in backbone.named_parameters():
        if not any(name.startswith(prefix) for prefix in trained):
            parameter.requires_grad_(False)
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [1, 2, 3, 4]
    if not returned_layers or min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise ValueError(f"Each returned layer should be in the range [1,4]. Got {returned_layers}")
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    # layer1 has inplanes/8 output channels (256 for ResNet-50); each later stage doubles them.
    stage2_channels = backbone.inplanes // 8
    in_channels_list = [stage2_channels * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(
        backbone,
        return_layers,
        in_channels_list,
        int(out_channels),
        extra_blocks=extra_blocks,
        norm_layer=norm_layer,
    )


def _validate_trainable_layers(is_trained, trainable_backbone_layers, max_value, default_value):
    """Without pretrained weights every layer trains (a value given anyway is overridden, with a
    warning, as torchvision does); otherwise the default is default_value."""
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn(
                "Changing trainable_backbone_layers has not effect if neither pretrained nor "
                "pretrained_backbone have been set to True, falling back to "
                f"trainable_backbone_layers={max_value} so that all layers are trainable"
            )
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if not 0 <= trainable_backbone_layers <= max_value:
        raise ValueError(
            f"Trainable backbone layers should be in the range [0,{max_value}], "
            f"got {trainable_backbone_layers} "
        )
    return trainable_backbone_layers
