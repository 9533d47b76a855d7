#include "tensorcore/nn/modules/activation.h"

#include <cmath>

#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace functional {
namespace {
Tensor s(double v, const Tensor& like) { return scalar_tensor(v, like.dtype()); }
}  // namespace

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
  Tensor soft = div(add(relu(z), log1p(exp(neg(abs(z))))), beta);
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

}  // namespace functional

#define TC_CLONE(Name, ...)                             \
  ModulePtr Name##Impl::clone() const {                 \
    auto c = std::make_shared<Name##Impl>(__VA_ARGS__); \
    c->copy_state_from(*this);                          \
    return c;                                           \
  }

ReLU6Impl::ReLU6Impl() : Module("ReLU6") {}
TC_CLONE(ReLU6)
LeakyReLUImpl::LeakyReLUImpl(double ns) : Module("LeakyReLU"), negative_slope(ns) {}
TC_CLONE(LeakyReLU, negative_slope)
ELUImpl::ELUImpl(double a) : Module("ELU"), alpha(a) {}
TC_CLONE(ELU, alpha)
SELUImpl::SELUImpl() : Module("SELU") {}
TC_CLONE(SELU)
CELUImpl::CELUImpl(double a) : Module("CELU"), alpha(a) {}
TC_CLONE(CELU, alpha)
HardtanhImpl::HardtanhImpl(double lo, double hi) : Module("Hardtanh"), min_val(lo), max_val(hi) {
  TC_CHECK(lo <= hi, "Hardtanh: min_val (", lo, ") cannot be greater than max_val (", hi, ")");
}
TC_CLONE(Hardtanh, min_val, max_val)
HardswishImpl::HardswishImpl() : Module("Hardswish") {}
TC_CLONE(Hardswish)
HardsigmoidImpl::HardsigmoidImpl() : Module("Hardsigmoid") {}
TC_CLONE(Hardsigmoid)
MishImpl::MishImpl() : Module("Mish") {}
TC_CLONE(Mish)
SoftplusImpl::SoftplusImpl(double b, double t) : Module("Softplus"), beta(b), threshold(t) {}
TC_CLONE(Softplus, beta, threshold)
SoftsignImpl::SoftsignImpl() : Module("Softsign") {}
TC_CLONE(Softsign)
TanhshrinkImpl::TanhshrinkImpl() : Module("Tanhshrink") {}
TC_CLONE(Tanhshrink)
ThresholdImpl::ThresholdImpl(double t, double v) : Module("Threshold"), threshold(t), value(v) {}
TC_CLONE(Threshold, threshold, value)
IdentityImpl::IdentityImpl() : Module("Identity") {}
TC_CLONE(Identity)
HardshrinkImpl::HardshrinkImpl(double l) : Module("Hardshrink"), lambd(l) {}
TC_CLONE(Hardshrink, lambd)
SoftshrinkImpl::SoftshrinkImpl(double l) : Module("Softshrink"), lambd(l) {
  TC_CHECK(l >= 0, "Softshrink: lambda must be non-negative, got ", l);
}
TC_CLONE(Softshrink, lambd)
LogSigmoidImpl::LogSigmoidImpl() : Module("LogSigmoid") {}
TC_CLONE(LogSigmoid)

PReLUImpl::PReLUImpl(int64_t n, double init_value)
    : Module("PReLU"), num_parameters(n), init(init_value) {
  TC_CHECK(n > 0, "PReLU: num_parameters must be positive, got ", n);
  weight = register_parameter("weight", full({n}, init_value));
}
TC_CLONE(PReLU, num_parameters, init)
#undef TC_CLONE

}  // namespace tc::nn
