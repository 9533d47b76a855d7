#pragma once
// Shared by the convolution front end (conv.cpp) and its two back ends: oneDNN (float32) and
// im2col + BLAS GEMM (float32/float64, any geometry). Every kernel takes contiguous tensors and
// describes the *direct* convolution; transposed convolution reuses them with roles swapped.
#include <string>
#include <tuple>

#include "tensorcore/core/tensor.h"

namespace tc::nn::detail {

struct ConvGeometry {
  int nd = 2;  // spatial dims (1..3)
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  Shape input, kernel, output;  // spatial sizes
  Shape stride, pad_l, pad_r, dilation;
  DType dtype = DType::Float32;  // of input/weight/output: float32, float64 or bfloat16 (oneDNN)

  std::string key() const;     // identifies the geometry for primitive caches
  Shape input_shape() const;   // [N, C, *input]
  Shape weight_shape() const;  // [O, C/groups, *kernel]
  Shape output_shape() const;  // [N, O, *output]
};

// y = conv(x, w) + b (b may be undefined).
Tensor conv_forward_gemm(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
Tensor conv_backward_data_gemm(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
Tensor conv_backward_weight_gemm(const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// oneDNN float32 / bfloat16 path. Returns an undefined tensor when oneDNN declines (the caller
// falls back).
bool dnnl_conv_available(const ConvGeometry& g);
Tensor conv_forward_dnnl(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
Tensor conv_backward_data_dnnl(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
// Returns {grad_weight, grad_bias (undefined unless with_bias)}.
std::pair<Tensor, Tensor> conv_backward_weight_dnnl(const Tensor& x, const Tensor& gy,
                                                    const ConvGeometry& g, bool with_bias);

// Both gradients at once (shares the grad_output reorder): {grad_input, grad_weight, grad_bias}.
std::tuple<Tensor, Tensor, Tensor> conv_backward_dnnl(const Tensor& x, const Tensor& gy,
                                                      const Tensor& w, const ConvGeometry& g,
                                                      bool with_bias);

}  // namespace tc::nn::detail
