// tc::nn::functional's activations: fused kernels (nnfused) where they pay, core-op composites
// otherwise, so autograd follows from the core ops.
#include <cmath>
#include <limits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nnfused/activation.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {
namespace {

Tensor s(double v, const Tensor& like) { return scalar_tensor(v, like.dtype()); }

// inplace=True for an activation computed out of place: the result is written into x. When
// autograd records, the formula runs on a clone, so the values it saves for backward are not
// the ones the copy overwrites (torch saves the original likewise).
template <typename Fn>
Tensor write_back(const Tensor& x, bool inplace, Fn&& fn) {
  if (!inplace) return fn(x);
  const bool records = x.requires_grad() && autograd::grad_enabled();
  Tensor out = fn(records ? clone(x) : x);
  Tensor dst = x;
  copy_(dst, out);
  return dst;
}

// The fused kernels (nnfused) take float32/float64 CPU tensors of at least one dim; anything else
// (CUDA, reduced precision, 0-d) runs the tensor-op formulas.
bool fusable(const Tensor& x) {
  return (x.dtype() == DType::Float32 || x.dtype() == DType::Float64) && x.is_cpu() && x.dim() > 0;
}

Tensor softmax_any(const Tensor& x, int64_t dim, bool log) {
  if (fusable(x)) return log ? nnfused::log_softmax(x, dim) : nnfused::softmax(x, dim);
  if (x.dim() == 0) return log ? sub(x, x) : exp(sub(x, x));  // 1 (log: 0), gradient 0
  const int64_t d = wrap_dim(dim, x.dim(), log ? "log_softmax" : "softmax");
  if (log) return sub(x, logsumexp(x, {d}, true));
  Tensor e = exp(sub(x, amax(x, {d}, true).detach()));
  return div(e, sum(e, {d}, true));
}

}  // namespace

Tensor relu(const Tensor& x, bool inplace) {
  if (!inplace) return tc::relu(x);
  Tensor dst = x;
  return tc::relu_(dst);
}
Tensor gelu(const Tensor& x, const std::string& approximate) {
  TC_CHECK(approximate == "none" || approximate == "tanh",
           "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  if (fusable(x)) return nnfused::gelu(x, approximate == "tanh");
  if (approximate == "none") return mul(mul(x, 0.5), add(erf(mul(x, M_SQRT1_2)), 1.0));
  Tensor inner = mul(add(x, mul(mul(mul(x, x), x), 0.044715)), std::sqrt(2.0 / M_PI));
  return mul(mul(x, 0.5), add(tanh(inner), 1.0));
}
Tensor silu(const Tensor& x, bool inplace) {
  return write_back(x, inplace, [](const Tensor& v) { return mul(v, sigmoid(v)); });
}

int64_t legacy_softmax_dim(int64_t ndim) { return (ndim == 0 || ndim == 1 || ndim == 3) ? 0 : 1; }

// autocast's fp32_set_opt_dtype: an explicit dtype leaves the input alone (it is converted below).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  TC_AUTOCAST("softmax", softmax, x, dim, dtype);
  return softmax_any(dtype ? to_dtype(x, *dtype) : x, dim, false);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  TC_AUTOCAST("log_softmax", log_softmax, x, dim, dtype);
  return softmax_any(dtype ? to_dtype(x, *dtype) : x, dim, true);
}
Tensor softmin(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return softmax(neg(dtype ? to_dtype(x, *dtype) : x), dim);
}

Tensor gumbel_softmax(const Tensor& logits, double tau, bool hard, double /*eps*/, int64_t dim) {
  TC_CHECK_TYPE(logits.defined() && logits.is_floating_point(),
                "gumbel_softmax: expected floating point logits, got ",
                logits.defined() ? dtype_name(logits.dtype()) : "None");
  Tensor noise = empty_like(logits);
  {
    autograd::GradModeGuard no_grad(false);
    exponential_(noise);
  }
  // -log(E) with E ~ Exp(1) is Gumbel(0, 1).
  Tensor y_soft = softmax(div(add(logits, neg(log(noise))), tau), dim);
  if (!hard) return y_soft;
  const int64_t d = wrap_dim(dim, std::max<int64_t>(logits.dim(), 1), "gumbel_softmax");
  Tensor index = argmax(y_soft, d, true);
  Tensor y_hard = scatter(zeros_like(logits), d, index, Scalar(1.0));
  // Straight-through: the value of y_hard, the gradient of y_soft.
  return add(sub(y_hard, y_soft.detach()), y_soft);
}

Tensor glu(const Tensor& x, int64_t dim) {
  TC_CHECK(x.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(dim, x.dim(), "glu");
  TC_CHECK(x.size(d) % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ",
           x.size(d));
  const int64_t h = x.size(d) / 2;
  return mul(narrow(x, d, 0, h), sigmoid(narrow(x, d, h, h)));
}
Tensor relu6(const Tensor& x, bool inplace) { return hardtanh(x, 0.0, 6.0, inplace); }
Tensor leaky_relu(const Tensor& x, double slope, bool inplace) {
  return write_back(x, inplace,
                    [&](const Tensor& v) { return where(gt(v, s(0, v)), v, mul(v, slope)); });
}
Tensor prelu(const Tensor& x, const Tensor& w) {
  TC_AUTOCAST("prelu", prelu, x, w);
  TC_CHECK(x.defined() && w.defined(), "prelu: input and weight must be tensors");
  TC_CHECK(w.dim() <= 1, "prelu: weight must be a scalar or 1-d, got ", shape_str(w.sizes()));
  Tensor slope = nnfused::prelu_slope(x, w);
  // CPU autocast hands a bfloat16/float16 input with the float32 weight; widening the input gives
  // the promoted float32 result the where-based path would, through the native kernels (4.6x faster
  // in ConvTasNet under autocast).
  const bool reduced = x.dtype() == DType::BFloat16 || x.dtype() == DType::Float16;
  const Tensor input =
      reduced && x.is_cpu() && w.dtype() == DType::Float32 ? to_dtype(x, w.dtype()) : x;
  if (fusable(input) && w.dtype() == input.dtype() && w.is_cpu()) return nnfused::prelu(input, w);
  return where(gt(input, s(0, input)), input, mul(slope, input));
}
Tensor rrelu(const Tensor& x, double lower, double upper, bool training, bool inplace) {
  TC_CHECK(lower <= upper, "rrelu: lower bound (", lower,
           ") should be less than or equal to the upper bound (", upper, ")");
  if (!training) return leaky_relu(x, (lower + upper) / 2, inplace);
  TC_CHECK_TYPE(x.is_floating_point(), "rrelu: expected a floating point input, got ",
                dtype_name(x.dtype()));
  Tensor slope = empty_like(x);
  {
    autograd::GradModeGuard no_grad(false);
    uniform_(slope, lower, upper);
  }
  return write_back(x, inplace,
                    [&](const Tensor& v) { return where(ge(v, s(0, v)), v, mul(v, slope)); });
}
// Negative branch through expm1(clamp(x, max=0)) so the unused branch never overflows (0 * inf);
// clamp passes the gradient at x == 0, so d/dx there is alpha as in torch.
Tensor elu(const Tensor& x, double alpha, bool inplace) {
  return write_back(x, inplace, [&](const Tensor& v) {
    return where(gt(v, s(0, v)), v, mul(expm1(clamp(v, std::nullopt, Scalar(0.0))), alpha));
  });
}
Tensor selu(const Tensor& x, bool inplace) {
  constexpr double kAlpha = 1.6732632423543772848170429916717,
                   kScale = 1.0507009873554804934193349852946;
  return write_back(x, inplace, [&](const Tensor& v) { return mul(elu(v, kAlpha), kScale); });
}
Tensor celu(const Tensor& x, double alpha, bool inplace) {
  TC_CHECK(alpha != 0, "celu: alpha must not be 0");
  return write_back(x, inplace, [&](const Tensor& v) {
    return where(gt(v, s(0, v)), v,
                 mul(expm1(div(clamp(v, std::nullopt, Scalar(0.0)), alpha)), alpha));
  });
}
Tensor hardtanh(const Tensor& x, double lo, double hi, bool inplace) {
  TC_CHECK(lo <= hi, "hardtanh: min_val (", lo, ") cannot be greater than max_val (", hi, ")");
  if (!inplace) return clamp(x, Scalar(lo), Scalar(hi));
  Tensor dst = x;
  return clamp_(dst, Scalar(lo), Scalar(hi));
}
Tensor hardsigmoid(const Tensor& x, bool inplace) {
  return write_back(x, inplace, [](const Tensor& v) {
    return div(clamp(add(v, 3.0), Scalar(0.0), Scalar(6.0)), 6.0);
  });
}
Tensor hardswish(const Tensor& x, bool inplace) {
  return write_back(x, inplace, [](const Tensor& v) { return mul(v, hardsigmoid(v)); });
}
Tensor softplus(const Tensor& x, double beta, double threshold) {
  TC_AUTOCAST("softplus", softplus, x, beta, threshold);
  // log1p(exp(beta x)) / beta in the stable form max(z, 0) + log1p(exp(-|z|)), with max(z, 0)
  // written (z + |z|) / 2 (exact) so that d/dz at 0 is 1/2 as in torch; linear above threshold.
  Tensor z = beta != 1 ? mul(x, beta) : x;
  Tensor az = abs(z);
  Tensor soft = add(mul(add(z, az), 0.5), log1p(exp(neg(az))));
  if (beta != 1) soft = div(soft, beta);
  return where(gt(z, s(threshold, z)), x, soft);
}
Tensor mish(const Tensor& x, bool inplace) {
  return write_back(x, inplace, [](const Tensor& v) { return mul(v, tanh(softplus(v))); });
}
Tensor softsign(const Tensor& x) { return div(x, add(abs(x), 1.0)); }
Tensor tanhshrink(const Tensor& x) { return sub(x, tanh(x)); }
Tensor threshold(const Tensor& x, double th, double value, bool inplace) {
  return write_back(
      x, inplace, [&](const Tensor& v) { return where(gt(v, s(th, v)), v, full_like(v, value)); });
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
