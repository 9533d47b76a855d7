#pragma once
// CUDA back ends of the native nn ops (tensorcore/nn), called by the nn front ends when the
// input is a CUDA tensor. No CUDA or cuDNN types here: the nn sources stay plain C++, and in a
// build without CUDA / cuDNN every function exists and raises a clear error.
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn::detail {

struct ConvGeometry;
struct Geo3;

// ---- convolution through cuDNN (conv_cudnn.cpp); inputs may be any layout, including
// channels-last views (NCHW shape, NHWC strides), whose layout the outputs keep ----
Tensor conv_forward_cudnn(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
Tensor conv_backward_data_cudnn(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
Tensor conv_backward_weight_cudnn(const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// ---- normalization on CUDA (norm_cuda.cpp): compositions of core ops (CUDA kernels, autograd
// and double backward included); float16/bfloat16 compute their statistics in float32 ----
Tensor batch_norm_cuda(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, double momentum,
                       double eps);
// Batch norm through cuDNN (bn_cudnn.cpp): the result, or an undefined tensor when cuDNN does not
// apply (not compiled, not a CUDA tensor, tc.backends.cudnn.enabled False, sizes beyond 32 bits,
// only one of the running stats given); batch_norm_cuda then uses the composition.
Tensor batch_norm_cudnn(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                        const Tensor& weight, const Tensor& bias, bool training, double momentum,
                        double eps);
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
