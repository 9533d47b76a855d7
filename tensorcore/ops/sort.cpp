// Sorting and searching: sort/argsort/topk/kthvalue (with vjps scattering into zeros), unique,
// searchsorted/bucketize, histc, bincount.
#include "tensorcore/ops/sort.h"

#include <cmath>

#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
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

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                    const Tensor& sorter) {
  TC_CHECK(seq.dim() >= 1, "searchsorted(): boundaries tensor should have at least 1 dimension");
  if (seq.dim() > 1) {
    TC_CHECK(values.dim() == seq.dim() &&
                 Shape(seq.sizes().begin(), seq.sizes().end() - 1) ==
                     Shape(values.sizes().begin(), values.sizes().end() - 1),
             "searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
             "of boundaries tensor and input value tensor must match, but we got boundaries tensor ",
             shape_str(seq.sizes()), " and input value tensor ", shape_str(values.sizes()));
  }
  if (sorter.defined())
    TC_CHECK(sorter.sizes() == seq.sizes(), "searchsorted(): boundary and sorter must have the "
             "same size, but got boundary tensor ", shape_str(seq.sizes()), " and sorter tensor ",
             shape_str(sorter.sizes()));
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
  if (sorter.defined()) s = contiguous(reshape(to_dtype(sorter, DType::Int64), {-1, nb}));
  Tensor out = empty(v.sizes(), TensorOptions(out_int32 ? DType::Int32 : DType::Int64).device(v.device()));
  if (out.numel() > 0) searchsorted_kernel.get(seq.device().type)(out, b, v, s, right);
  return reshape(out, values.sizes());
}

Tensor bucketize(const Tensor& a, const Tensor& boundaries, bool out_int32, bool right) {
  TC_CHECK(boundaries.dim() == 1, "bucketize(): boundaries tensor must be 1 dimension, but got dim(",
           boundaries.dim(), ")");
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
    TC_CHECK(weights.dim() == 1 && weights.numel() == a.numel(), "bincount(): weights should be "
             "1-d and have the same length as input, got ", shape_str(weights.sizes()));
    out_dtype = weights.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
    w = contiguous(to_dtype(weights.detach(), out_dtype));
  }
  Tensor out = zeros({nbins}, TensorOptions(out_dtype).device(x.device()));
  bincount_kernel.get(a.device().type)(out, x, w);
  return out;
}

}  // namespace tc
