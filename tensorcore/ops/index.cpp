// Index-based ops: index_select, gather, scatter*, index_add/copy/fill, advanced indexing
// (index / index_put), masked_*, nonzero, take. Every op turns its index tensor(s) into int64
// element offsets (index_offsets kernel, bounds-checked), restrides the data tensor so the indexed
// dims have stride 0, and runs the gather or scatter kernel through a TensorIter.
#include "tensorcore/ops/index.h"

#include <limits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index_kernels.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc {

TC_DEFINE_KERNEL(index_offsets, IndexOffsetsKernel);
TC_DEFINE_KERNEL(index_gather, IndexGatherKernel);
TC_DEFINE_KERNEL(index_scatter, IndexScatterKernel);
TC_DEFINE_KERNEL(masked_fill, MaskedFillKernel);
TC_DEFINE_KERNEL(nonzero, NonzeroKernel);
TC_DEFINE_KERNEL(tri, TriKernel);
TC_DEFINE_KERNEL(div_count, DivCountKernel);

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == DType::Bool || t.dtype() == DType::UInt8; }

TensorIterConfig iter_config(DType dt, const char* op) {
  TensorIterConfig cfg;
  cfg.promote_inputs = false;
  cfg.compute_dtype = dt;
  cfg.op_name = op;
  return cfg;
}

// int64, contiguous, with `shape` (index tensors are never differentiable).
Tensor as_long(const Tensor& idx, const Shape& shape) {
  Tensor t = idx.detach();
  if (t.dtype() != DType::Int64) t = to_dtype(t, DType::Int64);
  if (t.sizes() != shape) t = expand(t, shape);
  return contiguous(t);
}

Tensor offsets_for(const Tensor& index, int64_t size, int64_t stride, int64_t dim) {
  Tensor idx = as_long(index, index.sizes());
  Tensor out = empty(index.sizes(), TensorOptions(DType::Int64).device(index.device()));
  index_offsets_kernel.get(index.device().type)(out, {idx}, {size}, {stride}, {dim});
  return out;
}

// `self` seen with `shape`, its own strides, except stride 0 along `dim`.
Tensor restride(const Tensor& self, const Shape& shape, int64_t dim) {
  Shape st = self.strides();
  st[dim] = 0;
  return make_tensor(self.storage(), shape, st, self.storage_offset(), self.dtype());
}

void run_gather(const Tensor& out, const Tensor& src_view, const Tensor& offsets, const char* op) {
  if (out.numel() == 0) return;
  TensorIter iter(out, {src_view, offsets}, iter_config(out.dtype(), op));
  index_gather_kernel.get(out.device().type)(iter);
}

void run_scatter(const Tensor& dst_view, const Tensor& values, const Tensor& offsets,
                 ScatterMode mode, const char* op) {
  if (dst_view.numel() == 0) return;
  TensorIter iter(dst_view, {values, offsets}, iter_config(dst_view.dtype(), op));
  index_scatter_kernel.get(dst_view.device().type)(iter, mode);
}

void check_long_index(const Tensor& index, const char* op) {
  TC_CHECK_TYPE(index.dtype() == DType::Int64, op, "(): Expected dtype int64 for index, but got ",
                dtype_name(index.dtype()));
}

// ---- gather / scatter along a dim ----

void check_gather_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                         const char* op) {
  TC_CHECK(index.dim() == self.dim(), op,
           "(): Index tensor must have the same number of "
           "dimensions as ",
           src ? "self" : "input", " tensor (got ", index.dim(), " and ", self.dim(), ")");
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != dim)
      TC_CHECK(index.sizes()[d] <= self.sizes()[d], op, "(): Size does not match at dimension ", d,
               " expected index ", shape_str(index.sizes()), " to be smaller than self ",
               shape_str(self.sizes()), " apart from dimension ", dim);
    if (src)
      TC_CHECK(src->dim() == self.dim() && index.sizes()[d] <= src->sizes()[d], op,
               "(): Expected index ", shape_str(index.sizes()), " to be smaller than src ",
               shape_str(src->sizes()), " at dimension ", d);
  }
}

// Raw scatter into `self` (no autograd). src has self's dtype or is a 0-dim value.
void scatter_raw(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 ScatterMode mode, const char* op) {
  if (index.numel() == 0) return;
  Tensor s = src.detach();
  if (s.dtype() != self.dtype()) s = to_dtype(s, self.dtype());
  if (s.storage() == self.storage()) s = clone(s);
  Tensor sv = s.dim() == 0 && self.dim() != 0 ? expand(s, index.sizes())
                                              : make_tensor(s.storage(), index.sizes(), s.strides(),
                                                            s.storage_offset(), s.dtype());
  Tensor off = offsets_for(index, self.sizes()[dim], self.strides()[dim], dim);
  run_scatter(restride(self, index.sizes(), dim), sv, off, mode, op);
}

// Pads g with zeros at the end of each dim up to `shape` (gradient of a src larger than index).
Tensor pad_to(Tensor g, const Shape& shape) {
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (g.sizes()[d] == shape[d]) continue;
    Shape zs = g.sizes();
    zs[d] = shape[d] - zs[d];
    g = cat({g, zeros(zs, TensorOptions(g.dtype()).device(g.device()))}, d);
  }
  return g;
}

// The leading part of g that an index of `shape` reads (inverse of pad_to).
Tensor crop_to(Tensor g, const Shape& shape) {
  for (int64_t d = 0; d < g.dim(); ++d)
    if (g.sizes()[d] != shape[d]) g = narrow(g, d, 0, shape[d]);
  return g;
}

// 1 where no index scatters into self, 0 where one does (constant; for gradients).
Tensor untouched_mask(const Shape& shape, DType dt, Device dev, int64_t dim, const Tensor& index) {
  Tensor m = ones(shape, TensorOptions(dt).device(dev));
  scatter_raw(m, dim, index, scalar_tensor(0, dt, dev), ScatterMode::Assign, "scatter");
  return m;
}

// Like untouched_mask, along `dim` with a 1-d index (index_copy / index_fill).
Tensor untouched_index_mask(const Shape& shape, DType dt, Device dev, int64_t dim,
                            const Tensor& index) {
  Tensor m = ones(shape, TensorOptions(dt).device(dev));
  index_fill_(m, dim, index, 0);
  return m;
}

// ---- index_select-style (1-d index along dim) ----

void check_index_1d(const Tensor& index, const char* op) {
  TC_CHECK(index.dim() <= 1, op, "(): Index is supposed to be a vector (got ", index.dim(), "-d)");
  TC_CHECK_TYPE(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, op,
                "(): Expected dtype int32/int64 for index, but got ", dtype_name(index.dtype()));
}

// Offsets of a 1-d index along dim, viewed with `shape` (stride 1 on dim, 0 elsewhere).
Tensor offsets_1d(const Tensor& self, int64_t dim, const Tensor& index, const Shape& shape) {
  Tensor off =
      offsets_for(reshape(index.detach(), {-1}), self.sizes()[dim], self.strides()[dim], dim);
  Shape st(shape.size(), 0);
  st[dim] = 1;
  return make_tensor(off.storage(), shape, st, 0, DType::Int64);
}

void index_scatter_raw(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                       ScatterMode mode, const char* op) {
  int64_t n = index.numel();
  Shape shape = self.sizes();
  shape[dim] = n;
  Tensor s = source.detach();
  if (s.dtype() != self.dtype()) s = to_dtype(s, self.dtype());
  if (s.storage() == self.storage()) s = clone(s);
  if (s.dim() == 0 && !shape.empty()) s = expand(s, shape);
  TC_CHECK(s.sizes() == shape, op, "(): source tensor of shape ", shape_str(s.sizes()),
           " does not match the expected shape ", shape_str(shape), " (self ",
           shape_str(self.sizes()), " with dimension ", dim, " of size index.numel() = ", n, ")");
  if (n == 0) return;
  run_scatter(restride(self, shape, dim), s, offsets_1d(self, dim, index, shape), mode, op);
}

Tensor wrap_value(const Scalar& v, const Tensor& like) {
  return scalar_tensor(v, like.dtype(), like.device());
}

// ---- advanced indexing ----

struct AdvIndex {
  TensorList indices;  // masks expanded to their nonzero coordinates
  Shape result_shape;
  Tensor view;     // self restrided to result_shape (stride 0 on the indexed dims)
  Tensor offsets;  // int64 offsets viewed with result_shape
};

AdvIndex make_adv(const Tensor& self, const TensorList& in) {
  AdvIndex a;
  for (const Tensor& t : in) {
    if (!t.defined()) {
      a.indices.push_back(t);
      continue;
    }
    TC_CHECK_AS(IndexError, is_integral(t.dtype(), true),
                "tensors used as indices must be long, int, byte or bool tensors (got ",
                dtype_name(t.dtype()), ")");
    if (is_mask(t)) {
      int64_t start = int64_t(a.indices.size());
      for (int64_t j = 0; j < t.dim(); ++j)
        TC_CHECK_INDEX(start + j < self.dim() && t.sizes()[j] == self.sizes()[start + j],
                       "The shape of the mask ", shape_str(t.sizes()), " at index ", j,
                       " does not match the shape of the indexed tensor ", shape_str(self.sizes()),
                       " at index ", start + j);
      for (const Tensor& c : nonzero_tuple(t)) a.indices.push_back(c);
    } else {
      a.indices.push_back(t.detach());
    }
  }
  const TensorList& idx = a.indices;
  TC_CHECK_INDEX(int64_t(idx.size()) <= self.dim(), "too many indices for tensor of dimension ",
                 self.dim(), " (got ", idx.size(), ")");
  std::vector<int64_t> pos;
  Shape B;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (!idx[k].defined()) continue;
    if (pos.empty()) {
      B = idx[k].sizes();
    } else {
      try {
        B = broadcast_shapes(B, idx[k].sizes());
      } catch (const ValueError&) {
        std::string shapes;
        for (const Tensor& t : idx)
          if (t.defined()) shapes += (shapes.empty() ? "" : ", ") + shape_str(t.sizes());
        throw IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes " +
            shapes);
      }
    }
    pos.push_back(int64_t(k));
  }
  TC_CHECK_INDEX(!pos.empty(), "index: at least one index tensor is required");
  bool adjacent = pos.back() - pos.front() + 1 == int64_t(pos.size());
  Shape rs, rst, ost;
  Shape bst = contiguous_strides(B);
  auto is_indexed = [&](int64_t d) { return d < int64_t(idx.size()) && idx[d].defined(); };
  auto add_b = [&] {
    for (size_t j = 0; j < B.size(); ++j) {
      rs.push_back(B[j]);
      rst.push_back(0);
      ost.push_back(bst[j]);
    }
  };
  if (!adjacent) add_b();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (is_indexed(d)) {
      if (adjacent && d == pos.front()) add_b();
      continue;
    }
    rs.push_back(self.sizes()[d]);
    rst.push_back(self.strides()[d]);
    ost.push_back(0);
  }
  TensorList longs;
  Shape sizes, strides, dims;
  for (int64_t d : pos) {
    // As torch: a CPU index tensor may index a tensor on another device (moved there first).
    Tensor index = idx[d].device() == self.device() ? idx[d] : to_device(idx[d], self.device());
    longs.push_back(as_long(index, B));
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
    dims.push_back(d);
  }
  Tensor off = empty(B, TensorOptions(DType::Int64).device(self.device()));
  index_offsets_kernel.get(self.device().type)(off, longs, sizes, strides, dims);
  a.result_shape = rs;
  a.view = make_tensor(self.storage(), rs, rst, self.storage_offset(), self.dtype());
  a.offsets = make_tensor(off.storage(), rs, ost, 0, DType::Int64);
  return a;
}

// value broadcastable to `shape` (extra leading 1s allowed, as in torch).
Tensor broadcast_value(const Tensor& v, const Shape& shape) {
  Tensor x = v;
  while (x.dim() > int64_t(shape.size()) && x.sizes()[0] == 1) x = squeeze(x, 0);
  bool ok = x.dim() <= int64_t(shape.size());
  for (int64_t i = 0; ok && i < x.dim(); ++i) {
    int64_t s = x.sizes()[x.dim() - 1 - i], t = shape[shape.size() - 1 - size_t(i)];
    ok = s == t || s == 1;
  }
  TC_CHECK(ok, "shape mismatch: value tensor of shape ", shape_str(v.sizes()),
           " cannot be broadcast to indexing result of shape ", shape_str(shape));
  return x.sizes() == shape ? x : expand(x, shape);
}

void index_put_raw(const Tensor& self, const AdvIndex& a, const Tensor& values, bool accumulate) {
  Tensor v = values.detach();
  if (v.dtype() != self.dtype()) v = to_dtype(v, self.dtype());
  if (v.device() != self.device()) v = to_device(v, self.device());
  if (v.storage() == self.storage()) v = clone(v);
  v = broadcast_value(v, a.result_shape);
  run_scatter(a.view, v, a.offsets, accumulate ? ScatterMode::Add : ScatterMode::Assign,
              "index_put_");
}

Tensor reduce_identity(DType dt, const std::string& reduce) {
  Scalar v = 0;
  if (reduce == "prod") {
    v = 1;
  } else if (reduce == "amax" || reduce == "amin") {
    bool mx = reduce == "amax";
    v = dispatch_dtype<kAllReal>(dt, "scatter_reduce", [&](auto tag) -> Scalar {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>)
        return Scalar(!mx);
      else if constexpr (is_floating_v<T>)
        return Scalar(mx ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity());
      else
        return Scalar(
            int64_t(mx ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
    });
  }
  return scalar_tensor(v, dt);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  check_index_1d(index, "index_select");
  if (self.dim() == 0) {
    Tensor r = index_select(reshape(self, {1}), 0, index);
    return index.dim() == 0 ? reshape(r, {}) : r;
  }
  dim = wrap_dim(dim, self.dim(), "index_select");
  Shape shape = self.sizes();
  shape[dim] = index.numel();
  Tensor out = empty(shape, TensorOptions(self.dtype()).device(self.device()));
  if (out.numel() > 0 || index.numel() > 0) {
    Tensor off = offsets_1d(self, dim, index, shape);
    run_gather(out, restride(self, shape, dim), off, "index_select");
  }
  if (autograd::needs_grad({self})) {
    Shape in_shape = self.sizes();
    Tensor idx = index.detach();
    autograd::record("IndexSelectBackward0", {self}, {out}, {},
                     [in_shape, dim, idx](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor z =
                           zeros(in_shape, TensorOptions(g[0].dtype()).device(g[0].device()));
                       return {index_add(z, dim, idx, g[0])};
                     });
  }
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  check_long_index(index, "gather");
  if (self.dim() == 0) {
    Tensor r = gather(reshape(self, {1}), 0, reshape(index, {-1}));
    return reshape(r, index.sizes());
  }
  dim = wrap_dim(dim, self.dim(), "gather");
  check_gather_shapes(self, dim, index, nullptr, "gather");
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (out.numel() > 0) {
    Tensor off = offsets_for(index, self.sizes()[dim], self.strides()[dim], dim);
    run_gather(out, restride(self, index.sizes(), dim), off, "gather");
  }
  if (autograd::needs_grad({self})) {
    Shape in_shape = self.sizes();
    Tensor idx = index.detach();
    autograd::record("GatherBackward0", {self}, {out}, {},
                     [in_shape, dim, idx](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor z =
                           zeros(in_shape, TensorOptions(g[0].dtype()).device(g[0].device()));
                       return {scatter_add(z, dim, idx, g[0])};
                     });
  }
  return out;
}

namespace {
ScatterMode legacy_mode(const std::string& reduce) {
  if (reduce.empty()) return ScatterMode::Assign;
  if (reduce == "add") return ScatterMode::Add;
  if (reduce == "multiply") return ScatterMode::Mul;
  throw ValueError("scatter(): reduce argument must be either add or multiply (got '" + reduce +
                   "')");
}

// In-place scatter of src (a tensor of self's dtype, or a 0-dim value when is_value) with autograd.
Tensor& scatter_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     bool is_value, ScatterMode mode, const char* op) {
  autograd::check_inplace(self, op);
  check_long_index(index, op);
  if (self.dim() == 0) {
    Tensor s1 = reshape(self.detach(), {1});
    scatter_raw(s1, 0, reshape(index, {-1}), is_value ? src : reshape(src, {-1}), mode, op);
  } else {
    dim = wrap_dim(dim, self.dim(), op);
    if (!is_value) {
      TC_CHECK_TYPE(src.dtype() == self.dtype(), op,
                    "(): Expected self.dtype to be equal to "
                    "src.dtype (got ",
                    dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
      check_gather_shapes(self, dim, index, &src, op);
    } else {
      check_gather_shapes(self, dim, index, nullptr, op);
    }
    scatter_raw(self, dim, index, src, mode, op);
  }
  self.bump_version();
  TensorList inputs = is_value ? TensorList{self} : TensorList{self, src};
  if (autograd::needs_grad(inputs)) {
    TC_CHECK_AS(NotImplementedError, mode != ScatterMode::Mul, op,
                "(): the backward pass for reduce='multiply' is not implemented");
    Tensor idx = index.detach();
    Shape src_shape = is_value ? Shape{} : src.sizes();
    autograd::record(mode == ScatterMode::Add ? "ScatterAddBackward0" : "ScatterBackward0", inputs,
                     {self}, {}, [=](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor gs = g[0];
                       if (mode == ScatterMode::Assign && gs.dim() > 0)
                         gs =
                             mul(gs, untouched_mask(gs.sizes(), gs.dtype(), gs.device(), dim, idx));
                       if (is_value) return {gs};
                       if (g[0].dim() == 0) return {gs, g[0]};
                       return {gs, pad_to(gather(g[0], dim, idx), src_shape)};
                     });
  }
  return self;
}
}  // namespace

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 const std::string& reduce) {
  return scatter_impl(self, dim, index, src, false, legacy_mode(reduce), "scatter_");
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                 const std::string& reduce) {
  return scatter_impl(self, dim, index, wrap_value(value, self), true, legacy_mode(reduce),
                      "scatter_");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  Tensor out = clone(self);
  return scatter_impl(out, dim, index, src, false, legacy_mode(reduce), "scatter");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce) {
  Tensor out = clone(self);
  return scatter_impl(out, dim, index, wrap_value(value, self), true, legacy_mode(reduce),
                      "scatter");
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl(self, dim, index, src, false, ScatterMode::Add, "scatter_add_");
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  TC_AUTOCAST("scatter_add", scatter_add, self, dim, index, src);
  Tensor out = clone(self);
  return scatter_impl(out, dim, index, src, false, ScatterMode::Add, "scatter_add");
}

Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self) {
  const char* op = "scatter_reduce_";
  autograd::check_inplace(self, op);
  check_long_index(index, "scatter_reduce");
  TC_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" ||
               reduce == "amin",
           "scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got ",
           reduce);
  TC_CHECK(self.dim() > 0, "scatter_reduce(): self must have at least one dimension");
  dim = wrap_dim(dim, self.dim(), "scatter_reduce");
  TC_CHECK_TYPE(src.dtype() == self.dtype(),
                "scatter_reduce(): Expected self.dtype to be equal to "
                "src.dtype (got ",
                dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
  check_gather_shapes(self, dim, index, &src, "scatter_reduce");
  Tensor count;
  const bool extremum = reduce == "amax" || reduce == "amin";
  const bool grad = autograd::needs_grad({self, src});
  // The old self values: tie masks (amax/amin), divisors and zero counts (prod).
  Tensor self_old = (extremum || reduce == "prod") && grad ? clone(self.detach()) : Tensor();
  {
    autograd::NoGradGuard ng;
    Tensor s = self.detach();
    if (!include_self)
      scatter_raw(s, dim, index, to_device(reduce_identity(self.dtype(), reduce), self.device()),
                  ScatterMode::Assign, op);
    ScatterMode mode = reduce == "prod"   ? ScatterMode::Mul
                       : reduce == "amax" ? ScatterMode::Max
                       : reduce == "amin" ? ScatterMode::Min
                                          : ScatterMode::Add;
    scatter_raw(s, dim, index, src, mode, op);
    if (reduce == "mean") {
      count = full(self.sizes(), include_self ? 1 : 0,
                   TensorOptions(self.dtype()).device(self.device()));
      scatter_raw(count, dim, index, scalar_tensor(1, self.dtype(), self.device()),
                  ScatterMode::Add, op);
      Tensor c = contiguous(s);
      div_count_kernel.get(self.device().type)(c, count);
      if (!c.is_same(s)) copy_(s, c);
    }
  }
  self.bump_version();
  if (grad) {
    Tensor idx = index.detach();
    Shape src_shape = src.sizes();
    // amax/amin and prod compare against the result and the src values the index reads.
    Tensor result = self_old.defined() ? clone(self.detach()) : Tensor();
    Tensor src_used = self_old.defined() ? crop_to(src.detach(), idx.sizes()) : Tensor();
    if (extremum) {
      // As torch: the gradient goes to every value equal to the result, split evenly among ties.
      autograd::record(
          "ScatterReduceBackward0", {self, src}, {self}, {},
          [=](const TensorList&, const TensorList& g) -> TensorList {
            DType dt = g[0].dtype();
            Tensor mask_src = to_dtype(eq(src_used, gather(result, dim, idx)), dt);
            Tensor mask_self = include_self
                                   ? to_dtype(eq(self_old, result), dt)
                                   : untouched_mask(result.sizes(), dt, result.device(), dim, idx);
            Tensor ties = scatter_add(mask_self, dim, idx, mask_src);
            Tensor gn = div(g[0], ties);
            return {mul(gn, mask_self), pad_to(mul(gather(gn, dim, idx), mask_src), src_shape)};
          });
    } else if (reduce == "prod") {
      // d(prod)/dx = prod / x, with zeros handled as torch does: where a group holds exactly one
      // zero, that zero gets the product of the others and everyone else 0; two or more zeros
      // give every member 0.
      autograd::record(
          "ScatterReduceBackward0", {self, src}, {self}, {},
          [=](const TensorList&, const TensorList& g) -> TensorList {
            const DType dt = g[0].dtype();
            const Device dev = g[0].device();
            Tensor zero = scalar_tensor(0, dt, dev), one = scalar_tensor(1, dt, dev);
            Tensor self_zero = eq(self_old, zero), src_zero = eq(src_used, zero);
            Tensor masked_self = where(self_zero, one, self_old);
            Tensor masked_src = where(src_zero, one, src_used);
            // Product of the non-zero members of each group, and its zero count.
            Tensor nonzero_prod =
                scatter_reduce(masked_self, dim, idx, masked_src, "prod", include_self);
            Tensor untouched = untouched_mask(result.sizes(), dt, dev, dim, idx);
            Tensor self_counts = include_self ? to_dtype(self_zero, dt) : zeros_like(result);
            Tensor zeros_in_group = scatter_add(self_counts, dim, idx, to_dtype(src_zero, dt));
            Tensor none = eq(zeros_in_group, zero), single = eq(zeros_in_group, one);
            Tensor g_res = mul(g[0], result), g_nz = mul(g[0], nonzero_prod);
            Tensor grad_self;
            if (include_self) {
              grad_self = where(none, div(g_res, masked_self),
                                where(logical_and(single, self_zero), g_nz, zero));
            } else {
              grad_self =
                  mul(g[0], untouched);  // excluded values pass through only where untouched
            }
            Tensor none_s = gather(to_dtype(none, dt), dim, idx);
            Tensor single_s = gather(to_dtype(single, dt), dim, idx);
            Tensor grad_src = where(
                eq(none_s, one), div(gather(g_res, dim, idx), masked_src),
                where(logical_and(eq(single_s, one), src_zero), gather(g_nz, dim, idx), zero));
            return {grad_self, pad_to(grad_src, src_shape)};
          });
    } else {
      autograd::record("ScatterReduceBackward0", {self, src}, {self}, {},
                       [=](const TensorList&, const TensorList& g) -> TensorList {
                         Tensor gg = count.defined() ? div(g[0], count) : g[0];
                         Tensor gs = gg;
                         if (!include_self)
                           gs = mul(g[0],
                                    untouched_mask(gg.sizes(), gg.dtype(), gg.device(), dim, idx));
                         return {gs, pad_to(gather(gg, dim, idx), src_shape)};
                       });
    }
  }
  return self;
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  Tensor out = contiguous(clone(self));
  return scatter_reduce_(out, dim, index, src, reduce, include_self);
}

Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha) {
  autograd::check_inplace(self, "index_add_");
  check_index_1d(index, "index_add_");
  bool zero_dim = self.dim() == 0;
  Tensor s = zero_dim ? reshape(self.detach(), {1}) : self.detach();
  int64_t d = wrap_dim(dim, s.dim(), "index_add_");
  {
    autograd::NoGradGuard ng;
    Tensor src = source.detach();
    if (zero_dim) src = reshape(src, {-1});
    bool unit = alpha.is_integral() ? alpha.to_int() == 1
                                    : (alpha.is_floating() && alpha.to_double() == 1.0);
    if (!unit) src = mul(src, alpha);
    index_scatter_raw(s, d, index, src, ScatterMode::Add, "index_add_");
  }
  self.bump_version();
  if (autograd::needs_grad({self, source})) {
    Tensor idx = index.detach();
    Shape src_shape = source.sizes();
    autograd::record("IndexAddBackward0", {self, source}, {self}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       if (g[0].dim() == 0) return {g[0], mul(g[0], alpha)};
                       return {g[0], mul(index_select(g[0], d, idx), alpha)};
                     });
  }
  return self;
}
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  Tensor out = clone(self);
  return index_add_(out, dim, index, source, alpha);
}

Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  autograd::check_inplace(self, "index_copy_");
  check_index_1d(index, "index_copy_");
  TC_CHECK(self.dim() > 0, "index_copy_(): self must have at least one dimension");
  dim = wrap_dim(dim, self.dim(), "index_copy_");
  index_scatter_raw(self, dim, index, source, ScatterMode::Assign, "index_copy_");
  self.bump_version();
  if (autograd::needs_grad({self, source})) {
    Tensor idx = index.detach();
    autograd::record("IndexCopyBackward0", {self, source}, {self}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor m = untouched_index_mask(g[0].sizes(), g[0].dtype(), g[0].device(),
                                                       dim, idx);
                       return {mul(g[0], m), index_select(g[0], dim, idx)};
                     });
  }
  return self;
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  TC_AUTOCAST("index_copy", index_copy, self, dim, index, source);
  Tensor out = clone(self);
  return index_copy_(out, dim, index, source);
}

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  autograd::check_inplace(self, "index_fill_");
  check_index_1d(index, "index_fill_");
  TC_CHECK(self.dim() > 0, "index_fill_(): self must have at least one dimension");
  dim = wrap_dim(dim, self.dim(), "index_fill_");
  index_scatter_raw(self.detach(), dim, index, wrap_value(value, self), ScatterMode::Assign,
                    "index_fill_");
  self.bump_version();
  if (autograd::needs_grad({self})) {
    Tensor idx = index.detach();
    autograd::record("IndexFillBackward0", {self}, {self}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       return {index_fill(g[0], dim, idx, 0)};
                     });
  }
  return self;
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = clone(self);
  return index_fill_(out, dim, index, value);
}

// ---- advanced indexing ----

Tensor advanced_index(const Tensor& self, const TensorList& indices) {
  AdvIndex a = make_adv(self, indices);
  Tensor out = empty(a.result_shape, TensorOptions(self.dtype()).device(self.device()));
  run_gather(out, a.view, a.offsets, "index");
  if (autograd::needs_grad({self})) {
    Shape in_shape = self.sizes();
    TensorList idx = a.indices;
    autograd::record("IndexBackward0", {self}, {out}, {},
                     [in_shape, idx](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor z =
                           zeros(in_shape, TensorOptions(g[0].dtype()).device(g[0].device()));
                       return {advanced_index_put(z, idx, g[0], true)};
                     });
  }
  return out;
}

Tensor& advanced_index_put_(Tensor& self, const TensorList& indices, const Tensor& values,
                            bool accumulate) {
  autograd::check_inplace(self, "index_put_");
  AdvIndex a = make_adv(self, indices);
  index_put_raw(self, a, values, accumulate);
  self.bump_version();
  if (autograd::needs_grad({self, values})) {
    TensorList idx = a.indices;
    autograd::record(
        "IndexPutBackward0", {self, values}, {self}, {},
        [idx, accumulate](const TensorList&, const TensorList& g) -> TensorList {
          Tensor gs =
              accumulate ? g[0] : advanced_index_put(g[0], idx, scalar_tensor(0, g[0].dtype()));
          return {gs, advanced_index(g[0], idx)};
        });
  }
  return self;
}

Tensor advanced_index_put(const Tensor& self, const TensorList& indices, const Tensor& values,
                          bool accumulate) {
  Tensor out = clone(self);
  return advanced_index_put_(out, indices, values, accumulate);
}

// ---- masks ----

namespace {
void check_bool_mask(const Tensor& mask, const char* op) {
  TC_CHECK_TYPE(mask.dtype() == DType::Bool, op,
                " only supports boolean masks, but got mask with dtype ", dtype_name(mask.dtype()));
}
}  // namespace

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  autograd::check_inplace(self, "masked_fill_");
  check_bool_mask(mask, "masked_fill_");
  TC_CHECK(value.dim() == 0,
           "masked_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ",
           value.dim(), " dimension(s).");
  Shape bs = broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill_");
  TC_CHECK(bs == self.sizes(), "masked_fill_: mask of shape ", shape_str(mask.sizes()),
           " is not broadcastable to self of shape ", shape_str(self.sizes()));
  Tensor v = contiguous(to_device(to_dtype(value.detach(), self.dtype()), self.device()));
  Tensor m = mask.detach();
  if (m.sizes() != self.sizes()) m = expand(m, self.sizes());
  if (self.numel() > 0) {
    TensorIter iter(self.detach(), {m}, iter_config(self.dtype(), "masked_fill_"));
    masked_fill_kernel.get(self.device().type)(iter, v);
  }
  self.bump_version();
  if (autograd::needs_grad({self, value})) {
    Tensor mk = mask.detach();
    autograd::record("MaskedFillBackward0", {self, value}, {self}, {},
                     [mk](const TensorList&, const TensorList& g) -> TensorList {
                       return {masked_fill(g[0], mk, 0), sum(mul(g[0], mk))};
                     });
  }
  return self;
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_(self, mask, scalar_tensor(value, self.dtype(), self.device()));
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Shape bs = broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill");
  Tensor out = contiguous(clone(self.sizes() == bs ? self : expand(self, bs)));
  return masked_fill_(out, mask, value);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill(self, mask, scalar_tensor(value, self.dtype(), self.device()));
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  check_bool_mask(mask, "masked_select:");
  Shape bs = broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  Tensor s = self.sizes() == bs ? self : expand(self, bs);
  Tensor m = mask.sizes() == bs ? mask.detach() : expand(mask.detach(), bs);
  if (bs.empty()) return advanced_index(reshape(s, {1}), {reshape(m, {1})});
  return advanced_index(s, {m});
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_bool_mask(mask, "masked_scatter:");
  TC_CHECK_TYPE(source.dtype() == self.dtype(),
                "masked_scatter: expected self and source to have "
                "same dtypes but got ",
                dtype_name(self.dtype()), " and ", dtype_name(source.dtype()));
  Shape bs = broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter");
  Tensor out = contiguous(clone(self.sizes() == bs ? self : expand(self, bs)));
  Tensor m = mask.sizes() == bs ? mask.detach() : expand(mask.detach(), bs);
  if (bs.empty()) {
    out = reshape(out, {1});
    m = reshape(m, {1});
  }
  TensorList nz = nonzero_tuple(m);
  int64_t n = nz.empty() ? 0 : nz[0].numel();
  TC_CHECK(source.numel() >= n, "masked_scatter: expected source to have at least ", n,
           " elements (the number of True values in mask), but got ", source.numel());
  Tensor vals = slice(reshape(source, {-1}), 0, 0, n);
  advanced_index_put_(out, nz, vals);
  return bs.empty() ? reshape(out, {}) : out;
}

Tensor nonzero(const Tensor& self) {
  Tensor b = contiguous(to_dtype(self.detach(), DType::Bool));
  return nonzero_kernel.get(self.device().type)(b);
}

TensorList nonzero_tuple(const Tensor& self) {
  if (self.dim() == 0) return nonzero_tuple(reshape(self.detach(), {1}));
  Tensor nz = nonzero(self);
  TensorList out;
  for (int64_t d = 0; d < self.dim(); ++d) out.push_back(contiguous(select(nz, 1, d)));
  return out;
}

Tensor argwhere(const Tensor& self) { return nonzero(self); }

Tensor take(const Tensor& self, const Tensor& index) {
  TC_CHECK_TYPE(index.dtype() == DType::Int64, "take(): Expected a long tensor for index, but got ",
                dtype_name(index.dtype()));
  return advanced_index(reshape(self, {-1}), {index});
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  check_long_index(indices, "take_along_dim");
  if (!dim) return gather(reshape(self, {-1}), 0, reshape(indices, {-1}));
  TC_CHECK(self.dim() == indices.dim(),
           "torch.take_along_dim(): input and indices should have "
           "the same number of dimensions, but got ",
           self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  Shape ss = self.sizes();
  ss[d] = indices.sizes()[d];
  Shape ib = broadcast_shapes(ss, indices.sizes(), "take_along_dim");
  Shape is = indices.sizes();
  is[d] = self.sizes()[d];
  Shape sb = broadcast_shapes(is, self.sizes(), "take_along_dim");
  return gather(sb == self.sizes() ? self : expand(self, sb), d,
                ib == indices.sizes() ? indices : expand(indices, ib));
}

}  // namespace tc
