#pragma once
// CUDA back ends of the detection ops (tensorcore/vision/ops), called by the front ends when the
// tensors live on a CUDA device. No CUDA types here: the front ends stay plain C++, and a build
// without CUDA links stubs that raise (ops_cuda_stub.cpp).
#include <cstdint>

#include "tensorcore/core/tensor.h"

namespace tc::vision::ops::cuda {

// boxes: contiguous (n, 4) in score order (highest first), float32/float64 on one CUDA device.
// Returns the (n, ceil(n / 64)) int64 bit matrix, on the device: bit j of row i is set when
// j > i and IoU(box i, box j) > iou_threshold.
Tensor nms_mask(const Tensor& sorted_boxes, double iou_threshold);

struct RoiAlignArgs {
  double spatial_scale;
  int64_t pooled_height, pooled_width, sampling_ratio;
  bool aligned;
};

// input: contiguous (N, C, H, W); rois: contiguous (K, 5) with batch indices already checked.
// Writes out: (K, C, ph, pw).
void roi_align_forward(const Tensor& input, const Tensor& rois, const RoiAlignArgs& a,
                       const Tensor& out);
// grad: contiguous (K, C, ph, pw); grad_input: zero-filled (N, C, H, W), accumulated with
// atomicAdd (nondeterministic summation order).
void roi_align_backward(const Tensor& grad, const Tensor& rois, const RoiAlignArgs& a,
                        const Tensor& grad_input);

}  // namespace tc::vision::ops::cuda
