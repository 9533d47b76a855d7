// Lengths with prime factors larger than the butterflies handle (see engine_internal.h for the
// choice): Rader's algorithm, the four-step split and Bluestein's chirp-z convolution, all built
// on the Stockham plans of engine.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tensorcore/core/error.h"
#include "tensorcore/fft/engine.h"
#include "tensorcore/fft/engine_internal.h"

namespace tc::fft {
namespace detail {
namespace {

// Estimated time of one pass of a Stockham stage of radix r, per point (relative units, checked
// against measured single-row timings on AVX2: radix-8 passes do the most work per memory pass).
double radix_cost(int r) {
  switch (r) {
    case 2:
      return 1.0;
    case 3:
      return 1.35;
    case 4:
      return 1.3;
    case 5:
      return 1.8;
    case 8:
      return 1.75;
    case 7:
      return 2.6;
    default:
      return 1.0 + 0.25 * r;  // the generic odd butterflies cost ~r/2 multiply-adds
  }
}

double smooth_cost(int64_t n) {
  bool large;
  std::vector<int> f = factorize(n, large);
  if (large) return 1e300;
  double c = 0;
  for (int r : f) c += radix_cost(r);
  return double(n) * std::max(c, 1.0);
}

// 2^a 3^b 5^c 7^d in [lo, 2 lo) with the lowest smooth_cost.
int64_t best_conv_length(int64_t lo) {
  int64_t best = 0;
  double best_cost = 1e300;
  for (int64_t p7 = 1; p7 < 2 * lo; p7 *= 7)
    for (int64_t p5 = p7; p5 < 2 * lo; p5 *= 5)
      for (int64_t p3 = p5; p3 < 2 * lo; p3 *= 3) {
        int64_t v = p3;
        while (v < lo) v *= 2;
        const double c = smooth_cost(v);
        if (c < best_cost || (c == best_cost && v < best)) {
          best_cost = c;
          best = v;
        }
      }
  return best;
}

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// n = a * b: a collects the factors <= kMaxRadix, b the rest.
void split_smooth(int64_t n, int64_t& a, int64_t& b) {
  b = n;
  for (int64_t p = 2; p <= kMaxRadix; ++p)
    while (b % p == 0) b /= p;
  a = n / b;
}

}  // namespace

LargeAlgo large_algorithm(int64_t n, double* cost_out) {
  LargeAlgo best = LargeAlgo::Bluestein;
  double cost = 2 * smooth_cost(best_conv_length(2 * n - 1)) + 2.0 * double(2 * n);
  if (is_prime(n)) {
    const double rader = 2 * smooth_cost(n - 1) + 2.5 * double(n);
    if (rader < cost) {
      cost = rader;
      best = LargeAlgo::Rader;
    }
  }
  int64_t a, b;
  split_smooth(n, a, b);
  if (a > 1 && b > 1) {
    double inner;
    large_algorithm(b, &inner);
    // Fewer than a vector's width of lanes leaves the length-b plan's first stages scalar. Batched
    // rows up to 16384 run 8 at a time as lanes (batch_lanes), which hides that, so only longer
    // rows pay it (a single short row pays up to 1.5x, still far below torch's time).
    const double lane_penalty = (a < 8 && n > 16384) ? 2.5 : 1.0;
    const double four =
        double(b) * smooth_cost(a) + 1.5 * double(n) + lane_penalty * double(a) * inner;
    if (four < cost) {
      cost = four;
      best = LargeAlgo::FourStep;
    }
  }
  if (cost_out) *cost_out = cost;
  return best;
}

namespace {

int64_t pow_mod(int64_t b, int64_t e, int64_t m) {
  int64_t r = 1;
  b %= m;
  for (; e; e >>= 1, b = int64_t((__int128)b * b % m))
    if (e & 1) r = int64_t((__int128)r * b % m);
  return r;
}

int64_t primitive_root(int64_t p) {
  std::vector<int64_t> qs;
  int64_t m = p - 1;
  for (int64_t d = 2; d * d <= m; ++d)
    if (m % d == 0) {
      qs.push_back(d);
      while (m % d == 0) m /= d;
    }
  if (m > 1) qs.push_back(m);
  for (int64_t g = 2; g < p; ++g) {
    bool ok = true;
    for (int64_t q : qs)
      if (pow_mod(g, (p - 1) / q, p) == 1) {
        ok = false;
        break;
      }
    if (ok) return g;
  }
  return 1;  // p == 2
}

}  // namespace
}  // namespace detail

using detail::best_conv_length;
using detail::kArrayPad;
using detail::LargeAlgo;
using detail::primitive_root;
using detail::split_smooth;
using detail::unit_root;

int64_t bluestein_length(int64_t n) { return best_conv_length(std::max<int64_t>(1, 2 * n - 1)); }

const char* plan_algorithm(int64_t n) {
  bool large;
  detail::factorize(n, large);
  if (!large) return "stockham";
  switch (detail::large_algorithm(n)) {
    case LargeAlgo::Rader:
      return "rader";
    case LargeAlgo::FourStep:
      return "fourstep";
    default:
      return "bluestein";
  }
}

namespace {
// Filter spectra are computed once in double precision (a double plan of the same length), with
// the 1/M of the inverse transform folded in.
template <typename T>
void filter_spectrum(std::vector<double>& fr, std::vector<double>& fi, std::vector<T>& out_re,
                     std::vector<T>& out_im) {
  const int64_t M = int64_t(fr.size());
  auto dplan = complex_plan<double>(M);
  std::vector<double> sc(size_t(dplan->scratch_size()));
  dplan->execute(fr.data(), fi.data(), sc.data());
  out_re.resize(M);
  out_im.resize(M);
  for (int64_t k = 0; k < M; ++k) {
    out_re[k] = T(fr[k] / double(M));
    out_im[k] = T(fi[k] / double(M));
  }
}

}  // namespace

template <typename T>
void ComplexPlan<T>::init_bluestein() {
  algo_ = Algo::Bluestein;
  const int64_t n = n_, M = bluestein_length(n);
  conv_plan_ = complex_plan<T>(M);
  chirp_re_.resize(n);
  chirp_im_.resize(n);
  std::vector<double> fr(M, 0.0), fi(M, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    double re, im;
    // e^{-pi i j^2/n} = e^{-2 pi i (j^2 mod 2n) / 2n}
    unit_root(int64_t((__int128)j * j % (2 * n)), 2 * n, re, im);
    chirp_re_[j] = T(re);
    chirp_im_[j] = T(im);
    fr[j] = re;
    fi[j] = -im;  // conj(c_j), wrapped to M - j for negative lags
    if (j) {
      fr[M - j] = re;
      fi[M - j] = -im;
    }
  }
  filter_spectrum(fr, fi, filt_re_, filt_im_);
}

template <typename T>
void ComplexPlan<T>::init_four_step() {
  algo_ = Algo::FourStep;
  int64_t a, b;
  split_smooth(n_, a, b);
  four_a_ = a;
  sub_plan_ = complex_plan<T>(a);
  conv_plan_ = complex_plan<T>(b);
  // twiddle W_n^(j2 k1) at [k1 * b + j2]
  chirp_re_.resize(n_);
  chirp_im_.resize(n_);
  for (int64_t k1 = 0; k1 < a; ++k1)
    for (int64_t j2 = 0; j2 < b; ++j2) {
      double re, im;
      unit_root(j2 * k1, n_, re, im);
      chirp_re_[k1 * b + j2] = T(re);
      chirp_im_[k1 * b + j2] = T(im);
    }
}

template <typename T>
void ComplexPlan<T>::init_rader() {
  algo_ = Algo::Rader;
  const int64_t p = n_, m = p - 1, g = primitive_root(p);
  conv_plan_ = complex_plan<T>(m);
  in_index_.resize(m);
  out_index_.resize(m);
  std::vector<double> fr(m), fi(m);
  int64_t gq = 1;
  for (int64_t q = 0; q < m; ++q, gq = gq * g % p) {
    in_index_[q] = gq;
    out_index_[q == 0 ? 0 : m - q] = gq;  // g^-q = g^(m-q)
  }
  for (int64_t q = 0; q < m; ++q) unit_root(out_index_[q], p, fr[q], fi[q]);  // w^(g^-q)
  filter_spectrum(fr, fi, filt_re_, filt_im_);
}

namespace {
// a[e] *= f[e / L] for `count` complex values held as split arrays with L interleaved lanes.
template <typename T>
void multiply_spectrum(T* __restrict ar, T* __restrict ai, const T* __restrict fr,
                       const T* __restrict fi, int64_t count, int64_t L) {
  if (L == 1) {
    for (int64_t k = 0; k < count; ++k) {
      const T r = ar[k] * fr[k] - ai[k] * fi[k];
      const T i = ar[k] * fi[k] + ai[k] * fr[k];
      ar[k] = r;
      ai[k] = i;
    }
    return;
  }
  for (int64_t k = 0; k < count; ++k) {
    const T wr = fr[k], wi = fi[k];
    T* __restrict pr = ar + k * L;
    T* __restrict pi = ai + k * L;
    for (int64_t v = 0; v < L; ++v) {
      const T r = pr[v] * wr - pi[v] * wi;
      const T i = pr[v] * wi + pi[v] * wr;
      pr[v] = r;
      pi[v] = i;
    }
  }
}

// y[j] = x[j] * c[j] (complex, split arrays, L lanes); y may not alias x.
template <typename T>
void multiply_chirp(const T* __restrict xr, const T* __restrict xi, T* __restrict yr,
                    T* __restrict yi, const T* __restrict cr, const T* __restrict ci, int64_t count,
                    int64_t L) {
  if (L == 1) {
    for (int64_t j = 0; j < count; ++j) {
      yr[j] = xr[j] * cr[j] - xi[j] * ci[j];
      yi[j] = xr[j] * ci[j] + xi[j] * cr[j];
    }
    return;
  }
  for (int64_t j = 0; j < count; ++j)
    for (int64_t v = 0; v < L; ++v) {
      const int64_t e = j * L + v;
      yr[e] = xr[e] * cr[j] - xi[e] * ci[j];
      yi[e] = xr[e] * ci[j] + xi[e] * cr[j];
    }
}
}  // namespace

// n = a * b, j = b*j1 + j2, k = k1 + a*k2:
// X[k1 + a k2] = sum_j2 W_b^(j2 k2) W_n^(j2 k1) sum_j1 x[b j1 + j2] W_a^(j1 k1).
// The inner sums are length-a transforms over b interleaved lanes, in place; after the twiddle the
// data is transposed so that the length-b transforms run over a lanes and leave X in order.
template <typename T>
void ComplexPlan<T>::execute_four_step(T* re, T* im, T* scratch, int64_t lanes) const {
  const int64_t a = four_a_, b = conv_plan_->size(), L = lanes, n = n_;
  T* __restrict zr = scratch;
  T* __restrict zi = scratch + n * L + kArrayPad;
  T* inner = zi + n * L + kArrayPad;
  sub_plan_->execute(re, im, inner, b * L);
  const T* __restrict twr = chirp_re_.data();
  const T* __restrict twi = chirp_im_.data();
  for (int64_t k1 = 0; k1 < a; ++k1)
    for (int64_t j2 = 0; j2 < b; ++j2) {
      const T wr = twr[k1 * b + j2], wi = twi[k1 * b + j2];
      const T* __restrict yr = re + (k1 * b + j2) * L;
      const T* __restrict yi = im + (k1 * b + j2) * L;
      T* __restrict dr = zr + (j2 * a + k1) * L;
      T* __restrict di = zi + (j2 * a + k1) * L;
      for (int64_t v = 0; v < L; ++v) {
        dr[v] = yr[v] * wr - yi[v] * wi;
        di[v] = yr[v] * wi + yi[v] * wr;
      }
    }
  conv_plan_->execute(zr, zi, inner, a * L);
  std::memcpy(re, zr, sizeof(T) * size_t(n * L));
  std::memcpy(im, zi, sizeof(T) * size_t(n * L));
}

template <typename T>
void ComplexPlan<T>::execute_rader(T* re, T* im, T* scratch, int64_t lanes) const {
  const int64_t m = conv_plan_->size(), L = lanes;
  T* __restrict ar = scratch;
  T* __restrict ai = scratch + m * L + kArrayPad;
  T* __restrict sum_r = ai + m * L + kArrayPad;  // A_0 per lane: X_0 = x_0 + A_0
  T* __restrict sum_i = sum_r + L;
  T* inner = sum_i + L;
  const int64_t* __restrict in_idx = in_index_.data();
  const int64_t* __restrict out_idx = out_index_.data();
  if (L == 1) {
    for (int64_t q = 0; q < m; ++q) {
      ar[q] = re[in_idx[q]];
      ai[q] = im[in_idx[q]];
    }
  } else {
    for (int64_t q = 0; q < m; ++q) {
      const T* xr = re + in_idx[q] * L;
      const T* xi = im + in_idx[q] * L;
      for (int64_t v = 0; v < L; ++v) {
        ar[q * L + v] = xr[v];
        ai[q * L + v] = xi[v];
      }
    }
  }
  conv_plan_->execute(ar, ai, inner, L);
  for (int64_t v = 0; v < L; ++v) {
    sum_r[v] = ar[v];
    sum_i[v] = ai[v];
  }
  multiply_spectrum(ar, ai, filt_re_.data(), filt_im_.data(), m, L);
  conv_plan_->execute(ai, ar, inner, L);  // inverse by swapping the parts; 1/m is in the filter
  // X[g^-q] = x_0 + c_q (no output index is 0, so x_0 in re[0..L) stays readable until the end).
  if (L == 1) {
    const T x0r = re[0], x0i = im[0];
    for (int64_t q = 0; q < m; ++q) {
      re[out_idx[q]] = x0r + ar[q];
      im[out_idx[q]] = x0i + ai[q];
    }
  } else {
    for (int64_t q = 0; q < m; ++q) {
      T* yr = re + out_idx[q] * L;
      T* yi = im + out_idx[q] * L;
      for (int64_t v = 0; v < L; ++v) {
        yr[v] = re[v] + ar[q * L + v];
        yi[v] = im[v] + ai[q * L + v];
      }
    }
  }
  for (int64_t v = 0; v < L; ++v) {
    re[v] += sum_r[v];
    im[v] += sum_i[v];
  }
}

template <typename T>
void ComplexPlan<T>::execute_bluestein(T* re, T* im, T* scratch, int64_t lanes) const {
  const int64_t n = n_, M = conv_plan_->size(), L = lanes;
  T* __restrict ar = scratch;
  T* __restrict ai = scratch + M * L + kArrayPad;
  T* inner = ai + M * L + kArrayPad;
  const T* cr = chirp_re_.data();
  const T* ci = chirp_im_.data();
  multiply_chirp(re, im, ar, ai, cr, ci, n, L);
  std::fill(ar + n * L, ar + M * L, T(0));
  std::fill(ai + n * L, ai + M * L, T(0));
  conv_plan_->execute(ar, ai, inner, L);
  multiply_spectrum(ar, ai, filt_re_.data(), filt_im_.data(), M, L);
  conv_plan_->execute(ai, ar, inner, L);  // inverse by swapping the parts
  multiply_chirp(ar, ai, re, im, cr, ci, n, L);
}

#define TC_FFT_LARGE_INSTANTIATE(T)                                           \
  template void ComplexPlan<T>::init_bluestein();                             \
  template void ComplexPlan<T>::init_rader();                                 \
  template void ComplexPlan<T>::init_four_step();                             \
  template void ComplexPlan<T>::execute_bluestein(T*, T*, T*, int64_t) const; \
  template void ComplexPlan<T>::execute_rader(T*, T*, T*, int64_t) const;     \
  template void ComplexPlan<T>::execute_four_step(T*, T*, T*, int64_t) const;
TC_FFT_LARGE_INSTANTIATE(float)
TC_FFT_LARGE_INSTANTIATE(double)

}  // namespace tc::fft
