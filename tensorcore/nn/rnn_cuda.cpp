// LSTM and GRU gate arithmetic on CUDA tensors as compositions of core ops (the CPU has fused
// kernels; here each step is a core CUDA kernel and autograd comes from the core ops). The gate
// order is torch's: LSTM (i, f, g, o), GRU (r, z, n).
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {

std::pair<Tensor, Tensor> lstm_gates_cuda(const Tensor& gi, const Tensor& gh, const Tensor& c) {
  const int64_t H = c.size(1);
  Tensor g = add(gi, gh);
  Tensor i = sigmoid(narrow(g, 1, 0, H)), f = sigmoid(narrow(g, 1, H, H));
  Tensor cand = tanh(narrow(g, 1, 2 * H, H)), o = sigmoid(narrow(g, 1, 3 * H, H));
  Tensor c_new = add(mul(f, c), mul(i, cand));
  return {mul(o, tanh(c_new)), c_new};
}

Tensor gru_gates_cuda(const Tensor& gi, const Tensor& gh, const Tensor& h) {
  const int64_t H = h.size(1);
  Tensor r = sigmoid(add(narrow(gi, 1, 0, H), narrow(gh, 1, 0, H)));
  Tensor z = sigmoid(add(narrow(gi, 1, H, H), narrow(gh, 1, H, H)));
  Tensor n = tanh(add(narrow(gi, 1, 2 * H, H), mul(r, narrow(gh, 1, 2 * H, H))));
  return add(n, mul(z, sub(h, n)));  // (1 - z) * n + z * h
}

// The CUDA kernels of these ops (device_kernels.h): a build without CUDA registers none.
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(lstm_gates_kernel, CUDA, lstm_gates_cuda);
TC_REGISTER_KERNEL(gru_gates_kernel, CUDA, gru_gates_cuda);
#endif

}  // namespace tc::nn::detail
