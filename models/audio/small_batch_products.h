#pragma once
// Y[m, r] = sum_k W[r, k] * X[m, k] for a handful of input rows m (the per-sample products of
// an autoregressive loop). With one to a few rows the cost is reading W, so the tiles stream each
// weight row once per call with AVX2 FMAs, keeping a panel of rows in L1 while all inputs pass
// over it. On this project's test machine OpenBLAS (0.3.21) falls back to its SSE3 "Prescott"
// kernels and its sgemv reads W at ~40% of the rate these tiles do (docs/audio_models.md).
// Internal header of tensorcore::models.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "tensorcore/core/parallel.h"

namespace tc::models::detail {

template <typename T>
struct Simd;
template <>
struct Simd<float> {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static float sum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};
template <>
struct Simd<double> {
  using V = __m256d;
  static constexpr int kLanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static double sum(V v) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
};

// RB weight rows against MB inputs; accumulators stay in registers (RB * MB + MB + 1 <= 16).
template <typename T, int RB, int MB>
inline void product_tile(const T* w, int64_t ldw, const T* x, int64_t ldx, T* y, int64_t ldy,
                         int64_t K) {
  using S = Simd<T>;
  typename S::V acc[RB][MB];
  for (int r = 0; r < RB; ++r)
    for (int m = 0; m < MB; ++m) acc[r][m] = S::zero();
  int64_t k = 0;
  for (; k + S::kLanes <= K; k += S::kLanes) {
    typename S::V xv[MB];
    for (int m = 0; m < MB; ++m) xv[m] = S::load(x + m * ldx + k);
    for (int r = 0; r < RB; ++r) {
      typename S::V wv = S::load(w + r * ldw + k);
      for (int m = 0; m < MB; ++m) acc[r][m] = S::fma(wv, xv[m], acc[r][m]);
    }
  }
  for (int r = 0; r < RB; ++r)
    for (int m = 0; m < MB; ++m) {
      T s = S::sum(acc[r][m]);
      for (int64_t j = k; j < K; ++j) s += w[r * ldw + j] * x[m * ldx + j];
      y[m * ldy + r] = s;
    }
}

// Rows [r0, r1) of W against inputs [0, M): panels of kPanel weight rows stay in L1 while all
// inputs pass over them, so W streams from memory once per call whatever M is.
template <typename T>
void product_panel(const T* w, int64_t ldw, const T* x, int64_t M, int64_t ldx, T* y, int64_t ldy,
                   int64_t K, int64_t r0, int64_t r1) {
  constexpr int64_t kPanel = 8;
  for (int64_t p0 = r0; p0 < r1; p0 += kPanel) {
    const int64_t p1 = std::min(r1, p0 + kPanel);
    for (int64_t m0 = 0; m0 < M; m0 += 4) {
      const int64_t mb = std::min<int64_t>(4, M - m0);
      const T* xm = x + m0 * ldx;
      T* ym = y + m0 * ldy;
      int64_t r = p0;
      switch (mb) {
        case 1:
          for (; r + 4 <= p1; r += 4)
            product_tile<T, 4, 1>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          for (; r < p1; ++r) product_tile<T, 1, 1>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          break;
        case 2:
          for (; r + 4 <= p1; r += 4)
            product_tile<T, 4, 2>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          for (; r < p1; ++r) product_tile<T, 1, 2>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          break;
        case 3:
          for (; r + 3 <= p1; r += 3)
            product_tile<T, 3, 3>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          for (; r < p1; ++r) product_tile<T, 1, 3>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          break;
        default:
          for (; r + 2 <= p1; r += 2)
            product_tile<T, 2, 4>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          for (; r < p1; ++r) product_tile<T, 1, 4>(w + r * ldw, ldw, xm, ldx, ym + r, ldy, K);
          break;
      }
    }
  }
}

// Y[m, r] = sum_k W[r, k] X[m, k], m < M, r < R (row strides ldw, ldx, ldy). Threads split W's
// rows.
template <typename T>
void small_batch_products(const T* w, int64_t R, int64_t K, int64_t ldw, const T* x, int64_t M,
                          int64_t ldx, T* y, int64_t ldy) {
  if (M <= 0 || R <= 0) return;
  // Row chunks of at least ~32K multiply-adds each, so small layers stay on one thread.
  const int64_t grain = std::max<int64_t>(8, kGrainSize / std::max<int64_t>(1, K * M));
  parallel_for(0, R, grain, [&](int64_t r0, int64_t r1) {
    product_panel<T>(w, ldw, x, M, ldx, y, ldy, K, r0, r1);
  });
}

}  // namespace tc::models::detail
