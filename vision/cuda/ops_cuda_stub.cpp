// A build without CUDA cannot hold CUDA tensors; these keep the vision ops linking and raise if
// ever reached.
#ifndef TC_WITH_CUDA
#include "tensorcore/core/error.h"
#include "vision/cuda/ops_cuda.h"

namespace tc::vision::ops::cuda {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  throw NotImplementedError(
      ::tc::detail::concat(op, ": tensorcore was not compiled with CUDA support"));
}
}  // namespace
Tensor nms_mask(const Tensor&, double) { no_cuda("nms"); }
void roi_align_forward(const Tensor&, const Tensor&, const RoiAlignArgs&, const Tensor&) {
  no_cuda("roi_align");
}
void roi_align_backward(const Tensor&, const Tensor&, const RoiAlignArgs&, const Tensor&) {
  no_cuda("roi_align_backward");
}
void roi_pool_forward(const Tensor&, const Tensor&, double, int64_t, int64_t, const Tensor&,
                      const Tensor&) {
  no_cuda("roi_pool");
}
void roi_pool_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("roi_pool_backward");
}
void ps_roi_pool_forward(const Tensor&, const Tensor&, double, int64_t, int64_t, const Tensor&) {
  no_cuda("ps_roi_pool");
}
void ps_roi_pool_backward(const Tensor&, const Tensor&, double, int64_t, int64_t, const Tensor&) {
  no_cuda("ps_roi_pool_backward");
}
void deform_im2col(const detail::DeformGeometry&, const Tensor&, const Tensor&, const Tensor&,
                   int64_t, const Tensor&) {
  no_cuda("deform_conv2d");
}
void deform_col2im(const detail::DeformGeometry&, const Tensor&, const Tensor&, const Tensor&,
                   int64_t, const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("deform_conv2d_backward");
}
}  // namespace tc::vision::ops::cuda
#endif

#ifndef TC_WITH_CUDA
#include "vision/cuda/resize_cuda.h"

namespace tc::vision::cuda {
namespace {
[[noreturn]] void no_cuda_resize() {
  throw NotImplementedError("resize: tensorcore was not compiled with CUDA support");
}
}  // namespace
void resize_vertical(const Tensor&, int64_t, int64_t, int64_t, const Tensor&, int64_t,
                     const ResizeAxis&) {
  no_cuda_resize();
}
void resize_horizontal(const Tensor&, int64_t, int64_t, const Tensor&, int64_t, const ResizeAxis&) {
  no_cuda_resize();
}
void resize_nearest(const Tensor&, int64_t, int64_t, int64_t, const Tensor&, int64_t, int64_t,
                    const Tensor&, const Tensor&) {
  no_cuda_resize();
}
void round_to_uint8(const Tensor&, const Tensor&) { no_cuda_resize(); }
}  // namespace tc::vision::cuda
#endif

#ifndef TC_WITH_CUDA
#include "vision/cuda/transforms_cuda.h"

namespace tc::vision::cuda {
namespace {
[[noreturn]] void no_cuda_image(const char* op) {
  throw NotImplementedError(
      ::tc::detail::concat(op, ": tensorcore was not compiled with CUDA support"));
}
}  // namespace
void warp(const Tensor&, const std::vector<double>&, const std::vector<double>&,
          const kernels::detail::WarpArgs&, const Tensor&) {
  no_cuda_image("warp");
}
void gaussian_blur(const Tensor&, const std::vector<std::vector<float>>&,
                   const std::vector<std::vector<float>>&, const Tensor&) {
  no_cuda_image("gaussian_blur");
}
void crop_flip_normalize(const Tensor&, const std::vector<int64_t>&, const std::vector<int64_t>&,
                         const std::vector<uint8_t>&, const std::vector<uint8_t>&,
                         const std::vector<float>&, const std::vector<float>&, const Tensor&) {
  no_cuda_image("crop_flip_normalize");
}
void blend(const Tensor&, int64_t, int64_t, int64_t, kernels::BlendOther,
           const std::vector<double>&, const std::vector<double>&, const Tensor&) {
  no_cuda_image("blend");
}
void adjust_hue(const Tensor&, int64_t, int64_t, const std::vector<double>&, const Tensor&) {
  no_cuda_image("adjust_hue");
}
void equalize(const Tensor&, int64_t, int64_t, const Tensor&) { no_cuda_image("equalize"); }
}  // namespace tc::vision::cuda
#endif
