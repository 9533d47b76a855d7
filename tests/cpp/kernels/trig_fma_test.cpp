// vec_math's double sin/cos/tan as the library builds them (with FMA): the three-piece pi/2
// reduction and the array helpers against long double libm, on the arguments closest to a
// multiple of pi/2 (where the reduction cancels most) and on dense sweeps.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tensorcore/kernels/cpu/vec_math.h"

namespace vm = tc::vec_math;

namespace {

bool fma_build_runs() {
#if defined(__FMA__)
  return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

// The array helpers' logic (vectorized loop, libm beyond the reduction's range) with the
// force-inlined scalar functions: vm::sin_array itself is an ordinary inline function, and
// tc_tests' plain-x86-64 translation units supply its copy.
template <typename F, typename G>
void trig_loop(const std::vector<double>& in, std::vector<double>& out, F fast, G libm) {
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = vm::sin_cos_fast_ok(in[i]) ? fast(in[i]) : libm(in[i]);
}

double ulp_err(double got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : INFINITY;
  if (std::isnan(got) || std::isinf(got)) return INFINITY;
  int e = 0;
  std::frexp(ref, &e);
  const long double ulp = std::ldexp(1.0L, std::max(e - 1, -1022) - 52);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

// The doubles |x| <= 2^20 closest to a multiple of pi/2 (found by scanning every k with exact
// arithmetic, smallest |x - k pi/2| first) and x - k pi/2 rounded to double.
struct Hard {
  double x, r_hi, r_lo;  // x - k pi/2 = r_hi + r_lo to ~2^-106
};
constexpr Hard kHard[] = {
    {0x1.6c6cbc45dc8dep+5, 0x1.6d61b58c99c43p-61, -0x1.d8d2a16b7bd6ep-118},
    {0x1.6c6cbc45dc8dep+6, 0x1.6d61b58c99c43p-60, -0x1.d8d2a16b7bd6ep-117},
    {0x1.6c6cbc45dc8dep+7, 0x1.6d61b58c99c43p-59, -0x1.d8d2a16b7bd6ep-116},
    {0x1.6c6cbc45dc8dep+8, 0x1.6d61b58c99c43p-58, -0x1.d8d2a16b7bd6ep-115},
    {0x1.6c6cbc45dc8dep+9, 0x1.6d61b58c99c43p-57, -0x1.d8d2a16b7bd6ep-114},
    {0x1.6c6cbc45dc8dep+10, 0x1.6d61b58c99c43p-56, -0x1.d8d2a16b7bd6ep-113},
    {0x1.6c6cbc45dc8dep+11, 0x1.6d61b58c99c43p-55, -0x1.d8d2a16b7bd6ep-112},
    {0x1.39c6fd67805a7p+18, -0x1.988efe18ff83fp-55, -0x1.662d9427328d7p-109},
    {0x1.921fb54442d18p+0, -0x1.1a62633145c07p-54, 0x1.f1976b7ed8fbcp-110},
    {0x1.6c6cbc45dc8dep+12, 0x1.6d61b58c99c43p-54, -0x1.d8d2a16b7bd6ep-111},
    {0x1.39c6fd67805a7p+19, -0x1.988efe18ff83fp-54, -0x1.662d9427328d7p-108},
    {0x1.921fb54442d18p+1, -0x1.1a62633145c07p-53, 0x1.f1976b7ed8fbcp-109},
    {0x1.67e57cdd4dc54p+15, 0x1.396f53352c401p-53, -0x1.27a31de12c8cfp-108},
    {0x1.6c6cbc45dc8dep+13, 0x1.6d61b58c99c43p-53, -0x1.d8d2a16b7bd6ep-110},
    {0x1.921fb54442d19p+0, 0x1.72cece675d1fdp-53, -0x1.c1cd129024e09p-107},
    {0x1.635e3d74befcap+14, -0x1.a15417e407485p-53, -0x1.d9ce695b750c0p-111},
    {0x1.2d97c7f3321d2p+2, -0x1.a79394c9e8a0ap-53, -0x1.456737b06ea1ap-107},
    {0x1.65a1dd290660fp+16, -0x1.049c6e4971285p-52, 0x1.987a51f1fd8c0p-106},
    {0x1.93c05c9ed3cbcp+18, 0x1.065d73720c4f9p-52, -0x1.025d05d5f260ap-108},
    {0x1.9eb0b2ee64e81p+5, -0x1.19abb2567f739p-52, 0x1.02484db59f873p-106},
    {0x1.921fb54442d18p+2, -0x1.1a62633145c07p-52, 0x1.f1976b7ed8fbcp-108},
    {0x1.3a28c59d5433bp+5, 0x1.1b19140c0c0d5p-52, 0x1.2f92fec6612a8p-111},
    {0x1.67e57cdd4dc54p+16, 0x1.396f53352c401p-52, -0x1.27a31de12c8cfp-107},
    {0x1.f6a7a2955385ep+2, -0x1.60fafbfd97309p-52, 0x1.9b7f5197a3cebp-106},
};

TEST(VecMathFmaTrig, ReductionIsAccurateAtTheHardestArguments) {
  if (!fma_build_runs()) GTEST_SKIP() << "not an FMA build / CPU";
  for (const Hard& h : kHard) {
    for (double sign : {1.0, -1.0}) {
      const double x = sign * h.x;
      const double k = std::nearbyint(x * 0x1.45f306dc9c883p-1);
      double lo = 0.0;
      const double hi = vm::detail::reduce_pio2_d(x, k, lo);
      // hi + lo within 2^-66 relative of the exact x - k pi/2 (lo is not renormalized, so for
      // the largest k it carries q P3 ~ 2^-69 and its own ulp, 2^-121, bounds the accuracy;
      // 2^-60 relative would already be enough for 1 ulp). hi - r_hi is exact (Sterbenz).
      const double err = (hi - sign * h.r_hi) + (lo - sign * h.r_lo);
      EXPECT_LE(std::fabs(err), std::fabs(h.r_hi) * 0x1p-66) << std::hexfloat << x;
    }
  }
}

TEST(VecMathFmaTrig, SinCosTanAccuracy) {
  if (!fma_build_runs()) GTEST_SKIP() << "not an FMA build / CPU";
  std::vector<double> xs;
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal(0.0, 4.0);
  std::uniform_real_distribution<double> wide(-0x1p20, 0x1p20), mag(-40.0, 0.0);
  for (int i = 0; i < 150000; ++i) {
    xs.push_back(normal(rng));
    xs.push_back(wide(rng));
    xs.push_back(std::exp2(mag(rng)) * ((rng() & 1) ? -1.0 : 1.0));
  }
  for (const Hard& h : kHard) {
    xs.push_back(h.x);
    xs.push_back(-h.x);
  }
  // Beyond the reduction's range: the array helpers hand these to libm.
  for (double v : {0x1p20, 0x1.0000000000001p20, 1e22, -1e300, 1e300, 0x1.fffffffffffffp1023})
    xs.push_back(v);
  std::vector<double> out(xs.size());
  struct Case {
    const char* name;
    double (*f)(double);
    double (*libm)(double);
    long double (*ref)(long double);
    double tol;  // measured max + margin (4M-point sweeps: sin 0.77, cos 0.77, tan 0.96)
  };
  const Case cases[] = {
      {"sin", [](double x) { return vm::sin(x); }, [](double x) { return std::sin(x); }, sinl, 0.8},
      {"cos", [](double x) { return vm::cos(x); }, [](double x) { return std::cos(x); }, cosl, 0.8},
      {"tan", [](double x) { return vm::tan(x); }, [](double x) { return std::tan(x); }, tanl,
       1.0}};
  for (const Case& c : cases) {
    trig_loop(xs, out, c.f, c.libm);
    double worst = 0.0, worst_x = 0.0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ulp_err(out[i], c.ref(xs[i]));
      if (e > worst) {
        worst = e;
        worst_x = xs[i];
      }
    }
    EXPECT_LE(worst, c.tol) << c.name << " at " << std::hexfloat << worst_x;
  }
  // At the hardest arguments sin or cos is +-r (|r| ~ 2^-61 .. 2^-52) and tan is r or -1/r:
  // all correctly rounded there.
  for (const Hard& h : kHard) {
    for (const Case& c : cases) {
      EXPECT_LE(ulp_err(c.f(h.x), c.ref(h.x)), 0.501) << c.name << std::hexfloat << h.x;
      EXPECT_LE(ulp_err(c.f(-h.x), c.ref(-h.x)), 0.501) << c.name << std::hexfloat << h.x;
    }
  }
  EXPECT_TRUE(std::signbit(vm::sin(-0.0)));
  EXPECT_FALSE(std::signbit(vm::sin(0.0)));
  EXPECT_EQ(vm::cos(-0.0), 1.0);
  EXPECT_TRUE(std::isnan(vm::sin(static_cast<double>(NAN))));
}

}  // namespace
