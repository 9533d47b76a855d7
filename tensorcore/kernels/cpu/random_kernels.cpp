// CPU random kernels. Element i draws from Philox block i of the op's subsequence, so the
// result does not depend on how the work is split between threads.
#include <algorithm>
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

template <typename T>
void fill_impl(const Tensor& out, const RandomArgs& a, PhiloxState st) {
  T* p = static_cast<T*>(out.data_ptr());
  int64_t n = out.numel();
  constexpr double kTwoPi = 6.283185307179586476925286766559;
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
