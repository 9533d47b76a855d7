#pragma once
// Generic CPU reduction: the input is split into kept and reduced dimensions; each output
// element folds its reduced slice. Two vectorizable fast paths: reducing a contiguous inner run
// (many independent accumulators) and reducing an outer dim into a contiguous row of outputs.
#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tensorcore/core/parallel.h"
#include "tensorcore/core/tensor.h"

namespace tc {

// Describes the reduction geometry once: strides in elements.
struct ReduceGeometry {
  Shape kept_sizes, kept_strides;  // kept dims of the input (outer to inner)
  Shape red_sizes, red_strides;    // reduced dims of the input (coalesced, outer to inner)
  int64_t num_outputs = 1, reduce_size = 1;
  ReduceGeometry(const Tensor& in, const std::vector<bool>& reduce_mask);
};

// Ops: Acc init(); Acc fold(Acc, T); Acc merge(Acc, Acc); Out finish(Acc, int64_t n).
// Optional: Acc fold_contiguous(const T*, int64_t n), a hand-vectorized fold of a contiguous run
// (see reduce_fast.h); it replaces the generic 16-lane loop when present.
template <typename Op, typename T, typename = void>
struct has_fold_contiguous : std::false_type {};
template <typename Op, typename T>
struct has_fold_contiguous<Op, T,
                           std::void_t<decltype(std::declval<const Op&>().fold_contiguous(
                               std::declval<const T*>(), int64_t(0)))>> : std::true_type {};

template <typename T, typename Op>
auto fold_contiguous_run(const Op& op, const T* p, int64_t n) {
  if constexpr (has_fold_contiguous<Op, T>::value) {
    return op.fold_contiguous(p, n);
  } else {
    // 16 independent accumulators let the compiler vectorize.
    using Acc = decltype(op.init());
    constexpr int kLanes = 16;
    Acc lanes[kLanes];
    for (auto& l : lanes) l = op.init();
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int k = 0; k < kLanes; ++k) lanes[k] = op.fold(lanes[k], p[j + k]);
    Acc acc = op.init();
    for (; j < n; ++j) acc = op.fold(acc, p[j]);
    for (auto& l : lanes) acc = op.merge(acc, l);
    return acc;
  }
}

template <typename T, typename Out, typename Op>
void cpu_reduce(const Tensor& out, const Tensor& in, const std::vector<bool>& reduce_mask, Op op) {
  using Acc = decltype(op.init());
  ReduceGeometry g(in, reduce_mask);
  const T* base = static_cast<const T*>(in.data_ptr());
  Out* dst = static_cast<Out*>(out.data_ptr());  // contiguous, ordered like kept dims
  const int64_t n = g.reduce_size;

  auto offset_of = [&](int64_t idx, const Shape& sizes, const Shape& strides) {
    int64_t off = 0;
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
      off += (idx % sizes[d]) * strides[d];
      idx /= sizes[d];
    }
    return off;
  };

  // The reduced dims outside the innermost one, for slices whose innermost reduced dim is a
  // contiguous run (a bias gradient's sum over batch and spatial dims): each run folds on the
  // fast path and the runs merge, instead of one index computation per element.
  const bool inner_run =
      !g.red_sizes.empty() && g.red_strides.back() == 1 && g.red_sizes.back() > 0;
  const int64_t run = inner_run ? g.red_sizes.back() : 1;
  const Shape run_sizes(g.red_sizes.begin(), g.red_sizes.end() - (inner_run ? 1 : 0));
  const Shape run_strides(g.red_strides.begin(), g.red_strides.end() - (inner_run ? 1 : 0));

  // Folds the reduced slice starting at `p`.
  auto fold_slice = [&](const T* p) -> Acc {
    if (g.red_sizes.size() == 1 && g.red_strides[0] == 1) return fold_contiguous_run<T>(op, p, n);
    Acc acc = op.init();
    if (inner_run) {
      for (int64_t r = 0; r < n / run; ++r)
        acc = op.merge(acc,
                       fold_contiguous_run<T>(op, p + offset_of(r, run_sizes, run_strides), run));
      return acc;
    }
    for (int64_t r = 0; r < n; ++r) acc = op.fold(acc, p[offset_of(r, g.red_sizes, g.red_strides)]);
    return acc;
  };

  if (g.num_outputs == 1) {
    // Full reduction: split the (contiguous-ish) input into blocks and merge partials.
    if (g.red_sizes.size() == 1 && g.red_strides[0] == 1 && n > 65536 && get_num_threads() > 1) {
      int64_t nthreads = get_num_threads();
      std::vector<Acc> partial(size_t(nthreads), op.init());
      int64_t chunk = (n + nthreads - 1) / nthreads;
      parallel_for(0, nthreads, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          int64_t s = t * chunk, len = std::min(n, s + chunk) - s;
          if (len <= 0) continue;
          partial[size_t(t)] = fold_contiguous_run<T>(op, base + s, len);
        }
      });
      Acc acc = op.init();
      for (auto& p : partial) acc = op.merge(acc, p);
      dst[0] = op.finish(acc, n);
      return;
    }
    dst[0] = op.finish(fold_slice(base), n);
    return;
  }

  // Vertical path: innermost kept dim contiguous and the reduced dims outside it.
  bool vertical = !g.kept_strides.empty() && g.kept_strides.back() == 1 &&
                  !(g.red_sizes.size() == 1 && g.red_strides[0] == 1);
  if (vertical) {
    int64_t row = g.kept_sizes.back();
    int64_t outer = g.num_outputs / row;
    Shape outer_sizes(g.kept_sizes.begin(), g.kept_sizes.end() - 1);
    Shape outer_strides(g.kept_strides.begin(), g.kept_strides.end() - 1);
    parallel_for(0, outer * row, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)),
                 [&](int64_t b, int64_t e) {
                   std::vector<Acc> acc;
                   for (int64_t o = b / row; o * row < e; ++o) {
                     int64_t k0 = std::max(b, o * row) - o * row,
                             k1 = std::min(e, (o + 1) * row) - o * row;
                     const T* p0 = base + offset_of(o, outer_sizes, outer_strides);
                     acc.assign(size_t(k1 - k0), op.init());
                     Acc* a = acc.data();
                     for (int64_t r = 0; r < n; ++r) {
                       const T* p = p0 + offset_of(r, g.red_sizes, g.red_strides) + k0;
                       for (int64_t k = 0; k < k1 - k0; ++k) a[k] = op.fold(a[k], p[k]);
                     }
                     Out* d = dst + o * row + k0;
                     for (int64_t k = 0; k < k1 - k0; ++k) d[k] = op.finish(a[k], n);
                   }
                 });
    return;
  }

  parallel_for(0, g.num_outputs, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o)
                   dst[o] =
                       op.finish(fold_slice(base + offset_of(o, g.kept_sizes, g.kept_strides)), n);
               });
}

}  // namespace tc
