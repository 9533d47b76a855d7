// CPU random kernels. Element i draws from Philox block i of the op's subsequence, so the
// result does not depend on how the work is split between threads.
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
#include "tensorcore/ops/random.h"

namespace tc {
namespace {

inline double u53(uint32_t hi, uint32_t lo) {  // [0, 1)
  return double((uint64_t(hi) << 21) ^ (lo >> 11)) * 0x1.0p-53;
}
inline float u24(uint32_t w) { return float(w >> 8) * 0x1.0p-24f; }

#if defined(__AVX2__)
// Low and high 32-bit halves of the 8 products m * x (unsigned 32 x 32 -> 64 per lane).
inline void mul_hi_lo(__m256i x, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}
#endif

// Philox blocks i0 .. i0+7 of the op's subsequence (word k of block i0 + l is w[k][l]): the
// same values as PhiloxState::block, eight lanes per AVX2 instruction.
inline void philox8(const PhiloxState& st, uint64_t i0, uint32_t w[4][8]) {
#if defined(__AVX2__)
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // Counter words 0/1 are the low/high halves of i0 + lane (a carry may cross lanes).
  alignas(32) uint32_t lo_words[8], hi_words[8];
  for (int l = 0; l < 8; ++l) {
    const uint64_t i = i0 + uint64_t(l);
    lo_words[l] = uint32_t(i);
    hi_words[l] = uint32_t(i >> 32);
  }
  (void)lane;
  __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo_words));
  __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi_words));
  __m256i c2 = _mm256_set1_epi32(int(uint32_t(st.offset)));
  __m256i c3 = _mm256_set1_epi32(int(uint32_t(st.offset >> 32)));
  uint32_t k0 = uint32_t(st.seed), k1 = uint32_t(st.seed >> 32);
  const __m256i m0 = _mm256_set1_epi32(int(0xD2511F53u)), m1 = _mm256_set1_epi32(int(0xCD9E8D57u));
  for (int r = 0; r < 10; ++r) {
    __m256i hi0, lo0, hi1, lo1;
    mul_hi_lo(c0, m0, hi0, lo0);
    mul_hi_lo(c2, m1, hi1, lo1);
    const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(int(k0)));
    const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(int(k1)));
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(w[0]), c0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(w[1]), c1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(w[2]), c2);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(w[3]), c3);
#else
  for (int l = 0; l < 8; ++l) {
    const auto b = st.block(i0 + uint64_t(l));
    for (int k = 0; k < 4; ++k) w[k][l] = b[k];
  }
#endif
}

// Runs fn(i, words) over [begin, end) with the Philox blocks made eight at a time.
template <typename Fn>
inline void for_each_block(const PhiloxState& st, int64_t begin, int64_t end, const Fn& fn) {
  int64_t i = begin;
  alignas(32) uint32_t w[4][8];
  for (; i + 8 <= end; i += 8) {
    philox8(st, uint64_t(i), w);
    for (int l = 0; l < 8; ++l) fn(i + l, w[0][l], w[1][l], w[2][l], w[3][l]);
  }
  for (; i < end; ++i) {
    const auto b = st.block(uint64_t(i));
    fn(i, b[0], b[1], b[2], b[3]);
  }
}

template <typename T>
void fill_impl(const Tensor& out, const RandomArgs& a, PhiloxState st) {
  T* p = static_cast<T*>(out.data_ptr());
  int64_t n = out.numel();
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  if constexpr (is_floating_v<T>) {
    // The common fills get a loop of their own (no per-element dispatch on the distribution).
    if (a.dist == RandomDist::Uniform && !std::is_same_v<T, double>) {
      const float lo = float(a.a), span = float(a.b - a.a), hi = float(a.b);
      const bool clamp = a.b > a.a;
      parallel_for(0, n, 4096, [&](int64_t begin, int64_t end) {
        for_each_block(st, begin, end, [&](int64_t i, uint32_t w0, uint32_t, uint32_t, uint32_t) {
          T r = T(lo + span * u24(w0));
          if (float(r) >= hi && clamp) r = T(lo);  // rounding up to `to`
          p[i] = r;
        });
      });
      return;
    }
    if (a.dist == RandomDist::Normal) {
      const double mean = a.a, std_ = a.b;
      parallel_for(0, n, 4096, [&](int64_t begin, int64_t end) {
        for_each_block(
            st, begin, end, [&](int64_t i, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
              double u1 = 1.0 - u53(w0, w1);  // (0, 1]
              double u2 = u53(w2, w3);
              p[i] = T(opmath_t<T>(mean +
                                   std_ * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2)));
            });
      });
      return;
    }
  }
  parallel_for(0, n, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      auto w = st.block(uint64_t(i));
      if constexpr (is_floating_v<T>) {
        if (a.dist == RandomDist::Uniform) {
          if constexpr (std::is_same_v<T, double>) {
            p[i] = a.a + (a.b - a.a) * u53(w[0], w[1]);
          } else {
            float v = float(a.a) + float(a.b - a.a) * u24(w[0]);
            T r = T(v);
            if (float(r) >= float(a.b) && a.b > a.a) r = T(float(a.a));  // rounding up to `to`
            p[i] = r;
          }
          continue;
        }
        if (a.dist == RandomDist::Normal) {
          double u1 = 1.0 - u53(w[0], w[1]);  // (0, 1]
          double u2 = u53(w[2], w[3]);
          p[i] = T(opmath_t<T>(a.a + a.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2)));
          continue;
        }
        if (a.dist == RandomDist::Exponential) {
          p[i] = T(opmath_t<T>(-std::log1p(-u53(w[0], w[1])) / a.a));
          continue;
        }
      }
      if (a.dist == RandomDist::Bernoulli) {
        p[i] = T(opmath_t<T>(u53(w[0], w[1]) < a.a ? 1 : 0));
      } else if (a.dist == RandomDist::Integer) {
        uint64_t r = (uint64_t(w[0]) << 32) | w[1];
        if (a.range != 0) r %= a.range;
        p[i] = T(opmath_t<T>(int64_t(uint64_t(a.lo) + r)));
      }
    }
  });
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
    parallel_for(0, out.numel(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        auto w = st.block(uint64_t(i));
        p[i] = T(opmath_t<T>(u53(w[0], w[1]) < pp[i] ? 1 : 0));
      }
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

TC_REGISTER_KERNEL(random_fill_kernel, CPU, random_fill_cpu);
TC_REGISTER_KERNEL(bernoulli_tensor_kernel, CPU, bernoulli_tensor_cpu);
TC_REGISTER_KERNEL(randperm_kernel, CPU, randperm_cpu);
TC_REGISTER_KERNEL(multinomial_kernel, CPU, multinomial_cpu);

}  // namespace tc
