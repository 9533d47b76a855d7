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
        idx = tc.full((b.shape[0], 1), i, dtype=b.dtype, device=b.device)
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
    return _V.roi_align(
        input,
        _rois("roi_align", input, boxes),
        float(spatial_scale),
        ph,
        pw,
        int(sampling_ratio),
        bool(aligned),
    )


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    ph, pw = _pair(output_size)
    return _V.roi_pool(input, _rois("roi_pool", input, boxes), float(spatial_scale), ph, pw)


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    ph, pw = _pair(output_size)
    return _V.ps_roi_align(
        input,
        _rois("ps_roi_align", input, boxes),
        float(spatial_scale),
        ph,
        pw,
        int(sampling_ratio),
    )


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    ph, pw = _pair(output_size)
    return _V.ps_roi_pool(input, _rois("ps_roi_pool", input, boxes), float(spatial_scale), ph, pw)


class RoIAlign(Module):
    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def forward(self, input, rois):
        return roi_align(
            input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned
        )

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
            f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned}"
        )


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
            output_size,
            spatial_scale,
            sampling_ratio,
        )

    def forward(self, input, rois):
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
            f"sampling_ratio={self.sampling_ratio}"
        )


class PSRoIPool(Module):
    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, input, rois):
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)

    def extra_repr(self):
        return f"output_size={self.output_size}, spatial_scale={self.spatial_scale}"


def deform_conv2d(
    input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=None
):
    """Deformable convolution v1 (v2 with mask), torchvision.ops.deform_conv2d."""
    return _V.deform_conv2d(
        input, offset, weight, bias, _pair(stride), _pair(padding), _pair(dilation), mask
    )


class DeformConv2d(Module):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
    ):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                "DeformConv2d: in_channels and out_channels must be divisible by groups"
            )
        kh, kw = _pair(kernel_size)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = (kh, kw), _pair(stride)
        self.padding, self.dilation, self.groups = _pair(padding), _pair(dilation), groups
        # Kaiming-uniform(a=sqrt(5)) like torchvision: bound = 1 / sqrt(fan_in).
        fan_in = in_channels // groups * kh * kw
        bound = 1.0 / fan_in**0.5
        w = (tc.rand((out_channels, in_channels // groups, kh, kw)) * 2 - 1) * bound
        b = (tc.rand(out_channels) * 2 - 1) * bound if bias else None
        self._param("weight", w)
        self._param("bias", b)

    def _param(self, name, value):
        try:
            from tensorcore.nn import Parameter

            value = Parameter(value) if value is not None else None
        except ImportError:
            if value is not None:
                value.requires_grad_()
        if hasattr(self, "register_parameter"):
            self.register_parameter(name, value)
        else:
            setattr(self, name, value)

    def forward(self, input, offset, mask=None):
        return deform_conv2d(
            input, offset, self.weight, self.bias, self.stride, self.padding, self.dilation, mask
        )

    def extra_repr(self):
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
            f"groups={self.groups}"
        )


class MultiScaleRoIAlign(Module):
    """RoIAlign over a feature pyramid: each box is pooled from the level matching its size
    (FPN paper, eq. 1), as torchvision.ops.MultiScaleRoIAlign."""

    def __init__(
        self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224, canonical_level=4
    ):
        super().__init__()
        self.featmap_names = list(featmap_names)
        self.output_size = _pair(output_size)
        self.sampling_ratio = sampling_ratio
        self.canonical_scale, self.canonical_level = canonical_scale, canonical_level

    @staticmethod
    def _infer_scale(feature, original_size):
        import math

        approx = float(feature.shape[-2]) / float(original_size[0])
        return 2.0 ** round(math.log2(approx))

    def forward(self, x, boxes, image_shapes):
        import math

        feats = [x[k] for k in self.featmap_names if k in x]
        if not feats:
            raise ValueError(
                f"MultiScaleRoIAlign: none of the feature maps {self.featmap_names} is in the input"
            )
        original = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
        scales = [self._infer_scale(f, original) for f in feats]
        rois = _rois("MultiScaleRoIAlign", feats[0], boxes)
        if len(feats) == 1:
            return roi_align(feats[0], rois, self.output_size, scales[0], self.sampling_ratio)
        k_min, k_max = int(-math.log2(scales[0])), int(-math.log2(scales[-1]))
        from .boxes import box_area

        sizes = tc.sqrt(tc.cat([box_area(b) for b in boxes]))
        levels = tc.floor(self.canonical_level + tc.log2(sizes / self.canonical_scale) + 1e-6)
        levels = (levels.clamp(k_min, k_max) - k_min).to(tc.int64)
        k, c = rois.shape[0], feats[0].shape[1]
        result = tc.zeros((k, c) + self.output_size, dtype=feats[0].dtype)
        for lvl, (feat, scale) in enumerate(zip(feats, scales)):
            idx = tc.where(levels == lvl)[0]
            if idx.numel() == 0:
                continue
            pooled = roi_align(
                feat, rois.index_select(0, idx), self.output_size, scale, self.sampling_ratio
            )
            result = result.index_copy(0, idx, pooled)
        return result

    def extra_repr(self):
        return (
            f"featmap_names={self.featmap_names}, output_size={self.output_size}, "
            f"sampling_ratio={self.sampling_ratio}"
        )
