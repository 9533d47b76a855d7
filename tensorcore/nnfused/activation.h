#pragma once
// Fused activation kernels used by tensorcore.nn.functional: softmax / log_softmax over one
// dimension, GELU (exact and tanh) and PReLU, each one pass over memory forward and backward
// instead of a chain of elementwise ops and reductions. float32/float64 on the CPU; autograd-aware
// (double backward goes through differentiable tensor-op formulas).
#include <tensorcore/core/tensor.h>

namespace tc::nnfused {

Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// Gradients given the forward output y.
Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim);

Tensor gelu(const Tensor& x, bool tanh_approximation);

// PReLU with `weight` a scalar (one slope) or one slope per channel (dim 1 of x, x.dim() >= 2).
// Backward is one pass for the input's gradient and the per-channel sums for the weight's.
Tensor prelu(const Tensor& x, const Tensor& weight);
// {grad of x, grad of weight (weight's shape)}
TensorList prelu_backward(const Tensor& grad, const Tensor& x, const Tensor& weight);
// weight shaped to broadcast against x (one slope per channel of dim 1, or one for all), after
// checking its count against x's channels: the composite formulas (any device) use it.
Tensor prelu_slope(const Tensor& x, const Tensor& weight);
Tensor gelu_backward(const Tensor& grad, const Tensor& x, bool tanh_approximation);

}  // namespace tc::nnfused
