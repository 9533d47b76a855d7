#include "tensorcore/nn/modules/dropout.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {

using namespace detail;

// ---- Dropout / Embedding ----
DropoutImpl::DropoutImpl(double p) : Module("Dropout"), p(p) {
  TC_CHECK(p >= 0 && p <= 1, "Dropout: p must be in [0, 1], got ", p);
}

Tensor DropoutImpl::forward(const Tensor& x) { return functional::dropout(x, p, training_); }

void DropoutImpl::pretty_print(std::ostream& os) const { os << "Dropout(p=" << p << ")"; }

// ---- Dropout variants ----
DropoutVariantImpl::DropoutVariantImpl(std::string type, double p) : Module(std::move(type)), p(p) {
  TC_CHECK(p >= 0 && p <= 1, name(), ": p must be in [0, 1], got ", p);
}

Tensor DropoutVariantImpl::forward(const Tensor& x) {
  const std::string& n = name();
  if (n == "AlphaDropout") return functional::alpha_dropout(x, p, training_);
  if (n == "FeatureAlphaDropout") return functional::feature_alpha_dropout(x, p, training_);
  // Channel dropout: [N, C, *spatial] or unbatched [C, *spatial] (masks per (N, C) map).
  const int64_t spatial = n == "Dropout1d" ? 1 : 3;
  TC_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, n, ": expected a ", spatial + 1,
           "-d or ", spatial + 2, "-d input, but got input of size ", shape_str(x.sizes()));
  if (x.dim() == spatial + 2) return functional::feature_dropout(x, p, training_);
  return squeeze(functional::feature_dropout(unsqueeze(x, 0), p, training_), 0);
}

void DropoutVariantImpl::pretty_print(std::ostream& os) const { os << name() << "(p=" << p << ")"; }

ModulePtr DropoutVariantImpl::clone() const {
  const std::string& n = name();
  if (n == "Dropout1d") return with_state_of(std::make_shared<Dropout1dImpl>(p), *this);
  if (n == "Dropout3d") return with_state_of(std::make_shared<Dropout3dImpl>(p), *this);
  if (n == "AlphaDropout") return with_state_of(std::make_shared<AlphaDropoutImpl>(p), *this);
  return with_state_of(std::make_shared<FeatureAlphaDropoutImpl>(p), *this);
}

Dropout2dImpl::Dropout2dImpl(double p) : Module("Dropout2d"), p(p) {
  TC_CHECK(p >= 0 && p <= 1, "Dropout2d: p must be in [0, 1], got ", p);
}

Tensor Dropout2dImpl::forward(const Tensor& x) {
  return functional::feature_dropout(x, p, training_);
}

ModulePtr Dropout2dImpl::clone() const {
  return with_state_of(std::make_shared<Dropout2dImpl>(p), *this);
}

ModulePtr DropoutImpl::clone() const {
  return with_state_of(std::make_shared<DropoutImpl>(p), *this);
}

}  // namespace tc::nn
