#include "tensorcore/kernels/cpu/reduce_loops.h"

namespace tc {

// Merges adjacent dims that are contiguous with each other (outer-to-inner order).
static void coalesce_dims(Shape& sizes, Shape& strides) {
  Shape s2, st2;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    if (!s2.empty() && st2.back() == sizes[i] * strides[i]) {
      s2.back() *= sizes[i];
      st2.back() = strides[i];
    } else {
      s2.push_back(sizes[i]);
      st2.push_back(strides[i]);
    }
  }
  if (s2.empty()) {
    s2.push_back(1);
    st2.push_back(1);
  }
  sizes = std::move(s2);
  strides = std::move(st2);
}

ReduceGeometry::ReduceGeometry(const Tensor& in, const std::vector<bool>& reduce_mask) {
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (reduce_mask[size_t(d)]) {
      red_sizes.push_back(in.sizes()[d]);
      red_strides.push_back(in.strides()[d]);
      reduce_size *= in.sizes()[d];
    } else {
      kept_sizes.push_back(in.sizes()[d]);
      kept_strides.push_back(in.strides()[d]);
      num_outputs *= in.sizes()[d];
    }
  }
  // Reduced dims: order by stride (largest first) so the innermost is the fastest-moving.
  std::vector<size_t> order(red_sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return red_strides[a] > red_strides[b]; });
  Shape rs, rst;
  for (size_t i : order) {
    rs.push_back(red_sizes[i]);
    rst.push_back(red_strides[i]);
  }
  red_sizes = rs;
  red_strides = rst;
  coalesce_dims(red_sizes, red_strides);
  // Kept dims keep their order (the output is contiguous in that order); drop size-1 dims.
  Shape ks, kst;
  for (size_t i = 0; i < kept_sizes.size(); ++i) {
    if (kept_sizes[i] == 1) continue;
    ks.push_back(kept_sizes[i]);
    kst.push_back(kept_strides[i]);
  }
  if (ks.empty()) {
    ks.push_back(1);
    kst.push_back(0);
  }
  kept_sizes = ks;
  kept_strides = kst;
}

}  // namespace tc
