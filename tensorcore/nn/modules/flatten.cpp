#include "tensorcore/nn/modules/flatten.h"

#include <ostream>

#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {

using namespace detail;

FlattenImpl::FlattenImpl(int64_t s, int64_t e) : Module("Flatten"), start_dim(s), end_dim(e) {}

Tensor FlattenImpl::forward(const Tensor& x) { return flatten(x, start_dim, end_dim); }

void FlattenImpl::pretty_print(std::ostream& os) const {
  os << "Flatten(start_dim=" << start_dim << ", end_dim=" << end_dim << ")";
}

UnflattenImpl::UnflattenImpl(int64_t d, IntList s)
    : Module("Unflatten"), dim(d), sizes(std::move(s)) {
  TC_CHECK(!sizes.empty(), "Unflatten: sizes must not be empty");
}

Tensor UnflattenImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() > 0, "Unflatten: expected an input with at least 1 dim");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  TC_CHECK(d >= 0 && d < x.dim(), "Unflatten: dim ", dim, " is out of range for input of size ",
           shape_str(x.sizes()));
  int64_t prod = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1)
      infer = int64_t(i);
    else
      prod *= sizes[i];
  }
  TC_CHECK(infer >= 0 ? (prod > 0 && x.size(d) % prod == 0) : prod == x.size(d),
           "Unflatten: sizes ", shape_str(sizes), " do not multiply to dim ", d,
           " of input of size ", shape_str(x.sizes()));
  Shape out(x.sizes().begin(), x.sizes().begin() + d);
  for (int64_t s : sizes) out.push_back(s == -1 ? x.size(d) / prod : s);
  out.insert(out.end(), x.sizes().begin() + d + 1, x.sizes().end());
  return reshape(x, out);
}

ModulePtr UnflattenImpl::clone() const {
  return with_state_of(std::make_shared<UnflattenImpl>(dim, sizes), *this);
}

ModulePtr FlattenImpl::clone() const {
  return with_state_of(std::make_shared<FlattenImpl>(start_dim, end_dim), *this);
}

}  // namespace tc::nn
