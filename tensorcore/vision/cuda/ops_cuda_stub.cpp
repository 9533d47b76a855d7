// A build without CUDA cannot hold CUDA tensors; these keep the vision ops linking and raise if
// ever reached.
#ifndef TC_WITH_CUDA
#include "tensorcore/core/error.h"
#include "tensorcore/vision/cuda/ops_cuda.h"

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
}  // namespace tc::vision::ops::cuda
#endif

#ifndef TC_WITH_CUDA
#include "tensorcore/vision/cuda/resize_cuda.h"

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
void resize_horizontal(const Tensor&, int64_t, int64_t, const Tensor&, int64_t,
                       const ResizeAxis&) {
  no_cuda_resize();
}
void resize_nearest(const Tensor&, int64_t, int64_t, int64_t, const Tensor&, int64_t, int64_t,
                    const Tensor&, const Tensor&) {
  no_cuda_resize();
}
void round_to_uint8(const Tensor&, const Tensor&) { no_cuda_resize(); }
}  // namespace tc::vision::cuda
#endif
