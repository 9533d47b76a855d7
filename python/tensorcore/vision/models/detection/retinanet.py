"""RetinaNet (Lin et al. 2017, torchvision.models.detection.retinanet): a feature pyramid, dense
classification and box regression heads over anchors, the focal loss, and post-processing.

Module tree and state-dict keys are torchvision 0.14's, so its checkpoints load strictly."""

import math
import os
from collections import OrderedDict
from functools import partial

import tensorcore as tc
from tensorcore import fx
from tensorcore import nn

from ...ops import FrozenBatchNorm2d, LastLevelP6P7, box_iou
from .._utils import Conv2dNormActivation
from .._weights import (
    WeightsEnum,
    make_weights_enum,
    overwrite_value_param,
    resolve_weights,
    weights_state_dict,
)
from . import _utils as det_utils
from ._utils import _box_loss, overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import (
    _load_backbone,
    _resnet_fpn_extractor,
    _resnet_with_weights,
    _validate_trainable_layers,
)
from .postprocess import as_dicts, check_targets, decode_options, postprocess_detections
from .transform import GeneralizedRCNNTransform

__all__ = [
    "RetinaNet",
    "RetinaNetHead",
    "RetinaNetClassificationHead",
    "RetinaNetRegressionHead",
    "RetinaNet_ResNet50_FPN_Weights",
    "RetinaNet_ResNet50_FPN_V2_Weights",
    "retinanet_resnet50_fpn",
    "retinanet_resnet50_fpn_v2",
]


def _v1_to_v2_weights(state_dict, prefix):
    """Renames checkpoints from before the heads' convolutions became Conv2dNormActivation
    blocks (conv.{2i} -> conv.{i}.0), as torchvision does for version-1 head state."""
    for i in range(4):
        for kind in ("weight", "bias"):
            old_key, new_key = f"{prefix}conv.{2 * i}.{kind}", f"{prefix}conv.{i}.0.{kind}"
            if old_key in state_dict:
                state_dict[new_key] = state_dict.pop(old_key)


_DEFAULT_ANCHOR_SIZES = (32, 64, 128, 256, 512)


def _default_anchorgen(base_sizes=_DEFAULT_ANCHOR_SIZES):
    # Three scales per octave (2^0, 2^(1/3), 2^(2/3)) and three aspect ratios on each of P3-P7;
    # other base sizes (the retinanet pipeline's --anchor-sizes) keep that pattern.
    anchor_sizes = tuple((x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3))) for x in base_sizes)
    return AnchorGenerator(anchor_sizes, ((0.5, 1.0, 2.0),) * len(anchor_sizes))


def _v2_head(in_channels, num_anchors, num_classes):
    """retinanet_resnet50_fpn_v2's head: GroupNorm (32 groups) after each tower convolution and
    the GIoU box loss."""
    head = RetinaNetHead(
        in_channels, num_anchors, num_classes, norm_layer=partial(nn.GroupNorm, 32)
    )
    head.regression_head._loss_type = "giou"
    return head


def _conv_tower(in_channels, norm_layer):
    return nn.Sequential(
        *[Conv2dNormActivation(in_channels, in_channels, norm_layer=norm_layer) for _ in range(4)]
    )


def _to_anchor_rows(x, columns):
    """(N, A * columns, H, W) -> (N, H * W * A, columns): one row per anchor in (y, x, anchor) order."""
    # Channels are (anchor, column) anchor-major, so moving them last and splitting rows by
    # `columns` gives the order without the map's height and width: a trace keeps no sizes here
    # and the graph follows the image size.
    return x.permute(0, 2, 3, 1).reshape(x.shape[0], -1, columns)


def _sum(values):
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


class _VersionedHead(nn.Module):
    _version = 2

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class RetinaNetClassificationHead(_VersionedHead):
    """Four 3x3 conv + ReLU layers and a 3x3 conv to num_anchors * num_classes logits per location;
    the logits' bias starts at -log((1 - p) / p) so every anchor begins with probability p."""

    def __init__(
        self, in_channels, num_anchors, num_classes, prior_probability=0.01, norm_layer=None
    ):
        super().__init__()
        self.conv = _conv_tower(in_channels, norm_layer)
        for layer in self.conv.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.constant_(layer.bias, 0)
        self.cls_logits = nn.Conv2d(
            in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1
        )
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(
            self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability)
        )
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.BETWEEN_THRESHOLDS = det_utils.Matcher.BETWEEN_THRESHOLDS

    def compute_loss(self, targets, head_outputs, matched_idxs):
        """Focal loss summed over non-ignored anchors, divided by the foreground count, averaged
        over images."""
        losses = []
        cls_logits = head_outputs["cls_logits"]
        for target, logits, matched in zip(targets, cls_logits, matched_idxs):
            foreground = tc.where(matched >= 0)[0]
            classes = target["labels"][matched[foreground]]
            # Anchors between the IoU thresholds are ignored: weight 0.
            valid = (matched != self.BETWEEN_THRESHOLDS).to(logits.dtype)
            loss = det_utils._one_hot_focal_loss_sum(logits, valid, foreground, classes)
            losses.append(loss / max(1, foreground.numel()))
        return _sum(losses) / len(targets)

    def forward(self, x):
        return tc.cat(
            [_to_anchor_rows(self.cls_logits(self.conv(f)), self.num_classes) for f in x], dim=1
        )


class RetinaNetRegressionHead(_VersionedHead):
    """Four 3x3 conv + ReLU layers and a 3x3 conv to num_anchors * 4 box offsets per location."""

    def __init__(self, in_channels, num_anchors, norm_layer=None):
        super().__init__()
        self.conv = _conv_tower(in_channels, norm_layer)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.bbox_reg.weight, std=0.01)
        nn.init.zeros_(self.bbox_reg.bias)
        for layer in self.conv.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self._loss_type = "l1"

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        """Box loss (L1 on encoded offsets by default) of the foreground anchors, divided by their
        count, averaged over images."""
        losses = []
        bbox_regression = head_outputs["bbox_regression"]
        for target, regression, anchors_per_image, matched in zip(
            targets, bbox_regression, anchors, matched_idxs
        ):
            foreground = tc.where(matched >= 0)[0]
            num_foreground = foreground.numel()
            matched_gt_boxes = target["boxes"][matched[foreground]]
            loss = _box_loss(
                self._loss_type,
                self.box_coder,
                anchors_per_image[foreground, :],
                matched_gt_boxes,
                regression[foreground, :],
            )
            losses.append(loss / max(1, num_foreground))
        return _sum(losses) / max(1, len(targets))

    def forward(self, x):
        return tc.cat([_to_anchor_rows(self.bbox_reg(self.conv(f)), 4) for f in x], dim=1)


class RetinaNetHead(nn.Module):
    """The classification and regression heads, run on every pyramid level."""

    def __init__(self, in_channels, num_anchors, num_classes, norm_layer=None):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(
            in_channels, num_anchors, num_classes, norm_layer=norm_layer
        )
        self.regression_head = RetinaNetRegressionHead(
            in_channels, num_anchors, norm_layer=norm_layer
        )

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        return {
            "classification": self.classification_head.compute_loss(
                targets, head_outputs, matched_idxs
            ),
            "bbox_regression": self.regression_head.compute_loss(
                targets, head_outputs, anchors, matched_idxs
            ),
        }

    def forward(self, x):
        return {
            "cls_logits": self.classification_head(x),
            "bbox_regression": self.regression_head(x),
        }


# RetinaNet's data-dependent stages as module-level functions that tensorcore.fx records as single
# calls (fx.wrap, as torchvision wraps its detection helpers): per-image checks, resizing and
# batching; anchors for the batch's image sizes; score thresholds, top-k, NMS and rescaling. The
# dense part between them (backbone, FPN, heads) traces node by node.
def _prepare_detector_inputs(transform, images, targets):
    """Checks the images (and targets), resizes and batches them: (ImageList, targets, the input
    images as a list)."""
    if isinstance(images, tc.Tensor) and images.dim() != 4:
        raise ValueError(
            f"images should be a list of (C, H, W) tensors or an (N, C, H, W) tensor, got a tensor "
            f"of shape {list(images.shape)}"
        )
    images = list(images)
    for i, img in enumerate(images):
        if not isinstance(img, tc.Tensor) or img.dim() < 2:
            raise ValueError(
                f"images[{i}]: expected a (C, H, W) tensor, got "
                f"{list(img.shape) if isinstance(img, tc.Tensor) else type(img).__name__}"
            )

    original_images = images
    images, targets = transform(images, targets)
    if targets is not None:
        for target_idx, target in enumerate(targets):
            boxes = target["boxes"]
            degenerate = (boxes[:, 2:] <= boxes[:, :2]).any(dim=1)
            if degenerate.any():
                bad = tc.where(degenerate)[0][0]
                raise ValueError(
                    "All bounding boxes should have positive height and width. Found invalid box "
                    f"{boxes[bad].tolist()} for target at index {target_idx}."
                )
    return images, targets, original_images


def _generate_anchors(anchor_generator, images, features):
    return anchor_generator(images, features)


def _detections(box_coder, thresholds, images, features, head_outputs, anchors, original_images):
    """Per-image detections in the input images' coordinates from the batched head outputs."""
    # Split by pyramid level, post-process and map the boxes back to the input images in one
    # native op (models/vision/detection.cpp); the sizes stay tensors, so a traced graph
    # handles any image size and number of detections.
    image_sizes = images.image_sizes
    if not isinstance(image_sizes, tc.Tensor):
        image_sizes = tc.tensor([list(s) for s in image_sizes], dtype=tc.int64).reshape(-1, 2)
    shared = all(a is anchors[0] for a in anchors)
    detections = tc._C._models_vision.retinanet_postprocess(
        head_outputs["cls_logits"],
        head_outputs["bbox_regression"],
        anchors[0] if shared else tc.stack(anchors),
        features,
        image_sizes,
        tc._C._models_vision.image_sizes(original_images),
        *decode_options(box_coder, *thresholds),
    )
    return as_dicts(detections)


fx.wrap("_prepare_detector_inputs")
fx.wrap("_generate_anchors")
fx.wrap("_detections")


class RetinaNet(nn.Module):
    """RetinaNet over any backbone that returns a feature map or an ordered dict of them and has
    an `out_channels` attribute.

    forward(images, targets=None): images is a list of (C, H, W) float images in [0, 1], of any
    sizes. Training mode needs targets (per image {"boxes": (N, 4) xyxy, "labels": (N,) int64},
    N may be 0) and returns {"classification", "bbox_regression"} losses; evaluation mode returns
    per image {"boxes", "scores", "labels"} in the original image's coordinates."""

    def __init__(
        self,
        backbone,
        num_classes,
        min_size=800,
        max_size=1333,
        image_mean=None,
        image_std=None,
        anchor_generator=None,
        head=None,
        proposal_matcher=None,
        score_thresh=0.05,
        nms_thresh=0.5,
        detections_per_img=300,
        fg_iou_thresh=0.5,
        bg_iou_thresh=0.4,
        topk_candidates=1000,
        **kwargs,
    ):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError(
                "backbone should contain an attribute out_channels specifying the number of output "
                "channels (assumed to be the same for all the levels)"
            )
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(
                f"anchor_generator should be of type AnchorGenerator or None instead of "
                f"{type(anchor_generator)}"
            )
        if anchor_generator is None:
            anchor_generator = _default_anchorgen()
        self.anchor_generator = anchor_generator
        if head is None:
            head = RetinaNetHead(
                backbone.out_channels, anchor_generator.num_anchors_per_location()[0], num_classes
            )
        self.head = head
        if proposal_matcher is None:
            proposal_matcher = det_utils.Matcher(
                fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True
            )
        self.proposal_matcher = proposal_matcher
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(
            min_size, max_size, image_mean, image_std, **kwargs
        )
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates

    def compute_loss(self, targets, head_outputs, anchors):
        matched_idxs = []
        for anchors_per_image, target in zip(anchors, targets):
            if target["boxes"].numel() == 0:
                matched_idxs.append(
                    tc.full(
                        (anchors_per_image.shape[0],),
                        -1,
                        dtype=tc.int64,
                        device=anchors_per_image.device,
                    )
                )
                continue
            matched_idxs.append(self.proposal_matcher(box_iou(target["boxes"], anchors_per_image)))
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Detections per image from per-level head outputs ({"cls_logits": [(N, HWA_l, K)],
        "bbox_regression": [(N, HWA_l, 4)]}) and per-image per-level anchors: score threshold,
        top-k per level, box decoding and clipping, class-wise NMS, detections_per_img best."""
        return postprocess_detections(
            head_outputs["cls_logits"],
            head_outputs["bbox_regression"],
            anchors,
            image_shapes,
            self.box_coder,
            score_thresh=self.score_thresh,
            nms_thresh=self.nms_thresh,
            topk_candidates=self.topk_candidates,
            detections_per_img=self.detections_per_img,
        )

    def forward(self, images, targets=None):
        if self.training:
            if targets is None:
                raise ValueError("targets should not be none when in training mode")
            num_classes = getattr(
                getattr(self.head, "classification_head", None), "num_classes", None
            )
            check_targets(targets, num_classes)
        images, targets, original_images = _prepare_detector_inputs(self.transform, images, targets)
        features = self.backbone(images.tensors)
        if isinstance(features, tc.Tensor):
            features = OrderedDict([("0", features)])
        features = list(features.values())
        head_outputs = self.head(features)
        anchors = _generate_anchors(self.anchor_generator, images, features)

        if self.training:
            return self.compute_loss(targets, head_outputs, anchors)

        return _detections(
            self.box_coder,
            (self.score_thresh, self.nms_thresh, self.topk_candidates, self.detections_per_img),
            images,
            features,
            head_outputs,
            anchors,
            original_images,
        )


_COCO_V1_URL = "https://download.pytorch.org/models/retinanet_resnet50_fpn_coco-eeacb38b.pth"
_COCO_V2_URL = "https://download.pytorch.org/models/retinanet_resnet50_fpn_v2_coco-5905b1c5.pth"
_COCO_CLASSES = 91  # COCO's 80 categories in its 1-90 id space plus background 0
RetinaNet_ResNet50_FPN_Weights = make_weights_enum(
    "RetinaNet_ResNet50_FPN_Weights", {"COCO_V1": (_COCO_V1_URL, _COCO_CLASSES)}, "COCO_V1"
)
RetinaNet_ResNet50_FPN_V2_Weights = make_weights_enum(
    "RetinaNet_ResNet50_FPN_V2_Weights", {"COCO_V1": (_COCO_V2_URL, _COCO_CLASSES)}, "COCO_V1"
)


def _resolve_detector_weights(enum_cls, weights, pretrained, num_classes, builder):
    """(state dict or None, num_classes, whether it is torchvision's COCO_V1 file)."""
    source = resolve_weights(enum_cls, weights, pretrained, builder=builder)
    if source is None:
        return None, (91 if num_classes is None else num_classes), False
    is_coco_v1 = source is enum_cls.COCO_V1 or (
        isinstance(source, str) and os.path.basename(source) == enum_cls.COCO_V1.filename
    )
    if isinstance(source, WeightsEnum):
        num_classes = overwrite_value_param("num_classes", num_classes, source.num_classes)
    state = weights_state_dict(source)
    if num_classes is None:
        # A checkpoint file: its classification layer tells the class count (9 anchors per location).
        bias = state.get("head.classification_head.cls_logits.bias")
        num_classes = 91 if bias is None else bias.shape[0] // 9
    return state, num_classes, is_coco_v1


def _resolve_backbone_weights(weights_backbone, pretrained_backbone, builder):
    """ResNet-50 backbone weights; pretrained_backbone=True means IMAGENET1K_V1, as torchvision."""
    from ..resnet import ResNet50_Weights

    if pretrained_backbone is True and weights_backbone not in (None, False):
        raise ValueError(
            f"{builder}: pass either 'weights_backbone' or 'pretrained_backbone', not both"
        )
    if pretrained_backbone is True or weights_backbone is True:
        weights_backbone, pretrained_backbone = ResNet50_Weights.IMAGENET1K_V1, None
    return resolve_weights(
        ResNet50_Weights,
        weights_backbone,
        pretrained_backbone,
        builder=builder,
        weights_param="weights_backbone",
        pretrained_param="pretrained_backbone",
    )


def _retinanet_resnet50(
    builder,
    enum_cls,
    weights,
    progress,
    num_classes,
    weights_backbone,
    trainable_backbone_layers,
    pretrained,
    pretrained_backbone,
    kwargs,
    v2,
):
    state, num_classes, is_coco_v1 = _resolve_detector_weights(
        enum_cls, weights, pretrained, num_classes, builder
    )
    backbone_source = (
        None
        if state is not None
        else _resolve_backbone_weights(weights_backbone, pretrained_backbone, builder)
    )
    is_trained = state is not None or backbone_source is not None
    trainable_backbone_layers = _validate_trainable_layers(
        is_trained, trainable_backbone_layers, 5, 3
    )
    # v1 freezes the backbone's batch norm whenever weights are loaded; v2 keeps BatchNorm2d.
    norm_layer = FrozenBatchNorm2d if is_trained and not v2 else nn.BatchNorm2d
    backbone = _resnet_with_weights("resnet50", backbone_source, norm_layer, builder)
    extra = LastLevelP6P7(2048, 256) if v2 else LastLevelP6P7(256, 256)
    backbone = _resnet_fpn_extractor(
        backbone, trainable_backbone_layers, returned_layers=[2, 3, 4], extra_blocks=extra
    )
    if v2:
        anchor_generator = _default_anchorgen()
        head = _v2_head(
            backbone.out_channels, anchor_generator.num_anchors_per_location()[0], num_classes
        )
        model = RetinaNet(
            backbone, num_classes, anchor_generator=anchor_generator, head=head, **kwargs
        )
    else:
        model = RetinaNet(backbone, num_classes, **kwargs)
    if state is not None:
        _load_backbone(model, state)
        if is_coco_v1 and not v2:
            overwrite_eps(model, 0.0)  # trained before torchvision's frozen-norm eps fix
    return model


def retinanet_resnet50_fpn(
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=None,
    trainable_backbone_layers=None,
    *,
    pretrained=None,
    pretrained_backbone=None,
    **kwargs,
):
    """RetinaNet with a ResNet-50-FPN backbone (P3-P7).

    weights / pretrained: the whole detector's weights (a file path, a state dict,
    RetinaNet_ResNet50_FPN_Weights.COCO_V1 or True; nothing is downloaded). weights_backbone /
    pretrained_backbone: ResNet-50 weights for the backbone. With either, the backbone's batch
    norm is frozen and only the last trainable_backbone_layers (default 3) of its 5 stages train.
    kwargs go to RetinaNet (min_size, max_size, score_thresh, nms_thresh, detections_per_img, ...)."""
    return _retinanet_resnet50(
        "retinanet_resnet50_fpn",
        RetinaNet_ResNet50_FPN_Weights,
        weights,
        progress,
        num_classes,
        weights_backbone,
        trainable_backbone_layers,
        pretrained,
        pretrained_backbone,
        kwargs,
        v2=False,
    )


def retinanet_resnet50_fpn_v2(
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=None,
    trainable_backbone_layers=None,
    *,
    pretrained=None,
    pretrained_backbone=None,
    **kwargs,
):
    """The improved RetinaNet of torchvision 0.13 (Zhang et al. 2020's recipe): GroupNorm in the
    heads, P6 from C5, GIoU box loss. Arguments as retinanet_resnet50_fpn."""
    return _retinanet_resnet50(
        "retinanet_resnet50_fpn_v2",
        RetinaNet_ResNet50_FPN_V2_Weights,
        weights,
        progress,
        num_classes,
        weights_backbone,
        trainable_backbone_layers,
        pretrained,
        pretrained_backbone,
        kwargs,
        v2=True,
    )
