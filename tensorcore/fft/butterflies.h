#pragma once
// Stockham stage kernels over split real/imaginary arrays. A stage of radix R reads
// x[q + s*(p + j*m)] (j < R) and writes y[q + s*(R*p + k)] = DFT_R(x)_k * w^(p*k); with s >= 2 the
// inner q loop is unit-stride, so GCC vectorizes it with broadcast twiddles (AVX2 at -O3).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tensorcore/fft/engine.h"

namespace tc::fft::detail {

// AVX-width vectors through GCC's vector extensions; scalar constants broadcast in arithmetic.
template <typename T>
struct Simd;
template <>
struct Simd<float> {
  typedef float type __attribute__((vector_size(32)));
  static constexpr int width = 8;
};
template <>
struct Simd<double> {
  typedef double type __attribute__((vector_size(32)));
  static constexpr int width = 4;
};
template <typename V, typename T>
inline V load_vec(const T* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V, typename T>
inline void store_vec(T* p, const V& v) {
  __builtin_memcpy(p, &v, sizeof(V));
}

// In-place forward DFT of R points held in registers; V is T or a vector of T.
template <typename T, int R>
struct Butterfly;

template <typename T>
struct Butterfly<T, 2> {
  template <typename V>
  static inline void run(V* ar, V* ai) {
    V r0 = ar[0] + ar[1], i0 = ai[0] + ai[1];
    V r1 = ar[0] - ar[1], i1 = ai[0] - ai[1];
    ar[0] = r0;
    ai[0] = i0;
    ar[1] = r1;
    ai[1] = i1;
  }
};

template <typename T>
struct Butterfly<T, 3> {
  template <typename V>
  static inline void run(V* ar, V* ai) {
    constexpr T c = T(0.86602540378443864676);  // sin(2 pi/3)
    V tr = ar[1] + ar[2], ti = ai[1] + ai[2];
    V dr = ar[1] - ar[2], di = ai[1] - ai[2];
    V ur = ar[0] - T(0.5) * tr, ui = ai[0] - T(0.5) * ti;
    ar[0] += tr;
    ai[0] += ti;
    // -i*c*d = (c*di, -c*dr)
    ar[1] = ur + c * di;
    ai[1] = ui - c * dr;
    ar[2] = ur - c * di;
    ai[2] = ui + c * dr;
  }
};

template <typename T>
struct Butterfly<T, 4> {
  template <typename V>
  static inline void run(V* ar, V* ai) {
    V t0r = ar[0] + ar[2], t0i = ai[0] + ai[2];
    V t1r = ar[0] - ar[2], t1i = ai[0] - ai[2];
    V t2r = ar[1] + ar[3], t2i = ai[1] + ai[3];
    V t3r = ar[1] - ar[3], t3i = ai[1] - ai[3];
    ar[0] = t0r + t2r;
    ai[0] = t0i + t2i;
    ar[2] = t0r - t2r;
    ai[2] = t0i - t2i;
    ar[1] = t1r + t3i;
    ai[1] = t1i - t3r;  // t1 - i*t3
    ar[3] = t1r - t3i;
    ai[3] = t1i + t3r;  // t1 + i*t3
  }
};

template <typename T>
struct Butterfly<T, 5> {
  template <typename V>
  static inline void run(V* ar, V* ai) {
    constexpr T c1 = T(0.30901699437494742410), c2 = T(-0.80901699437494742410);
    constexpr T s1 = T(0.95105651629515357212), s2 = T(0.58778525229247312917);
    V t1r = ar[1] + ar[4], t1i = ai[1] + ai[4];
    V t2r = ar[2] + ar[3], t2i = ai[2] + ai[3];
    V t3r = ar[1] - ar[4], t3i = ai[1] - ai[4];
    V t4r = ar[2] - ar[3], t4i = ai[2] - ai[3];
    V a1r = ar[0] + c1 * t1r + c2 * t2r, a1i = ai[0] + c1 * t1i + c2 * t2i;
    V a2r = ar[0] + c2 * t1r + c1 * t2r, a2i = ai[0] + c2 * t1i + c1 * t2i;
    V b1r = s1 * t3r + s2 * t4r, b1i = s1 * t3i + s2 * t4i;
    V b2r = s2 * t3r - s1 * t4r, b2i = s2 * t3i - s1 * t4i;
    ar[0] += t1r + t2r;
    ai[0] += t1i + t2i;
    // a -/+ i*b
    ar[1] = a1r + b1i;
    ai[1] = a1i - b1r;
    ar[4] = a1r - b1i;
    ai[4] = a1i + b1r;
    ar[2] = a2r + b2i;
    ai[2] = a2i - b2r;
    ar[3] = a2r - b2i;
    ai[3] = a2i + b2r;
  }
};

template <typename T>
struct Butterfly<T, 8> {
  template <typename V>
  static inline void run(V* ar, V* ai) {
    constexpr T c = T(0.70710678118654752440);
    V er[4] = {ar[0], ar[2], ar[4], ar[6]}, ei[4] = {ai[0], ai[2], ai[4], ai[6]};
    V orr[4] = {ar[1], ar[3], ar[5], ar[7]}, oi[4] = {ai[1], ai[3], ai[5], ai[7]};
    Butterfly<T, 4>::run(er, ei);
    Butterfly<T, 4>::run(orr, oi);
    // o_k *= w8^k: w8 = c(1 - i), w8^2 = -i, w8^3 = -c(1 + i)
    V r1 = c * (orr[1] + oi[1]), i1 = c * (oi[1] - orr[1]);
    V r2 = oi[2], i2 = -orr[2];
    V r3 = c * (oi[3] - orr[3]), i3 = -c * (orr[3] + oi[3]);
    ar[0] = er[0] + orr[0];
    ai[0] = ei[0] + oi[0];
    ar[4] = er[0] - orr[0];
    ai[4] = ei[0] - oi[0];
    ar[1] = er[1] + r1;
    ai[1] = ei[1] + i1;
    ar[5] = er[1] - r1;
    ai[5] = ei[1] - i1;
    ar[2] = er[2] + r2;
    ai[2] = ei[2] + i2;
    ar[6] = er[2] - r2;
    ai[6] = ei[2] - i2;
    ar[3] = er[3] + r3;
    ai[3] = ei[3] + i3;
    ar[7] = er[3] - r3;
    ai[7] = ei[3] - i3;
  }
};

// Any odd radix with compile-time R (7, 11, 13): pairs a_j +/- a_{R-j} share one set of
// cos/sin products, so a point costs ~R^2/2 multiply-adds held in registers.
template <typename T, int R>
struct OddButterfly {
  static constexpr int H = (R - 1) / 2;
  T cs[H * H], sn[H * H];  // cos/sin(2 pi j k / R) at [(k-1)*H + (j-1)]
  OddButterfly() {
    for (int k = 1; k <= H; ++k)
      for (int j = 1; j <= H; ++j) {
        const double a = 6.283185307179586476925286766559 * double((j * k) % R) / R;
        cs[(k - 1) * H + j - 1] = T(std::cos(a));
        sn[(k - 1) * H + j - 1] = T(std::sin(a));
      }
  }
  template <typename V>
  inline void run(V* ar, V* ai) const {
    V pr[H], pi[H], mr[H], mi[H];
    V r0 = ar[0], i0 = ai[0];
    for (int j = 1; j <= H; ++j) {
      pr[j - 1] = ar[j] + ar[R - j];
      pi[j - 1] = ai[j] + ai[R - j];
      mr[j - 1] = ar[j] - ar[R - j];
      mi[j - 1] = ai[j] - ai[R - j];
      ar[0] += pr[j - 1];
      ai[0] += pi[j - 1];
    }
    for (int k = 1; k <= H; ++k) {
      V er = r0, ei = i0, orr = V{} * T(0), oi = V{} * T(0);
      for (int j = 0; j < H; ++j) {
        const T c = cs[(k - 1) * H + j], sv = sn[(k - 1) * H + j];
        er += c * pr[j];
        ei += c * pi[j];
        orr += sv * mr[j];
        oi += sv * mi[j];
      }
      // b_k = e - i*o, b_{R-k} = e + i*o
      ar[k] = er + oi;
      ai[k] = ei - orr;
      ar[R - k] = er - oi;
      ai[R - k] = ei + orr;
    }
  }
};

// Adapter so the fixed radices and OddButterfly share one stage loop.
template <typename T, int R>
struct StaticButterfly {
  template <typename V>
  inline void run(V* ar, V* ai) const {
    Butterfly<T, R>::run(ar, ai);
  }
};

// Stages whose stride is below the vector width (the first stages): vectors run over p instead,
// with gathered loads and scattered stores around fully vectorized butterflies and twiddles. Pays
// off for the odd radices >= 7, whose butterflies dominate; GCC already handles radix <= 8 at s=1.
template <typename T, int R, typename BF>
void stage_small_stride(const T* __restrict xr, const T* __restrict xi, T* __restrict yr,
                        T* __restrict yi, const Stage<T>& st, int64_t s, const BF& bf) {
  using V = typename Simd<T>::type;
  constexpr int W = Simd<T>::width;
  const int64_t m = st.m, in_step = s * m;
  const T* __restrict twr = st.tw_re.data();
  const T* __restrict twi = st.tw_im.data();
  for (int64_t q = 0; q < s; ++q) {
    // The last group may be partial: its missing lanes compute on zeros and are not stored.
    for (int64_t p = 0; p < m; p += W) {
      const int valid = int(std::min<int64_t>(W, m - p));
      const bool full = valid == W;
      V ar[R], ai[R];
      for (int j = 0; j < R; ++j) {
        if (s == 1 && full) {
          ar[j] = load_vec<V>(xr + p + j * m);
          ai[j] = load_vec<V>(xi + p + j * m);
        } else {
          alignas(32) T tr[W] = {}, ti[W] = {};
          for (int l = 0; l < valid; ++l) {
            tr[l] = xr[q + s * (p + l) + j * in_step];
            ti[l] = xi[q + s * (p + l) + j * in_step];
          }
          ar[j] = load_vec<V>(tr);
          ai[j] = load_vec<V>(ti);
        }
      }
      bf.run(ar, ai);
      for (int k = 0; k < R; ++k) {
        V outr = ar[k], outi = ai[k];
        if (k > 0) {
          V wr, wi;
          if (full) {
            wr = load_vec<V>(twr + (k - 1) * m + p);
            wi = load_vec<V>(twi + (k - 1) * m + p);
          } else {
            alignas(32) T tr[W] = {}, ti[W] = {};
            for (int l = 0; l < valid; ++l) {
              tr[l] = twr[(k - 1) * m + p + l];
              ti[l] = twi[(k - 1) * m + p + l];
            }
            wr = load_vec<V>(tr);
            wi = load_vec<V>(ti);
          }
          outr = ar[k] * wr - ai[k] * wi;
          outi = ar[k] * wi + ai[k] * wr;
        }
        alignas(32) T tr[W], ti[W];
        store_vec(tr, outr);
        store_vec(ti, outi);
        for (int l = 0; l < valid; ++l) {
          yr[q + s * (R * (p + l) + k)] = tr[l];
          yi[q + s * (R * (p + l) + k)] = ti[l];
        }
      }
    }
  }
}

// `s` is the stage's stride times the number of interleaved lanes (rows transformed together:
// element i of lane v lives at i*lanes + v, which is the same stage with a wider stride).
template <typename T, int R, typename BF = StaticButterfly<T, R>>
void stage_fixed(const T* __restrict xr, const T* __restrict xi, T* __restrict yr, T* __restrict yi,
                 const Stage<T>& st, int64_t s, const BF& bf = BF()) {
  const int64_t m = st.m;
  const T* __restrict twr = st.tw_re.data();
  const T* __restrict twi = st.tw_im.data();
  if (R % 2 == 1 && R >= 7 && s == 1 && m >= Simd<T>::width / 2) {
    stage_small_stride<T, R>(xr, xi, yr, yi, st, s, bf);
    return;
  }
  if (s == 1) {
    for (int64_t p = 0; p < m; ++p) {
      T ar[R], ai[R];
      for (int j = 0; j < R; ++j) {
        ar[j] = xr[p + j * m];
        ai[j] = xi[p + j * m];
      }
      bf.run(ar, ai);
      yr[R * p] = ar[0];
      yi[R * p] = ai[0];
      for (int k = 1; k < R; ++k) {
        T wr = twr[(k - 1) * m + p], wi = twi[(k - 1) * m + p];
        yr[R * p + k] = ar[k] * wr - ai[k] * wi;
        yi[R * p + k] = ar[k] * wi + ai[k] * wr;
      }
    }
    return;
  }
  // Explicit vectors over q: GCC's auto-vectorizer gives up on the 4R streams of radix 8.
  using V = typename Simd<T>::type;
  constexpr int W = Simd<T>::width;
  const int64_t in_step = s * m;
  const int64_t s_vec = s - s % W;
  for (int64_t p = 0; p < m; ++p) {
    T wr[R], wi[R];
    for (int k = 1; k < R; ++k) {
      wr[k] = twr[(k - 1) * m + p];
      wi[k] = twi[(k - 1) * m + p];
    }
    const T* x0r = xr + s * p;
    const T* x0i = xi + s * p;
    T* y0r = yr + s * R * p;
    T* y0i = yi + s * R * p;
    for (int64_t q = 0; q < s_vec; q += W) {
      V ar[R], ai[R];
      for (int j = 0; j < R; ++j) {
        ar[j] = load_vec<V>(x0r + q + j * in_step);
        ai[j] = load_vec<V>(x0i + q + j * in_step);
      }
      bf.run(ar, ai);
      store_vec(y0r + q, ar[0]);
      store_vec(y0i + q, ai[0]);
      for (int k = 1; k < R; ++k) {
        store_vec(y0r + q + k * s, ar[k] * wr[k] - ai[k] * wi[k]);
        store_vec(y0i + q + k * s, ar[k] * wi[k] + ai[k] * wr[k]);
      }
    }
    for (int64_t q = s_vec; q < s; ++q) {
      T ar[R], ai[R];
      for (int j = 0; j < R; ++j) {
        ar[j] = x0r[q + j * in_step];
        ai[j] = x0i[q + j * in_step];
      }
      bf.run(ar, ai);
      y0r[q] = ar[0];
      y0i[q] = ai[0];
      for (int k = 1; k < R; ++k) {
        y0r[q + k * s] = ar[k] * wr[k] - ai[k] * wi[k];
        y0i[q + k * s] = ar[k] * wi[k] + ai[k] * wr[k];
      }
    }
  }
}

}  // namespace tc::fft::detail
