// CPU row kernels for arg-reductions, scans, sort/topk/kthvalue/median/mode, the private
// gather/scatter/pointwise helpers used by their vjps, and unique/searchsorted/histc/bincount.
// Inputs arrive contiguous as [rows, n] in float32/float64/int64 (the ops convert others).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc {
namespace {

constexpr uint32_t kF32 = 1u << int(DType::Float32), kF64 = 1u << int(DType::Float64),
                   kI64 = 1u << int(DType::Int64), kI32 = 1u << int(DType::Int32);
constexpr uint32_t kFloats = kF32 | kF64;
constexpr uint32_t kRowTypes = kFloats | kI64;
// Accumulator of products (cumprod and its vjp helpers): complex types accumulate in complex128.
template <typename T>
using prod_acc_t =
    std::conditional_t<is_complex_v<T>, complex128,
                       std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;

template <typename T>
inline bool isnan_(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(x);
  else
    return (void)x, false;
}
// Total order with NaN largest (torch's sort order).
template <typename T>
inline bool lt_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (!std::isnan(a) && std::isnan(b)) || a < b;
  else
    return a < b;
}

// Runs f(row, in_row_ptr, n) over rows in parallel.
template <typename T, typename F>
void for_rows(const Tensor& in, F f) {
  int64_t rows = in.size(0), n = in.size(1);
  const T* base = static_cast<const T*>(in.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t r = b; r < e; ++r) f(r, base + r * n, n);
               });
}

// for_rows for the kernels that reorder a row's indices: f(row, in_row_ptr, n, idx, out, ix) with
// idx = 0..n-1 to permute, out / ix the value and index outputs.
template <typename T, typename F>
void for_rows_ordering(const Tensor& in, const Tensor& values, const Tensor& indices, F f) {
  T* out = static_cast<T*>(values.data_ptr());
  int64_t* ix = static_cast<int64_t*>(indices.data_ptr());
  for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
    std::vector<int64_t> idx(static_cast<size_t>(n));
    std::iota(idx.begin(), idx.end(), int64_t(0));
    f(r, p, n, idx, out, ix);
  });
}

template <bool Max>
void argminmax_cpu(const Tensor& in, const Tensor& values, const Tensor& indices,
                   const RowParams&) {
  dispatch_dtype<kRowTypes>(in.dtype(), Max ? "argmax" : "argmin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* v = values.defined() ? static_cast<T*>(values.data_ptr()) : nullptr;
    int64_t* ix = static_cast<int64_t*>(indices.data_ptr());
    for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
      T best = p[0];
      int64_t bi = 0;
      for (int64_t j = 1; j < n && !isnan_(best); ++j) {
        T x = p[j];
        if (isnan_(x) || (Max ? x > best : x < best)) {
          best = x;
          bi = j;
        }
      }
      if (v) v[r] = best;
      ix[r] = bi;
    });
  });
}

// Scans: cumsum / cumprod / logcumsumexp (flag = reverse).
enum class ScanKind { Sum, Prod, LogSumExp };
template <ScanKind K>
void scan_cpu(const Tensor& in, const Tensor& values, const Tensor&, const RowParams& prm) {
  constexpr uint32_t set = K == ScanKind::LogSumExp ? kFloats
                           : K == ScanKind::Prod    ? kRowTypes | kComplex
                                                    : kRowTypes;
  dispatch_dtype<set>(in.dtype(), "cumulative op", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = prod_acc_t<T>;
    T* out = static_cast<T*>(values.data_ptr());
    for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
      T* o = out + r * n;
      Acc acc = K == ScanKind::Prod  ? Acc(1)
                : K == ScanKind::Sum ? Acc(0)
                                     : Acc(-std::numeric_limits<double>::infinity());
      for (int64_t jj = 0; jj < n; ++jj) {
        int64_t j = prm.flag ? n - 1 - jj : jj;
        if constexpr (K == ScanKind::Sum)
          acc += Acc(p[j]);
        else if constexpr (K == ScanKind::Prod)
          acc *= Acc(p[j]);
        else if constexpr (!is_complex_v<T>) {
          double x = double(p[j]), a = double(acc), m = std::max(a, x);
          if (std::isnan(x) || std::isnan(a))
            acc = Acc(NAN);
          else if (std::isinf(m))
            acc = Acc(m);
          else
            acc = Acc(m + std::log(std::exp(a - m) + std::exp(x - m)));
        }
        o[j] = T(acc);
      }
    });
  });
}

template <bool Max>
void cumminmax_cpu(const Tensor& in, const Tensor& values, const Tensor& indices,
                   const RowParams&) {
  dispatch_dtype<kRowTypes>(in.dtype(), Max ? "cummax" : "cummin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(values.data_ptr());
    int64_t* ix = static_cast<int64_t*>(indices.data_ptr());
    for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
      T best = p[0];
      int64_t bi = 0;
      for (int64_t j = 0; j < n; ++j) {
        T x = p[j];
        if (isnan_(x) || (!isnan_(best) && (Max ? x >= best : x <= best))) {
          best = x;
          bi = j;
        }
        out[r * n + j] = best;
        ix[r * n + j] = bi;
      }
    });
  });
}

void sort_cpu(const Tensor& in, const Tensor& values, const Tensor& indices, const RowParams& prm) {
  dispatch_dtype<kRowTypes>(in.dtype(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = values.defined() ? static_cast<T*>(values.data_ptr()) : nullptr;
    int64_t* ix = static_cast<int64_t*>(indices.data_ptr());
    bool desc = prm.flag;
    for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
      int64_t* idx = ix + r * n;
      std::iota(idx, idx + n, int64_t(0));
      if (desc)
        std::stable_sort(idx, idx + n, [&](int64_t a, int64_t b) { return lt_nan(p[b], p[a]); });
      else
        std::stable_sort(idx, idx + n, [&](int64_t a, int64_t b) { return lt_nan(p[a], p[b]); });
      if (out)
        for (int64_t j = 0; j < n; ++j) out[r * n + j] = p[idx[j]];
    });
  });
}

void topk_cpu(const Tensor& in, const Tensor& values, const Tensor& indices, const RowParams& prm) {
  dispatch_dtype<kRowTypes>(in.dtype(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t k = prm.k;
    bool largest = prm.flag;
    for_rows_ordering<T>(in, values, indices,
                         [&](int64_t r, const T* p, int64_t, auto& idx, T* out, int64_t* ix) {
                           auto cmp = [&](int64_t a, int64_t b) {
                             if (largest)
                               return lt_nan(p[b], p[a]) || (!lt_nan(p[a], p[b]) && a < b);
                             return lt_nan(p[a], p[b]) || (!lt_nan(p[b], p[a]) && a < b);
                           };
                           std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), cmp);
                           for (int64_t j = 0; j < k; ++j) {
                             out[r * k + j] = p[idx[size_t(j)]];
                             ix[r * k + j] = idx[size_t(j)];
                           }
                         });
  });
}

void kthvalue_cpu(const Tensor& in, const Tensor& values, const Tensor& indices,
                  const RowParams& prm) {
  dispatch_dtype<kRowTypes>(in.dtype(), "kthvalue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_rows_ordering<T>(
        in, values, indices, [&](int64_t r, const T* p, int64_t, auto& idx, T* out, int64_t* ix) {
          std::nth_element(idx.begin(), idx.begin() + (prm.k - 1), idx.end(),
                           [&](int64_t a, int64_t b) { return lt_nan(p[a], p[b]); });
          int64_t i = idx[size_t(prm.k - 1)];
          out[r] = p[i];
          ix[r] = i;
        });
  });
}

// Lower median; NaN propagates (index of the first NaN) unless flag (nanmedian).
void median_cpu(const Tensor& in, const Tensor& values, const Tensor& indices,
                const RowParams& prm) {
  dispatch_dtype<kRowTypes>(in.dtype(), "median", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(values.data_ptr());
    int64_t* ix = indices.defined() ? static_cast<int64_t*>(indices.data_ptr()) : nullptr;
    for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
      std::vector<int64_t> idx;
      idx.reserve(size_t(n));
      int64_t first_nan = -1;
      for (int64_t j = 0; j < n; ++j) {
        if (isnan_(p[j])) {
          if (first_nan < 0) first_nan = j;
        } else {
          idx.push_back(j);
        }
      }
      if (first_nan >= 0 && (!prm.flag || idx.empty())) {
        out[r] = p[first_nan];
        if (ix) ix[r] = first_nan;
        return;
      }
      int64_t k = (int64_t(idx.size()) - 1) / 2;
      std::nth_element(idx.begin(), idx.begin() + k, idx.end(),
                       [&](int64_t a, int64_t b) { return p[a] < p[b]; });
      out[r] = p[idx[size_t(k)]];
      if (ix) ix[r] = idx[size_t(k)];
    });
  });
}

// Most frequent value (ties: smallest value), index of its last occurrence (torch CPU).
void mode_cpu(const Tensor& in, const Tensor& values, const Tensor& indices, const RowParams&) {
  dispatch_dtype<kRowTypes>(in.dtype(), "mode", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_rows_ordering<T>(in, values, indices,
                         [&](int64_t r, const T* p, int64_t n, auto& idx, T* out, int64_t* ix) {
                           std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
                             return lt_nan(p[a], p[b]) || (!lt_nan(p[b], p[a]) && a < b);
                           });
                           auto same = [&](T a, T b) { return a == b || (isnan_(a) && isnan_(b)); };
                           int64_t best_len = 0, best_end = 0;
                           for (int64_t s = 0; s < n;) {
                             int64_t e = s + 1;
                             while (e < n && same(p[idx[size_t(e)]], p[idx[size_t(s)]])) ++e;
                             if (e - s > best_len) {
                               best_len = e - s;
                               best_end = e - 1;
                             }
                             s = e;
                           }
                           out[r] = p[idx[size_t(best_end)]];
                           ix[r] = idx[size_t(best_end)];
                         });
  });
}

void prod_others_cpu(const Tensor& in, const Tensor& values, const Tensor&, const RowParams&) {
  dispatch_dtype<kFloats | kComplex>(in.dtype(), "prod_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = prod_acc_t<T>;
    T* out = static_cast<T*>(values.data_ptr());
    for_rows<T>(in, [&](int64_t r, const T* p, int64_t n) {
      T* o = out + r * n;
      Acc acc = 1;
      for (int64_t j = 0; j < n; ++j) {  // exclusive prefix
        o[j] = T(acc);
        acc *= Acc(p[j]);
      }
      acc = 1;
      for (int64_t j = n - 1; j >= 0; --j) {
        o[j] = T(Acc(o[j]) * acc);
        acc *= Acc(p[j]);
      }
    });
  });
}

// Row-wise gather (narrow[r, j] = wide[r, idx[r, j]]) or scatter-add (wide[r, idx[r, j]] +=
// narrow[r, j]); wide is [rows, n], narrow and idx [rows, k].
template <bool Scatter>
void rows_indexed(const Tensor& wide, const Tensor& narrow, const Tensor& idx, const char* op) {
  dispatch_dtype<kFloats>(wide.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t n = wide.sizes().back(), k = idx.sizes().back(), rows = wide.size(0);
    T* w = static_cast<T*>(wide.data_ptr());
    T* v = static_cast<T*>(narrow.data_ptr());
    const int64_t* ix = static_cast<const int64_t*>(idx.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(k, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r)
                     for (int64_t j = 0; j < k; ++j) {
                       if constexpr (Scatter)
                         w[r * n + ix[r * k + j]] += v[r * k + j];
                       else
                         v[r * k + j] = w[r * n + ix[r * k + j]];
                     }
                 });
  });
}

void rows_gather_cpu(const Tensor& out, const Tensor& in, const Tensor& idx) {
  rows_indexed<false>(in, out, idx, "gather");
}
void rows_scatter_add_cpu(const Tensor& out, const Tensor& src, const Tensor& idx) {
  rows_indexed<true>(out, src, idx, "scatter_add");
}

// out_i = sum_{j>=i} g_j prod_{k<=j, k!=i} x_k in O(n) per row: with z the first zero of the row,
// i < z divides the suffix sums of g_j * P_j (P = running product, x_i != 0 there), i == z
// multiplies the product before z by a running sum over j >= z, and i > z gets 0 (x_z is a
// factor of every term).
void cumprod_backward_cpu(const Tensor& out, const Tensor& x, const Tensor& g) {
  dispatch_dtype<kFloats | kComplex>(x.dtype(), "cumprod_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = prod_acc_t<T>;
    const T* gp = static_cast<const T*>(g.data_ptr());
    T* op = static_cast<T*>(out.data_ptr());
    for_rows<T>(x, [&](int64_t r, const T* p, int64_t n) {
      const T* gr = gp + r * n;
      T* o = op + r * n;
      int64_t z = 0;
      Acc before_z = 1;  // prod_{k<z} x_k
      while (z < n && p[z] != T(0)) before_z *= Acc(p[z++]);
      if (z < n) {
        Acc run = before_z, s = 0;  // run = prod_{k<=j, k!=z} x_k
        for (int64_t j = z; j < n; ++j) {
          if (j > z) run *= Acc(p[j]);
          s += Acc(gr[j]) * run;
        }
        o[z] = T(s);
        for (int64_t i = z + 1; i < n; ++i) o[i] = T(0);
      }
      // Suffix sums over j < z of g_j * P_j (they stop at z: later terms hold the zero).
      Acc prefix = 1;
      std::vector<Acc> partial(static_cast<size_t>(z));
      for (int64_t j = 0; j < z; ++j) {
        prefix *= Acc(p[j]);
        partial[size_t(j)] = Acc(gr[j]) * prefix;
      }
      Acc suffix = 0;
      for (int64_t i = z - 1; i >= 0; --i) {
        suffix += partial[size_t(i)];
        o[i] = T(suffix / Acc(p[i]));
      }
    });
  });
}

void pointwise_cpu(const Tensor& out, const Tensor& a, const Tensor& b, PointwiseCode code,
                   double pw) {
  dispatch_dtype<kFloats>(a.dtype(), "reduce_pointwise", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(a.data_ptr());
    const T* y = b.defined() ? static_cast<const T*>(b.data_ptr()) : nullptr;
    T* o = static_cast<T*>(out.data_ptr());
    int64_t n = a.numel();
    parallel_for(0, n, 32768, [&](int64_t s, int64_t e) {
      switch (code) {
        case PointwiseCode::EqMask:
          for (int64_t i = s; i < e; ++i)
            o[i] = (x[i] == y[i] || (x[i] != x[i] && y[i] != y[i])) ? T(1) : T(0);
          break;
        case PointwiseCode::NotNan:
          for (int64_t i = s; i < e; ++i) o[i] = x[i] != x[i] ? T(0) : T(1);
          break;
        case PointwiseCode::IsZero:
          for (int64_t i = s; i < e; ++i) o[i] = x[i] == T(0) ? T(1) : T(0);
          break;
        case PointwiseCode::Abs:
          for (int64_t i = s; i < e; ++i) o[i] = std::abs(x[i]);
          break;
        case PointwiseCode::Sign:
          for (int64_t i = s; i < e; ++i) o[i] = T((x[i] > T(0)) - (x[i] < T(0)));
          break;
        case PointwiseCode::PowAbs:
          for (int64_t i = s; i < e; ++i) o[i] = T(std::pow(std::abs(double(x[i])), pw));
          break;
        case PointwiseCode::NanToZero:
          for (int64_t i = s; i < e; ++i) o[i] = x[i] != x[i] ? T(0) : x[i];
          break;
      }
    });
  });
}

void unique_cpu(const Tensor& in, Tensor& values, Tensor& inverse, Tensor& counts,
                bool consecutive) {
  dispatch_dtype<kRowTypes | (1u << int(DType::Bool))>(in.dtype(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(in.data_ptr());
    int64_t n = in.numel();
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    if (!consecutive)
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return lt_nan(p[a], p[b]); });
    std::vector<T> vals;
    std::vector<int64_t> cnt, inv(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      T x = p[order[size_t(i)]];
      // NaNs are all distinct (torch's unique keeps every NaN).
      if (vals.empty() || !(vals.back() == x)) {
        vals.push_back(x);
        cnt.push_back(0);
      }
      cnt.back()++;
      inv[size_t(order[size_t(i)])] = int64_t(vals.size()) - 1;
    }
    int64_t u = int64_t(vals.size());
    values = empty({u}, TensorOptions(in.dtype()));
    std::copy(vals.begin(), vals.end(), static_cast<T*>(values.data_ptr()));
    inverse = empty({n}, TensorOptions(DType::Int64));
    std::copy(inv.begin(), inv.end(), static_cast<int64_t*>(inverse.data_ptr()));
    counts = empty({u}, TensorOptions(DType::Int64));
    std::copy(cnt.begin(), cnt.end(), static_cast<int64_t*>(counts.data_ptr()));
  });
}

void searchsorted_cpu(const Tensor& out, const Tensor& bnd, const Tensor& vals,
                      const Tensor& sorter, bool right) {
  dispatch_dtype<kRowTypes>(bnd.dtype(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t rows = vals.size(0), nv = vals.size(1), nb = bnd.size(1);
    bool shared = bnd.size(0) == 1;
    const T* bp = static_cast<const T*>(bnd.data_ptr());
    const T* vp = static_cast<const T*>(vals.data_ptr());
    const int64_t* sp = sorter.defined() ? static_cast<const int64_t*>(sorter.data_ptr()) : nullptr;
    bool i32 = out.dtype() == DType::Int32;
    parallel_for(0, rows * nv, 4096, [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        int64_t r = q / nv, br = shared ? 0 : r;
        const T* row = bp + br * nb;
        const int64_t* srow = sp ? sp + br * nb : nullptr;
        T v = vp[q];
        int64_t lo = 0, hi = nb;
        while (lo < hi) {
          int64_t mid = (lo + hi) / 2;
          T m = srow ? row[srow[mid]] : row[mid];
          bool go_right = right ? !lt_nan(v, m) : lt_nan(m, v);
          if (go_right)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (i32)
          static_cast<int32_t*>(out.data_ptr())[q] = int32_t(lo);
        else
          static_cast<int64_t*>(out.data_ptr())[q] = lo;
      }
    });
  });
}

void histc_cpu(const Tensor& out, const Tensor& in, int64_t bins, double lo, double hi) {
  dispatch_dtype<kFloats>(in.dtype(), "histc", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(in.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < in.numel(); ++i) {
      double x = double(p[i]);
      if (!(x >= lo && x <= hi)) continue;
      int64_t b = int64_t((x - lo) * double(bins) / (hi - lo));
      if (b >= bins) b = bins - 1;
      o[b] += T(1);
    }
  });
}

void bincount_cpu(const Tensor& out, const Tensor& in, const Tensor& weights) {
  const int64_t* p = static_cast<const int64_t*>(in.data_ptr());
  int64_t n = in.numel();
  dispatch_dtype<kFloats | kI64>(out.dtype(), "bincount", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = static_cast<T*>(out.data_ptr());
    const T* w = weights.defined() ? static_cast<const T*>(weights.data_ptr()) : nullptr;
    for (int64_t i = 0; i < n; ++i) o[p[i]] += w ? w[i] : T(1);
  });
}

TC_REGISTER_KERNEL(argmax_kernel, CPU, argminmax_cpu<true>);
TC_REGISTER_KERNEL(argmin_kernel, CPU, argminmax_cpu<false>);
TC_REGISTER_KERNEL(cumsum_kernel, CPU, scan_cpu<ScanKind::Sum>);
TC_REGISTER_KERNEL(cumprod_kernel, CPU, scan_cpu<ScanKind::Prod>);
TC_REGISTER_KERNEL(logcumsumexp_kernel, CPU, scan_cpu<ScanKind::LogSumExp>);
TC_REGISTER_KERNEL(cummax_kernel, CPU, cumminmax_cpu<true>);
TC_REGISTER_KERNEL(cummin_kernel, CPU, cumminmax_cpu<false>);
TC_REGISTER_KERNEL(sort_kernel, CPU, sort_cpu);
TC_REGISTER_KERNEL(topk_kernel, CPU, topk_cpu);
TC_REGISTER_KERNEL(kthvalue_kernel, CPU, kthvalue_cpu);
TC_REGISTER_KERNEL(median_kernel, CPU, median_cpu);
TC_REGISTER_KERNEL(mode_kernel, CPU, mode_cpu);
TC_REGISTER_KERNEL(prod_others_kernel, CPU, prod_others_cpu);
TC_REGISTER_KERNEL(rows_gather_kernel, CPU, rows_gather_cpu);
TC_REGISTER_KERNEL(rows_scatter_add_kernel, CPU, rows_scatter_add_cpu);
TC_REGISTER_KERNEL(cumprod_backward_kernel, CPU, cumprod_backward_cpu);
TC_REGISTER_KERNEL(reduce_pointwise_kernel, CPU, pointwise_cpu);
TC_REGISTER_KERNEL(unique_kernel, CPU, unique_cpu);
TC_REGISTER_KERNEL(searchsorted_kernel, CPU, searchsorted_cpu);
TC_REGISTER_KERNEL(histc_kernel, CPU, histc_cpu);
TC_REGISTER_KERNEL(bincount_kernel, CPU, bincount_cpu);

}  // namespace
}  // namespace tc
