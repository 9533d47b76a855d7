#include "tensorcore/nn/modules/padding.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"

namespace tc::nn {

using namespace detail;

// ---- Padding ----
PadNdImpl::PadNdImpl(std::string type, int n, IntList p, std::string m, double v)
    : Module(std::move(type)), spatial(n), padding(std::move(p)), mode(std::move(m)), value(v) {
  padding = expand_padding(name(), padding, n);
}

Tensor PadNdImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2, name(), ": expected a ", spatial + 1,
           "-d or ", spatial + 2, "-d input, but got input of size ", shape_str(x.sizes()));
  return functional::pad(x, padding, mode, value);
}

void PadNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << shape_str(padding);
  if (mode == "constant") os << ", value=" << value;
  os << ")";
}

ModulePtr PadNdImpl::clone() const {
  // The concrete type, so a typed holder's clone() casts back.
  const std::string& n = name();
  if (n == "ReflectionPad1d")
    return with_state_of(std::make_shared<ReflectionPad1dImpl>(padding), *this);
  if (n == "ReflectionPad3d")
    return with_state_of(std::make_shared<ReflectionPad3dImpl>(padding), *this);
  if (n == "ReplicationPad1d")
    return with_state_of(std::make_shared<ReplicationPad1dImpl>(padding), *this);
  if (n == "ReplicationPad3d")
    return with_state_of(std::make_shared<ReplicationPad3dImpl>(padding), *this);
  if (n == "ConstantPad1d")
    return with_state_of(std::make_shared<ConstantPad1dImpl>(padding, value), *this);
  if (n == "ConstantPad3d")
    return with_state_of(std::make_shared<ConstantPad3dImpl>(padding, value), *this);
  return with_state_of(std::make_shared<PadNdImpl>(n, spatial, padding, mode, value), *this);
}

Pad2dImpl::Pad2dImpl(std::string type, IntList p, std::string m, double v)
    : Module(std::move(type)), padding(std::move(p)), mode(std::move(m)), value(v) {
  padding = expand_padding(name(), padding, 2);
}

Tensor Pad2dImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 3 || x.dim() == 4, name(), ": expected a 3-d or 4-d input, got ",
           shape_str(x.sizes()));
  return functional::pad(x, padding, mode, value);
}

ModulePtr Pad2dImpl::clone() const {
  // The concrete type, so a typed holder's clone() casts back.
  const std::string& n = name();
  if (n == "ZeroPad2d") return with_state_of(std::make_shared<ZeroPad2dImpl>(padding), *this);
  if (n == "ReflectionPad2d")
    return with_state_of(std::make_shared<ReflectionPad2dImpl>(padding), *this);
  if (n == "ReplicationPad2d")
    return with_state_of(std::make_shared<ReplicationPad2dImpl>(padding), *this);
  if (n == "ConstantPad2d")
    return with_state_of(std::make_shared<ConstantPad2dImpl>(padding, value), *this);
  return with_state_of(std::make_shared<Pad2dImpl>(n, padding, mode, value), *this);
}

}  // namespace tc::nn
