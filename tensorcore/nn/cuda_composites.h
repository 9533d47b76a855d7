#pragma once
// The CUDA paths of nn ops that are compositions of core ops (normalization, recurrent gates,
// interpolate's resampling, unfold / fold): each step is a core op with its own CUDA kernel and
// vjp, so these are plain C++ and device-generic (tests/cpp/nn/cuda_composites_test.cpp checks
// them on CPU tensors). cuDNN calls are in tensorcore/cudnn/ (cudnn_nn.h).
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn::detail {

struct Geo3;

// ---- normalization on CUDA (norm_cuda.cpp): compositions of core ops (CUDA kernels, autograd
// and double backward included); float16/bfloat16 compute their statistics in float32 ----
Tensor batch_norm_cuda(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, double momentum,
                       double eps);
// (batch_norm_cuda first tries cuDNN, cudnn_nn.h's batch_norm_cudnn.)
// Batch-norm gradients {grad_input, grad_weight, grad_bias} in core ops (differentiable again):
// training recomputes the batch statistics from x; eval uses the running stats. Any device.
TensorList batch_norm_backward_formula(const Tensor& grad_out, const Tensor& x,
                                       const Tensor& weight, const Tensor& running_mean,
                                       const Tensor& running_var, bool training, double eps,
                                       bool need_input, bool need_weight, bool need_bias);
// In place, under no_grad: stat = (1 - momentum) * stat + momentum * value.
void update_running_stat(const Tensor& stat, const Tensor& value, double momentum);
// Normalizes over the trailing `normalized_dims` dims; weight/bias have those dims' shape.
Tensor layer_norm_cuda(const Tensor& input, int64_t normalized_dims, const Tensor& weight,
                       const Tensor& bias, double eps);
Tensor group_norm_cuda(const Tensor& input, int64_t num_groups, const Tensor& weight,
                       const Tensor& bias, double eps);

// ---- recurrent gates on CUDA (rnn_cuda.cpp), compositions of core ops ----
// gi, gh: [N, 4H] input and hidden projections; c: [N, H]. Returns {h', c'}.
std::pair<Tensor, Tensor> lstm_gates_cuda(const Tensor& gi, const Tensor& gh, const Tensor& c);
// gi, gh: [N, 3H]; h: [N, H]. Returns h'.
Tensor gru_gates_cuda(const Tensor& gi, const Tensor& gh, const Tensor& h);

// ---- interpolate on CUDA (resample_cuda.cpp): resamples dim `dim` to `out` positions with the
// front end's tap tables idx/w ([out, k] row-major), in core ops ----
Tensor resample_gather_cuda(const Tensor& x, int64_t dim, int64_t out, int64_t k,
                            const std::vector<int64_t>& idx, const std::vector<double>& w);

// ---- unfold / fold on CUDA (unfold_cuda.cpp), core ops; 2-d geometry in g's h/w axes ----
// x: [N, C, H, W] -> [N, C * kh * kw, L].
Tensor unfold_cuda(const Tensor& x, const Geo3& g);
// cols: [N, C * kh * kw, L] -> [N, C, H, W] (overlapping windows sum).
Tensor fold_cuda(const Tensor& cols, int64_t channels, const Geo3& g);

// Raises ValueError when the defined tensors are not all on one device.
void require_same_device(const char* op, std::initializer_list<const Tensor*> tensors);

}  // namespace tc::nn::detail
