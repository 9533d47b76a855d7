#pragma once
// CUDA back ends of the detection ops (vision/ops), called by the front ends when the
// tensors live on a CUDA device. No CUDA types here: the front ends stay plain C++, and a build
// without CUDA links stubs that raise (ops_cuda_stub.cpp).
#include <cstdint>

#include "tensorcore/core/tensor.h"
#include "vision/ops/deform_sample.h"

namespace tc::vision::ops::cuda {

// boxes: contiguous (n, 4) in score order (highest first), float32/float64 on one CUDA device.
// Returns the (n, ceil(n / 64)) int64 bit matrix, on the device: bit j of row i is set when
// j > i and IoU(box i, box j) > iou_threshold.
Tensor nms_mask(const Tensor& sorted_boxes, double iou_threshold);

struct RoiAlignArgs {
  double spatial_scale;
  int64_t pooled_height, pooled_width, sampling_ratio;
  bool aligned;
  // ps_roi_align: output channel c of bin (py, px) reads input channel c * ph * pw + py * pw + px.
  bool position_sensitive = false;
};

// All RoI kernels: input contiguous (N, C, H, W) float32/float64; rois contiguous (K, 5) of the
// input's dtype on its device, batch indices already checked on the host. Backward passes
// accumulate into a zero-filled grad_input with atomicAdd (nondeterministic summation order).

// Writes out: (K, C_out, ph, pw) (C_out = C, or C / (ph * pw) when position-sensitive).
void roi_align_forward(const Tensor& input, const Tensor& rois, const RoiAlignArgs& a,
                       const Tensor& out);
// grad: contiguous (K, C_out, ph, pw); grad_input: (N, C, H, W).
void roi_align_backward(const Tensor& grad, const Tensor& rois, const RoiAlignArgs& a,
                        const Tensor& grad_input);

// RoIPool: out (K, C, ph, pw) is the max of each bin, argmax (int64, same shape) its index in
// the H * W plane (-1 for an empty bin).
void roi_pool_forward(const Tensor& input, const Tensor& rois, double spatial_scale,
                      int64_t pooled_height, int64_t pooled_width, const Tensor& out,
                      const Tensor& argmax);
void roi_pool_backward(const Tensor& grad, const Tensor& rois, const Tensor& argmax,
                       const Tensor& grad_input);

// Position-sensitive RoIPool: out (K, C / (ph * pw), ph, pw), the mean of each bin.
void ps_roi_pool_forward(const Tensor& input, const Tensor& rois, double spatial_scale,
                         int64_t pooled_height, int64_t pooled_width, const Tensor& out);
void ps_roi_pool_backward(const Tensor& grad, const Tensor& rois, double spatial_scale,
                          int64_t pooled_height, int64_t pooled_width, const Tensor& grad_input);

// deform_conv2d, one image n at a time (x, off, msk contiguous; msk undefined without a mask).
// Columns: cols (Cin * kh * kw, oh * ow) of image n (deform_sample.h's sampling times the mask).
void deform_im2col(const detail::DeformGeometry& g, const Tensor& x, const Tensor& off,
                   const Tensor& msk, int64_t n, const Tensor& cols);
// From the column gradient gcols (Cin * kh * kw, oh * ow) of image n: adds its input gradient
// into gin (atomicAdd) and writes its offset and mask gradients into goff / gmsk (full-batch
// tensors; gmsk undefined without a mask).
void deform_col2im(const detail::DeformGeometry& g, const Tensor& x, const Tensor& off,
                   const Tensor& msk, int64_t n, const Tensor& gcols, const Tensor& gin,
                   const Tensor& goff, const Tensor& gmsk);

}  // namespace tc::vision::ops::cuda
