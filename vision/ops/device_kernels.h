#pragma once
// Device kernel tables of the detection ops (vision/ops). The front ends check the arguments and
// call `<name>_kernel.get(device)(...)`; the CPU kernels register beside them (nms.cpp,
// roi_align.cpp, roi_pool.cpp, deform_conv2d.cpp), the CUDA kernels from vision/cuda/ops_cuda.cu
// and deform_cuda.cu. No CUDA types here, and nothing to stub: a device without a kernel (a
// build without CUDA) raises KernelTable's one clear error.
#include <cstdint>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"
#include "vision/ops/deform_sample.h"

namespace tc::vision::ops {

// The whole nms on one device: boxes (n, 4), scores (n,), checked, of one dtype. Returns the
// kept indices (int64, boxes' device) in score order. The CPU runs the greedy pass directly; CUDA
// computes the overlap bit matrix on the device (nms_mask, CUDA only) and scans it on the host.
using NmsFn = Tensor (*)(const Tensor& boxes, const Tensor& scores, double iou_threshold);

// boxes: contiguous (n, 4) in score order (highest first), float32/float64 on one CUDA device.
// Returns the (n, ceil(n / 64)) int64 bit matrix, on the device: bit j of row i is set when
// j > i and IoU(box i, box j) > iou_threshold.
using NmsMaskFn = Tensor (*)(const Tensor& sorted_boxes, double iou_threshold);

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
using RoiAlignForwardFn = void (*)(const Tensor& input, const Tensor& rois, const RoiAlignArgs& a,
                                   const Tensor& out);
// grad: contiguous (K, C_out, ph, pw); grad_input: (N, C, H, W).
using RoiAlignBackwardFn = void (*)(const Tensor& grad, const Tensor& rois, const RoiAlignArgs& a,
                                    const Tensor& grad_input);

// RoIPool: out (K, C, ph, pw) is the max of each bin, argmax (int64, same shape) its index in
// the H * W plane (-1 for an empty bin).
using RoiPoolForwardFn = void (*)(const Tensor& input, const Tensor& rois, double spatial_scale,
                                  int64_t pooled_height, int64_t pooled_width, const Tensor& out,
                                  const Tensor& argmax);
using RoiPoolBackwardFn = void (*)(const Tensor& grad, const Tensor& rois, const Tensor& argmax,
                                   const Tensor& grad_input);

// Position-sensitive RoIPool: out (K, C / (ph * pw), ph, pw), the mean of each bin.
using PsRoiPoolForwardFn = void (*)(const Tensor& input, const Tensor& rois, double spatial_scale,
                                    int64_t pooled_height, int64_t pooled_width, const Tensor& out);
using PsRoiPoolBackwardFn = void (*)(const Tensor& grad, const Tensor& rois, double spatial_scale,
                                     int64_t pooled_height, int64_t pooled_width,
                                     const Tensor& grad_input);

// deform_conv2d, one image n at a time (x, off, msk contiguous; msk undefined without a mask).
// Columns: cols (Cin * kh * kw, oh * ow) of image n (deform_sample.h's sampling times the mask).
using DeformIm2colFn = void (*)(const detail::DeformGeometry& g, const Tensor& x, const Tensor& off,
                                const Tensor& msk, int64_t n, const Tensor& cols);
// From the column gradient gcols (Cin * kh * kw, oh * ow) of image n: adds its input gradient
// into gin (atomicAdd) and writes its offset and mask gradients into goff / gmsk (full-batch
// tensors; gmsk undefined without a mask).
using DeformCol2imFn = void (*)(const detail::DeformGeometry& g, const Tensor& x, const Tensor& off,
                                const Tensor& msk, int64_t n, const Tensor& gcols,
                                const Tensor& gin, const Tensor& goff, const Tensor& gmsk);

TC_DECLARE_KERNEL(nms, NmsFn);
TC_DECLARE_KERNEL(nms_mask, NmsMaskFn);
TC_DECLARE_KERNEL(roi_align_forward, RoiAlignForwardFn);
TC_DECLARE_KERNEL(roi_align_backward, RoiAlignBackwardFn);
TC_DECLARE_KERNEL(roi_pool_forward, RoiPoolForwardFn);
TC_DECLARE_KERNEL(roi_pool_backward, RoiPoolBackwardFn);
TC_DECLARE_KERNEL(ps_roi_pool_forward, PsRoiPoolForwardFn);
TC_DECLARE_KERNEL(ps_roi_pool_backward, PsRoiPoolBackwardFn);
TC_DECLARE_KERNEL(deform_im2col, DeformIm2colFn);
TC_DECLARE_KERNEL(deform_col2im, DeformCol2imFn);

}  // namespace tc::vision::ops
