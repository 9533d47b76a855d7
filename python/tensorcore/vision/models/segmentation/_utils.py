"""The shared segmentation model (backbone features -> head -> upsampling to the input size) and
the weights handling of the segmentation builders."""

from collections import OrderedDict

import tensorcore.nn as nn
from tensorcore.nn._native import _interpolate_like

from .._api import register_model
from .._utils import IntermediateLayerGetter, check_image_batch
from .._weights import (
    WeightsEnum,
    load_weights,
    make_weights_enum,
    overwrite_value_param,
    resolve_weights,
    weights_state_dict,
)


class _SimpleSegmentationModel(nn.Module):
    def __init__(self, backbone, classifier, aux_classifier=None):
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def _in_channels(self):
        first = (
            next(iter(self.backbone.values()), None) if hasattr(self.backbone, "values") else None
        )
        return getattr(first, "in_channels", None)

    def forward(self, x):
        check_image_batch(x, self._in_channels(), type(self).__name__)
        features = self.backbone(x)
        result = OrderedDict()
        # Heads predict at the backbone's stride (8 with dilation); bilinear upsampling brings the
        # logits back to the input size.
        out = self.classifier(features["out"])
        result["out"] = _interpolate_like(out, x, mode="bilinear", align_corners=False)
        if self.aux_classifier is not None:
            aux = self.aux_classifier(features["aux"])
            result["aux"] = _interpolate_like(aux, x, mode="bilinear", align_corners=False)
        return result


_VOC_CLASSES = 21
# Both heads end in a 1x1 convolution at index 4 whose rows are the classes.
_CLASSIFIER_KEY = "classifier.4.weight"


def voc_weights_enum(name, filename):
    """The weights enum of a model torchvision publishes trained on COCO's 20 VOC categories."""
    entry = ("https://download.pytorch.org/models/" + filename, _VOC_CLASSES)
    return make_weights_enum(name, {"COCO_WITH_VOC_LABELS_V1": entry}, "COCO_WITH_VOC_LABELS_V1")


def segmentation_weights(builder, progress, model, backbone, num_classes, aux_loss, extra_kwargs):
    """Resolves the model and backbone weights the way torchvision's segmentation builders do;
    model and backbone are each (weights enum class, weights, pretrained).

    Returns (state_dict or None, backbone state_dict or None, num_classes, aux_loss). Named weights
    fix num_classes (21 VOC classes) and aux_loss (True); a local checkpoint, for which torchvision
    has no rule, supplies them from its own keys when they are not given. Full-model weights
    include the backbone, so weights_backbone is then ignored, as in torchvision.
    """
    if extra_kwargs:
        raise TypeError(
            f"{builder}() got unexpected keyword argument(s) {', '.join(map(repr, extra_kwargs))}"
        )
    source = resolve_weights(*model, builder=builder)
    backbone_source = resolve_weights(
        *backbone,
        builder=builder,
        weights_param="weights_backbone",
        pretrained_param="pretrained_backbone",
    )
    if isinstance(source, WeightsEnum):  # checked before the file is looked for, as torchvision
        num_classes = overwrite_value_param("num_classes", num_classes, source.num_classes)
        aux_loss = overwrite_value_param("aux_loss", aux_loss, True)
    state = weights_state_dict(source, progress)
    if source is not None:
        backbone_source = None
        if not isinstance(source, WeightsEnum):
            if aux_loss is None:
                aux_loss = any(str(k).startswith("aux_classifier.") for k in state)
            if num_classes is None and _CLASSIFIER_KEY in state:
                num_classes = int(state[_CLASSIFIER_KEY].shape[0])
    if num_classes is None:
        num_classes = _VOC_CLASSES
    return state, weights_state_dict(backbone_source, progress), num_classes, aux_loss


def resnet_builder(name, model_cls, head_cls, resnet_fn, weights_enum, backbone_enum):
    """A registered torchvision segmentation builder (fcn_resnet50, deeplabv3_resnet101, ...):
    a dilated ResNet (output stride 8: layer3 and layer4 dilate instead of striding) whose
    layer4 feeds head_cls and, with aux_loss, layer3 an FCNHead. weights / weights_backbone (and
    the legacy pretrained / pretrained_backbone) as in _weights.py; weights_backbone defaults to
    None here (torchvision 0.14: ImageNet weights, which need a download)."""

    def builder(
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
        from .fcn import FCNHead  # fcn.py builds its models with this function

        state, backbone_state, num_classes, aux_loss = segmentation_weights(
            name,
            progress,
            (weights_enum, weights, pretrained),
            (backbone_enum, weights_backbone, pretrained_backbone),
            num_classes,
            aux_loss,
            kwargs,
        )
        resnet = resnet_fn(weights=backbone_state, replace_stride_with_dilation=[False, True, True])
        return_layers = {"layer4": "out", "layer3": "aux"} if aux_loss else {"layer4": "out"}
        model = model_cls(
            IntermediateLayerGetter(resnet, return_layers=return_layers),
            head_cls(2048, num_classes),
            FCNHead(1024, num_classes) if aux_loss else None,
        )
        return load_weights(model, state)

    builder.__name__ = builder.__qualname__ = name
    builder.__module__ = model_cls.__module__
    return register_model(weights_enum)(builder)
