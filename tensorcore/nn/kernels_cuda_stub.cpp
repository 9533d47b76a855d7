// A build without CUDA cannot hold CUDA tensors; these keep the nn front ends linking and raise
// if ever reached.
#ifndef TC_WITH_CUDA
#include "tensorcore/core/error.h"
#include "tensorcore/nn/kernels_cuda.h"

namespace tc::nn::gpu {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  throw NotImplementedError(
      ::tc::detail::concat(op, ": tensorcore was not compiled with CUDA support"));
}
}  // namespace
void grid_sample_forward(const Tensor&, const Tensor&, const detail::GridGeom&, const Tensor&) {
  no_cuda("grid_sample");
}
void grid_sample_backward(const Tensor&, const Tensor&, const Tensor&, const detail::GridGeom&,
                          const Tensor&, const Tensor&) {
  no_cuda("grid_sample backward");
}
void grid_sample3d(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                   const Tensor&, const detail::GridGeom3&) {
  no_cuda("grid_sample (5-d)");
}
void embedding_bag_forward(const Tensor&, const Tensor&, const std::vector<int64_t>&,
                           const std::vector<int64_t>&, const std::vector<double>&, const Tensor&,
                           int64_t, bool, const Tensor&, const Tensor&) {
  no_cuda("embedding_bag");
}
void ctc_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t,
                 int64_t, const Tensor&, const Tensor&) {
  no_cuda("ctc_loss");
}
void ctc_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                  int64_t, int64_t, const Tensor&, const Tensor&, const Tensor&, bool,
                  const Tensor&) {
  no_cuda("ctc_loss backward");
}
}  // namespace tc::nn::gpu
#endif
