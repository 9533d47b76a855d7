// Accuracy and special-value tests for tensorcore/kernels/cpu/vec_math.h.
//
// Float functions are compared with the double-precision libm result (whose own error is far
// below a float ulp), double functions with long double libm. Sweeps walk the IEEE bit patterns
// with a prime stride, so every binade (subnormals, huge values, negatives, inf, NaN) is hit.
// Set TC_VEC_MATH_EXHAUSTIVE=1 to check every one of the 2^32 float inputs (minutes; uses all
// cores), TC_VEC_MATH_ONLY=exp,log to restrict the sweeps to some functions, and
// TC_VEC_MATH_REPORT=1 to print the measured max error of each function.
#include "tensorcore/kernels/cpu/vec_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace vm = tc::vec_math;

namespace {

// Without FMA (e.g. the default x86-64 target) polynomial steps round twice; allow for it.
#if defined(__FMA__) || defined(__aarch64__)
constexpr double kSlack = 1.0;
#else
constexpr double kSlack = 1.5;
#endif

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && v[0] != '0';
}

float f_from_bits(uint32_t u) { return std::bit_cast<float>(u); }
double d_from_bits(uint64_t u) { return std::bit_cast<double>(u); }

// Error of a float result in ulps of the exact value `ref` (given in double). Special outputs
// (NaN, inf, and exact zeros, with their sign) must match exactly: they return 0 or infinity.
double ulp_err_f(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const float ref_f = static_cast<float>(ref);
  if (std::isinf(ref_f) || ref == 0.0) {
    return std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(ref_f) ? 0.0 : INFINITY;
  }
  if (std::isinf(got)) return INFINITY;
  int e = 0;
  std::frexp(ref, &e);  // |ref| in [2^(e-1), 2^e)
  const double ulp = std::ldexp(1.0, std::max(e - 1, -126) - 23);
  return std::fabs(static_cast<double>(got) - ref) / ulp;
}

double ulp_err_d(double got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const double ref_d = static_cast<double>(ref);
  if (std::isinf(ref_d) || ref == 0.0L) {
    return std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(ref_d) ? 0.0 : INFINITY;
  }
  if (std::isinf(got)) return INFINITY;
  int e = 0;
  std::frexp(ref, &e);
  const long double ulp = std::ldexp(1.0L, std::max(e - 1, -1022) - 52);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

struct Worst {
  double err = 0.0;
  double x = 0.0;
  double got = 0.0;
  double ref = 0.0;
  void merge(const Worst& o) {
    if (o.err > err) *this = o;
  }
};

using F1 = std::function<float(float)>;
using R1 = std::function<double(double)>;

// Checks f over bit patterns u = start, start + stride, ... (mod 2^32) plus the special list.
Worst sweep_f(const F1& f, const R1& ref, uint64_t stride,
              const std::function<bool(float)>& in_domain) {
  Worst w;
  auto check = [&](float x) {
    if (!in_domain(x)) return;
    const float got = f(x);
    const double r = ref(static_cast<double>(x));
    const double e = ulp_err_f(got, r);
    if (e > w.err) w = {e, x, got, r};
  };
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += stride)
    check(f_from_bits(static_cast<uint32_t>(u)));
  const float specials[] = {
      0.0f,        -0.0f,         INFINITY,       -INFINITY,   NAN,        -NAN,        1.0f,
      -1.0f,       0.5f,          -0.5f,          2.0f,        1e-45f,     -1e-45f,     1e-38f,
      0x1p-126f,   3.4028235e38f, -3.4028235e38f, 88.72283f,   88.72284f,  -87.33654f,  -103.97208f,
      -103.97209f, -104.0f,       89.0f,          0.75f,       1e-10f,     -1e-10f,     20.0f,
      -20.0f,      100.0f,        -100.0f,        3.14159265f, 1.5707964f, 33554432.0f, 4.0f,
      10.0f};
  for (float x : specials) check(x);
  return w;
}

// Every float, split over all cores.
Worst exhaustive_f(const F1& f, const R1& ref, const std::function<bool(float)>& in_domain) {
  const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Worst> ws(nt);
  std::vector<std::thread> th;
  for (unsigned t = 0; t < nt; ++t) {
    th.emplace_back([&, t] {
      Worst w;
      const uint64_t lo = (uint64_t{1} << 32) * t / nt, hi = (uint64_t{1} << 32) * (t + 1) / nt;
      for (uint64_t u = lo; u < hi; ++u) {
        const float x = f_from_bits(static_cast<uint32_t>(u));
        if (!in_domain(x)) continue;
        const float got = f(x);
        const double r = ref(static_cast<double>(x));
        const double e = ulp_err_f(got, r);
        if (e > w.err) w = {e, x, got, r};
      }
      ws[t] = w;
    });
  }
  for (auto& t : th) t.join();
  Worst w;
  for (auto& x : ws) w.merge(x);
  return w;
}

void report(const char* name, const Worst& w) {
  if (env_on("TC_VEC_MATH_REPORT")) {
    std::printf("  %-10s max %.3f ulp  at x=%.9g got=%.9g ref=%.17g\n", name, w.err, w.x, w.got,
                w.ref);
  }
}

bool all_f(float) { return true; }

bool selected(const char* name) {
  const char* only = std::getenv("TC_VEC_MATH_ONLY");
  if (only == nullptr || only[0] == '\0') return true;
  const std::string list = std::string(",") + only + ",";
  return list.find(std::string(",") + name + ",") != std::string::npos;
}

struct FloatCase {
  const char* name;
  F1 f;
  R1 ref;
  double tol;
  std::function<bool(float)> dom = all_f;
};

double sigmoid_ref(double x) {
  return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}
long double sigmoid_ref_l(long double x) {
  return x >= 0 ? 1.0L / (1.0L + std::exp(-x)) : std::exp(x) / (1.0L + std::exp(x));
}

bool trig_dom(float x) { return vm::sin_cos_fast_ok(x) || !std::isfinite(x); }

std::vector<FloatCase> float_cases() {
  auto F = [](float (*f)(float)) { return F1(f); };
  auto R = [](double (*r)(double)) { return R1(r); };
  return {
      {"exp", F(vm::exp), R(std::exp), 1.0},
      {"exp2", F(vm::exp2), R(std::exp2), 1.0},
      {"expm1", F(vm::expm1), R(std::expm1), 1.0},
      {"log", F(vm::log), R(std::log), 1.0},
      {"log2", F(vm::log2), R(std::log2), 1.0},
      {"log10", F(vm::log10), R(std::log10), 1.0},
      {"log1p", F(vm::log1p), R(std::log1p), 1.0},
      {"sin", F(vm::sin), R(std::sin), 1.0, trig_dom},
      {"cos", F(vm::cos), R(std::cos), 1.0, trig_dom},
      {"tan", F(vm::tan), R(std::tan), 1.0, trig_dom},
      {"tanh", F(vm::tanh), R(std::tanh), 1.0},
      {"sigmoid", F(vm::sigmoid), R(sigmoid_ref), 2.5},  // one plain division (torch: 2.4 ulp)
      {"sinh", F(vm::sinh), R(std::sinh), 1.0},
      {"cosh", F(vm::cosh), R(std::cosh), 1.0},
      {"erf", F(vm::erf), R(std::erf), 1.0},
      {"erfc", F(vm::erfc), R(std::erfc), 1.0},
      {"atan", F(vm::atan), R(std::atan), 1.5},
      {"asin", F(vm::asin), R(std::asin), 1.5},
      {"acos", F(vm::acos), R(std::acos), 1.5},
  };
}

TEST(VecMathFloat, DenseSweep) {
  const bool exhaustive = env_on("TC_VEC_MATH_EXHAUSTIVE");
  for (const auto& c : float_cases()) {
    if (!selected(c.name)) continue;
    // Stride 4099 (prime): ~1M inputs per function, every binade of both signs.
    const Worst w = exhaustive ? exhaustive_f(c.f, c.ref, c.dom) : sweep_f(c.f, c.ref, 4099, c.dom);
    report(c.name, w);
    EXPECT_LE(w.err, c.tol * kSlack)
        << c.name << "(" << w.x << ") = " << w.got << ", expected " << w.ref;
  }
}

// ---- two-argument float functions: structured grid of specials x specials, plus random pairs.
std::vector<float> special_floats() {
  return {0.0f,           -0.0f,      INFINITY, -INFINITY, NAN,         1.0f,
          -1.0f,          0.5f,       -0.5f,    2.0f,      -2.0f,       3.0f,
          -3.0f,          1e-45f,     -1e-45f,  1e-38f,    -1e-38f,     3.4028235e38f,
          -3.4028235e38f, 0.75f,      1.5f,     -1.5f,     16777216.0f, 16777215.0f,
          -16777215.0f,   8388609.0f, 1e30f,    -1e30f,    1e-30f,      100.0f,
          -100.0f,        127.5f,     -149.0f,  0.999f,    1.001f};
}

template <typename F, typename Ref>
Worst sweep_f2(F f, Ref ref, std::function<float(std::mt19937&)> gen_x,
               std::function<float(std::mt19937&)> gen_y) {
  Worst w;
  auto check = [&](float x, float y) {
    const float got = f(x, y);
    const double r = ref(static_cast<double>(x), static_cast<double>(y));
    const double e = ulp_err_f(got, r);
    if (e > w.err) w = {e, x + 1e-300 * y, got, r};
    if (e > 1.0 && env_on("TC_VEC_MATH_REPORT"))
      std::printf("    f(%.9g, %.9g) = %.9g ref %.17g\n", x, y, got, r);
  };
  for (float x : special_floats())
    for (float y : special_floats()) check(x, y);
  std::mt19937 rng(123);
  for (int i = 0; i < 400000; ++i) check(gen_x(rng), gen_y(rng));
  return w;
}

float any_float(std::mt19937& g) {
  float x;
  do {
    x = f_from_bits(static_cast<uint32_t>(g()));
  } while (std::isnan(x));
  return x;
}

TEST(VecMathFloat, Atan2) {
  const Worst w =
      sweep_f2([](float y, float x) { return vm::atan2(y, x); },
               [](double y, double x) { return std::atan2(y, x); }, any_float, any_float);
  report("atan2", w);
  EXPECT_LE(w.err, 1.0 * kSlack);
}

TEST(VecMathFloat, Pow) {
  auto moderate = [](std::mt19937& g) {  // |x| in [2^-20, 2^20], both signs
    std::uniform_real_distribution<float> d(-20.0f, 20.0f);
    return std::exp2(d(g)) * ((g() & 1) ? -1.0f : 1.0f);
  };
  auto exps = [](std::mt19937& g) {
    std::uniform_real_distribution<float> d(-40.0f, 40.0f);
    const float y = d(g);
    return (g() & 3) == 0 ? std::nearbyint(y) : y;  // integers too, for negative bases
  };
  const auto ref = [](double x, double y) { return std::pow(x, y); };
  const auto f = [](float x, float y) { return vm::pow(x, y); };
  Worst w = sweep_f2(f, ref, moderate, exps);
  w.merge(sweep_f2(f, ref, any_float, any_float));
  report("pow", w);
  EXPECT_LE(w.err, 1.0 * kSlack);
}

// ---- double ----
using D1 = std::function<double(double)>;
using RL = std::function<long double(long double)>;

struct DoubleCase {
  const char* name;
  D1 f;
  RL ref;
  double tol;
  std::function<bool(double)> dom = [](double) { return true; };
};

Worst sweep_d(const DoubleCase& c, uint64_t n) {
  Worst w;
  auto check = [&](double x) {
    if (!c.dom(x)) return;
    const double got = c.f(x);
    const long double r = c.ref(static_cast<long double>(x));
    const double e = ulp_err_d(got, r);
    if (e > w.err) w = {e, x, got, static_cast<double>(r)};
  };
  // Golden-ratio walk over the bit patterns: uniform over all binades and both signs.
  uint64_t u = 0;
  for (uint64_t i = 0; i < n; ++i, u += 0x9e3779b97f4a7c15ull) check(d_from_bits(u));
  // Denser where the functions bend: |x| in [2^-4, 2^6].
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> d(-4.0, 6.0);
  for (uint64_t i = 0; i < n; ++i) check(std::exp2(d(rng)) * ((rng() & 1) ? -1.0 : 1.0));
  const double specials[] = {0.0,
                             -0.0,
                             INFINITY,
                             -INFINITY,
                             NAN,
                             1.0,
                             -1.0,
                             0.5,
                             -0.5,
                             4.9e-324,
                             -4.9e-324,
                             2.2250738585072014e-308,
                             1.7976931348623157e308,
                             -1.7976931348623157e308,
                             709.782712893384,
                             709.7827128933841,
                             -708.39641853226408,
                             -745.13321910194111,
                             -745.2,
                             710.4758600739439,
                             710.476,
                             0.75,
                             1e-10,
                             -1e-10,
                             20.0,
                             -20.0,
                             30.0,
                             1048576.0,
                             3.141592653589793,
                             1.5707963267948966};
  for (double x : specials) check(x);
  return w;
}

long double sigmoid_l(long double x) { return sigmoid_ref_l(x); }

TEST(VecMathDouble, DenseSweep) {
  auto F = [](double (*f)(double)) { return D1(f); };
  auto R = [](long double (*r)(long double)) { return RL(r); };
  auto trig = [](double x) { return vm::sin_cos_fast_ok(x) || !std::isfinite(x); };
  const std::vector<DoubleCase> cases = {
      {"exp", F(vm::exp), R(std::exp), 2.0},       {"exp2", F(vm::exp2), R(std::exp2), 2.0},
      {"expm1", F(vm::expm1), R(std::expm1), 2.0}, {"log", F(vm::log), R(std::log), 2.0},
      {"log2", F(vm::log2), R(std::log2), 2.0},    {"log10", F(vm::log10), R(std::log10), 2.0},
      {"log1p", F(vm::log1p), R(std::log1p), 2.0}, {"sin", F(vm::sin), R(std::sin), 2.0, trig},
      {"cos", F(vm::cos), R(std::cos), 2.0, trig}, {"tan", F(vm::tan), R(std::tan), 3.0, trig},
      {"tanh", F(vm::tanh), R(std::tanh), 3.0},    {"sigmoid", F(vm::sigmoid), R(sigmoid_l), 2.5},
      {"sinh", F(vm::sinh), R(std::sinh), 2.0},    {"cosh", F(vm::cosh), R(std::cosh), 2.0},
      {"erf", F(vm::erf), R(std::erf), 1.0},       {"erfc", F(vm::erfc), R(std::erfc), 1.0},
      {"atan", F(vm::atan), R(std::atan), 2.0},    {"asin", F(vm::asin), R(std::asin), 2.0},
      {"acos", F(vm::acos), R(std::acos), 2.0},
  };
  for (const auto& c : cases) {
    if (!selected(c.name)) continue;
    const Worst w = sweep_d(c, env_on("TC_VEC_MATH_EXHAUSTIVE") ? (1u << 24) : (1u << 18));
    report(c.name, w);
    EXPECT_LE(w.err, c.tol * kSlack)
        << c.name << "(" << w.x << ") = " << w.got << ", expected " << w.ref;
  }
}

// erf/erfc over their whole working range, uniformly and around every switch point of the
// implementation (1/2, 3/4, 3, 6), through the erfc tail into the subnormals (26.55..27.23).
TEST(VecMathDouble, ErfErfcRanges) {
  Worst werf, werfc;
  auto check = [&](double x) {
    const long double lx = x;
    const double e1 = ulp_err_d(vm::erf(x), std::erf(lx));
    if (e1 > werf.err) werf = {e1, x, vm::erf(x), static_cast<double>(std::erf(lx))};
    const double e2 = ulp_err_d(vm::erfc(x), std::erfc(lx));
    if (e2 > werfc.err) werfc = {e2, x, vm::erfc(x), static_cast<double>(std::erfc(lx))};
  };
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> wide(-7.0, 27.5), tail(26.0, 27.4);
  for (int i = 0; i < 200000; ++i) {
    check(wide(rng));
    check(tail(rng));
  }
  for (double edge : {0.5, 0.75, 3.0, 6.0, 26.55}) {
    std::uniform_real_distribution<double> near_edge(edge * 0.999, edge * 1.001);
    for (int i = 0; i < 20000; ++i) {
      const double x = near_edge(rng);
      check(x);
      check(-x);
    }
  }
  report("erf(d)", werf);
  report("erfc(d)", werfc);
  EXPECT_LE(werf.err, 1.0 * kSlack) << "erf(" << werf.x << ") = " << werf.got;
  EXPECT_LE(werfc.err, 1.0 * kSlack) << "erfc(" << werfc.x << ") = " << werfc.got;
}

TEST(VecMathDouble, Hypot) {
  std::mt19937_64 rng(13);
  std::normal_distribution<double> normal(0.0, 1.0);
  Worst w;
  auto check = [&](double a, double b) {
    const double got = vm::hypot(a, b);
    const double e =
        ulp_err_d(got, std::hypot(static_cast<long double>(a), static_cast<long double>(b)));
    if (e > w.err) w = {e, a, got, b};
  };
  for (int i = 0; i < 200000; ++i) {
    check(normal(rng), normal(rng));
    check(d_from_bits(rng()), d_from_bits(rng()));
    check(normal(rng) * 1e-310, normal(rng) * 1e-310);  // subnormal results
    check(normal(rng) * 1e300, normal(rng) * 1e300);    // overflow region
    check(normal(rng), normal(rng) * 1e-9);
  }
  report("hypot(d)", w);
  EXPECT_LE(w.err, 0.6 * kSlack) << "hypot(" << w.x << ", " << w.ref << ") = " << w.got;
  const double inf = INFINITY, nan = NAN;
  EXPECT_EQ(vm::hypot(inf, nan), inf);
  EXPECT_EQ(vm::hypot(nan, -inf), inf);
  EXPECT_TRUE(std::isnan(vm::hypot(nan, 1.0)));
  EXPECT_EQ(vm::hypot(-0.0, 0.0), 0.0);
  EXPECT_FALSE(std::signbit(vm::hypot(-0.0, -0.0)));
  EXPECT_EQ(vm::hypot(3.0, -4.0), 5.0);
  EXPECT_EQ(vm::hypot(1.7976931348623157e308, 1.7976931348623157e308), inf);
  EXPECT_EQ(vm::hypot(4.9e-324, 0.0), 4.9e-324);
}

TEST(VecMathDouble, ErfSpecialValues) {
  const double inf = INFINITY;
  EXPECT_EQ(vm::erf(inf), 1.0);
  EXPECT_EQ(vm::erf(-inf), -1.0);
  EXPECT_EQ(vm::erf(6.0), 1.0);
  EXPECT_EQ(vm::erf(-1e300), -1.0);
  EXPECT_EQ(vm::erf(0.0), 0.0);
  EXPECT_TRUE(std::signbit(vm::erf(-0.0)));
  EXPECT_EQ(vm::erf(4.9e-324), std::erf(4.9e-324));
  EXPECT_TRUE(std::isnan(vm::erf(static_cast<double>(NAN))));
  EXPECT_EQ(vm::erfc(0.0), 1.0);
  EXPECT_EQ(vm::erfc(-0.0), 1.0);
  EXPECT_EQ(vm::erfc(inf), 0.0);
  EXPECT_FALSE(std::signbit(vm::erfc(inf)));
  EXPECT_EQ(vm::erfc(-inf), 2.0);
  EXPECT_EQ(vm::erfc(-30.0), 2.0);
  EXPECT_EQ(vm::erfc(27.3), 0.0);
  EXPECT_EQ(vm::erfc(1e300), 0.0);
  EXPECT_GT(vm::erfc(27.2), 0.0);  // subnormal, not flushed
  EXPECT_LT(vm::erfc(27.2), 0x1p-1022);
  EXPECT_EQ(vm::erfc(27.2), std::erfc(27.2));
  EXPECT_TRUE(std::isnan(vm::erfc(static_cast<double>(NAN))));
}

TEST(VecMathDouble, Atan2) {
  std::mt19937_64 rng(5);
  Worst w;
  std::vector<double> sp = {0.0,
                            -0.0,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1.0,
                            -1.0,
                            2.0,
                            -3.0,
                            4.9e-324,
                            -4.9e-324,
                            1.7976931348623157e308,
                            -1.7976931348623157e308,
                            1e-300,
                            1e300,
                            0.4142135623730951,
                            0.41421356237309509};
  auto check = [&](double y, double x) {
    const double got = vm::atan2(y, x);
    const long double r = std::atan2(static_cast<long double>(y), static_cast<long double>(x));
    const double e = ulp_err_d(got, r);
    if (e > w.err) w = {e, y, got, static_cast<double>(r)};
  };
  for (double y : sp)
    for (double x : sp) check(y, x);
  for (int i = 0; i < 400000; ++i) {
    const double y = d_from_bits(rng()), x = d_from_bits(rng());
    if (!std::isnan(x) && !std::isnan(y)) check(y, x);
    std::uniform_real_distribution<double> d(-3.0, 3.0);
    check(d(rng), d(rng));
  }
  report("atan2(d)", w);
  EXPECT_LE(w.err, 2.0 * kSlack);
}

}  // namespace

namespace {

// sin_array & co. cover the whole float/double range: large arguments go through libm.
TEST(VecMathArrays, TrigWholeRange) {
  std::vector<float> xf;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 65537)
    xf.push_back(f_from_bits(static_cast<uint32_t>(u)));
  for (float v : {3.4028235e38f, -3.4028235e38f, 0x1p25f, 0x1.000002p25f, 1e30f, INFINITY, NAN})
    xf.push_back(v);
  std::vector<float> of(xf.size());
  struct FC {
    const char* name;
    void (*arr)(const float*, float*, int64_t);
    double (*ref)(double);
  };
  for (const FC& c : {FC{"sin", vm::sin_array, std::sin}, FC{"cos", vm::cos_array, std::cos},
                      FC{"tan", vm::tan_array, std::tan}}) {
    c.arr(xf.data(), of.data(), static_cast<int64_t>(xf.size()));
    double worst = 0;
    for (size_t i = 0; i < xf.size(); ++i) worst = std::max(worst, ulp_err_f(of[i], c.ref(xf[i])));
    EXPECT_LE(worst, 1.0 * kSlack) << c.name;
    // In place.
    std::vector<float> io = xf;
    c.arr(io.data(), io.data(), static_cast<int64_t>(io.size()));
    EXPECT_EQ(0, std::memcmp(io.data(), of.data(), io.size() * sizeof(float))) << c.name;
  }
  std::vector<double> xd;
  uint64_t u = 0;
  for (int i = 0; i < 200000; ++i, u += 0x9e3779b97f4a7c15ull) xd.push_back(d_from_bits(u));
  std::vector<double> od(xd.size());
  struct DC {
    const char* name;
    void (*arr)(const double*, double*, int64_t);
    long double (*ref)(long double);
  };
  for (const DC& c : {DC{"sin", vm::sin_array, std::sin}, DC{"cos", vm::cos_array, std::cos},
                      DC{"tan", vm::tan_array, std::tan}}) {
    c.arr(xd.data(), od.data(), static_cast<int64_t>(xd.size()));
    double worst = 0;
    for (size_t i = 0; i < xd.size(); ++i) {
      // libm's own double error for huge arguments is < 1 ulp; allow 2.
      worst = std::max(worst, ulp_err_d(od[i], c.ref(xd[i])));
    }
    EXPECT_LE(worst, 2.0 * kSlack) << c.name;
  }
}

// exp_array/sigmoid_array (range-check-free fast loop, redo of blocks with large, infinite or
// NaN inputs) give exactly the scalar functions' results, also in place and for odd lengths.
template <typename T>
void check_guarded_arrays() {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 5.0);
  std::uniform_real_distribution<double> wide(-1500.0, 1500.0);
  std::vector<T> x;
  for (int i = 0; i < 20011; ++i)
    x.push_back(static_cast<T>(i % 97 == 0 ? wide(rng) : normal(rng)));
  for (double v :
       {0.0, -0.0, 1e-300, 86.0, -86.0, 88.7, -103.9, 708.0, -708.0, 709.8, -745.2, 1e30, -1e30})
    x.push_back(static_cast<T>(v));
  x.push_back(std::numeric_limits<T>::infinity());
  x.push_back(-std::numeric_limits<T>::infinity());
  x.push_back(std::numeric_limits<T>::quiet_NaN());
  struct Fn {
    const char* name;
    void (*arr)(const T*, T*, int64_t);
    T (*scalar)(T);
  };
  for (const Fn& f :
       {Fn{"exp", vm::exp_array, vm::exp}, Fn{"sigmoid", vm::sigmoid_array, vm::sigmoid}}) {
    for (size_t len : {x.size(), size_t{255}, size_t{257}, size_t{3}}) {
      std::vector<T> out(len), io(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(len));
      f.arr(x.data(), out.data(), static_cast<int64_t>(len));
      f.arr(io.data(), io.data(), static_cast<int64_t>(len));
      for (size_t i = 0; i < len; ++i) {
        const T want = f.scalar(x[i]);
        ASSERT_EQ(0, std::memcmp(&out[i], &want, sizeof(T))) << f.name << "(" << x[i] << ")";
        ASSERT_EQ(0, std::memcmp(&io[i], &want, sizeof(T)))
            << f.name << " in place (" << x[i] << ")";
      }
    }
  }
}
TEST(VecMathArrays, ExpSigmoidMatchScalar) {
  check_guarded_arrays<float>();
  check_guarded_arrays<double>();
}

// The out-of-range flag matches the documented limits.
TEST(VecMathArrays, FastOkLimits) {
  EXPECT_TRUE(vm::sin_cos_fast_ok(0x1p25f));
  EXPECT_FALSE(vm::sin_cos_fast_ok(0x1.000002p25f));
  EXPECT_FALSE(vm::sin_cos_fast_ok(INFINITY));
  EXPECT_FALSE(vm::sin_cos_fast_ok(NAN));
  EXPECT_TRUE(vm::sin_cos_fast_ok(0x1p20));
  EXPECT_FALSE(vm::sin_cos_fast_ok(0x1.0000000000001p20));
  // inf/NaN take the fast path's natural result (NaN) even without the fix-up.
  EXPECT_TRUE(std::isnan(vm::sin(INFINITY)));
  EXPECT_TRUE(std::isnan(vm::cos(-INFINITY)));
  EXPECT_TRUE(std::isnan(vm::tan(INFINITY)));
  EXPECT_TRUE(std::isnan(vm::sin(-static_cast<double>(INFINITY))));
}

// Special values that the C library pins down exactly.
TEST(VecMathSpecial, ExactValues) {
  const float inf = INFINITY;
  EXPECT_EQ(vm::exp(-inf), 0.0f);
  EXPECT_EQ(vm::exp(inf), inf);
  EXPECT_EQ(vm::exp(89.0f), inf);
  EXPECT_EQ(vm::exp(-104.0f), 0.0f);
  EXPECT_EQ(vm::exp(0.0f), 1.0f);
  EXPECT_EQ(vm::exp2(10.0f), 1024.0f);
  EXPECT_EQ(vm::exp2(-149.0f), 0x1p-149f);
  EXPECT_EQ(vm::expm1(-inf), -1.0f);
  EXPECT_TRUE(std::signbit(vm::expm1(-0.0f)));
  EXPECT_EQ(vm::log(0.0f), -inf);
  EXPECT_EQ(vm::log(-0.0f), -inf);
  EXPECT_TRUE(std::isnan(vm::log(-1.0f)));
  EXPECT_TRUE(std::isnan(vm::log(-inf)));
  EXPECT_EQ(vm::log(inf), inf);
  EXPECT_EQ(vm::log(1.0f), 0.0f);
  EXPECT_EQ(vm::log2(8.0f), 3.0f);
  EXPECT_EQ(vm::log2(0x1p-149f), -149.0f);
  EXPECT_EQ(vm::log10(1000.0f), 3.0f);
  EXPECT_EQ(vm::log1p(-1.0f), -inf);
  EXPECT_TRUE(std::isnan(vm::log1p(-2.0f)));
  EXPECT_TRUE(std::signbit(vm::log1p(-0.0f)));
  EXPECT_TRUE(std::signbit(vm::sin(-0.0f)));
  EXPECT_TRUE(std::signbit(vm::tan(-0.0f)));
  EXPECT_EQ(vm::cos(0.0f), 1.0f);
  EXPECT_EQ(vm::tanh(inf), 1.0f);
  EXPECT_EQ(vm::tanh(-100.0f), -1.0f);
  EXPECT_TRUE(std::signbit(vm::tanh(-0.0f)));
  EXPECT_EQ(vm::sigmoid(inf), 1.0f);
  EXPECT_EQ(vm::sigmoid(-inf), 0.0f);
  EXPECT_EQ(vm::sigmoid(-200.0f), 0.0f);
  EXPECT_EQ(vm::sigmoid(100.0f), 1.0f);
  EXPECT_EQ(vm::sigmoid(0.0f), 0.5f);
  EXPECT_EQ(vm::erf(inf), 1.0f);
  EXPECT_EQ(vm::erf(-inf), -1.0f);
  EXPECT_EQ(vm::erfc(inf), 0.0f);
  EXPECT_EQ(vm::erfc(-inf), 2.0f);
  EXPECT_EQ(vm::sinh(-inf), -inf);
  EXPECT_EQ(vm::sinh(89.4f), std::sinh(89.4f));
  EXPECT_EQ(vm::cosh(-inf), inf);
  EXPECT_EQ(vm::atan(inf), 0x1.921fb6p+0f);
  EXPECT_EQ(vm::atan2(0.0f, -0.0f), 0x1.921fb6p+1f);
  EXPECT_EQ(vm::atan2(-0.0f, -1.0f), -0x1.921fb6p+1f);
  EXPECT_EQ(vm::atan2(inf, -inf), std::atan2(inf, -inf));
  EXPECT_TRUE(std::isnan(vm::asin(1.5f)));
  EXPECT_EQ(vm::acos(1.0f), 0.0f);
  EXPECT_EQ(vm::pow(2.0f, 10.0f), 1024.0f);
  EXPECT_EQ(vm::pow(-2.0f, 3.0f), -8.0f);
  EXPECT_TRUE(std::isnan(vm::pow(-2.0f, 0.5f)));
  EXPECT_EQ(vm::pow(NAN, 0.0f), 1.0f);
  EXPECT_EQ(vm::pow(1.0f, NAN), 1.0f);
  EXPECT_EQ(vm::pow(-1.0f, inf), 1.0f);
  EXPECT_EQ(vm::pow(-0.0f, -3.0f), -inf);
  EXPECT_EQ(vm::pow(0.0f, -2.0f), inf);
  EXPECT_EQ(vm::pow(-inf, 3.0f), -inf);
  EXPECT_EQ(vm::pow(-inf, -3.0f), -0.0f);
  EXPECT_TRUE(std::signbit(vm::pow(-inf, -3.0f)));
  // NaN propagation for every one-argument function.
  for (const auto& c : float_cases()) EXPECT_TRUE(std::isnan(c.f(NAN))) << c.name;
  const double dinf = INFINITY;
  EXPECT_EQ(vm::exp(-dinf), 0.0);
  EXPECT_EQ(vm::exp(710.0), dinf);
  EXPECT_EQ(vm::log(0.0), -dinf);
  EXPECT_TRUE(std::isnan(vm::log(-1.0)));
  EXPECT_EQ(vm::tanh(-dinf), -1.0);
  EXPECT_EQ(vm::sigmoid(-dinf), 0.0);
  EXPECT_EQ(vm::sigmoid(-800.0), 0.0);
  EXPECT_GT(vm::sigmoid(-740.0), 0.0);  // subnormal, not flushed
  EXPECT_EQ(vm::sinh(711.0), dinf);
  EXPECT_TRUE(std::isnan(vm::sin(static_cast<double>(NAN))));
}

}  // namespace
