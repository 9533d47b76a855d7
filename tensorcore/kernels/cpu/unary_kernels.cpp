// CPU kernels for unary math.
#include <cmath>

#include "tensorcore/kernels/cpu/half_loops.h"
#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {
namespace {

void neg_cpu(TensorIter& iter) {
  dispatch_dtype<kAllTypes & ~kBoolSet>(iter.common_dtype(), "neg", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (is_reduced_float_v<T>)
      cpu_half_map<T>(iter, [](auto x) { return -x; });
    else
      cpu_kernel(iter, [](T x) -> T { return T(-M(x)); });
  });
}

template <typename F>
void float_unary(TensorIter& iter, const char* name, F f) {
  dispatch_dtype<kFloating | kComplex>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (is_reduced_float_v<T>)
      cpu_half_map<T>(iter, [f](float x) -> float { return f(x); });
    else
      cpu_kernel(iter, [f](T x) -> T { return T(f(M(x))); });
  });
}

// float and double go through vec_math (branch-free, vectorizes; within 1 ulp); complex uses
// std::.
template <typename X>
constexpr bool is_real_fp = std::is_same_v<X, float> || std::is_same_v<X, double>;
void exp_cpu(TensorIter& iter) {
  // Contiguous float/double runs: exp_array (a range-check-free loop, ~20% faster).
  if (iter.common_dtype() == DType::Float32) {
    return cpu_unary_array_kernel<float>(
        iter, [](const float* in, float* out, int64_t n) { vec_math::exp_array(in, out, n); },
        [](float x) { return vec_math::exp(x); });
  }
  if (iter.common_dtype() == DType::Float64) {
    return cpu_unary_array_kernel<double>(
        iter, [](const double* in, double* out, int64_t n) { vec_math::exp_array(in, out, n); },
        [](double x) { return vec_math::exp(x); });
  }
  // float16/bfloat16: the float32 array loop over widened chunks, rounded once.
  if (iter.common_dtype() == DType::BFloat16 || iter.common_dtype() == DType::Float16) {
    auto array = [](const float* in, float* out, int64_t n) { vec_math::exp_array(in, out, n); };
    auto scalar = [](float x) { return vec_math::exp(x); };
    if (iter.common_dtype() == DType::BFloat16)
      return cpu_half_unary_kernel<BFloat16>(iter, array, scalar);
    return cpu_half_unary_kernel<Half>(iter, array, scalar);
  }
  float_unary(iter, "exp", [](auto x) {
    if constexpr (is_real_fp<decltype(x)>)
      return vec_math::exp(x);
    else {
      using std::exp;
      return exp(x);
    }
  });
}
void log_cpu(TensorIter& iter) {
  float_unary(iter, "log", [](auto x) {
    if constexpr (is_real_fp<decltype(x)>)
      return vec_math::log(x);
    else {
      using std::log;
      return log(x);
    }
  });
}
void sqrt_cpu(TensorIter& iter) {
  float_unary(iter, "sqrt", [](auto x) {
    using std::sqrt;
    return sqrt(x);
  });
}
void conj_cpu(TensorIter& iter) {
  dispatch_dtype<kComplex>(iter.common_dtype(), "conj", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu_kernel(iter, [](T x) -> T { return std::conj(x); });
  });
}

TC_REGISTER_KERNEL(neg_kernel, CPU, neg_cpu);
TC_REGISTER_KERNEL(exp_kernel, CPU, exp_cpu);
TC_REGISTER_KERNEL(log_kernel, CPU, log_cpu);
TC_REGISTER_KERNEL(sqrt_kernel, CPU, sqrt_cpu);
TC_REGISTER_KERNEL(conj_kernel, CPU, conj_cpu);

}  // namespace
}  // namespace tc
