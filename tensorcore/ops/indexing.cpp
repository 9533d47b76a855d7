// Python-style indexing (TensorIndex lists): basic indices become views (select / slice /
// unsqueeze), tensor indices are then applied at once with advanced_index / advanced_index_put_.
#include "tensorcore/ops/indexing.h"

#include <limits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/shape.h"

namespace tc {

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == DType::Bool || t.dtype() == DType::UInt8; }

struct Parsed {
  Tensor view;     // after basic indexing (a view of self)
  TensorList adv;  // one entry per dim of `view` (masks cover several); undefined = none
  bool has_adv = false;
};

Tensor bool_index(bool b, Device dev) {
  return b ? zeros({1}, TensorOptions(DType::Int64).device(dev))
           : empty({0}, TensorOptions(DType::Int64).device(dev));
}

Parsed apply_indices(const Tensor& self, const IndexList& indices) {
  int64_t consumed = 0;
  bool ellipsis = false;
  for (const TensorIndex& ix : indices) {
    const auto& v = ix.value();
    if (std::holds_alternative<int64_t>(v) || std::holds_alternative<Slice>(v)) {
      ++consumed;
    } else if (const Tensor* t = std::get_if<Tensor>(&v)) {
      TC_CHECK_AS(IndexError, t->defined(), "index: undefined tensor index");
      consumed += is_mask(*t) ? t->dim() : 1;
    } else if (std::holds_alternative<EllipsisIndex>(v)) {
      TC_CHECK_INDEX(!ellipsis, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
  }
  TC_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Parsed p;
  Tensor r = self;
  int64_t dim = 0;
  for (const TensorIndex& ix : indices) {
    const auto& v = ix.value();
    if (const int64_t* i = std::get_if<int64_t>(&v)) {
      TC_CHECK_INDEX(r.dim() > 0,
                     "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                     "Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
      r = select(r, dim, *i);
    } else if (const Slice* s = std::get_if<Slice>(&v)) {
      int64_t step = s->step.value_or(1);
      TC_CHECK(step > 0, "step must be greater than zero");
      r = slice(r, dim, s->start.value_or(0), s->stop.value_or(std::numeric_limits<int64_t>::max()),
                step);
      p.adv.emplace_back();
      ++dim;
    } else if (std::holds_alternative<NoneIndex>(v)) {
      r = unsqueeze(r, dim);
      p.adv.emplace_back();
      ++dim;
    } else if (std::holds_alternative<EllipsisIndex>(v)) {
      for (int64_t k = 0; k < self.dim() - consumed; ++k) p.adv.emplace_back();
      dim += self.dim() - consumed;
    } else if (const bool* b = std::get_if<bool>(&v)) {
      r = unsqueeze(r, dim);
      p.adv.push_back(bool_index(*b, self.device()));
      p.has_adv = true;
      ++dim;
    } else {
      const Tensor& t = std::get<Tensor>(v);
      if (t.dim() == 0 && is_mask(t)) {  // like a Python bool
        r = unsqueeze(r, dim);
        p.adv.push_back(bool_index(t.item<bool>(), self.device()));
        ++dim;
      } else {
        p.adv.push_back(t);
        dim += is_mask(t) ? t.dim() : 1;
      }
      p.has_adv = true;
    }
  }
  if (r.is_same(self) && !p.has_adv) r = view(self, self.sizes());  // x[...] / x[()]: an alias
  p.view = r;
  return p;
}

// value with extra leading size-1 dims dropped, checked against the target shape.
void check_value_shape(const Tensor& value, const Shape& shape) {
  int64_t vd = value.dim(), sd = int64_t(shape.size());
  bool ok = true;
  for (int64_t i = 0; i < vd && ok; ++i) {
    int64_t s = value.sizes()[vd - 1 - i];
    int64_t t = i < sd ? shape[sd - 1 - i] : 1;
    ok = s == t || s == 1;
  }
  TC_CHECK(ok, "shape mismatch: value tensor of shape ", shape_str(value.sizes()),
           " cannot be broadcast to indexing result of shape ", shape_str(shape));
}

// Writes self[indices] (+)= value without autograd.
void index_put_raw(const Tensor& self, const IndexList& indices, const Tensor& value,
                   bool accumulate) {
  autograd::NoGradGuard ng;
  Parsed p = apply_indices(self.detach(), indices);
  Tensor v = value.detach();
  if (p.has_adv) {
    Tensor view = p.view;
    advanced_index_put_(view, p.adv, v, accumulate);
    return;
  }
  check_value_shape(v, p.view.sizes());
  while (v.dim() > p.view.dim()) v = squeeze(v, 0);
  Tensor view = p.view;
  if (accumulate)
    add_(view, v);
  else
    copy_(view, v);
}

}  // namespace

Tensor index(const Tensor& self, const IndexList& indices) {
  Parsed p = apply_indices(self, indices);
  return p.has_adv ? advanced_index(p.view, p.adv) : p.view;
}

Tensor& index_put_(Tensor& self, const IndexList& indices, const Tensor& value, bool accumulate) {
  autograd::check_inplace(self, "index_put_");
  index_put_raw(self, indices, value, accumulate);
  self.bump_version();
  if (autograd::needs_grad({self, value})) {
    IndexList idx = indices;
    autograd::record("IndexPutBackward0", {self, value}, {self}, {},
                     [idx, accumulate](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor gs = g[0];
                       if (!accumulate) {
                         Tensor mask =
                             ones(g[0].sizes(), TensorOptions(g[0].dtype()).device(g[0].device()));
                         index_put_raw(mask, idx, scalar_tensor(0, g[0].dtype()), false);
                         gs = mul(g[0], mask);
                       }
                       return {gs, index(g[0], idx)};
                     });
  }
  return self;
}

Tensor& index_put_(Tensor& self, const IndexList& indices, const Scalar& value) {
  return index_put_(self, indices, scalar_tensor(value, self.dtype(), self.device()));
}

Tensor index_put(const Tensor& self, const IndexList& indices, const Tensor& value,
                 bool accumulate) {
  TC_AUTOCAST("index_put", index_put, self, indices, value, accumulate);
  Tensor out = clone(self);
  return index_put_(out, indices, value, accumulate);
}

}  // namespace tc
