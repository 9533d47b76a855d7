// Sorting and searching: sort/argsort/topk/kthvalue (with vjps scattering into zeros), unique,
// searchsorted/bucketize, histc, bincount.
#include "tensorcore/ops/sort.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/reduce_kernels.h"
#include "tensorcore/ops/reduce_util.h"
#include "tensorcore/ops/shape.h"

namespace tc {

TC_DEFINE_KERNEL(sort, RowKernel);
TC_DEFINE_KERNEL(topk, RowKernel);
TC_DEFINE_KERNEL(kthvalue, RowKernel);
TC_DEFINE_KERNEL(unique, UniqueKernel);
TC_DEFINE_KERNEL(searchsorted, SearchsortedKernel);
TC_DEFINE_KERNEL(histc, HistcKernel);
TC_DEFINE_KERNEL(bincount, BincountKernel);

namespace rd = reduce_detail;

namespace {

// Runs a row kernel whose outputs are [rows, k] along dim; records the scatter vjp for values.
std::pair<Tensor, Tensor> rows_op(KernelTable<RowKernel>& table, const Tensor& a, int64_t d,
                                  int64_t k, const RowParams& prm, const char* node) {
  DType kd = rd::kernel_dtype(a.dtype());
  Tensor rows = rd::to_rows(to_dtype(a.detach(), kd), d);
  Tensor vals = empty({rows.size(0), k}, TensorOptions(kd).device(rows.device()));
  Tensor idx = empty({rows.size(0), k}, TensorOptions(DType::Int64).device(rows.device()));
  if (vals.numel() > 0) table.get(a.device().type)(rows, vals, idx, prm);
  Shape shape = a.sizes();
  if (!shape.empty()) shape[size_t(d)] = k;
  vals = to_dtype(rd::from_rows(vals, shape, d), a.dtype());
  idx = rd::from_rows(idx, shape, d);
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record(node, {a}, {vals}, {idx},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {rd::scatter_add_along(in_shape, s[0], g[0], d)};
                     });
  }
  return {vals, idx};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending, bool) {
  int64_t d = wrap_dim(dim, a.dim(), "sort");
  RowParams prm;
  prm.flag = descending;
  return rows_op(sort_kernel, a, d, a.dim() ? a.size(d) : 1, prm, "SortBackward0");
}

Tensor argsort(const Tensor& a, int64_t dim, bool descending, bool stable) {
  return sort(a.detach(), dim, descending, stable).second;
}

std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
  int64_t d = wrap_dim(dim, a.dim(), "topk");
  int64_t n = a.dim() ? a.size(d) : 1;
  TC_CHECK_INDEX(k >= 0 && k <= n, "topk(): selected index k out of range (k = ", k,
                 ", size of dim ", d, " = ", n, ")");
  RowParams prm;
  prm.k = k;
  prm.flag = largest;
  prm.flag2 = sorted;
  return rows_op(topk_kernel, a, d, k, prm, "TopkBackward0");
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, a.dim(), "kthvalue");
  int64_t n = a.dim() ? a.size(d) : 1;
  TC_CHECK_INDEX(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", d,
                 " (k = ", k, ", size = ", n, ")");
  RowParams prm;
  prm.k = k;
  auto [v, i] = rows_op(kthvalue_kernel, a, d, 1, prm, "KthvalueBackward0");
  if (!keepdim && a.dim() > 0) {
    v = squeeze(v, d);
    i = squeeze(i, d);
  }
  return {v, i};
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& a, bool) {
  DType kd = a.dtype() == DType::Bool ? DType::Bool : rd::kernel_dtype(a.dtype());
  Tensor flat = contiguous(reshape(to_dtype(a.detach(), kd), {-1}));
  Tensor values, inverse, counts;
  unique_kernel.get(a.device().type)(flat, values, inverse, counts, false);
  return {to_dtype(values, a.dtype()), reshape(inverse, a.sizes()), counts};
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& a) {
  DType kd = a.dtype() == DType::Bool ? DType::Bool : rd::kernel_dtype(a.dtype());
  Tensor flat = contiguous(reshape(to_dtype(a.detach(), kd), {-1}));
  Tensor values, inverse, counts;
  unique_kernel.get(a.device().type)(flat, values, inverse, counts, true);
  return {to_dtype(values, a.dtype()), reshape(inverse, a.sizes()), counts};
}

namespace {

// Groups the rows of a contiguous host [n, m] tensor: `order` lists the rows group by group
// (lexicographically sorted unless consecutive), `group` gives each row's group, `starts` where
// each group begins in `order`. Rows compare with the element type's == and < (NaN rows stay
// distinct, -0.0 equals 0.0), as torch's unique_dim does.
template <typename T>
void group_rows(const Tensor& rows, bool consecutive, std::vector<int64_t>& order,
                std::vector<int64_t>& group, std::vector<int64_t>& starts) {
  const int64_t n = rows.size(0), m = rows.size(1);
  const T* p = static_cast<const T*>(rows.data_ptr());
  auto row = [&](int64_t i) { return p + i * m; };
  auto equal = [&](int64_t a, int64_t b) { return std::equal(row(a), row(a) + m, row(b)); };
  order.resize(size_t(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  if (!consecutive)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return std::lexicographical_compare(row(a), row(a) + m, row(b), row(b) + m);
    });
  group.assign(size_t(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || !equal(order[size_t(i - 1)], order[size_t(i)])) starts.push_back(i);
    group[size_t(order[size_t(i)])] = int64_t(starts.size()) - 1;
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& a, int64_t dim, bool consecutive) {
  const char* op = consecutive ? "unique_consecutive" : "unique";
  TC_CHECK_INDEX(a.dim() > 0, op, "(): dimension specified as ", dim,
                 " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, a.dim(), op);
  TC_CHECK_TYPE(!is_complex(a.dtype()), op, "(dim=", dim, ") is not implemented for ",
                dtype_name(a.dtype()), " tensors");
  for (int64_t k = 0; k < a.dim(); ++k)
    TC_CHECK_AS(Error, k == d || a.size(k) > 0 || a.size(d) == 0, op, "(dim=", dim,
                "): there are 0 sized "
                "dimensions, and they aren't selected, so unique cannot be applied (shape ",
                shape_str(a.sizes()), ")");
  const int64_t n = a.size(d);
  int64_t m = 1;
  for (int64_t k = 0; k < a.dim(); ++k)
    if (k != d) m *= a.size(k);
  // Slices as host rows [n, m] in a dtype keeping order and equality (float16 -> float32, ints
  // and bool -> int64); the values are then picked from `a` itself, so nothing is rounded. The
  // rows are laid out as transpose(dim, 0) does (not movedim): torch compares slices in that
  // element order, which decides the sorted order for 3-d and larger inputs.
  Tensor x = a.detach();
  DType kd = rd::kernel_dtype(x.dtype());
  Tensor rows = contiguous(to_device(reshape(transpose(to_dtype(x, kd), 0, d), {n, m}), Device()));
  std::vector<int64_t> order, group, starts;
  dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64)) |
                 (1u << int(DType::Int64))>(kd, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    group_rows<T>(rows, consecutive, order, group, starts);
  });
  const int64_t k = int64_t(starts.size());
  std::vector<int64_t> first(static_cast<size_t>(k)), counts(static_cast<size_t>(k));
  for (int64_t gi = 0; gi < k; ++gi) {
    int64_t end = gi + 1 < k ? starts[size_t(gi + 1)] : n;
    first[size_t(gi)] = order[size_t(starts[size_t(gi)])];
    counts[size_t(gi)] = end - starts[size_t(gi)];
  }
  TensorOptions io = TensorOptions(DType::Int64).device(a.device());
  Tensor values = index_select(x, d, from_vector(first, {k}, io));
  return {values, from_vector(group, {n}, io), from_vector(counts, {k}, io)};
}

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                    const Tensor& sorter) {
  TC_CHECK(seq.dim() >= 1, "searchsorted(): boundaries tensor should have at least 1 dimension");
  if (seq.dim() > 1) {
    TC_CHECK(
        values.dim() == seq.dim() && Shape(seq.sizes().begin(), seq.sizes().end() - 1) ==
                                         Shape(values.sizes().begin(), values.sizes().end() - 1),
        "searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
        "of boundaries tensor and input value tensor must match, but we got boundaries tensor ",
        shape_str(seq.sizes()), " and input value tensor ", shape_str(values.sizes()));
  }
  if (sorter.defined())
    TC_CHECK(sorter.sizes() == seq.sizes(),
             "searchsorted(): boundary and sorter must have the "
             "same size, but got boundary tensor ",
             shape_str(seq.sizes()), " and sorter tensor ", shape_str(sorter.sizes()));
  DType kd = rd::kernel_dtype(promote_types(seq.dtype(), values.dtype()));
  int64_t nb = seq.size(-1);
  Tensor b = contiguous(reshape(to_dtype(seq.detach(), kd), {-1, nb}));
  Tensor v;
  if (seq.dim() == 1) {
    v = contiguous(reshape(to_dtype(values.detach(), kd), {1, -1}));
  } else {
    int64_t nv = values.size(-1);
    v = contiguous(reshape(to_dtype(values.detach(), kd), {b.size(0), nv}));
  }
  Tensor s;
  if (sorter.defined()) {
    s = contiguous(reshape(to_dtype(sorter, DType::Int64), {-1, nb}));
    // The kernel indexes the boundaries with these: an out-of-range entry read wild memory.
    if (s.numel() > 0) {
      const int64_t lo = amin(s).item<int64_t>(), hi = amax(s).item<int64_t>();
      TC_CHECK_INDEX(lo >= 0 && hi < nb, "searchsorted(): sorter entries must be indices in [0, ",
                     nb, "), got values in [", lo, ", ", hi, "]");
    }
  }
  Tensor out =
      empty(v.sizes(), TensorOptions(out_int32 ? DType::Int32 : DType::Int64).device(v.device()));
  if (out.numel() > 0) searchsorted_kernel.get(seq.device().type)(out, b, v, s, right);
  return reshape(out, values.sizes());
}

Tensor bucketize(const Tensor& a, const Tensor& boundaries, bool out_int32, bool right) {
  TC_CHECK(boundaries.dim() == 1,
           "bucketize(): boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(),
           ")");
  return searchsorted(boundaries, a, out_int32, right);
}

Tensor histc(const Tensor& a, int64_t bins, double lo, double hi) {
  TC_CHECK_TYPE(is_floating(a.dtype()), "histc(): expected a floating point input, got ",
                dtype_name(a.dtype()));
  TC_CHECK(bins > 0, "histc(): bins must be > 0, but got ", bins);
  TC_CHECK(!(lo > hi), "histc(): max must be larger than min (min = ", lo, ", max = ", hi, ")");
  DType kd = rd::kernel_dtype(a.dtype());
  Tensor x = contiguous(to_dtype(a.detach(), kd));
  if (lo == hi && x.numel() > 0) {
    lo = amin(x).item<double>();
    hi = amax(x).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TC_CHECK(std::isfinite(lo) && std::isfinite(hi), "histc(): range of [", lo, ", ", hi,
           "] is not finite");
  Tensor out = zeros({bins}, TensorOptions(kd).device(x.device()));
  histc_kernel.get(a.device().type)(out, x, bins, lo, hi);
  return to_dtype(out, a.dtype());
}

Tensor bincount(const Tensor& a, const Tensor& weights, int64_t minlength) {
  TC_CHECK(a.dim() == 1, "bincount(): input should be 1-d, got ", a.dim(), "-d");
  TC_CHECK_TYPE(is_integral(a.dtype(), false), "bincount(): input must be an integral tensor, got ",
                dtype_name(a.dtype()));
  TC_CHECK(minlength >= 0, "bincount(): minlength should be >= 0");
  Tensor x = contiguous(to_dtype(a.detach(), DType::Int64));
  int64_t nbins = minlength;
  if (x.numel() > 0) {
    TC_CHECK(amin(x).item<int64_t>() >= 0, "bincount(): input must contain non-negative values");
    nbins = std::max(nbins, amax(x).item<int64_t>() + 1);
  }
  Tensor w;
  DType out_dtype = DType::Int64;
  if (weights.defined()) {
    TC_CHECK(weights.dim() == 1 && weights.numel() == a.numel(),
             "bincount(): weights should be "
             "1-d and have the same length as input, got ",
             shape_str(weights.sizes()));
    out_dtype = weights.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
    w = contiguous(to_dtype(weights.detach(), out_dtype));
  }
  Tensor out = zeros({nbins}, TensorOptions(out_dtype).device(x.device()));
  bincount_kernel.get(a.device().type)(out, x, w);
  return out;
}

}  // namespace tc
