// Plan construction and execution for the FFT engine (see engine.h).
#include "tensorcore/fft/engine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "tensorcore/core/error.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/fft/butterflies.h"

namespace tc::fft {
namespace {

constexpr int kMaxRadix = 31;  // largest prime with a butterfly; larger primes go to Bluestein
// Power-of-two lengths put the radix streams of the re/im/scratch arrays a multiple of 4 KiB
// apart: same cache sets and false store-to-load aliasing. Padding each array by a different
// odd number of cache lines spreads them out (measured 2-4x at n >= 2^15 on Zen 4).
constexpr int64_t kArrayPad = 272;  // floats or doubles; 1 KiB + 64 B for float
constexpr double kTwoPi = 6.283185307179586476925286766559;

// e^{-2 pi i num/den}, reduced exactly in integers first so large tables stay accurate.
void unit_root(int64_t num, int64_t den, double& re, double& im) {
  num %= den;
  if (num < 0) num += den;
  double a = kTwoPi * double(num) / double(den);
  re = std::cos(a);
  im = -std::sin(a);
}

std::vector<int> factorize(int64_t n, bool& needs_bluestein) {
  std::vector<int> f;
  needs_bluestein = false;
  // Powers of two as radix 8 (fewest passes over memory), finishing with 4s rather than a 2.
  int twos = 0;
  while (n % 2 == 0) { ++twos; n /= 2; }
  if (twos == 1) {
    f.push_back(2);
  } else if (twos > 1) {
    int eights = twos / 3, rest = twos % 3;
    if (rest == 1) { eights -= 1; rest = 4; }  // 2^4 as 4*4
    for (int i = 0; i < eights; ++i) f.push_back(8);
    if (rest == 2) f.push_back(4);
    if (rest == 4) { f.push_back(4); f.push_back(4); }
  }
  std::vector<int> small, large;
  for (int p = 3; p <= kMaxRadix && n > 1; p += 2)
    while (n % p == 0) { (p >= 17 ? large : small).push_back(p); n /= p; }
  // Radices >= 17 go first, at stride 1, where their p-vectorized stage pays for its gathers;
  // the others run at wide strides with contiguous vectors (faster for them, measured at 44100).
  std::reverse(large.begin(), large.end());
  f.insert(f.begin(), large.begin(), large.end());
  f.insert(f.end(), small.begin(), small.end());
  if (n > 1) needs_bluestein = true;
  return f;
}

// Estimated time of one pass of a Stockham stage of radix r, per point (relative units, checked against
// measured single-row timings on AVX2: radix-8 passes do the most work per memory pass).
double radix_cost(int r) {
  switch (r) {
    case 2: return 1.0;
    case 3: return 1.35;
    case 4: return 1.3;
    case 5: return 1.8;
    case 8: return 1.75;
    case 7: return 2.6;
    default: return 1.0 + 0.25 * r;  // the generic odd butterflies cost ~r/2 multiply-adds
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
        if (c < best_cost || (c == best_cost && v < best)) { best_cost = c; best = v; }
      }
  return best;
}

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Plans for a length with a prime factor > kMaxRadix, by estimated cost:
// - Rader when n is prime with a smooth n-1 (two length n-1 FFTs plus permuted gathers);
// - four-step when n = a * b with a smooth a > 1 and b made of large primes (length-a FFTs over
//   b lanes, a twiddle/transpose pass, then a lanes of the length-b plan, itself Rader or
//   Bluestein);
// - Bluestein otherwise (two FFTs of length >= 2n-1 plus chirp passes).
enum class LargeAlgo { Bluestein, Rader, FourStep };

// n = a * b: a collects the factors <= kMaxRadix, b the rest.
void split_smooth(int64_t n, int64_t& a, int64_t& b) {
  b = n;
  for (int64_t p = 2; p <= kMaxRadix; ++p)
    while (b % p == 0) b /= p;
  a = n / b;
}

LargeAlgo large_algorithm(int64_t n, double* cost_out = nullptr) {
  LargeAlgo best = LargeAlgo::Bluestein;
  double cost = 2 * smooth_cost(best_conv_length(2 * n - 1)) + 2.0 * double(2 * n);
  if (is_prime(n)) {
    const double rader = 2 * smooth_cost(n - 1) + 2.5 * double(n);
    if (rader < cost) { cost = rader; best = LargeAlgo::Rader; }
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
    const double four = double(b) * smooth_cost(a) + 1.5 * double(n) + lane_penalty * double(a) * inner;
    if (four < cost) { cost = four; best = LargeAlgo::FourStep; }
  }
  if (cost_out) *cost_out = cost;
  return best;
}

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
    if (m % d == 0) { qs.push_back(d); while (m % d == 0) m /= d; }
  if (m > 1) qs.push_back(m);
  for (int64_t g = 2; g < p; ++g) {
    bool ok = true;
    for (int64_t q : qs)
      if (pow_mod(g, (p - 1) / q, p) == 1) { ok = false; break; }
    if (ok) return g;
  }
  return 1;  // p == 2
}

}  // namespace

int64_t next_fast_len(int64_t n) {
  if (n <= 1) return 1;
  int64_t best = INT64_MAX;
  for (int64_t p5 = 1; p5 < 2 * n; p5 *= 5)
    for (int64_t p35 = p5; p35 < 2 * n; p35 *= 3) {
      int64_t v = p35;
      while (v < n) v *= 2;
      best = std::min(best, v);
    }
  return best;
}

int64_t bluestein_length(int64_t n) { return best_conv_length(std::max<int64_t>(1, 2 * n - 1)); }

const char* plan_algorithm(int64_t n) {
  bool large;
  factorize(n, large);
  if (!large) return "stockham";
  switch (large_algorithm(n)) {
    case LargeAlgo::Rader: return "rader";
    case LargeAlgo::FourStep: return "fourstep";
    default: return "bluestein";
  }
}

template <typename T>
ComplexPlan<T>::ComplexPlan(int64_t n) : n_(n) {
  TC_CHECK(n >= 1, "fft: invalid transform length ", n);
  bool large;
  std::vector<int> radices = factorize(n, large);
  if (large) {
    switch (large_algorithm(n)) {
      case LargeAlgo::Rader: init_rader(); break;
      case LargeAlgo::FourStep: init_four_step(); break;
      default: init_bluestein(); break;
    }
    return;
  }
  int64_t len = n;
  for (int r : radices) {
    Stage<T> st;
    st.radix = r;
    st.m = len / r;
    st.stride = n / len;
    st.tw_re.resize(size_t((r - 1) * st.m));
    st.tw_im.resize(st.tw_re.size());
    for (int k = 1; k < r; ++k)
      for (int64_t p = 0; p < st.m; ++p) {
        double re, im;
        unit_root(p * k, len, re, im);
        st.tw_re[(k - 1) * st.m + p] = T(re);
        st.tw_im[(k - 1) * st.m + p] = T(im);
      }
    stages_.push_back(std::move(st));
    len /= r;
  }
}

// Filter spectra are computed once in double precision (a double plan of the same length), with
// the 1/M of the inverse transform folded in.
template <typename T>
static void filter_spectrum(std::vector<double>& fr, std::vector<double>& fi, std::vector<T>& out_re,
                            std::vector<T>& out_im) {
  const int64_t M = int64_t(fr.size());
  auto dplan = complex_plan<double>(M);
  std::vector<double> sc(size_t(dplan->scratch_size()));
  dplan->execute(fr.data(), fi.data(), sc.data());
  out_re.resize(M); out_im.resize(M);
  for (int64_t k = 0; k < M; ++k) { out_re[k] = T(fr[k] / double(M)); out_im[k] = T(fi[k] / double(M)); }
}

template <typename T>
void ComplexPlan<T>::init_bluestein() {
  algo_ = Algo::Bluestein;
  const int64_t n = n_, M = bluestein_length(n);
  conv_plan_ = complex_plan<T>(M);
  chirp_re_.resize(n); chirp_im_.resize(n);
  std::vector<double> fr(M, 0.0), fi(M, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    double re, im;
    // e^{-pi i j^2/n} = e^{-2 pi i (j^2 mod 2n) / 2n}
    unit_root(int64_t((__int128)j * j % (2 * n)), 2 * n, re, im);
    chirp_re_[j] = T(re); chirp_im_[j] = T(im);
    fr[j] = re; fi[j] = -im;  // conj(c_j), wrapped to M - j for negative lags
    if (j) { fr[M - j] = re; fi[M - j] = -im; }
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
  chirp_re_.resize(n_); chirp_im_.resize(n_);
  for (int64_t k1 = 0; k1 < a; ++k1)
    for (int64_t j2 = 0; j2 < b; ++j2) {
      double re, im;
      unit_root(j2 * k1, n_, re, im);
      chirp_re_[k1 * b + j2] = T(re); chirp_im_[k1 * b + j2] = T(im);
    }
}

template <typename T>
void ComplexPlan<T>::init_rader() {
  algo_ = Algo::Rader;
  const int64_t p = n_, m = p - 1, g = primitive_root(p);
  conv_plan_ = complex_plan<T>(m);
  in_index_.resize(m); out_index_.resize(m);
  std::vector<double> fr(m), fi(m);
  int64_t gq = 1;
  for (int64_t q = 0; q < m; ++q, gq = gq * g % p) {
    in_index_[q] = gq;
    out_index_[q == 0 ? 0 : m - q] = gq;  // g^-q = g^(m-q)
  }
  for (int64_t q = 0; q < m; ++q) unit_root(out_index_[q], p, fr[q], fi[q]);  // w^(g^-q)
  filter_spectrum(fr, fi, filt_re_, filt_im_);
}

template <typename T>
int64_t ComplexPlan<T>::scratch_size(int64_t lanes) const {
  if (algo_ == Algo::Bluestein)
    return 2 * (conv_plan_->size() * lanes + kArrayPad) + conv_plan_->scratch_size(lanes);
  if (algo_ == Algo::FourStep)
    return 2 * (n_ * lanes + kArrayPad) + std::max(sub_plan_->scratch_size(conv_plan_->size() * lanes),
                                                   conv_plan_->scratch_size(four_a_ * lanes));
  if (algo_ == Algo::Rader)
    return 2 * (conv_plan_->size() * lanes + kArrayPad) + 2 * lanes + conv_plan_->scratch_size(lanes);
  return 2 * (n_ * lanes + kArrayPad);
}

namespace {
template <typename T, int R>
void odd_stage(const T* xr, const T* xi, T* yr, T* yi, const Stage<T>& st, int64_t s) {
  static const detail::OddButterfly<T, R> butterfly;  // cos/sin tables, built once
  detail::stage_fixed<T, R>(xr, xi, yr, yi, st, s, butterfly);
}
}  // namespace

template <typename T>
void ComplexPlan<T>::run_stages(T* re, T* im, T* scratch, int64_t lanes) const {
  const int64_t total = n_ * lanes;
  T *xr = re, *xi = im, *yr = scratch + kArrayPad, *yi = scratch + total + 2 * kArrayPad;
  for (const Stage<T>& st : stages_) {
    const int64_t s = st.stride * lanes;
    switch (st.radix) {
      case 2: detail::stage_fixed<T, 2>(xr, xi, yr, yi, st, s); break;
      case 3: detail::stage_fixed<T, 3>(xr, xi, yr, yi, st, s); break;
      case 4: detail::stage_fixed<T, 4>(xr, xi, yr, yi, st, s); break;
      case 5: detail::stage_fixed<T, 5>(xr, xi, yr, yi, st, s); break;
      case 8: detail::stage_fixed<T, 8>(xr, xi, yr, yi, st, s); break;
      case 7: odd_stage<T, 7>(xr, xi, yr, yi, st, s); break;
      case 11: odd_stage<T, 11>(xr, xi, yr, yi, st, s); break;
      case 13: odd_stage<T, 13>(xr, xi, yr, yi, st, s); break;
      case 17: odd_stage<T, 17>(xr, xi, yr, yi, st, s); break;
      case 19: odd_stage<T, 19>(xr, xi, yr, yi, st, s); break;
      case 23: odd_stage<T, 23>(xr, xi, yr, yi, st, s); break;
      case 29: odd_stage<T, 29>(xr, xi, yr, yi, st, s); break;
      case 31: odd_stage<T, 31>(xr, xi, yr, yi, st, s); break;
      default: TC_FAIL("fft: internal error: no butterfly for radix ", st.radix);
    }
    std::swap(xr, yr);
    std::swap(xi, yi);
  }
  if (xr != re) {
    std::memcpy(re, xr, sizeof(T) * total);
    std::memcpy(im, xi, sizeof(T) * total);
  }
}

template <typename T>
void ComplexPlan<T>::execute(T* re, T* im, T* scratch, int64_t lanes) const {
  switch (algo_) {
    case Algo::Stockham: run_stages(re, im, scratch, lanes); return;
    case Algo::Bluestein: execute_bluestein(re, im, scratch, lanes); return;
    case Algo::Rader: execute_rader(re, im, scratch, lanes); return;
    case Algo::FourStep: execute_four_step(re, im, scratch, lanes); return;
  }
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
      ar[k] = r; ai[k] = i;
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
      pr[v] = r; pi[v] = i;
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
    for (int64_t q = 0; q < m; ++q) { ar[q] = re[in_idx[q]]; ai[q] = im[in_idx[q]]; }
  } else {
    for (int64_t q = 0; q < m; ++q) {
      const T* xr = re + in_idx[q] * L;
      const T* xi = im + in_idx[q] * L;
      for (int64_t v = 0; v < L; ++v) { ar[q * L + v] = xr[v]; ai[q * L + v] = xi[v]; }
    }
  }
  conv_plan_->execute(ar, ai, inner, L);
  for (int64_t v = 0; v < L; ++v) { sum_r[v] = ar[v]; sum_i[v] = ai[v]; }
  multiply_spectrum(ar, ai, filt_re_.data(), filt_im_.data(), m, L);
  conv_plan_->execute(ai, ar, inner, L);  // inverse by swapping the parts; 1/m is in the filter
  // X[g^-q] = x_0 + c_q (no output index is 0, so x_0 in re[0..L) stays readable until the end).
  if (L == 1) {
    const T x0r = re[0], x0i = im[0];
    for (int64_t q = 0; q < m; ++q) { re[out_idx[q]] = x0r + ar[q]; im[out_idx[q]] = x0i + ai[q]; }
  } else {
    for (int64_t q = 0; q < m; ++q) {
      T* yr = re + out_idx[q] * L;
      T* yi = im + out_idx[q] * L;
      for (int64_t v = 0; v < L; ++v) { yr[v] = re[v] + ar[q * L + v]; yi[v] = im[v] + ai[q * L + v]; }
    }
  }
  for (int64_t v = 0; v < L; ++v) { re[v] += sum_r[v]; im[v] += sum_i[v]; }
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

template <typename T>
RealPlan<T>::RealPlan(int64_t n) : n_(n) {
  TC_CHECK(n >= 1, "rfft: invalid transform length ", n);
  if (n % 2 == 0) {
    const int64_t h = n / 2;
    plan_ = complex_plan<T>(h);
    w_re_.resize(h + 1); w_im_.resize(h + 1);
    for (int64_t k = 0; k <= h; ++k) {
      double re, im;
      unit_root(k, n, re, im);
      w_re_[k] = T(re); w_im_[k] = T(im);
    }
  } else {
    plan_ = complex_plan<T>(n);
  }
}

template <typename T>
int64_t RealPlan<T>::scratch_size(int64_t lanes) const {
  return 2 * (plan_->size() * lanes + kArrayPad) + plan_->scratch_size(lanes);
}

template <typename T>
void RealPlan<T>::forward(const T* in, std::complex<T>* out, T scale, T* scratch, int64_t L) const {
  const int64_t len = plan_->size(), nout = n_ / 2 + 1;
  T* __restrict zr = scratch;
  T* __restrict zi = scratch + len * L + kArrayPad;
  T* inner = zi + len * L + kArrayPad;
  T* o = reinterpret_cast<T*>(out);
  if (n_ % 2) {
    // Odd n: two real rows ride in one complex transform (row 2u as the real part, row 2u+1 as
    // the imaginary part of lane u) and are separated by symmetry afterwards.
    const int64_t pairs = (L + 1) / 2;
    // Between half and a full vector of pairs, zero lanes fill the vector: the first stage (whose
    // stride is the lane count) then runs vectorized instead of scalar (1.3x at 12 rows of 15625).
    constexpr int64_t W = detail::Simd<T>::width;
    const int64_t P = (pairs > W / 2 && pairs < W) ? W : pairs;
    for (int64_t u = pairs; u < P; ++u)
      for (int64_t j = 0; j < len; ++j) zr[j * P + u] = zi[j * P + u] = T(0);
    for (int64_t u = 0; u < pairs; ++u) {
      const T* a = in + 2 * u * n_;
      for (int64_t j = 0; j < len; ++j) zr[j * P + u] = a[j];
      if (2 * u + 1 < L) {
        const T* b = a + n_;
        for (int64_t j = 0; j < len; ++j) zi[j * P + u] = b[j];
      } else {
        for (int64_t j = 0; j < len; ++j) zi[j * P + u] = T(0);
      }
    }
    plan_->execute(zr, zi, inner, P);
    const T half = T(0.5) * scale;
    for (int64_t u = 0; u < pairs; ++u) {
      T* oa = o + 2 * (2 * u) * nout;
      T* ob = oa + 2 * nout;
      const bool has_b = 2 * u + 1 < L;
      for (int64_t k = 0; k < nout; ++k) {
        const int64_t kk = (n_ - k) % n_;
        const T zr1 = zr[k * P + u], zi1 = zi[k * P + u];
        const T zr2 = zr[kk * P + u], zi2 = -zi[kk * P + u];  // conj(Z[n-k])
        oa[2 * k] = half * (zr1 + zr2);      // (Z + conj Z')/2
        oa[2 * k + 1] = half * (zi1 + zi2);
        if (has_b) {                          // (Z - conj Z')/(2i)
          ob[2 * k] = half * (zi1 - zi2);
          ob[2 * k + 1] = -half * (zr1 - zr2);
        }
      }
    }
    return;
  }
  const int64_t h = len;
  for (int64_t v = 0; v < L; ++v) {
    const T* x = in + v * n_;
    for (int64_t k = 0; k < h; ++k) { zr[k * L + v] = x[2 * k]; zi[k * L + v] = x[2 * k + 1]; }
  }
  plan_->execute(zr, zi, inner, L);
  const T half = T(0.5) * scale;
  const T* __restrict wr = w_re_.data();
  const T* __restrict wi = w_im_.data();
  for (int64_t v = 0; v < L; ++v) {
    T* ov = o + 2 * v * nout;
    // DC and Nyquist come from Z[0] alone.
    ov[0] = (zr[v] + zi[v]) * scale; ov[1] = 0;
    ov[2 * h] = (zr[v] - zi[v]) * scale; ov[2 * h + 1] = 0;
    for (int64_t k = 1; k < h; ++k) {
      T ar = zr[k * L + v], ai = zi[k * L + v];
      T br = zr[(h - k) * L + v], bi = -zi[(h - k) * L + v];
      T er = ar + br, ei = ai + bi;  // 2E
      T dr = ar - br, di = ai - bi;  // 2i*O
      // X = E + W^k O with O = D/(2i) = (di, -dr)/2
      ov[2 * k] = half * (er + wr[k] * di + wi[k] * dr);
      ov[2 * k + 1] = half * (ei - wr[k] * dr + wi[k] * di);
    }
  }
}

template <typename T>
void RealPlan<T>::backward(const std::complex<T>* in, T* out, T scale, T* scratch, int64_t L) const {
  const int64_t len = plan_->size(), nin = n_ / 2 + 1;
  T* __restrict zr = scratch;
  T* __restrict zi = scratch + len * L + kArrayPad;
  T* inner = zi + len * L + kArrayPad;
  const T* xin = reinterpret_cast<const T*>(in);
  if (n_ % 2) {
    for (int64_t v = 0; v < L; ++v) {
      const T* x = xin + 2 * v * nin;
      zr[v] = x[0]; zi[v] = 0;
      for (int64_t k = 1; k < nin; ++k) {
        zr[k * L + v] = x[2 * k]; zi[k * L + v] = x[2 * k + 1];
        zr[(n_ - k) * L + v] = x[2 * k]; zi[(n_ - k) * L + v] = -x[2 * k + 1];
      }
    }
    plan_->execute(zi, zr, inner, L);
    for (int64_t v = 0; v < L; ++v)
      for (int64_t j = 0; j < n_; ++j) out[v * n_ + j] = zr[j * L + v] * scale;
    return;
  }
  const int64_t h = len;
  const T* __restrict wr = w_re_.data();
  const T* __restrict wi = w_im_.data();
  for (int64_t v = 0; v < L; ++v) {
    const T* x = xin + 2 * v * nin;
    // k = 0: the imaginary parts of DC and Nyquist are ignored
    zr[v] = x[0] + x[2 * h];
    zi[v] = x[0] - x[2 * h];
    for (int64_t k = 1; k < h; ++k) {
      T ar = x[2 * k], ai = x[2 * k + 1], br = x[2 * (h - k)], bi = -x[2 * (h - k) + 1];
      T er = ar + br, ei = ai + bi;
      T dr = ar - br, di = ai - bi;
      T orr = dr * wr[k] + di * wi[k], oi = di * wr[k] - dr * wi[k];  // D * conj(W^k)
      zr[k * L + v] = er - oi;
      zi[k * L + v] = ei + orr;
    }
  }
  plan_->execute(zi, zr, inner, L);  // inverse
  for (int64_t v = 0; v < L; ++v) {
    T* y = out + v * n_;
    for (int64_t j = 0; j < h; ++j) { y[2 * j] = zr[j * L + v] * scale; y[2 * j + 1] = zi[j * L + v] * scale; }
  }
}

// ---- plan cache ----
namespace {
struct PlanCache {
  std::mutex mu;
  std::map<std::tuple<int64_t, int, int>, std::shared_ptr<const void>> plans;
};
PlanCache& cache() {
  static PlanCache* c = new PlanCache();  // never destroyed: plans may be used at exit
  return *c;
}
constexpr size_t kMaxCachedPlans = 512;

template <typename Plan>
std::shared_ptr<const Plan> cached(int64_t n, int kind, int precision) {
  auto key = std::make_tuple(n, kind, precision);
  PlanCache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.plans.find(key);
    if (it != c.plans.end()) return std::static_pointer_cast<const Plan>(it->second);
  }
  // Built outside the lock: Bluestein and real plans look up their inner plans recursively.
  auto plan = std::make_shared<const Plan>(n);
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.plans.size() >= kMaxCachedPlans) c.plans.clear();
  auto [it, inserted] = c.plans.emplace(key, plan);
  return std::static_pointer_cast<const Plan>(it->second);
}
}  // namespace

template <typename T>
std::shared_ptr<const ComplexPlan<T>> complex_plan(int64_t n) {
  return cached<ComplexPlan<T>>(n, 0, int(sizeof(T)));
}
template <typename T>
std::shared_ptr<const RealPlan<T>> real_plan(int64_t n) {
  return cached<RealPlan<T>>(n, 1, int(sizeof(T)));
}
int64_t plan_cache_size() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return int64_t(cache().plans.size());
}
void clear_plan_cache() {
  std::lock_guard<std::mutex> lock(cache().mu);
  cache().plans.clear();
}

// ---- batched execution ----
namespace {
// Rows per task: enough work per chunk (~n log n each) that threading pays off.
int64_t row_grain(int64_t n) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)); }
// Rows up to 2048 run several at a time as interleaved SIMD lanes (execute(..., lanes)): every
// stage then has a stride >= the vector width, which removes the scalar first stages of odd
// radices (2-3x for 143, 510, 1001) and amortises per-row overhead for tiny rows. Longer rows run
// one at a time: their lanes would leave the cache, and powers of two gain nothing.
int64_t batch_lanes(int64_t n, int64_t batch) {
  const bool pow2 = (n & (n - 1)) == 0;
  const int64_t lanes = n <= 64 ? 16 : (n <= 2048 || (!pow2 && n <= 16384) ? 8 : 1);
  return std::min(lanes, batch);
}
}  // namespace

template <typename T>
void c2c(const std::complex<T>* in, std::complex<T>* out, int64_t n, int64_t batch, bool inverse,
         T scale) {
  if (batch == 0 || n == 0) return;
  auto plan = complex_plan<T>(n);
  const int64_t V = batch_lanes(n, batch);
  parallel_for(0, batch, std::max(row_grain(n), V), [&](int64_t b0, int64_t b1) {
    std::unique_ptr<T[]> buf(new T[size_t(2 * (n * V + kArrayPad) + plan->scratch_size(V))]);  // no zero-fill
    T* re = buf.get();
    T* im = re + n * V + kArrayPad;
    T* sc = im + n * V + kArrayPad;
    for (int64_t b = b0; b < b1; b += V) {
      const int64_t L = std::min(V, b1 - b);
      for (int64_t v = 0; v < L; ++v) {
        const T* x = reinterpret_cast<const T*>(in + (b + v) * n);
        for (int64_t j = 0; j < n; ++j) { re[j * L + v] = x[2 * j]; im[j * L + v] = x[2 * j + 1]; }
      }
      if (inverse) plan->execute(im, re, sc, L); else plan->execute(re, im, sc, L);
      for (int64_t v = 0; v < L; ++v) {
        T* y = reinterpret_cast<T*>(out + (b + v) * n);
        for (int64_t j = 0; j < n; ++j) { y[2 * j] = re[j * L + v] * scale; y[2 * j + 1] = im[j * L + v] * scale; }
      }
    }
  });
}

template <typename T>
void c2c_strided(const std::complex<T>* in, std::complex<T>* out, int64_t outer, int64_t n,
                 int64_t inner, bool inverse, T scale) {
  if (outer == 0 || n == 0 || inner == 0) return;
  auto plan = complex_plan<T>(n);
  constexpr int64_t kColumnLanes = 16;
  const int64_t V = std::min(kColumnLanes, inner);
  const int64_t blocks = (inner + V - 1) / V;
  parallel_for(0, outer * blocks, std::max<int64_t>(1, 16384 / (n * V)), [&](int64_t t0, int64_t t1) {
    std::unique_ptr<T[]> buf(new T[size_t(2 * (n * V + kArrayPad) + plan->scratch_size(V))]);
    T* re = buf.get();
    T* im = re + n * V + kArrayPad;
    T* sc = im + n * V + kArrayPad;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t o = t / blocks, c0 = (t % blocks) * V, L = std::min(V, inner - c0);
      const T* x = reinterpret_cast<const T*>(in + o * n * inner + c0);
      for (int64_t j = 0; j < n; ++j) {
        const T* xj = x + 2 * j * inner;
        for (int64_t v = 0; v < L; ++v) { re[j * L + v] = xj[2 * v]; im[j * L + v] = xj[2 * v + 1]; }
      }
      if (inverse) plan->execute(im, re, sc, L); else plan->execute(re, im, sc, L);
      T* y = reinterpret_cast<T*>(out + o * n * inner + c0);
      for (int64_t j = 0; j < n; ++j) {
        T* yj = y + 2 * j * inner;
        for (int64_t v = 0; v < L; ++v) { yj[2 * v] = re[j * L + v] * scale; yj[2 * v + 1] = im[j * L + v] * scale; }
      }
    }
  });
}

template <typename T>
void r2c(const T* in, std::complex<T>* out, int64_t n, int64_t batch, T scale, bool onesided) {
  if (batch == 0 || n == 0) return;
  auto plan = real_plan<T>(n);
  const int64_t half = n / 2 + 1, nout = onesided ? half : n;
  int64_t V = onesided ? batch_lanes(n / 2, batch) : 1;
  if (onesided && n % 2) V = std::min(2 * batch_lanes(n, batch), batch + batch % 2);  // odd n: rows go in pairs
  V = std::max<int64_t>(V, 1);
  parallel_for(0, batch, std::max(row_grain(n), V), [&](int64_t b0, int64_t b1) {
    std::unique_ptr<T[]> buf(new T[size_t(plan->scratch_size(V))]);
    for (int64_t b = b0; b < b1; b += V) {
      std::complex<T>* row = out + b * nout;
      plan->forward(in + b * n, row, scale, buf.get(), std::min(V, b1 - b));
      if (!onesided)
        for (int64_t k = half; k < n; ++k) row[k] = std::conj(row[n - k]);
    }
  });
}

template <typename T>
void r2c_frames(const T* in, int64_t hop, const T* window, std::complex<T>* out, int64_t n,
                int64_t frames, T scale) {
  if (frames == 0 || n == 0) return;
  auto plan = real_plan<T>(n);
  const int64_t nout = n / 2 + 1;
  parallel_for(0, frames, row_grain(n), [&](int64_t f0, int64_t f1) {
    std::unique_ptr<T[]> buf(new T[size_t(n + kArrayPad + plan->scratch_size(1))]);
    T* row = buf.get();
    T* sc = row + n + kArrayPad;
    for (int64_t f = f0; f < f1; ++f) {
      const T* x = in + f * hop;
      for (int64_t j = 0; j < n; ++j) row[j] = x[j] * window[j];
      plan->forward(row, out + f * nout, scale, sc, 1);
    }
  });
}

template <typename T>
void c2r(const std::complex<T>* in, T* out, int64_t n, int64_t batch, T scale) {
  if (batch == 0 || n == 0) return;
  auto plan = real_plan<T>(n);
  const int64_t nin = n / 2 + 1;
  const int64_t V = batch_lanes(n / 2, batch);
  parallel_for(0, batch, std::max(row_grain(n), V), [&](int64_t b0, int64_t b1) {
    std::unique_ptr<T[]> buf(new T[size_t(plan->scratch_size(V))]);
    for (int64_t b = b0; b < b1; b += V)
      plan->backward(in + b * nin, out + b * n, scale, buf.get(), std::min(V, b1 - b));
  });
}

#define TC_FFT_INSTANTIATE(T)                                                               \
  template class ComplexPlan<T>;                                                            \
  template class RealPlan<T>;                                                               \
  template std::shared_ptr<const ComplexPlan<T>> complex_plan<T>(int64_t);                  \
  template std::shared_ptr<const RealPlan<T>> real_plan<T>(int64_t);                        \
  template void c2c<T>(const std::complex<T>*, std::complex<T>*, int64_t, int64_t, bool, T); \
  template void r2c<T>(const T*, std::complex<T>*, int64_t, int64_t, T, bool);              \
  template void c2c_strided<T>(const std::complex<T>*, std::complex<T>*, int64_t, int64_t, int64_t, bool, T); \
  template void c2r<T>(const std::complex<T>*, T*, int64_t, int64_t, T);                    \
  template void r2c_frames<T>(const T*, int64_t, const T*, std::complex<T>*, int64_t, int64_t, T);
TC_FFT_INSTANTIATE(float)
TC_FFT_INSTANTIATE(double)

}  // namespace tc::fft
