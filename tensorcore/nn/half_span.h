#pragma once
// Native float16/bfloat16 support for the nn CPU kernels (norms, pooling): one kernel template
// per op serves float, double and the 16-bit types. Values are computed in `compute_t<T>`
// (float for float/float16/bfloat16, double for double). The loops see contiguous spans of
// compute values: for float/double the data itself, for the 16-bit types chunks of at most
// kSpanChunk elements widened into a stack buffer (vectorized conversions; element-wise maps
// read bfloat16 through BFloat16Reader instead, converting inline), so no whole-tensor float32
// copy is made and each output element is rounded once.
#include <cstdint>
#include <type_traits>

#include "tensorcore/core/half.h"
#include "tensorcore/kernels/cpu/half_vec.h"

namespace tc::nn::detail {

template <typename T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

constexpr int64_t kSpanChunk = 512;

// Bulk conversions (vectorized with F16C / AVX2), shared with the core elementwise kernels.
using half_vec::narrow;
using half_vec::widen;

// Scalar conversions for element-wise access (max pooling); branch-free.
inline float to_compute(float v) { return v; }
inline double to_compute(double v) { return v; }
inline float to_compute(BFloat16 v) { return half_vec::to_float(v); }
inline float to_compute(Half v) { return half_vec::to_float(v); }
template <typename T>
inline T from_compute(compute_t<T> v) {
  if constexpr (is_half_v<T>)
    return half_vec::from_float<T>(v);
  else
    return T(v);
}

// Calls f(const C* span, offset, length) over x[0, n).
template <typename T, typename F>
inline void for_spans(const T* x, int64_t n, F&& f) {
  if constexpr (!is_half_v<T>) {
    f(x, int64_t(0), n);
  } else {
    float buf[kSpanChunk];
    for (int64_t off = 0; off < n; off += kSpanChunk) {
      int64_t len = n - off < kSpanChunk ? n - off : kSpanChunk;
      widen(x + off, buf, len);
      f(static_cast<const float*>(buf), off, len);
    }
  }
}

// Calls f(const C* a_span, const C* b_span, offset, length) over a[0, n) and b[0, n).
template <typename T, typename F>
inline void for_spans2(const T* a, const T* b, int64_t n, F&& f) {
  if constexpr (!is_half_v<T>) {
    f(a, b, int64_t(0), n);
  } else {
    float ba[kSpanChunk], bb[kSpanChunk];
    for (int64_t off = 0; off < n; off += kSpanChunk) {
      int64_t len = n - off < kSpanChunk ? n - off : kSpanChunk;
      widen(a + off, ba, len);
      widen(b + off, bb, len);
      f(static_cast<const float*>(ba), static_cast<const float*>(bb), off, len);
    }
  }
}

// Read access to bfloat16 values as floats; the conversion is a shift, so a loop reading
// through it vectorizes with the conversion inline (no widened copy).
struct BFloat16Reader {
  const BFloat16* p;
  float operator[](int64_t i) const { return half_vec::to_float(p[i]); }
};

// Calls f(in, C* out, offset, length) over x[0, n) -> y[0, n); out is rounded into y. `in` is
// indexable (a pointer, or a BFloat16Reader), so f takes it as `auto`.
template <typename T, typename F>
inline void map_spans(const T* x, T* y, int64_t n, F&& f) {
  if constexpr (!is_half_v<T>) {
    f(x, y, int64_t(0), n);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    float bo[kSpanChunk];
    for (int64_t off = 0; off < n; off += kSpanChunk) {
      int64_t len = n - off < kSpanChunk ? n - off : kSpanChunk;
      f(BFloat16Reader{x + off}, static_cast<float*>(bo), off, len);
      narrow(bo, y + off, len);
    }
  } else {
    float bi[kSpanChunk], bo[kSpanChunk];
    for (int64_t off = 0; off < n; off += kSpanChunk) {
      int64_t len = n - off < kSpanChunk ? n - off : kSpanChunk;
      widen(x + off, bi, len);
      f(static_cast<const float*>(bi), static_cast<float*>(bo), off, len);
      narrow(bo, y + off, len);
    }
  }
}

// Calls f(a, b, C* out, offset, length) over a, b -> y (a and b indexable, as in map_spans).
template <typename T, typename F>
inline void map_spans2(const T* a, const T* b, T* y, int64_t n, F&& f) {
  if constexpr (!is_half_v<T>) {
    f(a, b, y, int64_t(0), n);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    float bo[kSpanChunk];
    for (int64_t off = 0; off < n; off += kSpanChunk) {
      int64_t len = n - off < kSpanChunk ? n - off : kSpanChunk;
      f(BFloat16Reader{a + off}, BFloat16Reader{b + off}, static_cast<float*>(bo), off, len);
      narrow(bo, y + off, len);
    }
  } else {
    float ba[kSpanChunk], bb[kSpanChunk], bo[kSpanChunk];
    for (int64_t off = 0; off < n; off += kSpanChunk) {
      int64_t len = n - off < kSpanChunk ? n - off : kSpanChunk;
      widen(a + off, ba, len);
      widen(b + off, bb, len);
      f(static_cast<const float*>(ba), static_cast<const float*>(bb), static_cast<float*>(bo), off,
        len);
      narrow(bo, y + off, len);
    }
  }
}

// Sum of a contiguous compute span with 16 independent accumulators: two 8-float vector chains,
// so the adds are not bound by one chain's latency (32 made GCC spill them to the stack), and
// more accurate than one running sum; the lanes are combined in double.
template <typename C, typename F>
inline double lane_sum(int64_t n, F&& f) {
  constexpr int kLanes = 16;
  C acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += f(i + k);
  double total = 0;
  for (; i < n; ++i) total += double(f(i));
  for (int k = 0; k < kLanes; ++k) total += double(acc[k]);
  return total;
}

// Sum over x[0, n) of g(value): bfloat16 read inline (same summation order as float32),
// float16 accumulated per widened span.
template <typename T, typename G>
inline double span_sum(const T* x, int64_t n, G&& g) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    BFloat16Reader in{x};
    return lane_sum<float>(n, [&](int64_t i) { return g(in[i]); });
  }
  double total = 0;
  for_spans(x, n, [&](const compute_t<T>* p, int64_t, int64_t len) {
    total += lane_sum<compute_t<T>>(len, [&](int64_t i) { return g(p[i]); });
  });
  return total;
}

// Sum over a[0, n), b[0, n) of g(a_i, b_i) accumulated per span.
template <typename T, typename G>
inline double span_sum2(const T* a, const T* b, int64_t n, G&& g) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    BFloat16Reader pa{a}, pb{b};
    return lane_sum<float>(n, [&](int64_t i) { return g(pa[i], pb[i]); });
  }
  double total = 0;
  for_spans2(a, b, n, [&](const compute_t<T>* pa, const compute_t<T>* pb, int64_t, int64_t len) {
    total += lane_sum<compute_t<T>>(len, [&](int64_t i) { return g(pa[i], pb[i]); });
  });
  return total;
}

}  // namespace tc::nn::detail
