"""AnchorGenerator (torchvision.models.detection.anchor_utils): a grid of anchor boxes per
feature map, sizes x aspect ratios at every location."""

import tensorcore as tc
from tensorcore import nn

from ._utils import _float_tensor
from .image_list import ImageList

__all__ = ["AnchorGenerator"]


class AnchorGenerator(nn.Module):
    """Anchors for each feature map: `sizes[i]` x `aspect_ratios[i]` (height / width) boxes
    centred on every location of map i, strided over the padded image.

    Returns one (sum over maps of H_i * W_i * A_i, 4) tensor of xyxy boxes per image, in the
    order (map, y, x, anchor), which is how the detection heads lay out their predictions."""

    def __init__(self, sizes=((128, 256, 512),), aspect_ratios=((0.5, 1.0, 2.0),)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        if len(sizes) != len(aspect_ratios):
            raise ValueError(
                f"AnchorGenerator: sizes ({len(sizes)} maps) and aspect_ratios "
                f"({len(aspect_ratios)} maps) must describe the same number of feature maps"
            )
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(s, a) for s, a in zip(sizes, aspect_ratios)]

    def generate_anchors(self, scales, aspect_ratios, dtype=tc.float32, device="cpu"):
        """Zero-centred anchors (one per ratio x scale, ratio-major), rounded to whole pixels."""
        scales = _float_tensor(scales, dtype, device)
        aspect_ratios = _float_tensor(aspect_ratios, dtype, device)
        h_ratios = tc.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).reshape(-1)
        hs = (h_ratios[:, None] * scales[None, :]).reshape(-1)
        return (tc.stack([-ws, -hs, ws, hs], dim=1) / 2).round()

    def set_cell_anchors(self, dtype, device):
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def num_anchors_per_location(self):
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes, strides):
        """Anchors of every map: each cell anchor shifted to each grid location times the stride."""
        if not (len(grid_sizes) == len(strides) == len(self.cell_anchors)):
            raise ValueError(
                f"AnchorGenerator: got {len(grid_sizes)} feature maps but anchors are defined for "
                f"{len(self.cell_anchors)} (sizes and aspect_ratios need one entry per feature map)"
            )
        anchors = []
        for (grid_h, grid_w), (stride_h, stride_w), base in zip(
            grid_sizes, strides, self.cell_anchors
        ):
            device = base.device
            shift_x = tc.arange(0, grid_w, dtype=tc.int64, device=device) * stride_w
            shift_y = tc.arange(0, grid_h, dtype=tc.int64, device=device) * stride_h
            shift_x = shift_x[None, :].expand(grid_h, grid_w).reshape(-1)
            shift_y = shift_y[:, None].expand(grid_h, grid_w).reshape(-1)
            shifts = tc.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.reshape(-1, 1, 4) + base.reshape(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, image_list, feature_maps):
        if not isinstance(image_list, ImageList):
            raise TypeError(
                f"AnchorGenerator expects an ImageList, got {type(image_list).__name__}"
            )
        if len(feature_maps) == 0:
            raise ValueError("AnchorGenerator: no feature maps given")
        # One native op (models/vision/detection.cpp) reads the grid sizes and strides from the
        # tensors, so traced graphs follow the input size.
        self.set_cell_anchors(feature_maps[0].dtype, feature_maps[0].device)
        all_maps = tc._C._models_vision.grid_anchors(
            list(feature_maps), image_list.tensors, list(self.cell_anchors)
        )
        return [all_maps for _ in image_list.image_sizes]
