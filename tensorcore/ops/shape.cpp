// View ops: they share storage and record cheap vjps (reshape back, permute back, scatter into
// zeros for select/slice).
#include "tensorcore/ops/shape.h"

#include <algorithm>
#include <numeric>

#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/reduce.h"

namespace tc {

namespace {

Tensor make_view(const Tensor& a, Shape sizes, Shape strides, int64_t offset) {
  return make_view_of(a, std::move(sizes), std::move(strides), offset);
}

// Gradient of a view that picks a region of the input: zeros with the region filled. Recorded
// as an op itself (its vjp picks the region again), so double backward works.
Tensor embed_grad(const Tensor& g, const Shape& in_shape,
                  const std::function<Tensor(const Tensor&)>& region) {
  Tensor z = zeros(in_shape, TensorOptions(g.dtype()).device(g.device()));
  {
    autograd::NoGradGuard ng;
    Tensor r = region(z);
    copy_(r, g.detach());
  }
  if (autograd::needs_grad({g}))
    autograd::record("EmbedBackward0", {g}, {z}, {},
                     [region](const TensorList&, const TensorList& gg) -> TensorList {
                       return {region(gg[0])};
                     });
  return z;
}

// Strides for viewing `a` with `sizes` without copying, or empty if impossible.
std::optional<Shape> view_strides(const Tensor& a, const Shape& sizes) {
  if (a.is_contiguous()) return contiguous_strides(sizes);
  // Walk chunks of old dims that are contiguous among themselves (as torch's computeStride).
  const Shape& os = a.sizes();
  const Shape& ost = a.strides();
  Shape st(sizes.size());
  if (a.numel() == 0) return contiguous_strides(sizes);
  int64_t view_d = int64_t(sizes.size()) - 1;
  int64_t chunk_base_stride = ost.empty() ? 1 : ost.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(os.size()) - 1; d >= 0; --d) {
    tensor_numel *= os[d];
    if (d == 0 || (os[d - 1] != 1 && ost[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        st[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = ost[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return st;
}

}  // namespace

Shape infer_size(Shape sizes, int64_t numel) {
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TC_CHECK(infer < 0, "only one dimension can be inferred (got shape ", shape_str(sizes), ")");
      infer = int(i);
    } else {
      TC_CHECK(sizes[i] >= 0, "invalid shape dimension ", sizes[i]);
      known *= sizes[i];
    }
  }
  if (infer >= 0) {
    TC_CHECK(known != 0 && numel % known == 0, "shape '", shape_str(sizes),
             "' is invalid for input of size ", numel);
    sizes[infer] = numel / known;
  } else {
    TC_CHECK(known == numel, "shape '", shape_str(sizes), "' is invalid for input of size ", numel);
  }
  return sizes;
}

namespace {
// The geometry must stay inside a's storage; overflow-checked. Negative strides are refused (as
// torch) because the bound only covers the highest address: offset=2**62 used to read wild memory.
void check_strided_geometry(const char* op, const Tensor& a, const Shape& sizes,
                            const Shape& strides, int64_t offset) {
  TC_CHECK(sizes.size() == strides.size(), op, ": ", sizes.size(), " sizes but ", strides.size(),
           " strides");
  TC_CHECK(offset >= 0, op, ": negative storage offset ", offset);
  int64_t span = offset;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TC_CHECK(sizes[i] >= 0, op, ": negative size in ", shape_str(sizes));
    TC_CHECK(strides[i] >= 0, op, ": negative strides are not supported, got ", shape_str(strides));
    int64_t reach = 0;
    if (sizes[i] > 0)
      overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                  __builtin_add_overflow(span, reach, &span);
  }
  TC_CHECK(
      shape_numel(sizes) == 0 || (!overflow && span < int64_t(a.storage()->nbytes / a.itemsize())),
      op, ": size ", shape_str(sizes), ", stride ", shape_str(strides), " and offset ", offset,
      " are out of bounds for the storage of ", a.storage()->nbytes / a.itemsize(), " elements");
}
}  // namespace

Tensor as_strided(const Tensor& a, const Shape& sizes, const Shape& strides, int64_t offset) {
  check_strided_geometry("as_strided", a, sizes, strides, offset);
  Tensor out = make_view(a, sizes, strides, offset);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes(), in_strides = a.strides();
    int64_t in_off = a.storage_offset();
    int64_t storage_elems = int64_t(a.storage()->nbytes / a.itemsize());
    autograd::record("AsStridedBackward0", {a}, {out}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       // Scatter into a zero buffer shaped like the storage (non-overlapping
                       // views).
                       DType dt = g[0].dtype();
                       Tensor base =
                           zeros({storage_elems}, TensorOptions(dt).device(g[0].device()));
                       Tensor region = make_tensor(base.storage(), sizes, strides, offset, dt);
                       copy_(region, g[0]);
                       return {make_tensor(base.storage(), in_shape, in_strides, in_off, dt)};
                     });
  }
  return out;
}

Tensor view(const Tensor& a, Shape sizes) {
  sizes = infer_size(std::move(sizes), a.numel());
  auto st = view_strides(a, sizes);
  TC_CHECK(
      st.has_value(),
      "view size is not compatible with input tensor's size and stride (at "
      "least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor out = make_view(a, sizes, *st, a.storage_offset());
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("ViewBackward0", {a}, {out}, {},
                     [in_shape](const TensorList&, const TensorList& g) -> TensorList {
                       return {reshape(g[0], in_shape)};
                     });
  }
  return out;
}

Tensor scalar_view(const Tensor& a, Shape sizes, Shape strides, int64_t offset, DType dtype) {
  Tensor out = make_tensor(a.storage(), std::move(sizes), std::move(strides), offset, dtype);
  const auto& root = a.impl()->view_base;
  out.impl()->view_base = root ? root : a.impl_ptr();
  return out;
}

Tensor view(const Tensor& a, DType dtype) {
  const size_t from = a.itemsize(), to = itemsize(dtype);
  // Not differentiable (as in torch): the result shares memory and the version counter only.
  if (from == to)
    return make_tensor(a.storage(), a.sizes(), a.strides(), a.storage_offset(), dtype);
  const std::string what = std::string(" to view ") + dtype_name(a.dtype()) + " as " +
                           dtype_name(dtype) + " (different element sizes)";
  TC_CHECK_AS(Error, a.dim() > 0, "view(dtype): self.dim() cannot be 0", what);
  TC_CHECK_AS(Error, a.strides().back() == 1, "view(dtype): self.stride(-1) must be 1", what,
              ", but got ", a.strides().back());
  Shape sizes = a.sizes(), strides = a.strides();
  int64_t offset = a.storage_offset();
  if (from > to) {
    const int64_t r = int64_t(from / to);
    for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] *= r;
    sizes.back() *= r;
    offset *= r;
  } else {
    const int64_t r = int64_t(to / from);
    TC_CHECK_AS(Error, sizes.back() % r == 0, "view(dtype): self.size(-1) must be divisible by ", r,
                what, ", but got ", sizes.back());
    TC_CHECK_AS(Error, offset % r == 0, "view(dtype): self.storage_offset() must be divisible by ",
                r, what, ", but got ", offset);
    for (size_t d = 0; d + 1 < strides.size(); ++d) {
      TC_CHECK_AS(Error, strides[d] % r == 0, "view(dtype): self.stride(", d,
                  ") must be divisible by ", r, what, ", but got ", strides[d]);
      strides[d] /= r;
    }
    sizes.back() /= r;
    offset /= r;
  }
  return make_tensor(a.storage(), sizes, strides, offset, dtype);
}

Tensor reshape(const Tensor& a, Shape sizes) {
  sizes = infer_size(std::move(sizes), a.numel());
  if (view_strides(a, sizes)) return view(a, sizes);
  return view(contiguous(a), sizes);
}

Tensor expand(const Tensor& a, const Shape& sizes_in) {
  TC_CHECK(sizes_in.size() >= size_t(a.dim()), "expand: the number of sizes provided (",
           sizes_in.size(),
           ") must be greater or equal to the number of dimensions in the tensor (", a.dim(), ")");
  size_t n = sizes_in.size(), lead = n - size_t(a.dim());
  Shape sizes(n), strides(n);
  for (size_t i = 0; i < n; ++i) {
    if (i < lead) {
      TC_CHECK(sizes_in[i] >= 0, "expand: -1 is not allowed in a leading, non-existing dimension");
      sizes[i] = sizes_in[i];
      strides[i] = 0;
      continue;
    }
    int64_t cur = a.sizes()[i - lead];
    int64_t want = sizes_in[i] == -1 ? cur : sizes_in[i];
    TC_CHECK(cur == want || cur == 1, "expand: the expanded size of the tensor (", want,
             ") must match the existing size (", cur, ") at non-singleton dimension ", i,
             ". Target sizes: ", shape_str(sizes_in), ". Tensor sizes: ", shape_str(a.sizes()));
    sizes[i] = want;
    strides[i] = cur == want ? a.strides()[i - lead] : 0;
  }
  Tensor out = make_view(a, sizes, strides, a.storage_offset());
  if (autograd::needs_grad({a}))  // the node sums the gradient back to the input shape
    autograd::record("ExpandBackward0", {a}, {out}, {},
                     [](const TensorList&, const TensorList& g) -> TensorList { return {g[0]}; });
  return out;
}

Tensor expand_as(const Tensor& a, const Tensor& other) { return expand(a, other.sizes()); }
Tensor broadcast_to(const Tensor& a, const Shape& sizes) { return expand(a, sizes); }

Tensor permute(const Tensor& a, const std::vector<int64_t>& dims) {
  TC_CHECK(int64_t(dims.size()) == a.dim(),
           "permute: number of dims don't match in permute "
           "(got ",
           dims.size(), " dims for a ", a.dim(), "-d tensor)");
  Shape sizes(dims.size()), strides(dims.size());
  std::vector<int64_t> inverse(dims.size(), -1);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], a.dim(), "permute");
    TC_CHECK(inverse[d] < 0, "permute: repeated dim ", dims[i], " in ", shape_str(dims));
    inverse[d] = int64_t(i);
    sizes[i] = a.sizes()[d];
    strides[i] = a.strides()[d];
  }
  Tensor out = make_view(a, sizes, strides, a.storage_offset());
  if (autograd::needs_grad({a}))
    autograd::record("PermuteBackward0", {a}, {out}, {},
                     [inverse](const TensorList&, const TensorList& g) -> TensorList {
                       return {permute(g[0], inverse)};
                     });
  return out;
}

Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  if (a.dim() == 0) return a;
  d0 = wrap_dim(d0, a.dim(), "transpose");
  d1 = wrap_dim(d1, a.dim(), "transpose");
  std::vector<int64_t> perm(a.dim());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[d0], perm[d1]);
  return permute(a, perm);
}

Tensor t(const Tensor& a) {
  TC_CHECK(a.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", a.dim(), "D");
  return a.dim() < 2 ? a : transpose(a, 0, 1);
}

Tensor unsqueeze(const Tensor& a, int64_t dim) {
  dim = wrap_dim(dim, a.dim() + 1, "unsqueeze");
  Shape sizes = a.sizes(), strides = a.strides();
  int64_t st = dim < a.dim() ? sizes[dim] * strides[dim] : 1;
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, st);
  Tensor out = make_view(a, sizes, strides, a.storage_offset());
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("UnsqueezeBackward0", {a}, {out}, {},
                     [in_shape](const TensorList&, const TensorList& g) -> TensorList {
                       return {reshape(g[0], in_shape)};
                     });
  }
  return out;
}

static Tensor squeeze_dims(const Tensor& a, const std::vector<bool>& drop) {
  Shape sizes, strides;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (drop[i]) continue;
    sizes.push_back(a.sizes()[i]);
    strides.push_back(a.strides()[i]);
  }
  Tensor out = make_view(a, sizes, strides, a.storage_offset());
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("SqueezeBackward0", {a}, {out}, {},
                     [in_shape](const TensorList&, const TensorList& g) -> TensorList {
                       return {reshape(g[0], in_shape)};
                     });
  }
  return out;
}

Tensor squeeze(const Tensor& a) {
  std::vector<bool> drop(a.dim());
  for (int64_t i = 0; i < a.dim(); ++i) drop[i] = a.sizes()[i] == 1;
  return squeeze_dims(a, drop);
}

Tensor squeeze(const Tensor& a, int64_t dim) {
  dim = wrap_dim(dim, a.dim(), "squeeze");
  std::vector<bool> drop(a.dim());
  if (a.dim() > 0) drop[dim] = a.sizes()[dim] == 1;
  return squeeze_dims(a, drop);
}

Tensor squeeze(const Tensor& a, const std::vector<int64_t>& dims) {
  std::vector<bool> drop(a.dim());
  for (int64_t d : dims) {
    if (a.dim() == 0) {
      wrap_dim(d, 1, "squeeze");
      continue;
    }
    int64_t w = wrap_dim(d, a.dim(), "squeeze");
    drop[w] = a.sizes()[w] == 1;
  }
  return squeeze_dims(a, drop);
}

Tensor flatten(const Tensor& a, int64_t start_dim, int64_t end_dim) {
  if (a.dim() == 0) return reshape(a, {1});
  start_dim = wrap_dim(start_dim, a.dim(), "flatten");
  end_dim = wrap_dim(end_dim, a.dim(), "flatten");
  TC_CHECK(start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim");
  Shape sizes;
  for (int64_t i = 0; i < start_dim; ++i) sizes.push_back(a.sizes()[i]);
  int64_t n = 1;
  for (int64_t i = start_dim; i <= end_dim; ++i) n *= a.sizes()[i];
  sizes.push_back(n);
  for (int64_t i = end_dim + 1; i < a.dim(); ++i) sizes.push_back(a.sizes()[i]);
  return reshape(a, sizes);
}

Tensor select(const Tensor& a, int64_t dim, int64_t index) {
  TC_CHECK_INDEX(a.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, a.dim(), "select");
  int64_t size = a.sizes()[dim];
  TC_CHECK_INDEX(index >= -size && index < size, "index ", index,
                 " is out of bounds for dimension ", dim, " with size ", size);
  if (index < 0) index += size;
  Shape sizes = a.sizes(), strides = a.strides();
  int64_t offset = a.storage_offset() + index * strides[dim];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  Tensor out = make_view(a, sizes, strides, offset);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("SelectBackward0", {a}, {out}, {},
                     [in_shape, dim, index](const TensorList&, const TensorList& g) -> TensorList {
                       return {embed_grad(g[0], in_shape,
                                          [=](const Tensor& z) { return select(z, dim, index); })};
                     });
  }
  return out;
}

Tensor slice(const Tensor& a, int64_t dim, int64_t start, int64_t end, int64_t step) {
  TC_CHECK(step > 0, "slice step must be positive (got ", step, ")");
  dim = wrap_dim(dim, a.dim(), "slice");
  int64_t size = a.sizes()[dim];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Shape sizes = a.sizes(), strides = a.strides();
  int64_t offset = a.storage_offset() + start * strides[dim];
  sizes[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  Tensor out = make_view(a, sizes, strides, offset);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("SliceBackward0", {a}, {out}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       return {embed_grad(g[0], in_shape, [=](const Tensor& z) {
                         return slice(z, dim, start, end, step);
                       })};
                     });
  }
  return out;
}

Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length) {
  TC_CHECK_INDEX(a.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, a.dim(), "narrow");
  int64_t size = a.sizes()[dim];
  if (start < 0) start += size;
  TC_CHECK_INDEX(start >= 0 && length >= 0 && start + length <= size, "narrow: start (", start,
                 ") + length (", length, ") exceeds dimension size (", size, ")");
  return slice(a, dim, start, start + length, 1);
}

Tensor& as_strided_(Tensor& a, const Shape& sizes, const Shape& strides, int64_t offset) {
  check_strided_geometry("as_strided_", a, sizes, strides, offset);
  // Rewriting a tensor's geometry in place would leave its recorded history describing another
  // shape; torch rebases the history, tensorcore asks for the out-of-place view instead.
  TC_CHECK(!autograd::needs_grad({a}),
           "as_strided_(): in-place changes of geometry (as_strided_, t_, transpose_, squeeze_, "
           "unsqueeze_, swapaxes_) are not supported on tensors that require grad; use the "
           "out-of-place view (e.g. x = x.t())");
  TensorImpl* impl = a.impl();
  impl->sizes = sizes;
  impl->strides = strides;
  impl->offset = offset;
  impl->refresh_numel();
  return a;
}

}  // namespace tc
