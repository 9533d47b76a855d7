#pragma once
// The nn ops' cuDNN paths, called by the nn front ends and composites for CUDA tensors. No CUDA
// or cuDNN types here: the nn sources stay plain C++, and in a build without cuDNN every
// function exists and raises a clear error (or, for batch norm, declines).
#include "tensorcore/core/tensor.h"

namespace tc::nn::detail {

struct ConvGeometry;

// ---- convolution through cuDNN (conv_cudnn.cpp); inputs may be any layout, including
// channels-last views (NCHW shape, NHWC strides), whose layout the outputs keep ----
Tensor conv_forward_cudnn(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
Tensor conv_backward_data_cudnn(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
Tensor conv_backward_weight_cudnn(const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// Batch norm through cuDNN (bn_cudnn.cpp): the result, or an undefined tensor when cuDNN does not
// apply (not compiled, not a CUDA tensor, tc.backends.cudnn.enabled False, sizes beyond 32 bits,
// only one of the running stats given); batch_norm_cuda then uses the composition.
Tensor batch_norm_cudnn(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                        const Tensor& weight, const Tensor& bias, bool training, double momentum,
                        double eps);

}  // namespace tc::nn::detail
