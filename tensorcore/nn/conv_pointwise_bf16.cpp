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

// gy @ x^T summed over the batch, accumulated in float32 and rounded once. Two ways:
// - per image gy[n] @ x[n]^T into a float32 [N, O, C] stack, then a sum over N: no copies, but
//   N float32 weight-sized products (ConvTasNet: long signals, few channels);
// - one product over all images at once, gy as [O, N*S] and x as [C, N*S]: copies both
//   gradients into channel-major order, but only one float32 [O, C] result and a K of N*S
//   (Wav2Letter's 2000-channel 1x1 layers over 126 frames: the per-image stack is 64 MB of
//   float32 at batch 4, against 4 MB of copies).
Tensor conv_backward_weight_pointwise_bf16(const Tensor& x, const Tensor& gy,
                                           const ConvGeometry& g) {
  const int64_t S = spatial_size(g), N = g.batch, O = g.out_channels, C = g.in_channels;
  Tensor gy3 = reshape(gy, {N, O, S});
  Tensor x3 = reshape(x, {N, C, S});
  const bool one_product = N > 1 && (O + C) * S <= 2 * O * C;
  if (one_product) {
    gy3 = reshape(contiguous(permute(gy3, {1, 0, 2})), {1, O, N * S});
    x3 = reshape(contiguous(permute(x3, {1, 0, 2})), {1, C, N * S});
  }
  Tensor products = empty({one_product ? 1 : N, O, C}, TensorOptions(DType::Float32));
  if (!bmm_bf16_dnnl(products, gy3, transpose(x3, 1, 2))) return Tensor();
  Tensor summed = one_product ? reshape(products, {O, C}) : sum(products, {0});
  return reshape(to_dtype(summed, DType::BFloat16), g.weight_shape());
}

}  // namespace tc::nn::detail
