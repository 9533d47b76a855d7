#include "tensorcore/nn/modules/linear.h"

#include <cmath>
#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn {

using namespace detail;

// ---- Linear ----
LinearImpl::LinearImpl(int64_t in, int64_t out, bool has_bias)
    : Module("Linear"), in_features(in), out_features(out) {
  TC_CHECK(in >= 0 && out >= 0, "Linear: in_features and out_features must be >= 0, got ", in,
           " and ", out);
  weight = register_parameter("weight", empty({out, in}));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() { reset_linear_parameters(weight, bias); }

Tensor LinearImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 1 && x.size(-1) == in_features, "Linear: expected input with last dimension ",
           in_features, " (in_features), but got input of size ", shape_str(x.sizes()));
  return functional::linear(x, weight, bias);
}

void LinearImpl::pretty_print(std::ostream& os) const {
  os << "Linear(in_features=" << in_features << ", out_features=" << out_features
     << ", bias=" << (bias.defined() ? "true" : "false") << ")";
}

// ---- Bilinear ----
BilinearImpl::BilinearImpl(int64_t in1, int64_t in2, int64_t out, bool has_bias)
    : Module("Bilinear"), in1_features(in1), in2_features(in2), out_features(out) {
  TC_CHECK(in1 > 0 && in2 > 0 && out > 0,
           "Bilinear: in1_features, in2_features and out_features must be positive, "
           "got ",
           in1, ", ", in2, ", ", out);
  weight = register_parameter("weight", empty({out, in1, in2}));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = 1.0 / std::sqrt(double(in1_features));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& x1, const Tensor& x2) {
  TC_CHECK(x1.dim() >= 1 && x1.size(-1) == in1_features && x2.dim() == x1.dim() &&
               x2.size(-1) == in2_features &&
               Shape(x1.sizes().begin(), x1.sizes().end() - 1) ==
                   Shape(x2.sizes().begin(), x2.sizes().end() - 1),
           "Bilinear: expected inputs [*, ", in1_features, "] and [*, ", in2_features,
           "] with the same leading dims, but got ", shape_str(x1.sizes()), " and ",
           shape_str(x2.sizes()));
  return functional::bilinear(x1, x2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& os) const {
  os << "Bilinear(in1_features=" << in1_features << ", in2_features=" << in2_features
     << ", out_features=" << out_features << ", bias=" << (bias.defined() ? "true" : "false")
     << ")";
}

ModulePtr BilinearImpl::clone() const {
  return with_state_of(
      std::make_shared<BilinearImpl>(in1_features, in2_features, out_features, bias.defined()),
      *this);
}

ModulePtr LinearImpl::clone() const {
  return with_state_of(std::make_shared<LinearImpl>(in_features, out_features, bias.defined()),
                       *this);
}

}  // namespace tc::nn
