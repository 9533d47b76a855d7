"""tensorcore.vision.ops: torchvision.ops names and semantics."""

from .boxes import (  # noqa: F401
    nms,
    batched_nms,
    remove_small_boxes,
    clip_boxes_to_image,
    box_convert,
    box_area,
    box_iou,
    generalized_box_iou,
    distance_box_iou,
    complete_box_iou,
    masks_to_boxes,
)
from .giou_loss import (  # noqa: F401
    generalized_box_iou_loss,
    distance_box_iou_loss,
    complete_box_iou_loss,
)
from .drop import (  # noqa: F401
    stochastic_depth,
    StochasticDepth,
    drop_block2d,
    drop_block3d,
    DropBlock2d,
    DropBlock3d,
)
from .roi import (  # noqa: F401
    roi_align,
    roi_pool,
    ps_roi_align,
    ps_roi_pool,
    RoIAlign,
    RoIPool,
    PSRoIAlign,
    PSRoIPool,
    deform_conv2d,
    DeformConv2d,
    MultiScaleRoIAlign,
)
from .misc import (  # noqa: F401
    sigmoid_focal_loss,
    FrozenBatchNorm2d,
    Conv2dNormActivation,
    Conv3dNormActivation,
    SqueezeExcitation,
    MLP,
    Permute,
)
from .feature_pyramid_network import (  # noqa: F401
    FeaturePyramidNetwork,
    ExtraFPNBlock,
    LastLevelMaxPool,
    LastLevelP6P7,
)


from tensorcore._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "vision.ops")
del _harden
