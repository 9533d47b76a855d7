#pragma once
// Shared by the convolution front end (conv.cpp) and its back ends: oneDNN (float32/bfloat16),
// im2col + BLAS GEMM (float32/float64, any geometry), direct depthwise 1-d loops and bfloat16
// matrix products for 1x1 convolutions. Every kernel takes contiguous tensors and describes the
// *direct* convolution; transposed convolution reuses them with roles swapped.
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
  // One group, 1x1 kernel, stride 1, no padding: a matrix product per image on the data as it lies.
  bool is_pointwise() const;
};

// What a frozen graph fuses into a convolution's output (functional::conv_fused): a residual
// added to it and a ReLU after. In `into_residual` mode the result is written over the residual
// (as `residual += conv(x)` does); otherwise into a fresh tensor. The residual has the output's
// shape and dtype and is contiguous.
// Set while a convolution runs for a weight that autograd tracks (a training step): oneDNN then
// reorders that weight per call instead of keeping a copy of it, since the optimizer changes it
// before its next use and a kept copy would only add the model's size to the step's peak. The
// kernels see detached tensors, so the caller, which still sees requires_grad, decides.
class TrainingWeightScope {
 public:
  explicit TrainingWeightScope(bool training);
  ~TrainingWeightScope();
  TrainingWeightScope(const TrainingWeightScope&) = delete;
  TrainingWeightScope& operator=(const TrainingWeightScope&) = delete;
  static bool active();

 private:
  bool previous_;
};

struct ConvEpilogue {
  Tensor residual;
  bool into_residual = false;
  bool relu = false;
  // Write a 2-d convolution's output channels-last (NHWC memory, NCHW sizes): the layout oneDNN's
  // inference kernels read and write, so a chain of such convolutions runs without reorders.
  bool channels_last = false;
};

// A 4-d tensor laid out NHWC (and not also NCHW-contiguous, as tensors with size-1 dims can be).
inline bool is_nhwc(const Tensor& t) {
  if (t.dim() != 4 || t.is_contiguous()) return false;
  const Shape& z = t.sizes();
  const Shape& s = t.strides();
  return s[1] == 1 && s[3] == z[1] && s[2] == z[1] * z[3] && s[0] == z[1] * z[2] * z[3];
}

// y = conv(x, w) + b (b may be undefined), then the epilogue if one is given (float32 only).
Tensor conv_forward_gemm(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g,
                         const ConvEpilogue* epilogue = nullptr);
Tensor conv_backward_data_gemm(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
Tensor conv_backward_weight_gemm(const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// Depthwise 1-d convolution (groups == in == out channels; float32, bfloat16) by direct loops:
// faster than oneDNN, which runs it as per-channel GEMMs (conv_depthwise.cpp).
bool depthwise1d_direct(const ConvGeometry& g);
Tensor conv_forward_depthwise1d(const Tensor& x, const Tensor& w, const Tensor& b,
                                const ConvGeometry& g);
Tensor conv_backward_data_depthwise1d(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
// Returns {grad_weight, grad_bias (undefined unless with_bias)}.
std::pair<Tensor, Tensor> conv_backward_weight_depthwise1d(const Tensor& x, const Tensor& gy,
                                                           const ConvGeometry& g, bool with_bias);

// bfloat16 1x1 convolutions (one group, stride 1, no padding) as oneDNN bfloat16 matrix
// products on the data as it lies (conv_pointwise_bf16.cpp). Each returns an undefined tensor when
// oneDNN offers no fast matmul here; the caller then takes the other paths.
bool pointwise_bfloat16(const ConvGeometry& g);
Tensor conv_forward_pointwise_bf16(const Tensor& x, const Tensor& w, const Tensor& b,
                                   const ConvGeometry& g);
Tensor conv_backward_data_pointwise_bf16(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
Tensor conv_backward_weight_pointwise_bf16(const Tensor& x, const Tensor& gy,
                                           const ConvGeometry& g);

// oneDNN float32 / bfloat16 path. Returns an undefined tensor when oneDNN declines (the caller
// falls back).
bool dnnl_conv_available(const ConvGeometry& g);
// With an epilogue, the residual and ReLU are oneDNN post-ops (sum, eltwise) of an inference
// primitive: no separate passes over the output.
Tensor conv_forward_dnnl(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g,
                         const ConvEpilogue* epilogue = nullptr);
Tensor conv_backward_data_dnnl(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
// Returns {grad_weight, grad_bias (undefined unless with_bias)}.
std::pair<Tensor, Tensor> conv_backward_weight_dnnl(const Tensor& x, const Tensor& gy,
                                                    const ConvGeometry& g, bool with_bias);

// Both gradients at once (shares the grad_output reorder): {grad_input, grad_weight, grad_bias}.
std::tuple<Tensor, Tensor, Tensor> conv_backward_dnnl(const Tensor& x, const Tensor& gy,
                                                      const Tensor& w, const ConvGeometry& g,
                                                      bool with_bias);

}  // namespace tc::nn::detail
