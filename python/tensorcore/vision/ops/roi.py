"""RoI ops (torchvision.ops.roi_align & co.): C++ kernels with autograd, plus module wrappers."""
import tensorcore as tc
from tensorcore import _C

from .._module import Module

_V = _C._vision


def _pair(v):
    if isinstance(v, int):
        return v, v
    if isinstance(v, (tuple, list)) and len(v) == 2:
        return int(v[0]), int(v[1])
    raise ValueError(f"output_size must be an int or a pair of ints, got {v!r}")


def convert_boxes_to_roi_format(boxes):
    """A list of per-image (L, 4) boxes -> (K, 5) rois [batch_index, x1, y1, x2, y2]."""
    rois = []
    for i, b in enumerate(boxes):
        idx = tc.full((b.shape[0], 1), i, dtype=b.dtype)
        rois.append(tc.cat([idx, b], dim=1))
    return tc.cat(rois, dim=0)


def _rois(op, input, boxes):
    if isinstance(boxes, (list, tuple)):
        for b in boxes:
            if b.dim() != 2 or b.shape[1] != 4:
                raise ValueError(f"{op}: each boxes entry should be (L, 4), got {list(b.shape)}")
        boxes = convert_boxes_to_roi_format(boxes)
    elif not isinstance(boxes, tc.Tensor):
        raise TypeError(f"{op}: boxes must be a Tensor[K, 5] or a list of Tensor[L, 4]")
    if boxes.dtype != input.dtype:
        boxes = boxes.to(input.dtype)
    return boxes


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    ph, pw = _pair(output_size)
    return _V.roi_align(input, _rois("roi_align", input, boxes), float(spatial_scale), ph, pw,
                        int(sampling_ratio), bool(aligned))


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    ph, pw = _pair(output_size)
    return _V.roi_pool(input, _rois("roi_pool", input, boxes), float(spatial_scale), ph, pw)


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    ph, pw = _pair(output_size)
    return _V.ps_roi_align(input, _rois("ps_roi_align", input, boxes), float(spatial_scale), ph,
                           pw, int(sampling_ratio))


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    ph, pw = _pair(output_size)
    return _V.ps_roi_pool(input, _rois("ps_roi_pool", input, boxes), float(spatial_scale), ph, pw)


class RoIAlign(Module):
    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio,
                         self.aligned)

    def extra_repr(self):
        return (f"output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned}")


class RoIPool(Module):
    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def extra_repr(self):
        return f"output_size={self.output_size}, spatial_scale={self.spatial_scale}"


class PSRoIAlign(Module):
    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__()
        self.output_size, self.spatial_scale, self.sampling_ratio = (
            output_size, spatial_scale, sampling_ratio)

    def forward(self, input, rois):
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def extra_repr(self):
        return (f"output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}")


class PSRoIPool(Module):
    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, input, rois):
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)

    def extra_repr(self):
        return f"output_size={self.output_size}, spatial_scale={self.spatial_scale}"
