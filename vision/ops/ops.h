#pragma once
// Detection ops with torchvision's names and semantics (torchvision.ops). Boxes are (K, 4) xyxy;
// rois are (K, 5) [batch_index, x1, y1, x2, y2]. Float32/Float64, CPU or CUDA (vision/cuda).
#include <tuple>
#include <utility>

#include "tensorcore/core/tensor.h"

namespace tc::vision::ops {

// Greedy non-maximum suppression: indices (int64) of the kept boxes, by decreasing score.
Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold);
// NMS within each category (idxs): torchvision's results, by the coordinate trick (each category
// shifted apart, one NMS) for small sets and one NMS per category for large ones, where shifted,
// rounded coordinates would change which boxes survive. Half inputs run in float32.
Tensor batched_nms(const Tensor& boxes, const Tensor& scores, const Tensor& idxs,
                   double iou_threshold);

// RoIAlign (Mask R-CNN). Differentiable w.r.t. input.
Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale,
                 int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned);
Tensor roi_align_backward(const Tensor& grad, const Tensor& rois, double spatial_scale,
                          int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                          bool aligned, const Shape& input_shape);

// RoIPool (Fast R-CNN): max over each bin. Differentiable w.r.t. input.
Tensor roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale,
                int64_t pooled_height, int64_t pooled_width);

// Position-sensitive variants (R-FCN): input channels = out_channels * ph * pw.
Tensor ps_roi_align(const Tensor& input, const Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio);
Tensor ps_roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale,
                   int64_t pooled_height, int64_t pooled_width);

// Deformable convolution (v2 when `mask` is given). offset: (N, 2*offset_groups*kh*kw, oh, ow),
// mask: (N, offset_groups*kh*kw, oh, ow); bias and mask may be undefined. Differentiable w.r.t.
// input, offset, weight, mask and bias.
Tensor deform_conv2d(const Tensor& input, const Tensor& offset, const Tensor& weight,
                     const Tensor& bias, std::pair<int64_t, int64_t> stride,
                     std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> dilation,
                     const Tensor& mask);

}  // namespace tc::vision::ops
