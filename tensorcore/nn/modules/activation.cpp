#include "tensorcore/nn/modules/activation.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {

using namespace detail;

// ---- Activations ----
Tensor ReLUImpl::forward(const Tensor& x) { return tc::relu(x); }

GELUImpl::GELUImpl(std::string a) : Module("GELU"), approximate(std::move(a)) {
  TC_CHECK(approximate == "none" || approximate == "tanh",
           "GELU: approximate must be 'none' or 'tanh', got '", approximate, "'");
}

Tensor GELUImpl::forward(const Tensor& x) { return functional::gelu(x, approximate); }

Tensor SiLUImpl::forward(const Tensor& x) { return functional::silu(x); }

Tensor TanhImpl::forward(const Tensor& x) { return tc::tanh(x); }

Tensor SigmoidImpl::forward(const Tensor& x) { return tc::sigmoid(x); }

Tensor SoftmaxImpl::forward(const Tensor& x) { return functional::softmax(x, dim); }

void SoftmaxImpl::pretty_print(std::ostream& os) const { os << "Softmax(dim=" << dim << ")"; }

Tensor LogSoftmaxImpl::forward(const Tensor& x) { return functional::log_softmax(x, dim); }

void LogSoftmaxImpl::pretty_print(std::ostream& os) const { os << "LogSoftmax(dim=" << dim << ")"; }

// ---- Softmax2d / ChannelShuffle ----
Tensor Softmax2dImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 3 || x.dim() == 4,
           "Softmax2d: expected a 3-d or 4-d input, but got input of size ", shape_str(x.sizes()));
  return functional::softmax(x, -3);
}

ModulePtr Softmax2dImpl::clone() const {
  return with_state_of(std::make_shared<Softmax2dImpl>(), *this);
}

SoftminImpl::SoftminImpl(int64_t d) : Module("Softmin"), dim(d) {}

Tensor SoftminImpl::forward(const Tensor& x) { return functional::softmax(neg(x), dim); }

ModulePtr SoftminImpl::clone() const {
  return with_state_of(std::make_shared<SoftminImpl>(dim), *this);
}

GLUImpl::GLUImpl(int64_t d) : Module("GLU"), dim(d) {}

Tensor GLUImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() > 0, "GLU: expected an input with at least 1 dim");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  TC_CHECK(d >= 0 && d < x.dim() && x.size(d) % 2 == 0, "GLU: dim ", dim, " of input of size ",
           shape_str(x.sizes()), " must exist and have an even size");
  const int64_t h = x.size(d) / 2;
  return mul(narrow(x, d, 0, h), sigmoid(narrow(x, d, h, h)));
}

ModulePtr GLUImpl::clone() const { return with_state_of(std::make_shared<GLUImpl>(dim), *this); }

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
  check_prelu_options(n);
  weight = register_parameter("weight", full({n}, init_value));
}

TC_CLONE(PReLU, num_parameters, init)
#undef TC_CLONE

ModulePtr ReLUImpl::clone() const { return with_state_of(std::make_shared<ReLUImpl>(), *this); }

ModulePtr GELUImpl::clone() const {
  return with_state_of(std::make_shared<GELUImpl>(approximate), *this);
}

ModulePtr SiLUImpl::clone() const { return with_state_of(std::make_shared<SiLUImpl>(), *this); }

ModulePtr TanhImpl::clone() const { return with_state_of(std::make_shared<TanhImpl>(), *this); }

ModulePtr SigmoidImpl::clone() const {
  return with_state_of(std::make_shared<SigmoidImpl>(), *this);
}

ModulePtr SoftmaxImpl::clone() const {
  return with_state_of(std::make_shared<SoftmaxImpl>(dim), *this);
}

ModulePtr LogSoftmaxImpl::clone() const {
  return with_state_of(std::make_shared<LogSoftmaxImpl>(dim), *this);
}

}  // namespace tc::nn
