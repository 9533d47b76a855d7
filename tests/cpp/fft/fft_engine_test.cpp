// The FFT engine against a naive O(n^2) DFT, and the plan cache's sharing and thread safety.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <thread>
#include <vector>

#include "tensorcore/fft/engine.h"

namespace {

using cd = std::complex<double>;

std::vector<cd> naive_dft(const std::vector<cd>& x, bool inverse) {
  const int64_t n = int64_t(x.size());
  std::vector<cd> y(n);
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < n; ++k) {
    cd acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      double a = sign * 2 * M_PI * double((j * k) % n) / double(n);
      acc += x[j] * cd(std::cos(a), std::sin(a));
    }
    y[k] = acc;
  }
  return y;
}

std::vector<cd> random_signal(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d;
  std::vector<cd> x(n);
  for (auto& v : x) v = cd(d(rng), d(rng));
  return x;
}

double max_rel_err(const std::vector<cd>& a, const std::vector<cd>& b) {
  double err = 0, mag = 1e-300;
  for (size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::abs(a[i] - b[i]));
    mag = std::max(mag, std::abs(b[i]));
  }
  return err / mag;
}

class FftEngineLength : public ::testing::TestWithParam<int64_t> {};

TEST_P(FftEngineLength, ComplexMatchesNaiveDft) {
  const int64_t n = GetParam();
  auto x = random_signal(n, unsigned(n));
  for (bool inverse : {false, true}) {
    std::vector<cd> y(n);
    tc::fft::c2c<double>(x.data(), y.data(), n, 1, inverse, 1.0);
    EXPECT_LT(max_rel_err(y, naive_dft(x, inverse)), 1e-12) << "n=" << n << " inverse=" << inverse;
    std::vector<std::complex<float>> xf(x.begin(), x.end()), yf(n);
    tc::fft::c2c<float>(xf.data(), yf.data(), n, 1, inverse, 1.0f);
    EXPECT_LT(max_rel_err(std::vector<cd>(yf.begin(), yf.end()), naive_dft(x, inverse)), 2e-5)
        << "float n=" << n;
  }
}

TEST_P(FftEngineLength, RealRoundTripMatchesNaiveDft) {
  const int64_t n = GetParam();
  auto xc = random_signal(n, unsigned(n) + 7);
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = xc[i].real();
    xc[i] = x[i];
  }
  std::vector<cd> spec(n / 2 + 1);
  tc::fft::r2c<double>(x.data(), spec.data(), n, 1, 1.0);
  auto ref = naive_dft(xc, false);
  ref.resize(n / 2 + 1);
  EXPECT_LT(max_rel_err(spec, ref), 1e-12) << "n=" << n;
  std::vector<double> back(n);
  tc::fft::c2r<double>(spec.data(), back.data(), n, 1, 1.0 / double(n));
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(back[i], x[i], 1e-10) << "n=" << n << " i=" << i;
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftEngineLength,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 25, 27, 30,
                                           31, 32, 37, 49, 60, 64, 97, 100, 128, 210, 243, 256, 331,
                                           625, 961, 1000, 1024, 1031, 2048, 4097, 121, 143, 169,
                                           616, 1001, 2197, 255, 510, 798, 29 * 23 * 4));

TEST(FftPlanCache, SharesPlansAndIsThreadSafe) {
  tc::fft::clear_plan_cache();
  auto a = tc::fft::complex_plan<float>(360);
  auto b = tc::fft::complex_plan<float>(360);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(static_cast<const void*>(tc::fft::complex_plan<double>(360).get()),
            static_cast<const void*>(a.get()));
  EXPECT_GE(tc::fft::plan_cache_size(), 2);
  // Many threads building and running the same Bluestein plan (1009 is prime) at once.
  const int64_t n = 1009;
  auto x = random_signal(n, 3);
  auto ref = naive_dft(x, false);
  std::vector<std::thread> threads;
  std::vector<double> errs(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      std::vector<cd> y(n);
      for (int rep = 0; rep < 5; ++rep) tc::fft::c2c<double>(x.data(), y.data(), n, 1, false, 1.0);
      errs[t] = max_rel_err(y, ref);
    });
  for (auto& th : threads) th.join();
  for (double e : errs) EXPECT_LT(e, 1e-12);
}

TEST(FftEngine, BatchedRowsAreIndependent) {
  const int64_t n = 48, batch = 37;
  auto x = random_signal(n * batch, 11);
  std::vector<cd> y(n * batch);
  tc::fft::c2c<double>(x.data(), y.data(), n, batch, false, 0.5);
  for (int64_t b = 0; b < batch; b += 9) {
    std::vector<cd> row(x.begin() + b * n, x.begin() + (b + 1) * n);
    auto ref = naive_dft(row, false);
    for (auto& v : ref) v *= 0.5;
    EXPECT_LT(max_rel_err(std::vector<cd>(y.begin() + b * n, y.begin() + (b + 1) * n), ref), 1e-12);
  }
}

TEST(FftEngine, NextFastLen) {
  EXPECT_EQ(tc::fft::next_fast_len(1), 1);
  EXPECT_EQ(tc::fft::next_fast_len(7), 8);
  EXPECT_EQ(tc::fft::next_fast_len(17), 18);
  EXPECT_EQ(tc::fft::next_fast_len(8193), 8640);
}

}  // namespace

namespace {

// Rows run several at a time as SIMD lanes; every lane count, radix and Bluestein must agree
// with the naive DFT row by row.
TEST(FftEngine, BatchedLanesAllPathsMatchNaive) {
  for (int64_t n : {1, 2, 7, 8, 12, 30, 64, 97, 128, 210, 1031}) {
    for (int64_t batch : {1, 3, 17, 21}) {
      auto x = random_signal(n * batch, unsigned(n * 31 + batch));
      std::vector<cd> y(n * batch);
      tc::fft::c2c<double>(x.data(), y.data(), n, batch, true, 1.0);
      std::vector<double> xr(n * batch);
      for (int64_t i = 0; i < n * batch; ++i) xr[i] = x[i].real();
      const int64_t h = n / 2 + 1;
      std::vector<cd> spec(h * batch);
      tc::fft::r2c<double>(xr.data(), spec.data(), n, batch, 1.0);
      std::vector<double> back(n * batch);
      tc::fft::c2r<double>(spec.data(), back.data(), n, batch, 1.0 / double(n));
      for (int64_t b = 0; b < batch; ++b) {
        std::vector<cd> row(x.begin() + b * n, x.begin() + (b + 1) * n);
        EXPECT_LT(max_rel_err(std::vector<cd>(y.begin() + b * n, y.begin() + (b + 1) * n),
                              naive_dft(row, true)),
                  1e-12)
            << "n=" << n << " batch=" << batch;
        std::vector<cd> rrow(n);
        for (int64_t j = 0; j < n; ++j) rrow[j] = xr[b * n + j];
        auto ref = naive_dft(rrow, false);
        ref.resize(h);
        EXPECT_LT(
            max_rel_err(std::vector<cd>(spec.begin() + b * h, spec.begin() + (b + 1) * h), ref),
            1e-12)
            << "rfft n=" << n << " batch=" << batch;
        for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(back[b * n + j], xr[b * n + j], 1e-10);
      }
    }
  }
}

}  // namespace

namespace {

// execute(..., lanes) transforms `lanes` interleaved sequences at once (mixed radix and Bluestein).
TEST(FftEngine, InterleavedLanesMatchNaive) {
  for (int64_t n : {1, 8, 30, 64, 97, 1031}) {
    for (int64_t lanes : {1, 3, 8}) {
      auto x = random_signal(n * lanes, unsigned(n + lanes));
      auto plan = tc::fft::complex_plan<double>(n);
      std::vector<double> re(n * lanes), im(n * lanes), sc(plan->scratch_size(lanes));
      for (int64_t v = 0; v < lanes; ++v)
        for (int64_t j = 0; j < n; ++j) {
          re[j * lanes + v] = x[v * n + j].real();
          im[j * lanes + v] = x[v * n + j].imag();
        }
      plan->execute(re.data(), im.data(), sc.data(), lanes);
      for (int64_t v = 0; v < lanes; ++v) {
        std::vector<cd> row(x.begin() + v * n, x.begin() + (v + 1) * n), got(n);
        for (int64_t j = 0; j < n; ++j) got[j] = cd(re[j * lanes + v], im[j * lanes + v]);
        EXPECT_LT(max_rel_err(got, naive_dft(row, false)), 1e-12)
            << "n=" << n << " lanes=" << lanes;
      }
    }
  }
}

}  // namespace

namespace {

TEST(FftEngine, RealToFullSpectrumMatchesNaive) {
  for (int64_t n : {1, 2, 5, 8, 31, 100, 1031}) {
    const int64_t batch = 3;
    auto xc = random_signal(n * batch, unsigned(n) + 99);
    std::vector<double> x(n * batch);
    for (int64_t i = 0; i < n * batch; ++i) x[i] = xc[i].real();
    std::vector<cd> full(n * batch);
    tc::fft::r2c<double>(x.data(), full.data(), n, batch, 1.0, /*onesided=*/false);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<cd> row(n);
      for (int64_t j = 0; j < n; ++j) row[j] = x[b * n + j];
      EXPECT_LT(max_rel_err(std::vector<cd>(full.begin() + b * n, full.begin() + (b + 1) * n),
                            naive_dft(row, false)),
                1e-12)
          << "n=" << n;
    }
  }
}

}  // namespace

namespace {

// Large primes: Rader (p-1 smooth) or Bluestein, in both precisions, single rows and lanes, and
// composite lengths with a large prime factor (always Bluestein).
TEST(FftEngine, RaderAndBluesteinLengthsMatchNaive) {
  EXPECT_STREQ(tc::fft::plan_algorithm(1024), "stockham");
  EXPECT_STREQ(tc::fft::plan_algorithm(1009), "rader");          // 1008 = 2^4 3^2 7
  EXPECT_STREQ(tc::fft::plan_algorithm(65537), "rader");         // 2^16
  EXPECT_STREQ(tc::fft::plan_algorithm(10007), "bluestein");     // 10006 = 2 * 5003
  EXPECT_STREQ(tc::fft::plan_algorithm(4097), "fourstep");       // 17 * 241: 17 lanes of Rader 241
  EXPECT_STREQ(tc::fft::plan_algorithm(2 * 1031), "bluestein");  // 1030 = 2 * 5 * 103
  for (int64_t n :
       {37, 41, 53, 101, 1009, 1019, 4093, 2 * 1031, 3 * 37, 4097, 2 * 1009, 2 * 3 * 37 * 41}) {
    for (int64_t lanes : {1, 3}) {
      if (n > 2000 && lanes > 1) continue;  // the naive reference is O(n^2) per row
      auto x = random_signal(n * lanes, unsigned(n + 17 * lanes));
      auto plan = tc::fft::complex_plan<double>(n);
      std::vector<double> re(n * lanes), im(n * lanes), sc(plan->scratch_size(lanes));
      auto planf = tc::fft::complex_plan<float>(n);
      std::vector<float> ref_(n * lanes), imf(n * lanes), scf(planf->scratch_size(lanes));
      for (int64_t v = 0; v < lanes; ++v)
        for (int64_t j = 0; j < n; ++j) {
          re[j * lanes + v] = ref_[j * lanes + v] = float(x[v * n + j].real());
          im[j * lanes + v] = imf[j * lanes + v] = float(x[v * n + j].imag());
          x[v * n + j] = cd(re[j * lanes + v], im[j * lanes + v]);
        }
      plan->execute(re.data(), im.data(), sc.data(), lanes);
      planf->execute(ref_.data(), imf.data(), scf.data(), lanes);
      for (int64_t v = 0; v < lanes; ++v) {
        std::vector<cd> row(x.begin() + v * n, x.begin() + (v + 1) * n), got(n), gotf(n);
        for (int64_t j = 0; j < n; ++j) {
          got[j] = cd(re[j * lanes + v], im[j * lanes + v]);
          gotf[j] = cd(ref_[j * lanes + v], imf[j * lanes + v]);
        }
        auto ref = naive_dft(row, false);
        EXPECT_LT(max_rel_err(got, ref), 1e-12) << "n=" << n << " lanes=" << lanes;
        EXPECT_LT(max_rel_err(gotf, ref), 2e-5) << "float n=" << n << " lanes=" << lanes;
      }
    }
  }
}

TEST(FftEngine, BluesteinLengthIsSmoothAndLongEnough) {
  for (int64_t n : {2, 37, 1009, 4097, 10007, 65537, 100003}) {
    const int64_t m = tc::fft::bluestein_length(n);
    EXPECT_GE(m, 2 * n - 1);
    EXPECT_LT(m, 4 * n);
    int64_t r = m;
    for (int p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    EXPECT_EQ(r, 1) << "n=" << n << " m=" << m;
  }
}

}  // namespace
