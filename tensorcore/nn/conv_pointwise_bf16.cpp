// bfloat16 1x1 convolutions (one group, stride 1, no padding) as matrix products over the
// N,C,spatial data as it lies, through oneDNN's bfloat16 matmul. oneDNN's convolution computes
// these in channels-last memory and reorders every activation and gradient in and out: under CPU
// autocast those reorders took 104 ms of a ConvTasNet training step against 86 ms for the
// convolutions themselves (ONEDNN_VERBOSE, 1 thread).
#include "tensorcore/kernels/cpu/gemm_bf16.h"
#include "tensorcore/nn/conv_internal.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {

bool pointwise_bfloat16(const ConvGeometry& g) {
  return g.dtype == DType::BFloat16 && g.is_pointwise();
}

namespace {

int64_t spatial_size(const ConvGeometry& g) {
  int64_t s = 1;
  for (auto v : g.input) s *= v;
  return s;
}

// The weight [O, C, 1...] as one [1, O, C] matrix, shared by every image.
Tensor weight_matrix(const Tensor& w, const ConvGeometry& g) {
  return reshape(w, {1, g.out_channels, g.in_channels});
}

}  // namespace

Tensor conv_forward_pointwise_bf16(const Tensor& x, const Tensor& w, const Tensor& b,
                                   const ConvGeometry& g) {
  const int64_t S = spatial_size(g);
  Tensor y = empty(g.output_shape(), TensorOptions(DType::BFloat16));
  if (!bmm_bf16_dnnl(reshape(y, {g.batch, g.out_channels, S}), weight_matrix(w, g),
                     reshape(x, {g.batch, g.in_channels, S})))
    return Tensor();
  if (b.defined()) {
    // The product is rounded to bfloat16 before the bias is added (oneDNN's convolution adds
    // it before rounding): at most one more rounding step.
    Shape bias_shape(size_t(g.nd + 2), 1);
    bias_shape[1] = g.out_channels;
    add_(y, reshape(b, bias_shape));
  }
  return y;
}

Tensor conv_backward_data_pointwise_bf16(const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  const int64_t S = spatial_size(g);
  Tensor gx = empty(g.input_shape(), TensorOptions(DType::BFloat16));
  if (!bmm_bf16_dnnl(reshape(gx, {g.batch, g.in_channels, S}), transpose(weight_matrix(w, g), 1, 2),
                     reshape(gy, {g.batch, g.out_channels, S})))
    return Tensor();
  return gx;
}

// Per image gy[n] @ x[n]^T into float32, summed over the batch in float32 and rounded once.
Tensor conv_backward_weight_pointwise_bf16(const Tensor& x, const Tensor& gy,
                                           const ConvGeometry& g) {
  const int64_t S = spatial_size(g);
  Tensor per_image = empty({g.batch, g.out_channels, g.in_channels}, TensorOptions(DType::Float32));
  if (!bmm_bf16_dnnl(per_image, reshape(gy, {g.batch, g.out_channels, S}),
                     transpose(reshape(x, {g.batch, g.in_channels, S}), 1, 2)))
    return Tensor();
  return reshape(to_dtype(sum(per_image, {0}), DType::BFloat16), g.weight_shape());
}

}  // namespace tc::nn::detail
