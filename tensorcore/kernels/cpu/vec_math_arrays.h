#pragma once
// vec_math array helpers: sin/cos/tan over whole arrays (libm beyond the exact reduction range)
// and the range-check-free exp/sigmoid loops. Part of vec_math.h (include that).
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensorcore/kernels/cpu/vec_math_double.h"

namespace tc::vec_math {

// =============================================================================================
// Array helpers for sin/cos/tan: vectorized loop plus a libm fix-up for |x| beyond the exact
// reduction range: the range is checked while the block is computed, and a block with an
// out-of-range element is redone per element (libm where needed). in == out is allowed.
// =============================================================================================

namespace detail {
// Runs fast(x) over blocks of 256 and checks on the way that every |x| <= bound (as bit
// patterns, so NaN and inf fail too); a block that fails is redone with general(x). in == out
// is allowed (the block is copied first, to keep the inputs for a redo).
template <typename T, typename Fast, typename General>
inline void guarded_array(const T* in, T* out, int64_t n, T bound, Fast fast, General general) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kAbs = ~U{0} >> 1;
  const U bound_bits = std::bit_cast<U>(bound);
  constexpr int64_t kBlock = 256;
  T buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = n - b < kBlock ? n - b : kBlock;
    const T* src = in + b;
    T* dst = out + b;
    if (src == dst) {  // in place: keep the inputs for a redo
      std::memcpy(buf, src, static_cast<size_t>(m) * sizeof(T));
      src = buf;
    }
    U bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      const T x = src[i];
      dst[i] = fast(x);
      bad |= U{0} - static_cast<U>((std::bit_cast<U>(x) & kAbs) > bound_bits);  // NaN too
    }
    if (bad != 0)
      for (int64_t i = 0; i < m; ++i) dst[i] = general(src[i]);
  }
}
template <typename T, typename Fast, typename Slow>
inline void trig_array(const T* in, T* out, int64_t n, Fast fast, Slow slow) {
  const T bound = sizeof(T) == 4 ? T(0x1p25) : T(0x1p20);  // exact reduction range
  guarded_array(in, out, n, bound, fast,
                [fast, slow](T x) { return sin_cos_fast_ok(x) ? fast(x) : slow(x); });
}
}  // namespace detail

inline void sin_array(const float* in, float* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](float x) { return vec_math::sin(x); },
      [](float x) { return static_cast<float>(std::sin(static_cast<double>(x))); });
}
inline void cos_array(const float* in, float* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](float x) { return vec_math::cos(x); },
      [](float x) { return static_cast<float>(std::cos(static_cast<double>(x))); });
}
inline void tan_array(const float* in, float* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](float x) { return vec_math::tan(x); },
      [](float x) { return static_cast<float>(std::tan(static_cast<double>(x))); });
}
inline void sin_array(const double* in, double* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](double x) { return vec_math::sin(x); }, [](double x) { return std::sin(x); });
}
inline void cos_array(const double* in, double* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](double x) { return vec_math::cos(x); }, [](double x) { return std::cos(x); });
}
inline void tan_array(const double* in, double* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](double x) { return vec_math::tan(x); }, [](double x) { return std::tan(x); });
}

// =============================================================================================
// Array helpers for exp and sigmoid: the contiguous loop runs a version without any range
// handling (2^k is added into the exponent field; valid while e^-|x| is a normal number) and
// checks |x| on the way; a block with a large, infinite or NaN element is redone with the
// branch-free general function. Same results as the scalar functions, ~20% faster (exp double
// 0.80 vs 1.04 ns/element on the machine of docs/coreperf.md). in == out is allowed.
// =============================================================================================

namespace detail {
TC_VM_INLINE float sigmoid_fast(float x) {
  const float E = exp_fast_f(-std::fabs(x));
  return select(x < 0.0f, E, 1.0f) / (1.0f + E);
}
TC_VM_INLINE double sigmoid_fast(double x) {
  const double E = exp_fast_d(-std::fabs(x));
  return select(x < 0.0, E, 1.0) / (1.0 + E);
}
}  // namespace detail

inline void exp_array(const float* in, float* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxF, [](float x) { return detail::exp_fast_f(x); },
      [](float x) { return vec_math::exp(x); });
}
inline void exp_array(const double* in, double* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxD, [](double x) { return detail::exp_fast_d(x); },
      [](double x) { return vec_math::exp(x); });
}
inline void sigmoid_array(const float* in, float* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxF, [](float x) { return detail::sigmoid_fast(x); },
      [](float x) { return vec_math::sigmoid(x); });
}
inline void sigmoid_array(const double* in, double* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxD, [](double x) { return detail::sigmoid_fast(x); },
      [](double x) { return vec_math::sigmoid(x); });
}
}  // namespace tc::vec_math
