// Plan construction and execution for the FFT engine (see engine.h): Stockham plans, real plans,
// the plan cache and batched execution. Lengths with large prime factors: large_lengths.cpp.
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
#include "tensorcore/fft/engine_internal.h"

namespace tc::fft {

using detail::kArrayPad;
using detail::LargeAlgo;

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

template <typename T>
ComplexPlan<T>::ComplexPlan(int64_t n) : n_(n) {
  TC_CHECK(n >= 1, "fft: invalid transform length ", n);
  bool large;
  std::vector<int> radices = detail::factorize(n, large);
  if (large) {
    switch (detail::large_algorithm(n)) {
      case LargeAlgo::Rader:
        init_rader();
        break;
      case LargeAlgo::FourStep:
        init_four_step();
        break;
      default:
        init_bluestein();
        break;
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
        detail::unit_root(p * k, len, re, im);
        st.tw_re[(k - 1) * st.m + p] = T(re);
        st.tw_im[(k - 1) * st.m + p] = T(im);
      }
    stages_.push_back(std::move(st));
    len /= r;
  }
}

template <typename T>
int64_t ComplexPlan<T>::scratch_size(int64_t lanes) const {
  if (algo_ == Algo::Bluestein)
    return 2 * (conv_plan_->size() * lanes + kArrayPad) + conv_plan_->scratch_size(lanes);
  if (algo_ == Algo::FourStep)
    return 2 * (n_ * lanes + kArrayPad) +
           std::max(sub_plan_->scratch_size(conv_plan_->size() * lanes),
                    conv_plan_->scratch_size(four_a_ * lanes));
  if (algo_ == Algo::Rader)
    return 2 * (conv_plan_->size() * lanes + kArrayPad) + 2 * lanes +
           conv_plan_->scratch_size(lanes);
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
      case 2:
        detail::stage_fixed<T, 2>(xr, xi, yr, yi, st, s);
        break;
      case 3:
        detail::stage_fixed<T, 3>(xr, xi, yr, yi, st, s);
        break;
      case 4:
        detail::stage_fixed<T, 4>(xr, xi, yr, yi, st, s);
        break;
      case 5:
        detail::stage_fixed<T, 5>(xr, xi, yr, yi, st, s);
        break;
      case 8:
        detail::stage_fixed<T, 8>(xr, xi, yr, yi, st, s);
        break;
      case 7:
        odd_stage<T, 7>(xr, xi, yr, yi, st, s);
        break;
      case 11:
        odd_stage<T, 11>(xr, xi, yr, yi, st, s);
        break;
      case 13:
        odd_stage<T, 13>(xr, xi, yr, yi, st, s);
        break;
      case 17:
        odd_stage<T, 17>(xr, xi, yr, yi, st, s);
        break;
      case 19:
        odd_stage<T, 19>(xr, xi, yr, yi, st, s);
        break;
      case 23:
        odd_stage<T, 23>(xr, xi, yr, yi, st, s);
        break;
      case 29:
        odd_stage<T, 29>(xr, xi, yr, yi, st, s);
        break;
      case 31:
        odd_stage<T, 31>(xr, xi, yr, yi, st, s);
        break;
      default:
        TC_FAIL("fft: internal error: no butterfly for radix ", st.radix);
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
    case Algo::Stockham:
      run_stages(re, im, scratch, lanes);
      return;
    case Algo::Bluestein:
      execute_bluestein(re, im, scratch, lanes);
      return;
    case Algo::Rader:
      execute_rader(re, im, scratch, lanes);
      return;
    case Algo::FourStep:
      execute_four_step(re, im, scratch, lanes);
      return;
  }
}

template <typename T>
RealPlan<T>::RealPlan(int64_t n) : n_(n) {
  TC_CHECK(n >= 1, "rfft: invalid transform length ", n);
  if (n % 2 == 0) {
    const int64_t h = n / 2;
    plan_ = complex_plan<T>(h);
    w_re_.resize(h + 1);
    w_im_.resize(h + 1);
    for (int64_t k = 0; k <= h; ++k) {
      double re, im;
      detail::unit_root(k, n, re, im);
      w_re_[k] = T(re);
      w_im_[k] = T(im);
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
        oa[2 * k] = half * (zr1 + zr2);                       // (Z + conj Z')/2
        oa[2 * k + 1] = half * (zi1 + zi2);
        if (has_b) {  // (Z - conj Z')/(2i)
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
    for (int64_t k = 0; k < h; ++k) {
      zr[k * L + v] = x[2 * k];
      zi[k * L + v] = x[2 * k + 1];
    }
  }
  plan_->execute(zr, zi, inner, L);
  const T half = T(0.5) * scale;
  const T* __restrict wr = w_re_.data();
  const T* __restrict wi = w_im_.data();
  for (int64_t v = 0; v < L; ++v) {
    T* ov = o + 2 * v * nout;
    // DC and Nyquist come from Z[0] alone.
    ov[0] = (zr[v] + zi[v]) * scale;
    ov[1] = 0;
    ov[2 * h] = (zr[v] - zi[v]) * scale;
    ov[2 * h + 1] = 0;
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
void RealPlan<T>::backward(const std::complex<T>* in, T* out, T scale, T* scratch,
                           int64_t L) const {
  const int64_t len = plan_->size(), nin = n_ / 2 + 1;
  T* __restrict zr = scratch;
  T* __restrict zi = scratch + len * L + kArrayPad;
  T* inner = zi + len * L + kArrayPad;
  const T* xin = reinterpret_cast<const T*>(in);
  if (n_ % 2) {
    for (int64_t v = 0; v < L; ++v) {
      const T* x = xin + 2 * v * nin;
      zr[v] = x[0];
      zi[v] = 0;
      for (int64_t k = 1; k < nin; ++k) {
        zr[k * L + v] = x[2 * k];
        zi[k * L + v] = x[2 * k + 1];
        zr[(n_ - k) * L + v] = x[2 * k];
        zi[(n_ - k) * L + v] = -x[2 * k + 1];
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
    for (int64_t j = 0; j < h; ++j) {
      y[2 * j] = zr[j * L + v] * scale;
      y[2 * j + 1] = zi[j * L + v] * scale;
    }
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
    std::unique_ptr<T[]> buf(
        new T[size_t(2 * (n * V + kArrayPad) + plan->scratch_size(V))]);  // no zero-fill
    T* re = buf.get();
    T* im = re + n * V + kArrayPad;
    T* sc = im + n * V + kArrayPad;
    for (int64_t b = b0; b < b1; b += V) {
      const int64_t L = std::min(V, b1 - b);
      for (int64_t v = 0; v < L; ++v) {
        const T* x = reinterpret_cast<const T*>(in + (b + v) * n);
        for (int64_t j = 0; j < n; ++j) {
          re[j * L + v] = x[2 * j];
          im[j * L + v] = x[2 * j + 1];
        }
      }
      if (inverse)
        plan->execute(im, re, sc, L);
      else
        plan->execute(re, im, sc, L);
      for (int64_t v = 0; v < L; ++v) {
        T* y = reinterpret_cast<T*>(out + (b + v) * n);
        for (int64_t j = 0; j < n; ++j) {
          y[2 * j] = re[j * L + v] * scale;
          y[2 * j + 1] = im[j * L + v] * scale;
        }
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
  parallel_for(
      0, outer * blocks, std::max<int64_t>(1, 16384 / (n * V)), [&](int64_t t0, int64_t t1) {
        std::unique_ptr<T[]> buf(new T[size_t(2 * (n * V + kArrayPad) + plan->scratch_size(V))]);
        T* re = buf.get();
        T* im = re + n * V + kArrayPad;
        T* sc = im + n * V + kArrayPad;
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t o = t / blocks, c0 = (t % blocks) * V, L = std::min(V, inner - c0);
          const T* x = reinterpret_cast<const T*>(in + o * n * inner + c0);
          for (int64_t j = 0; j < n; ++j) {
            const T* xj = x + 2 * j * inner;
            for (int64_t v = 0; v < L; ++v) {
              re[j * L + v] = xj[2 * v];
              im[j * L + v] = xj[2 * v + 1];
            }
          }
          if (inverse)
            plan->execute(im, re, sc, L);
          else
            plan->execute(re, im, sc, L);
          T* y = reinterpret_cast<T*>(out + o * n * inner + c0);
          for (int64_t j = 0; j < n; ++j) {
            T* yj = y + 2 * j * inner;
            for (int64_t v = 0; v < L; ++v) {
              yj[2 * v] = re[j * L + v] * scale;
              yj[2 * v + 1] = im[j * L + v] * scale;
            }
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
  if (onesided && n % 2)
    V = std::min(2 * batch_lanes(n, batch), batch + batch % 2);  // odd n: rows go in pairs
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

#define TC_FFT_INSTANTIATE(T)                                                                \
  template class ComplexPlan<T>;                                                             \
  template class RealPlan<T>;                                                                \
  template std::shared_ptr<const ComplexPlan<T>> complex_plan<T>(int64_t);                   \
  template std::shared_ptr<const RealPlan<T>> real_plan<T>(int64_t);                         \
  template void c2c<T>(const std::complex<T>*, std::complex<T>*, int64_t, int64_t, bool, T); \
  template void r2c<T>(const T*, std::complex<T>*, int64_t, int64_t, T, bool);               \
  template void c2c_strided<T>(const std::complex<T>*, std::complex<T>*, int64_t, int64_t,   \
                               int64_t, bool, T);                                            \
  template void c2r<T>(const std::complex<T>*, T*, int64_t, int64_t, T);                     \
  template void r2c_frames<T>(const T*, int64_t, const T*, std::complex<T>*, int64_t, int64_t, T);
TC_FFT_INSTANTIATE(float)
TC_FFT_INSTANTIATE(double)

}  // namespace tc::fft
