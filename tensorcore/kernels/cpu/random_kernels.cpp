// CPU random kernels. The fills follow the stream layout of kernels/random_math.h (groups of
// eight Philox blocks; value i depends only on (seed, offset, i)), generate the blocks eight or
// sixteen at a time with AVX2 and turn them into values in loops GCC vectorizes, and split large
// fills over threads on group boundaries, so the result does not depend on the thread count.
#include <algorithm>
#include <array>
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "tensorcore/core/parallel.h"
// With the constant count used here GCC warns about narrow's scalar tail, which never runs.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#include "tensorcore/kernels/cpu/half_vec.h"
#pragma GCC diagnostic pop
#include "tensorcore/kernels/random_math.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/random.h"

namespace tc {
namespace {

using rng::kGroupBlocks;

inline double u53(uint32_t hi, uint32_t lo) {  // [0, 1) (randperm, multinomial)
  return double((uint64_t(hi) << 21) ^ (lo >> 11)) * 0x1.0p-53;
}

// Words of one group: w[k][l] is word k of block 8g + l.
using GroupWords = uint32_t[4][kGroupBlocks];

#if defined(__AVX2__)
// Low and high 32-bit halves of the 8 products m * x (unsigned 32 x 32 -> 64 per lane).
inline void mul_hi_lo(__m256i x, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}
#endif

// The Philox blocks of groups g0 .. g0+NG-1 (the same values as PhiloxState::block). NG groups
// are computed side by side: independent multiply chains hide the multiplier's latency.
template <int NG>
inline void philox_groups(const PhiloxState& st, uint64_t g0, GroupWords* w) {
#if defined(__AVX2__)
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i c0[NG], c1[NG], c2[NG], c3[NG];
  for (int h = 0; h < NG; ++h) {
    // Block 8g + l: 8g's low word is a multiple of 8, so adding l never carries into word 1.
    const uint64_t b = (g0 + uint64_t(h)) * kGroupBlocks;
    c0[h] = _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(b))), lane);
    c1[h] = _mm256_set1_epi32(int(uint32_t(b >> 32)));
    c2[h] = _mm256_set1_epi32(int(uint32_t(st.offset)));
    c3[h] = _mm256_set1_epi32(int(uint32_t(st.offset >> 32)));
  }
  uint32_t k0 = uint32_t(st.seed), k1 = uint32_t(st.seed >> 32);
  const __m256i m0 = _mm256_set1_epi32(int(0xD2511F53u)), m1 = _mm256_set1_epi32(int(0xCD9E8D57u));
  for (int r = 0; r < 10; ++r) {
    const __m256i key0 = _mm256_set1_epi32(int(k0)), key1 = _mm256_set1_epi32(int(k1));
    for (int h = 0; h < NG; ++h) {
      __m256i hi0, lo0, hi1, lo1;
      mul_hi_lo(c0[h], m0, hi0, lo0);
      mul_hi_lo(c2[h], m1, hi1, lo1);
      c0[h] = _mm256_xor_si256(_mm256_xor_si256(hi1, c1[h]), key0);
      c1[h] = lo1;
      c2[h] = _mm256_xor_si256(_mm256_xor_si256(hi0, c3[h]), key1);
      c3[h] = lo0;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int h = 0; h < NG; ++h) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[h][0]), c0[h]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[h][1]), c1[h]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[h][2]), c2[h]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[h][3]), c3[h]);
  }
#else
  for (int h = 0; h < NG; ++h)
    for (int l = 0; l < kGroupBlocks; ++l) {
      const auto b = st.block((g0 + uint64_t(h)) * kGroupBlocks + uint64_t(l));
      for (int k = 0; k < 4; ++k) w[h][k][l] = b[k];
    }
#endif
}

// Values per group of each fill (random_math.h's layout).
enum class Layout { OneWord = rng::kValuesPerGroup1, TwoWords = rng::kValuesPerGroup2 };

// Calls emit(g, words, dst) for every group g of an n-value fill, dst pointing at the group's E
// values in p (or at a scratch buffer for the last, partial group). Below kSerialValues values
// one thread does it all: a fill of that size costs less than waking the pool.
constexpr int64_t kSerialValues = int64_t(1) << 18;

template <int E, typename T, typename Emit>
void for_each_group(T* p, int64_t n, const PhiloxState& st, const Emit& emit) {
  const int64_t groups = (n + E - 1) / E;
  parallel_for(0, groups, kSerialValues / E, [&](int64_t g0, int64_t g1) {
    alignas(32) GroupWords w[2];
    alignas(32) T scratch[E];
    auto one = [&](int64_t g, const GroupWords& gw) {
      if ((g + 1) * E <= n) {
        emit(g, gw, p + g * E);
      } else {
        emit(g, gw, scratch);
        std::copy(scratch, scratch + (n - g * E), p + g * E);
      }
    };
    int64_t g = g0;
    for (; g + 2 <= g1; g += 2) {
      philox_groups<2>(st, uint64_t(g), w);
      one(g, w[0]);
      one(g + 1, w[1]);
    }
    if (g < g1) {
      philox_groups<1>(st, uint64_t(g), w);
      one(g, w[0]);
    }
  });
}

constexpr int L = kGroupBlocks;

// One-word float values (uniform, exponential) and Box-Muller pairs into 32 floats.
struct FloatUniform {
  float from, span, to;
  void operator()(int64_t, const GroupWords& w, float* o) const {
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < L; ++l) o[k * L + l] = rng::uniform_f(w[k][l], from, span, to);
  }
};
struct FloatNormal {
  float mean, std_;
  void operator()(int64_t, const GroupWords& w, float* o) const {
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < L; ++l) {
        float zc, zs;
        rng::normal_pair_f(w[2 * j][l], w[2 * j + 1][l], zc, zs);
        o[16 * j + l] = rng::fma_(zc, std_, mean);
        o[16 * j + L + l] = rng::fma_(zs, std_, mean);
      }
  }
};
struct FloatExponential {
  float inv_lambda;
  void operator()(int64_t, const GroupWords& w, float* o) const {
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < L; ++l) o[k * L + l] = rng::exponential_f(w[k][l], inv_lambda);
  }
};
struct DoubleUniform {
  double from, span, to;
  void operator()(int64_t, const GroupWords& w, double* o) const {
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < L; ++l)
        o[j * L + l] = rng::uniform_d(w[2 * j][l], w[2 * j + 1][l], from, span, to);
  }
};
struct DoubleNormal {
  double mean, std_;
  void operator()(int64_t, const GroupWords& w, double* o) const {
    for (int l = 0; l < L; ++l) {
      double zc, zs;
      rng::normal_pair_d(w[0][l], w[1][l], w[2][l], w[3][l], zc, zs);
      o[l] = rng::fma_(zc, std_, mean);
      o[L + l] = rng::fma_(zs, std_, mean);
    }
  }
};
struct DoubleExponential {
  double inv_lambda;
  void operator()(int64_t, const GroupWords& w, double* o) const {
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < L; ++l)
        o[j * L + l] = rng::exponential_d(w[2 * j][l], w[2 * j + 1][l], inv_lambda);
  }
};

// A float producer writing float16/bfloat16: values made in float, narrowed in bulk.
template <typename H, typename F>
struct Narrowed {
  F f;
  void operator()(int64_t g, const GroupWords& w, H* o) const {
    alignas(32) float tmp[rng::kValuesPerGroup1];
    f(g, w, tmp);
    half_vec::narrow(tmp, o, rng::kValuesPerGroup1);
  }
};

template <typename T, typename F>
void fill_float_values(T* p, int64_t n, const PhiloxState& st, const F& f) {
  if constexpr (std::is_same_v<T, float>) {
    for_each_group<rng::kValuesPerGroup1>(p, n, st, f);
  } else {
    for_each_group<rng::kValuesPerGroup1>(p, n, st, Narrowed<T, F>{f});
  }
}

template <typename T>
void fill_bernoulli(T* p, int64_t n, const PhiloxState& st, double prob) {
  const uint64_t thr = rng::bernoulli_threshold(prob);
  for_each_group<rng::kValuesPerGroup1>(p, n, st, [&](int64_t, const GroupWords& w, T* o) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_integral_v<T>) {
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < L; ++l) o[k * L + l] = rng::bernoulli_hit(w[k][l], thr) ? T(1) : T(0);
    } else {
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < L; ++l)
          o[k * L + l] = T(rng::bernoulli_hit(w[k][l], thr) ? 1.0f : 0.0f);
    }
  });
}

template <typename T>
void fill_integers(T* p, int64_t n, const PhiloxState& st, int64_t lo, uint64_t range) {
  if (range != 0 && range < (uint64_t(1) << 32)) {  // the common case, in vector lanes
    const uint32_t r32 = uint32_t(range);
    for_each_group<rng::kValuesPerGroup2>(p, n, st, [&](int64_t, const GroupWords& w, T* o) {
      for (int j = 0; j < 2; ++j)
        for (int l = 0; l < L; ++l) {
          const int64_t v =
              int64_t(uint64_t(lo) + rng::below_small(w[2 * j][l], w[2 * j + 1][l], r32));
          o[j * L + l] = T(opmath_t<T>(v));
        }
    });
    return;
  }
  for_each_group<rng::kValuesPerGroup2>(p, n, st, [&](int64_t, const GroupWords& w, T* o) {
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < L; ++l) {
        const int64_t v = int64_t(uint64_t(lo) + rng::below(w[2 * j][l], w[2 * j + 1][l], range));
        o[j * L + l] = T(opmath_t<T>(v));
      }
  });
}

template <typename T>
void fill_impl(const Tensor& out, const RandomArgs& a, const PhiloxState& st) {
  T* p = static_cast<T*>(out.data_ptr());
  const int64_t n = out.numel();
  if constexpr (is_floating_v<T>) {
    if constexpr (std::is_same_v<T, double>) {
      switch (a.dist) {
        case RandomDist::Uniform:
          for_each_group<rng::kValuesPerGroup2>(p, n, st, DoubleUniform{a.a, a.b - a.a, a.b});
          return;
        case RandomDist::Normal:
          for_each_group<rng::kValuesPerGroup2>(p, n, st, DoubleNormal{a.a, a.b});
          return;
        case RandomDist::Exponential:
          for_each_group<rng::kValuesPerGroup2>(p, n, st, DoubleExponential{1.0 / a.a});
          return;
        default:
          break;
      }
    } else {
      switch (a.dist) {
        case RandomDist::Uniform: {
          const float from = float(a.a), to = float(a.b);
          if constexpr (std::is_same_v<T, float>) {
            fill_float_values(p, n, st, FloatUniform{from, float(a.b - a.a), to});
          } else {
            // Rounding to the 16-bit type can reach `to` too: map it to `from` after narrowing.
            fill_float_values(p, n, st, FloatUniform{from, float(a.b - a.a), to});
            const T tfrom = T(from);
            for (int64_t i = 0; i < n; ++i)
              if (float(p[i]) >= to && a.b > a.a) p[i] = tfrom;
          }
          return;
        }
        case RandomDist::Normal:
          fill_float_values(p, n, st, FloatNormal{float(a.a), float(a.b)});
          return;
        case RandomDist::Exponential:
          fill_float_values(p, n, st, FloatExponential{float(1.0 / a.a)});
          return;
        default:
          break;
      }
    }
  }
  if (a.dist == RandomDist::Bernoulli) {
    fill_bernoulli(p, n, st, a.a);
  } else if (a.dist == RandomDist::Integer) {
    fill_integers(p, n, st, a.lo, a.range);
  }
}

void random_fill_cpu(const Tensor& out, const RandomArgs& a, PhiloxState st) {
  dispatch_dtype<kAllReal>(out.dtype(), "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_impl<T>(out, a, st);
  });
}

void bernoulli_tensor_cpu(const Tensor& out, const Tensor& prob, PhiloxState st) {
  const double* pp = prob.data<double>();
  dispatch_dtype<kAllReal>(out.dtype(), "bernoulli", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(out.data_ptr());
    const int64_t n = out.numel();
    // Value i against p[i] in the one-word layout: hit when word < p 2^32, as the scalar p.
    constexpr int E = rng::kValuesPerGroup1;
    for_each_group<E>(p, n, st, [&](int64_t g, const GroupWords& w, T* o) {
      const int64_t base = g * E, count = std::min<int64_t>(E, n - base);
      alignas(32) double thr[E];
      for (int i = 0; i < E; ++i) thr[i] = i < count ? pp[base + i] * 0x1p32 : 0.0;
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < L; ++l)
          o[k * L + l] = T(opmath_t<T>(rng::u32_to_double(w[k][l]) < thr[k * L + l] ? 1 : 0));
    });
  });
}

void randperm_cpu(const Tensor& out, PhiloxState st) {
  int64_t n = out.numel();
  int64_t* p = out.data<int64_t>();
  std::iota(p, p + n, int64_t(0));
  for (int64_t i = n - 1; i > 0; --i) {
    auto w = st.block(uint64_t(i));
    uint64_t r = ((uint64_t(w[0]) << 32) | w[1]) % uint64_t(i + 1);
    std::swap(p[i], p[r]);
  }
}

void multinomial_cpu(const Tensor& out, const Tensor& probs, bool replacement, PhiloxState st) {
  int64_t rows = probs.size(0), ncat = probs.size(1), ns = out.size(1);
  const double* pp = probs.data<double>();
  int64_t* po = out.data<int64_t>();
  // Validate first (clear error instead of garbage samples).
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    int64_t nonzero = 0;
    for (int64_t j = 0; j < ncat; ++j) {
      double v = pp[r * ncat + j];
      TC_CHECK(std::isfinite(v),
               "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
      TC_CHECK(v >= 0,
               "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
      total += v;
      nonzero += v > 0;
    }
    TC_CHECK(total > 0,
             "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    TC_CHECK(replacement || nonzero >= ns,
             "multinomial: invalid multinomial distribution (with replacement=False, not enough "
             "non-negative category to sample)");
  }
  parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
    std::vector<double> cdf(ncat), keys(ncat);
    std::vector<int64_t> idx(ncat);
    for (int64_t r = begin; r < end; ++r) {
      const double* row = pp + r * ncat;
      if (replacement) {
        double acc = 0;
        for (int64_t j = 0; j < ncat; ++j) cdf[j] = (acc += row[j]);
        for (int64_t s = 0; s < ns; ++s) {
          auto w = st.block(uint64_t(r * ns + s));
          double u = u53(w[0], w[1]) * acc;
          int64_t k = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
          k = std::min(k, ncat - 1);
          while (k > 0 && row[k] == 0) --k;  // never land on a zero-probability category
          po[r * ns + s] = k;
        }
      } else {
        // Exponential race: key_j = E_j / p_j, take the ns smallest.
        for (int64_t j = 0; j < ncat; ++j) {
          auto w = st.block(uint64_t(r * ncat + j));
          double e = -std::log1p(-u53(w[0], w[1]));
          keys[j] = row[j] > 0 ? e / row[j] : std::numeric_limits<double>::infinity();
          idx[j] = j;
        }
        std::partial_sort(idx.begin(), idx.begin() + ns, idx.end(),
                          [&](int64_t x, int64_t y) { return keys[x] < keys[y]; });
        for (int64_t s = 0; s < ns; ++s) po[r * ns + s] = idx[s];
      }
    }
  });
}

}  // namespace

Tensor random_math_probe(const std::string& fn, const Tensor& x) {
  TC_CHECK_TYPE(x.dtype() == DType::Float32 || x.dtype() == DType::Float64,
                "random_math_probe: expects a float32 or float64 tensor, got ",
                dtype_name(x.dtype()));
  TC_CHECK(x.is_cpu(), "random_math_probe: expects a CPU tensor");
  TC_CHECK(fn == "log" || fn == "sin" || fn == "cos",
           "random_math_probe: fn must be 'log', 'sin' or 'cos', got '", fn, "'");
  Tensor in = contiguous(x);
  Tensor out = empty(in.sizes(), TensorOptions(in.dtype()));
  const int64_t n = in.numel();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* a = in.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (fn == "log") {
        if constexpr (std::is_same_v<T, float>)
          o[i] = rng::log_unit_f(a[i]);
        else
          o[i] = rng::log_unit_d(a[i]);
      } else {
        T s, c;
        if constexpr (std::is_same_v<T, float>)
          rng::sincos_2pi_f(a[i], s, c);
        else
          rng::sincos_2pi_d(a[i], s, c);
        o[i] = fn == "sin" ? s : c;
      }
    }
  };
  if (in.dtype() == DType::Float32)
    run(float{});
  else
    run(double{});
  return out;
}

TC_REGISTER_KERNEL(random_fill_kernel, CPU, random_fill_cpu);
TC_REGISTER_KERNEL(bernoulli_tensor_kernel, CPU, bernoulli_tensor_cpu);
TC_REGISTER_KERNEL(randperm_kernel, CPU, randperm_cpu);
TC_REGISTER_KERNEL(multinomial_kernel, CPU, multinomial_cpu);

}  // namespace tc
