// tc::nn::functional's activations: fused kernels (nnfused) where they pay, core-op composites
// otherwise, so autograd follows from the core ops.
#include <cmath>
#include <limits>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nnfused/activation.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {
namespace {

Tensor s(double v, const Tensor& like) { return scalar_tensor(v, like.dtype()); }

}  // namespace

Tensor relu(const Tensor& x) { return tc::relu(x); }
Tensor gelu(const Tensor& x, const std::string& approximate) {
  TC_CHECK(approximate == "none" || approximate == "tanh",
           "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  return nnfused::gelu(x, approximate == "tanh");
}
Tensor silu(const Tensor& x) { return mul(x, sigmoid(x)); }
Tensor softmax(const Tensor& x, int64_t dim) { return nnfused::softmax(x, dim); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return nnfused::log_softmax(x, dim); }

Tensor softmin(const Tensor& x, int64_t dim) { return softmax(neg(x), dim); }
Tensor glu(const Tensor& x, int64_t dim) {
  TC_CHECK(x.dim() > 0, "glu: expected an input with at least 1 dim");
  const int64_t d = wrap_dim(dim, x.dim(), "glu");
  TC_CHECK(x.size(d) % 2 == 0, "glu: halving dimension ", dim, " of input of size ",
           shape_str(x.sizes()), " must be even");
  const int64_t h = x.size(d) / 2;
  return mul(narrow(x, d, 0, h), sigmoid(narrow(x, d, h, h)));
}
Tensor relu6(const Tensor& x) { return hardtanh(x, 0.0, 6.0); }
Tensor leaky_relu(const Tensor& x, double slope) { return where(gt(x, s(0, x)), x, mul(x, slope)); }
Tensor prelu(const Tensor& x, const Tensor& w) {
  TC_CHECK(w.defined() && w.dim() == 1, "prelu: weight must be 1-d, got ",
           w.defined() ? shape_str(w.sizes()) : std::string("undefined"));
  Tensor slope = w;
  if (w.numel() != 1) {
    TC_CHECK(x.dim() >= 2 && x.size(1) == w.numel(), "prelu: weight has ", w.numel(),
             " parameters but the input has ", x.dim() >= 2 ? x.size(1) : 1,
             " channels (input of size ", shape_str(x.sizes()), ")");
    Shape view(size_t(x.dim()), 1);
    view[1] = w.numel();
    slope = reshape(w, view);
  }
  return where(gt(x, s(0, x)), x, mul(x, slope));
}
// Negative branch through expm1(min(x, 0)) so the unused branch never overflows (0 * inf).
Tensor elu(const Tensor& x, double alpha) {
  return where(gt(x, s(0, x)), x, mul(expm1(minimum(x, s(0, x))), alpha));
}
Tensor selu(const Tensor& x) {
  constexpr double kAlpha = 1.6732632423543772848170429916717,
                   kScale = 1.0507009873554804934193349852946;
  return mul(elu(x, kAlpha), kScale);
}
Tensor celu(const Tensor& x, double alpha) {
  TC_CHECK(alpha != 0, "celu: alpha must not be 0");
  return where(gt(x, s(0, x)), x, mul(expm1(div(minimum(x, s(0, x)), alpha)), alpha));
}
Tensor hardtanh(const Tensor& x, double lo, double hi) {
  TC_CHECK(lo <= hi, "hardtanh: min_val (", lo, ") cannot be greater than max_val (", hi, ")");
  return clamp(x, Scalar(lo), Scalar(hi));
}
Tensor hardsigmoid(const Tensor& x) {
  return div(clamp(add(x, 3.0), Scalar(0.0), Scalar(6.0)), 6.0);
}
Tensor hardswish(const Tensor& x) { return mul(x, hardsigmoid(x)); }
Tensor softplus(const Tensor& x, double beta, double threshold) {
  // log1p(exp(beta x)) / beta in the stable form max(z, 0) + log1p(exp(-|z|)); linear above
  // threshold.
  Tensor z = mul(x, beta);
  Tensor soft = div(add(tc::relu(z), log1p(exp(neg(abs(z))))), beta);
  return where(gt(z, s(threshold, z)), x, soft);
}
Tensor mish(const Tensor& x) { return mul(x, tanh(softplus(x))); }
Tensor softsign(const Tensor& x) { return div(x, add(abs(x), 1.0)); }
Tensor tanhshrink(const Tensor& x) { return sub(x, tanh(x)); }
Tensor threshold(const Tensor& x, double th, double value) {
  return where(gt(x, s(th, x)), x, full_like(x, value));
}
Tensor hardshrink(const Tensor& x, double lambd) {
  return where(gt(abs(x), s(lambd, x)), x, zeros_like(x));
}
Tensor softshrink(const Tensor& x, double lambd) {
  TC_CHECK(lambd >= 0, "softshrink: lambda must be non-negative, got ", lambd);
  return sub(x, clamp(x, Scalar(-lambd), Scalar(lambd)));
}
// -softplus(-x) in the stable form min(x, 0) - log1p(exp(-|x|)).
Tensor logsigmoid(const Tensor& x) { return sub(minimum(x, s(0, x)), log1p(exp(neg(abs(x))))); }

}  // namespace tc::nn::functional
