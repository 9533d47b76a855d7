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

// RB weight rows against MB inputs. Per 8 (float) or 4 (double) columns the RB weight vectors
// are loaded once and each input vector once: RB + MB loads for RB * MB FMAs, with
// RB * MB + RB + 1 <= 16 registers live (3 x 4 measured fastest for many inputs).
template <typename T, int RB, int MB>
inline void product_tile(const T* w, int64_t ldw, const T* x, int64_t ldx, T* y, int64_t ldy,
                         int64_t K) {
  using S = Simd<T>;
  typename S::V acc[RB][MB];
  for (int r = 0; r < RB; ++r)
    for (int m = 0; m < MB; ++m) acc[r][m] = S::zero();
  int64_t k = 0;
  for (; k + S::kLanes <= K; k += S::kLanes) {
    typename S::V wv[RB];
    for (int r = 0; r < RB; ++r) wv[r] = S::load(w + r * ldw + k);
    for (int m = 0; m < MB; ++m) {
      const typename S::V xv = S::load(x + m * ldx + k);
      for (int r = 0; r < RB; ++r) acc[r][m] = S::fma(wv[r], xv, acc[r][m]);
    }
  }
  for (int r = 0; r < RB; ++r)
    for (int m = 0; m < MB; ++m) {
      T s = S::sum(acc[r][m]);
      for (int64_t j = k; j < K; ++j) s += w[r * ldw + j] * x[m * ldx + j];
      y[m * ldy + r] = s;
    }
}

template <typename T, int RB, int MB>
inline void product_strip(const T* w, int64_t ldw, const T* x, int64_t ldx, T* y, int64_t ldy,
                          int64_t K, int64_t r0, int64_t r1) {
  int64_t r = r0;
  for (; r + RB <= r1; r += RB) product_tile<T, RB, MB>(w + r * ldw, ldw, x, ldx, y + r, ldy, K);
  for (; r < r1; ++r) product_tile<T, 1, MB>(w + r * ldw, ldw, x, ldx, y + r, ldy, K);
}

// Rows [r0, r1) of W against inputs [0, M): panels of kPanel weight rows stay in L1 while all
// inputs pass over them, so W streams from memory once per call whatever M is.
template <typename T>
void product_panel(const T* w, int64_t ldw, const T* x, int64_t M, int64_t ldx, T* y, int64_t ldy,
                   int64_t K, int64_t r0, int64_t r1) {
  constexpr int64_t kPanel = 24;
  for (int64_t p0 = r0; p0 < r1; p0 += kPanel) {
    const int64_t p1 = std::min(r1, p0 + kPanel);
    for (int64_t m0 = 0; m0 < M; m0 += 4) {
      const T* xm = x + m0 * ldx;
      T* ym = y + m0 * ldy;
      switch (std::min<int64_t>(4, M - m0)) {
        case 1:
          product_strip<T, 4, 1>(w, ldw, xm, ldx, ym, ldy, K, p0, p1);
          break;
        case 2:
          product_strip<T, 4, 2>(w, ldw, xm, ldx, ym, ldy, K, p0, p1);
          break;
        case 3:
          product_strip<T, 4, 3>(w, ldw, xm, ldx, ym, ldy, K, p0, p1);
          break;
        default:
          product_strip<T, 3, 4>(w, ldw, xm, ldx, ym, ldy, K, p0, p1);
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
