// Joining, splitting and rearranging: cat/stack/split/chunk/unbind/flip/roll/repeat/tile/
// movedim/diagonal/diag/tril/triu/unflatten. Most are compositions of differentiable views;
// cat, flip, diagonal, diag and tril/triu record their own vjps.
#include <algorithm>
#include <numeric>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index_kernels.h"
#include "tensorcore/ops/shape.h"

namespace tc {

Tensor cat(const TensorList& tensors, int64_t dim) {
  TC_AUTOCAST("cat", cat, tensors, dim);
  TC_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // torch's legacy rule: 1-d tensors of size 0 are skipped (they may have any other shape).
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TC_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    if (!ref && !(t.dim() == 1 && t.numel() == 0)) ref = &t;
  }
  DType dt = result_type(tensors);
  Device dev = tensors[0].device();
  if (!ref) return empty({0}, TensorOptions(dt).device(dev));
  int64_t nd = ref->dim();
  dim = wrap_dim(dim, nd, "cat");
  Shape shape = ref->sizes();
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.numel() == 0) continue;
    TC_CHECK(t.dim() == nd, "Tensors must have same number of dimensions: got ", nd, " and ",
             t.dim());
    TC_CHECK(t.device() == dev,
             "Expected all tensors to be on the same device, but found at least "
             "two devices, ",
             dev.str(), " and ", t.device().str(), "!");
    for (int64_t d = 0; d < nd; ++d)
      TC_CHECK(d == dim || t.sizes()[d] == shape[d],
               "Sizes of tensors must match except in "
               "dimension ",
               dim, ". Expected size ", shape[d], " but got size ", t.sizes()[d],
               " for tensor number ", i, " in the list.");
    total += t.sizes()[dim];
  }
  shape[dim] = total;
  Tensor out = empty(shape, TensorOptions(dt).device(dev));
  std::vector<int64_t> offsets, lengths;
  {
    autograd::NoGradGuard ng;
    int64_t off = 0;
    for (const Tensor& t : tensors) {
      bool skip = t.dim() == 1 && t.numel() == 0;
      int64_t len = skip ? 0 : t.sizes()[dim];
      offsets.push_back(off);
      lengths.push_back(skip ? -1 : len);
      if (len > 0) copy_(narrow(out, dim, off, len), t.detach());
      off += len;
    }
  }
  if (autograd::needs_grad(tensors)) {
    autograd::record(
        "CatBackward0", tensors, {out}, {},
        [dim, offsets, lengths](const TensorList&, const TensorList& g) -> TensorList {
          TensorList r;
          for (size_t i = 0; i < offsets.size(); ++i)
            r.push_back(lengths[i] < 0 ? Tensor() : narrow(g[0], dim, offsets[i], lengths[i]));
          return r;
        });
  }
  return out;
}

Tensor stack(const TensorList& tensors, int64_t dim) {
  TC_AUTOCAST("stack", stack, tensors, dim);
  TC_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  dim = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  TensorList u;
  for (size_t i = 0; i < tensors.size(); ++i) {
    TC_CHECK(tensors[i].sizes() == tensors[0].sizes(),
             "stack expects each tensor to be equal size, "
             "but got ",
             shape_str(tensors[0].sizes()), " at entry 0 and ", shape_str(tensors[i].sizes()),
             " at entry ", i);
    u.push_back(unsqueeze(tensors[i], dim));
  }
  return cat(u, dim);
}

Tensor atleast_1d(const Tensor& a) { return a.dim() == 0 ? reshape(a, {1}) : a; }
Tensor atleast_2d(const Tensor& a) {
  if (a.dim() == 0) return reshape(a, {1, 1});
  return a.dim() == 1 ? unsqueeze(a, 0) : a;
}

Tensor hstack(const TensorList& tensors) {
  TC_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  TensorList t;
  for (const Tensor& x : tensors) t.push_back(atleast_1d(x));
  return cat(t, t[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const TensorList& tensors) {
  TC_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  TensorList t;
  for (const Tensor& x : tensors) t.push_back(atleast_2d(x));
  return cat(t, 0);
}

TensorList split(const Tensor& a, int64_t split_size, int64_t dim) {
  TC_CHECK(a.dim() > 0, "split expects at least a 1-dimensional tensor");
  TC_CHECK(split_size >= 0,
           "split expects split_size be non-negative, but got split_size=", split_size);
  dim = wrap_dim(dim, a.dim(), "split");
  int64_t size = a.sizes()[dim];
  TC_CHECK(split_size > 0 || size == 0,
           "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  TensorList out;
  if (size == 0) return {a};
  for (int64_t s = 0; s < size; s += split_size)
    out.push_back(narrow(a, dim, s, std::min(split_size, size - s)));
  return out;
}

TensorList split_with_sizes(const Tensor& a, const Shape& sizes, int64_t dim) {
  TC_CHECK(a.dim() > 0, "split expects at least a 1-dimensional tensor");
  dim = wrap_dim(dim, a.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    TC_CHECK(
        s >= 0,
        "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
        shape_str(sizes));
    total += s;
  }
  TC_CHECK(total == a.sizes()[dim], "split_with_sizes expects split_sizes to sum exactly to ",
           a.sizes()[dim], " (input tensor's size at dimension ", dim,
           "), but got split_sizes=", shape_str(sizes));
  TensorList out;
  int64_t off = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(a, dim, off, s));
    off += s;
  }
  return out;
}

TensorList chunk(const Tensor& a, int64_t chunks, int64_t dim) {
  TC_CHECK(a.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TC_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  dim = wrap_dim(dim, a.dim(), "chunk");
  int64_t size = a.sizes()[dim];
  int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    TensorList out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(a, dim, 0, 0));
    return out;
  }
  return split(a, split_size, dim);
}

TensorList unbind(const Tensor& a, int64_t dim) {
  TC_CHECK_INDEX(a.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
  dim = wrap_dim(dim, a.dim(), "unbind");
  TensorList out;
  for (int64_t i = 0; i < a.sizes()[dim]; ++i) out.push_back(select(a, dim, i));
  return out;
}

Tensor flip(const Tensor& a, const std::vector<int64_t>& dims) {
  // wrap_dim lets a 0-d tensor name dim 0, so the flags need at least one slot.
  std::vector<bool> f(size_t(std::max<int64_t>(a.dim(), 1)), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, a.dim(), "flip");
    TC_CHECK(!f[w], "flip: dim ", w, " appears multiple times in the list of dims");
    f[w] = true;
  }
  Tensor out = empty(a.sizes(), TensorOptions(a.dtype()).device(a.device()));
  if (a.numel() > 0) {
    // A negatively-strided view of the input, copied into a fresh tensor.
    Shape st = a.strides();
    int64_t off = a.storage_offset();
    for (int64_t d = 0; d < a.dim(); ++d) {
      if (!f[d]) continue;
      off += (a.sizes()[d] - 1) * st[d];
      st[d] = -st[d];
    }
    autograd::NoGradGuard ng;
    copy_(out, make_tensor(a.storage(), a.sizes(), st, off, a.dtype()));
  }
  if (autograd::needs_grad({a}))
    autograd::record("FlipBackward0", {a}, {out}, {},
                     [dims](const TensorList&, const TensorList& g) -> TensorList {
                       return {flip(g[0], dims)};
                     });
  return out;
}

Tensor fliplr(const Tensor& a) {
  TC_CHECK(a.dim() >= 2, "Input must be >= 2-d.");
  return flip(a, {1});
}
Tensor flipud(const Tensor& a) {
  TC_CHECK(a.dim() >= 1, "Input must be >= 1-d.");
  return flip(a, {0});
}

Tensor roll(const Tensor& a, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  TC_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty()) {
    TC_CHECK(shifts.size() == 1, "roll: shifts and dims must align (got ", shifts.size(),
             " shifts and no dims)");
    return reshape(roll(flatten(a), shifts, {0}), a.sizes());
  }
  TC_CHECK(shifts.size() == dims.size(),
           "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  Tensor r = a;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], a.dim(), "roll");
    int64_t n = a.sizes()[d];
    if (n == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    r = cat({narrow(r, d, n - s, s), narrow(r, d, 0, n - s)}, d);
  }
  return r.is_same(a) ? clone(a) : r;
}

Tensor repeat(const Tensor& a, const Shape& repeats) {
  TC_CHECK(int64_t(repeats.size()) >= a.dim(),
           "Number of dimensions of repeat dims can not be "
           "smaller than number of dimensions of tensor");
  for (int64_t r : repeats)
    TC_CHECK(r >= 0, "Trying to create tensor with negative dimension ", r, ": ",
             shape_str(repeats));
  size_t n = repeats.size(), lead = n - size_t(a.dim());
  Shape padded(lead, 1), inter, expanded, final_shape;
  for (int64_t s : a.sizes()) padded.push_back(s);
  for (size_t i = 0; i < n; ++i) {
    inter.push_back(1);
    inter.push_back(padded[i]);
    expanded.push_back(repeats[i]);
    expanded.push_back(padded[i]);
    final_shape.push_back(repeats[i] * padded[i]);
  }
  return reshape(contiguous(expand(reshape(a, inter), expanded)), final_shape);
}

Tensor tile(const Tensor& a, const Shape& reps) {
  Shape r = reps;
  while (int64_t(r.size()) < a.dim()) r.insert(r.begin(), 1);
  return repeat(a, r);
}

Tensor movedim(const Tensor& a, const std::vector<int64_t>& source,
               const std::vector<int64_t>& destination) {
  TC_CHECK(source.size() == destination.size(),
           "movedim: Invalid source or destination dims: source (", shape_str(source),
           " dims) should contain the same number of dims as destination (", shape_str(destination),
           " dims)");
  int64_t nd = a.dim();
  if (nd == 0) {  // dims 0 / -1 name the only "dimension" of a scalar: nothing moves (as torch)
    for (size_t i = 0; i < source.size(); ++i) {
      wrap_dim(source[i], nd, "movedim");
      wrap_dim(destination[i], nd, "movedim");
    }
    TC_CHECK(source.size() <= 1, "movedim: repeated dim in `source` (", shape_str(source), ")");
    return permute(a, {});
  }
  std::vector<int64_t> perm(size_t(nd), -1);
  std::vector<bool> used_src(size_t(nd), false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = wrap_dim(source[i], nd, "movedim"), d = wrap_dim(destination[i], nd, "movedim");
    TC_CHECK(!used_src[s], "movedim: repeated dim in `source` (", shape_str(source), ")");
    TC_CHECK(perm[d] < 0, "movedim: repeated dim in `destination` (", shape_str(destination), ")");
    used_src[s] = true;
    perm[d] = s;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (perm[d] >= 0) continue;
    while (used_src[next]) ++next;
    perm[d] = next++;
  }
  return permute(a, perm);
}

namespace {
// zeros(in_shape) with `g` on the given diagonal (the vjp of diagonal; differentiable in g).
Tensor diagonal_embed(const Tensor& g, const Shape& in_shape, int64_t offset, int64_t d1,
                      int64_t d2) {
  Tensor z = zeros(in_shape, TensorOptions(g.dtype()).device(g.device()));
  {
    autograd::NoGradGuard ng;
    copy_(diagonal(z, offset, d1, d2), g.detach());
  }
  if (autograd::needs_grad({g}))
    autograd::record("DiagonalBackwardBackward0", {g}, {z}, {},
                     [=](const TensorList&, const TensorList& gg) -> TensorList {
                       return {diagonal(gg[0], offset, d1, d2)};
                     });
  return z;
}
}  // namespace

Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = a.dim();
  TC_CHECK(nd >= 2, "diagonal dimensions requires ndim larger than 1, got ", nd);
  int64_t d1 = wrap_dim(dim1, nd, "diagonal"), d2 = wrap_dim(dim2, nd, "diagonal");
  TC_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t n1 = a.sizes()[d1], n2 = a.sizes()[d2];
  int64_t len = offset >= 0 ? std::max<int64_t>(std::min(n1, n2 - offset), 0)
                            : std::max<int64_t>(std::min(n1 + offset, n2), 0);
  int64_t off = a.storage_offset();
  if (len > 0) off += offset >= 0 ? offset * a.strides()[d2] : -offset * a.strides()[d1];
  Shape sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(a.sizes()[d]);
    strides.push_back(a.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(a.strides()[d1] + a.strides()[d2]);
  Tensor out = make_view_of(a, sizes, strides, off);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record("DiagonalBackward0", {a}, {out}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       return {diagonal_embed(g[0], in_shape, offset, d1, d2)};
                     });
  }
  return out;
}

Tensor diag(const Tensor& a, int64_t k) {
  TC_CHECK(a.dim() == 1 || a.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", a.dim(), "D");
  if (a.dim() == 2) return clone(diagonal(a, k, 0, 1));
  int64_t n = a.sizes()[0] + (k >= 0 ? k : -k);
  return diagonal_embed(a, {n, n}, k, 0, 1);
}

namespace {
Tensor tri(const Tensor& a, int64_t k, bool lower) {
  const char* name = lower ? "tril" : "triu";
  TC_CHECK(a.dim() >= 2, name, ": input tensor must have at least 2 dimensions");
  Tensor in = contiguous(a.detach());
  Tensor out = empty(a.sizes(), TensorOptions(a.dtype()).device(a.device()));
  if (a.numel() > 0) tri_kernel.get(a.device().type)(out, in, k, lower);
  if (autograd::needs_grad({a}))
    autograd::record(lower ? "TrilBackward0" : "TriuBackward0", {a}, {out}, {},
                     [k, lower](const TensorList&, const TensorList& g) -> TensorList {
                       return {lower ? tril(g[0], k) : triu(g[0], k)};
                     });
  return out;
}
}  // namespace

Tensor tril(const Tensor& a, int64_t k) { return tri(a, k, true); }
Tensor triu(const Tensor& a, int64_t k) { return tri(a, k, false); }

Tensor unflatten(const Tensor& a, int64_t dim, const Shape& sizes) {
  dim = wrap_dim(dim, a.dim(), "unflatten");
  TC_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  Shape inner = infer_size(sizes, a.sizes()[dim]);
  Shape shape(a.sizes().begin(), a.sizes().begin() + dim);
  shape.insert(shape.end(), inner.begin(), inner.end());
  shape.insert(shape.end(), a.sizes().begin() + dim + 1, a.sizes().end());
  return view(a, shape);
}

}  // namespace tc
