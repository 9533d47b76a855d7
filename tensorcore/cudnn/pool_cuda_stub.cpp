// A build without CUDA has no pooling kernels for CUDA tensors (which cannot exist there); these
// keep the nn front end linking and raise if ever reached.
#ifndef TC_WITH_CUDA
#include "tensorcore/cudnn/nn_cuda.h"

namespace tc::nn::detail {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  throw NotImplementedError(
      ::tc::detail::concat(op, ": tensorcore was not compiled with CUDA support"));
}
}  // namespace
void max_pool_forward_cuda(const Tensor&, const Tensor&, const Tensor&, const PoolParams&) {
  no_cuda("max_pool");
}
void max_pool_backward_cuda(const Tensor&, const Tensor&, const Tensor&, const PoolParams&) {
  no_cuda("max_pool backward");
}
void avg_pool_forward_cuda(const Tensor&, const Tensor&, const PoolParams&) { no_cuda("avg_pool"); }
void avg_pool_backward_cuda(const Tensor&, const Tensor&, const PoolParams&) {
  no_cuda("avg_pool backward");
}
}  // namespace tc::nn::detail
#endif
