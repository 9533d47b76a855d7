// Timing of tensorcore/kernels/cpu/vec_math.h against libm over 1M-element arrays.
//
// Build (standalone):
//   g++ -std=c++20 -O3 -march=x86-64-v3 -I. benchmarks/cpp/vec_math_bench.cpp -o vec_math_bench
// Add -fopt-info-vec-optimized to see that every vm:: loop below vectorizes (one
// "loop vectorized" line per VM_LOOP line; the std:: loops do not).
// Output: ns/element for libm and vec_math, and the speedup, best of several runs; also checks
// that the vectorized loops return exactly what the scalar calls return.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "tensorcore/kernels/cpu/vec_math.h"

namespace vm = tc::vec_math;

namespace {

int64_t kN = 1 << 20;  // overridable: vec_math_bench [n]

// Each loop is its own non-inlined function on its own source line, so -fopt-info-vec reports
// are attributable.
#define VM_LOOP(name, T, expr)                                                                \
  __attribute__((noinline)) void name(const T* __restrict in, T* __restrict out, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) {                                                         \
      const T x = in[i];                                                                      \
      out[i] = (expr);                                                                        \
    }                                                                                         \
  }

// float, vec_math
VM_LOOP(vm_exp_f, float, vm::exp(x))
VM_LOOP(vm_exp2_f, float, vm::exp2(x))
VM_LOOP(vm_expm1_f, float, vm::expm1(x))
VM_LOOP(vm_log_f, float, vm::log(x))
VM_LOOP(vm_log2_f, float, vm::log2(x))
VM_LOOP(vm_log10_f, float, vm::log10(x))
VM_LOOP(vm_log1p_f, float, vm::log1p(x))
VM_LOOP(vm_sin_f, float, vm::sin(x))
VM_LOOP(vm_cos_f, float, vm::cos(x))
VM_LOOP(vm_tan_f, float, vm::tan(x))
VM_LOOP(vm_tanh_f, float, vm::tanh(x))
VM_LOOP(vm_sigmoid_f, float, vm::sigmoid(x))
VM_LOOP(vm_sinh_f, float, vm::sinh(x))
VM_LOOP(vm_cosh_f, float, vm::cosh(x))
VM_LOOP(vm_erf_f, float, vm::erf(x))
VM_LOOP(vm_erfc_f, float, vm::erfc(x))
VM_LOOP(vm_atan_f, float, vm::atan(x))
VM_LOOP(vm_asin_f, float, vm::asin(x))
VM_LOOP(vm_acos_f, float, vm::acos(x))
VM_LOOP(vm_atan2_f, float, vm::atan2(x, 0.75f))
VM_LOOP(vm_pow_f, float, vm::pow(x, 2.5f))
// float, libm
VM_LOOP(std_exp_f, float, std::exp(x))
VM_LOOP(std_exp2_f, float, std::exp2(x))
VM_LOOP(std_expm1_f, float, std::expm1(x))
VM_LOOP(std_log_f, float, std::log(x))
VM_LOOP(std_log2_f, float, std::log2(x))
VM_LOOP(std_log10_f, float, std::log10(x))
VM_LOOP(std_log1p_f, float, std::log1p(x))
VM_LOOP(std_sin_f, float, std::sin(x))
VM_LOOP(std_cos_f, float, std::cos(x))
VM_LOOP(std_tan_f, float, std::tan(x))
VM_LOOP(std_tanh_f, float, std::tanh(x))
VM_LOOP(std_sigmoid_f, float, 1.0f / (1.0f + std::exp(-x)))
VM_LOOP(std_sinh_f, float, std::sinh(x))
VM_LOOP(std_cosh_f, float, std::cosh(x))
VM_LOOP(std_erf_f, float, std::erf(x))
VM_LOOP(std_erfc_f, float, std::erfc(x))
VM_LOOP(std_atan_f, float, std::atan(x))
VM_LOOP(std_asin_f, float, std::asin(x))
VM_LOOP(std_acos_f, float, std::acos(x))
VM_LOOP(std_atan2_f, float, std::atan2(x, 0.75f))
VM_LOOP(std_pow_f, float, std::pow(x, 2.5f))
// double, vec_math
VM_LOOP(vm_exp_d, double, vm::exp(x))
VM_LOOP(vm_exp2_d, double, vm::exp2(x))
VM_LOOP(vm_expm1_d, double, vm::expm1(x))
VM_LOOP(vm_log_d, double, vm::log(x))
VM_LOOP(vm_log2_d, double, vm::log2(x))
VM_LOOP(vm_log10_d, double, vm::log10(x))
VM_LOOP(vm_log1p_d, double, vm::log1p(x))
VM_LOOP(vm_sin_d, double, vm::sin(x))
VM_LOOP(vm_cos_d, double, vm::cos(x))
VM_LOOP(vm_tan_d, double, vm::tan(x))
VM_LOOP(vm_tanh_d, double, vm::tanh(x))
VM_LOOP(vm_sigmoid_d, double, vm::sigmoid(x))
VM_LOOP(vm_sinh_d, double, vm::sinh(x))
VM_LOOP(vm_cosh_d, double, vm::cosh(x))
VM_LOOP(vm_erf_d, double, vm::erf(x))
VM_LOOP(vm_erfc_d, double, vm::erfc(x))
VM_LOOP(vm_atan_d, double, vm::atan(x))
VM_LOOP(vm_asin_d, double, vm::asin(x))
VM_LOOP(vm_acos_d, double, vm::acos(x))
VM_LOOP(vm_atan2_d, double, vm::atan2(x, 0.75))
// double, libm
VM_LOOP(std_exp_d, double, std::exp(x))
VM_LOOP(std_exp2_d, double, std::exp2(x))
VM_LOOP(std_expm1_d, double, std::expm1(x))
VM_LOOP(std_log_d, double, std::log(x))
VM_LOOP(std_log2_d, double, std::log2(x))
VM_LOOP(std_log10_d, double, std::log10(x))
VM_LOOP(std_log1p_d, double, std::log1p(x))
VM_LOOP(std_sin_d, double, std::sin(x))
VM_LOOP(std_cos_d, double, std::cos(x))
VM_LOOP(std_tan_d, double, std::tan(x))
VM_LOOP(std_tanh_d, double, std::tanh(x))
VM_LOOP(std_sigmoid_d, double, 1.0 / (1.0 + std::exp(-x)))
VM_LOOP(std_sinh_d, double, std::sinh(x))
VM_LOOP(std_cosh_d, double, std::cosh(x))
VM_LOOP(std_erf_d, double, std::erf(x))
VM_LOOP(std_erfc_d, double, std::erfc(x))
VM_LOOP(std_atan_d, double, std::atan(x))
VM_LOOP(std_asin_d, double, std::asin(x))
VM_LOOP(std_acos_d, double, std::acos(x))
VM_LOOP(std_atan2_d, double, std::atan2(x, 0.75))

template <typename T>
using LoopFn = void (*)(const T*, T*, int64_t);

template <typename T>
double ns_per_elem(LoopFn<T> f, const std::vector<T>& in, std::vector<T>& out) {
  f(in.data(), out.data(), kN);  // warm up caches and page in
  double best = 1e30;
  const int reps = static_cast<int>(std::max<int64_t>(15, (int64_t{1} << 24) / kN));
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f(in.data(), out.data(), kN);
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / kN);
  }
  return best;
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0 || (a != a && b != b);
}

// Times both loops, then checks that the vectorized loop gives bit-identical results to the
// scalar (non-inlined, hence not vectorized) call of the same function, specials included.
template <typename T>
void run(const char* name, LoopFn<T> vm_f, LoopFn<T> std_f, T (*scalar)(T), double lo, double hi) {
  std::vector<T> in(kN), out(kN);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> d(lo, hi);
  for (auto& v : in) v = static_cast<T>(d(rng));
  const double t_std = ns_per_elem<T>(std_f, in, out);
  const double t_vm = ns_per_elem<T>(vm_f, in, out);
  // Vector-vs-scalar check on the timing inputs plus raw bit patterns (all binades, inf, NaN).
  for (int64_t i = 0; i < kN; i += 3) {
    uint64_t bits = rng();
    std::memcpy(&in[i], &bits, sizeof(T));
  }
  vm_f(in.data(), out.data(), kN);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < kN; ++i) mismatches += !same_bits(out[i], scalar(in[i]));
  std::printf("%-8s %-7s [%8.3g, %8.3g]  libm %7.3f ns  vec_math %7.3f ns  speedup %5.1fx%s\n",
              name, sizeof(T) == 4 ? "float" : "double", lo, hi, t_std, t_vm, t_std / t_vm,
              mismatches ? "  VECTOR/SCALAR MISMATCH" : "");
}

// Out-of-line scalar versions: calls through these are never vectorized.
#define SCALAR(fn)                                                               \
  __attribute__((noinline)) float scalar_##fn##_f(float x) { return vm::fn(x); } \
  __attribute__((noinline)) double scalar_##fn##_d(double x) { return vm::fn(x); }
SCALAR(exp)
SCALAR(exp2)
SCALAR(expm1)
SCALAR(log)
SCALAR(log2)
SCALAR(log10)
SCALAR(log1p)
SCALAR(sin)
SCALAR(cos)
SCALAR(tan)
SCALAR(tanh)
SCALAR(sigmoid)
SCALAR(sinh)
SCALAR(cosh)
SCALAR(erf)
SCALAR(erfc)
SCALAR(atan)
SCALAR(asin)
SCALAR(acos)
__attribute__((noinline)) float scalar_atan2_f(float x) { return vm::atan2(x, 0.75f); }
__attribute__((noinline)) double scalar_atan2_d(double x) { return vm::atan2(x, 0.75); }
__attribute__((noinline)) float scalar_pow_f(float x) { return vm::pow(x, 2.5f); }

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) kN = std::max<int64_t>(64, std::atoll(argv[1]));
  std::printf("n = %lld elements per call, best of >= 15 runs\n", static_cast<long long>(kN));
#define RUN_F(fn, lo, hi) run<float>(#fn, vm_##fn##_f, std_##fn##_f, scalar_##fn##_f, lo, hi)
  RUN_F(exp, -20, 20);
  RUN_F(exp2, -30, 30);
  RUN_F(expm1, -5, 5);
  RUN_F(log, 1e-3, 1e3);
  RUN_F(log2, 1e-3, 1e3);
  RUN_F(log10, 1e-3, 1e3);
  RUN_F(log1p, -0.5, 10);
  RUN_F(sin, -100, 100);
  RUN_F(cos, -100, 100);
  RUN_F(tan, -100, 100);
  RUN_F(tanh, -5, 5);
  RUN_F(sigmoid, -10, 10);
  RUN_F(sinh, -5, 5);
  RUN_F(cosh, -5, 5);
  RUN_F(erf, -3, 3);
  RUN_F(erfc, -3, 3);
  RUN_F(atan, -10, 10);
  RUN_F(asin, -1, 1);
  RUN_F(acos, -1, 1);
  RUN_F(atan2, -10, 10);
  RUN_F(pow, 0, 10);
#define RUN_D(fn, lo, hi) run<double>(#fn, vm_##fn##_d, std_##fn##_d, scalar_##fn##_d, lo, hi)
  RUN_D(exp, -20, 20);
  RUN_D(exp2, -30, 30);
  RUN_D(expm1, -5, 5);
  RUN_D(log, 1e-3, 1e3);
  RUN_D(log2, 1e-3, 1e3);
  RUN_D(log10, 1e-3, 1e3);
  RUN_D(log1p, -0.5, 10);
  RUN_D(sin, -100, 100);
  RUN_D(cos, -100, 100);
  RUN_D(tan, -100, 100);
  RUN_D(tanh, -5, 5);
  RUN_D(sigmoid, -10, 10);
  RUN_D(sinh, -5, 5);
  RUN_D(cosh, -5, 5);
  RUN_D(erf, -3, 3);
  RUN_D(erfc, -3, 3);
  RUN_D(atan, -10, 10);
  RUN_D(asin, -1, 1);
  RUN_D(acos, -1, 1);
  RUN_D(atan2, -10, 10);
  return 0;
}
