// CPU kernels for the unary elementwise math family (one switch over UnaryOp).
// Built with -fno-math-errno (cmake/deps/coremath.cmake): sqrt vectorizes.
#include <cmath>
#include <complex>
#include <limits>

#include "tensorcore/kernels/cpu/half_loops.h"
#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/kernels/cpu/special_math.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/kernels/special_functions.h"
#include "tensorcore/ops/elementwise_kernels.h"

namespace tc {
namespace {

namespace vm = ::tc::vec_math;
template <typename X>
constexpr bool is_f32 = std::is_same_v<X, float>;

// This TU is large enough that GCC's inliner stops inlining the per-element lambdas into the
// loops (a call per element, no vectorization: sigmoid/tanh/erf ran 5-20x slower than exp).
#define TC_INLINE_LAMBDA __attribute__((always_inline))

// float (and Half/BFloat16, which compute in float) use the vectorizable vec_math version.
#define TC_VM_OR_STD(fn)                 \
  [](auto x) TC_INLINE_LAMBDA {          \
    if constexpr (is_f32<decltype(x)>) { \
      return vm::fn(x);                  \
    } else {                             \
      using std::fn;                     \
      return fn(x);                      \
    }                                    \
  }

// The same with the vec_math double version too (accuracy within 1 ulp, see vec_math.h).
#define TC_VM_FD_OR_STD(fn)                                                     \
  [](auto x) TC_INLINE_LAMBDA {                                                 \
    if constexpr (is_f32<decltype(x)> || std::is_same_v<decltype(x), double>) { \
      return vm::fn(x);                                                         \
    } else {                                                                    \
      using std::fn;                                                            \
      return fn(x);                                                             \
    }                                                                           \
  }

constexpr uint32_t kFC = kFloating | kComplex;

// out = T(f(opmath(x))) over the dtypes in Set.
template <uint32_t Set, typename F>
void map1(TensorIter& iter, const char* name, F f) {
  dispatch_dtype<Set>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (is_reduced_float_v<T>)  // float16/bfloat16: widened chunks, rounded once
      cpu_half_map<T>(iter, [f](float x) TC_INLINE_LAMBDA -> float { return f(x); });
    else
      cpu_kernel(iter, [f](T x) TC_INLINE_LAMBDA -> T { return T(f(M(x))); });
  });
}

// Output type chosen by the functor (bool predicates, complex -> real).
template <uint32_t Set, typename F>
void map1_to(TensorIter& iter, const char* name, F f) {
  dispatch_dtype<Set>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto g = [f](T x) { return f(x); };
    cpu_kernel(iter, g);
  });
}

// sin/cos/tan in float and double: vec_math's *_array run the vectorized loop and patch the
// rare |x| beyond the exact reduction range (2^25 float, 2^20 double) with libm; strided runs
// check per element. Other dtypes use std::.
template <typename AF, typename AD, typename SF>
void trig_kernel(TensorIter& iter, const char* name, AF array_f, AD array_d, SF sf) {
  if (iter.common_dtype() == DType::Float32) {
    return cpu_unary_array_kernel<float>(iter, array_f, [array_f](float x) {
      float r;
      array_f(&x, &r, 1);
      return r;
    });
  }
  if (iter.common_dtype() == DType::Float64) {
    return cpu_unary_array_kernel<double>(iter, array_d, [array_d](double x) {
      double r;
      array_d(&x, &r, 1);
      return r;
    });
  }
  map1<kFC>(iter, name, sf);
}

template <typename T>
T lowest_of() {
  if constexpr (std::is_floating_point_v<T>)
    return -std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}
template <typename T>
T highest_of() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::max();
}

void unary_cpu(TensorIter& iter, UnaryOp op, const OpParams& p) {
  constexpr double kLn2 = 0.693147180559945309417232121458;
  switch (op) {
    case UnaryOp::Abs:
      return map1_to<kIntegral | kFC>(iter, "abs", [](auto x) {
        using T = decltype(x);
        if constexpr (is_complex_v<T>)
          return std::abs(x);
        else if constexpr (std::is_unsigned_v<T>)
          return x;
        else if constexpr (std::is_integral_v<T>)
          return T(x < 0 ? -x : x);
        else
          return T(std::fabs(opmath_t<T>(x)));
      });
    case UnaryOp::Sign:
      return map1<kAllReal>(iter, "sign", [](auto x) {
        using X = decltype(x);
        if constexpr (std::is_same_v<X, bool>)
          return x;
        else
          return X((X(0) < x) - (x < X(0)));
      });
    case UnaryOp::Sgn:
      return map1<kAllReal | kComplex>(iter, "sgn", [](auto x) {
        using X = decltype(x);
        if constexpr (is_complex_v<X>) {
          auto a = std::abs(x);
          return a == 0 ? X(0) : x / a;
        } else if constexpr (std::is_same_v<X, bool>) {
          return x;
        } else {
          return X((X(0) < x) - (x < X(0)));
        }
      });
    case UnaryOp::Exp2:
      return map1<kFC>(iter, "exp2", [](auto x) {
        using X = decltype(x);
        if constexpr (is_f32<X> || std::is_same_v<X, double>)
          return vm::exp2(x);
        else if constexpr (is_complex_v<X>)
          return std::exp(x * typename X::value_type(kLn2));
        else
          return std::exp2(x);
      });
    case UnaryOp::Expm1:
      return map1<kFC>(iter, "expm1", [](auto x) {
        using X = decltype(x);
        if constexpr (is_f32<X> || std::is_same_v<X, double>)
          return vm::expm1(x);
        else if constexpr (is_complex_v<X>)
          return std::exp(x) - X(1);
        else
          return std::expm1(x);
      });
    case UnaryOp::Log2:
      return map1<kFC>(iter, "log2", [](auto x) {
        using X = decltype(x);
        if constexpr (is_f32<X> || std::is_same_v<X, double>)
          return vm::log2(x);
        else if constexpr (is_complex_v<X>)
          return std::log(x) / typename X::value_type(kLn2);
        else
          return std::log2(x);
      });
    case UnaryOp::Log10:
      return map1<kFC>(iter, "log10", TC_VM_FD_OR_STD(log10));
    case UnaryOp::Log1p:
      return map1<kFC>(iter, "log1p", [](auto x) {
        using X = decltype(x);
        if constexpr (is_f32<X> || std::is_same_v<X, double>)
          return vm::log1p(x);
        else if constexpr (is_complex_v<X>)
          return std::log(X(1) + x);
        else
          return std::log1p(x);
      });
    case UnaryOp::Rsqrt:
      return map1<kFC>(iter, "rsqrt", [](auto x) {
        using X = decltype(x);
        return X(1) / std::sqrt(x);
      });
#define TC_TRIG(fn)                                                                          \
  trig_kernel(                                                                               \
      iter, #fn, [](const float* in, float* out, int64_t n) { vm::fn##_array(in, out, n); }, \
      [](const double* in, double* out, int64_t n) { vm::fn##_array(in, out, n); },          \
      [](auto x) {                                                                           \
        using std::fn;                                                                       \
        return fn(x);                                                                        \
      })
    case UnaryOp::Sin:
      return TC_TRIG(sin);
    case UnaryOp::Cos:
      return TC_TRIG(cos);
    case UnaryOp::Tan:
      return TC_TRIG(tan);
#undef TC_TRIG
    case UnaryOp::Asin:
      return map1<kFC>(iter, "asin", TC_VM_FD_OR_STD(asin));
    case UnaryOp::Acos:
      return map1<kFC>(iter, "acos", TC_VM_FD_OR_STD(acos));
    case UnaryOp::Atan:
      return map1<kFC>(iter, "atan", TC_VM_FD_OR_STD(atan));
    case UnaryOp::Sinh:
      return map1<kFC>(iter, "sinh", TC_VM_FD_OR_STD(sinh));
    case UnaryOp::Cosh:
      return map1<kFC>(iter, "cosh", TC_VM_FD_OR_STD(cosh));
    case UnaryOp::Tanh:
      return map1<kFC>(iter, "tanh", TC_VM_FD_OR_STD(tanh));
    case UnaryOp::Asinh:
      return map1<kFC>(iter, "asinh", [](auto x) {
        using std::asinh;
        return asinh(x);
      });
    case UnaryOp::Acosh:
      return map1<kFC>(iter, "acosh", [](auto x) {
        using std::acosh;
        return acosh(x);
      });
    case UnaryOp::Atanh:
      return map1<kFC>(iter, "atanh", [](auto x) {
        using std::atanh;
        return atanh(x);
      });
    case UnaryOp::Sigmoid:
      if (iter.common_dtype() == DType::Float32) {
        return cpu_unary_array_kernel<float>(
            iter, [](const float* in, float* out, int64_t n) { vm::sigmoid_array(in, out, n); },
            [](float x) TC_INLINE_LAMBDA { return vm::sigmoid(x); });
      }
      if (iter.common_dtype() == DType::Float64) {
        return cpu_unary_array_kernel<double>(
            iter, [](const double* in, double* out, int64_t n) { vm::sigmoid_array(in, out, n); },
            [](double x) TC_INLINE_LAMBDA { return vm::sigmoid(x); });
      }
      return map1<kFC>(iter, "sigmoid", [](auto x) TC_INLINE_LAMBDA {
        using X = decltype(x);
        if constexpr (is_complex_v<X>)
          return X(1) / (X(1) + std::exp(-x));
        else
          return vm::sigmoid(x);
      });
    case UnaryOp::Erf:
      return map1<kFloating>(iter, "erf", TC_VM_FD_OR_STD(erf));
    case UnaryOp::Erfc:
      return map1<kFloating>(iter, "erfc", TC_VM_FD_OR_STD(erfc));
    case UnaryOp::Erfinv:
      return map1<kFloating>(iter, "erfinv", [](auto x) { return special::erfinv(x); });
    case UnaryOp::Lgamma:
      return map1<kFloating>(iter, "lgamma", [](auto x) { return std::lgamma(x); });
    case UnaryOp::Digamma:
      return map1<kFloating>(iter, "digamma", [](auto x) { return special::digamma(x); });
    case UnaryOp::I0:
      return map1<kFloating>(iter, "i0", [](auto x) { return special_fn::i0(x); });
    case UnaryOp::I1:
      return map1<kFloating>(iter, "i1", [](auto x) { return special_fn::i1(x); });
    case UnaryOp::Trigamma:
      return map1<kFloating>(iter, "polygamma", [](auto x) { return special::trigamma(x); });
    case UnaryOp::Floor:
      return map1<kFloating>(iter, "floor", [](auto x) { return std::floor(x); });
    case UnaryOp::Ceil:
      return map1<kFloating>(iter, "ceil", [](auto x) { return std::ceil(x); });
    case UnaryOp::Trunc:
      return map1<kFloating>(iter, "trunc", [](auto x) { return std::trunc(x); });
    case UnaryOp::Round:
      return map1<kFloating>(iter, "round", [](auto x) { return std::nearbyint(x); });
    case UnaryOp::RoundDecimals: {
      const int64_t d = p.i;
      return map1<kFloating>(iter, "round", [d](auto x) {
        using X = decltype(x);
        X ten = X(std::pow(10.0, double(d < 0 ? -d : d)));
        return d < 0 ? std::nearbyint(x / ten) * ten : std::nearbyint(x * ten) / ten;
      });
    }
    case UnaryOp::Frac:
      return map1<kFloating>(iter, "frac", [](auto x) { return x - std::trunc(x); });
    case UnaryOp::Reciprocal:
      return map1<kFC>(iter, "reciprocal", [](auto x) {
        using X = decltype(x);
        return X(1) / x;
      });
    case UnaryOp::Square:
      return map1<kIntegral | kFC>(iter, "square", [](auto x) {
        using X = decltype(x);
        return X(x * x);
      });
    case UnaryOp::Relu:
      return map1<kIntegral | kFloating>(iter, "relu", [](auto x) {
        using X = decltype(x);
        return x < X(0) ? X(0) : x;
      });
    case UnaryOp::Angle:
      return map1_to<kFC>(iter, "angle", [](auto x) {
        using T = decltype(x);
        if constexpr (is_complex_v<T>) {
          return std::arg(x);
        } else {
          using M = opmath_t<T>;
          M v = M(x);
          return T(v != v ? v : (v < M(0) ? M(3.14159265358979323846) : M(0)));
        }
      });
    case UnaryOp::NanToNum: {
      return dispatch_dtype<kFloating>(iter.common_dtype(), "nan_to_num", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using M = opmath_t<T>;
        const M nanv = M(p.a);
        const M pinf = p.has_a ? M(p.b) : M(std::numeric_limits<T>::max());
        const M ninf = p.has_b ? M(p.c) : M(std::numeric_limits<T>::lowest());
        cpu_kernel(iter, [=](T t) -> T {
          M x = M(t);
          return T(x != x ? nanv
                          : (x == std::numeric_limits<M>::infinity()
                                 ? pinf
                                 : (x == -std::numeric_limits<M>::infinity() ? ninf : x)));
        });
      });
    }
    case UnaryOp::BitwiseNot:
      return map1<kIntegral | kBoolSet>(iter, "bitwise_not", [](auto x) {
        using X = decltype(x);
        if constexpr (std::is_same_v<X, bool>)
          return !x;
        else
          return X(~x);
      });
    case UnaryOp::LogicalNot:
      return map1_to<kAllTypes>(iter, "logical_not", [](auto x) -> bool {
        using T = decltype(x);
        return opmath_t<T>(x) == opmath_t<T>(0);
      });
    case UnaryOp::IsNan:
      return map1_to<kFC>(iter, "isnan", [](auto x) -> bool {
        using T = decltype(x);
        if constexpr (is_complex_v<T>)
          return x.real() != x.real() || x.imag() != x.imag();
        else
          return opmath_t<T>(x) != opmath_t<T>(x);
      });
    case UnaryOp::IsInf:
      return map1_to<kFC>(iter, "isinf", [](auto x) -> bool {
        using T = decltype(x);
        if constexpr (is_complex_v<T>)
          return std::isinf(x.real()) || std::isinf(x.imag());
        else
          return std::fabs(opmath_t<T>(x)) == std::numeric_limits<opmath_t<T>>::infinity();
      });
    case UnaryOp::IsPosInf:
      return map1_to<kFloating>(iter, "isposinf", [](auto x) -> bool {
        using M = opmath_t<decltype(x)>;
        return M(x) == std::numeric_limits<M>::infinity();
      });
    case UnaryOp::IsNegInf:
      return map1_to<kFloating>(iter, "isneginf", [](auto x) -> bool {
        using M = opmath_t<decltype(x)>;
        return M(x) == -std::numeric_limits<M>::infinity();
      });
    case UnaryOp::IsFinite:
      return map1_to<kFC>(iter, "isfinite", [](auto x) -> bool {
        using T = decltype(x);
        if constexpr (is_complex_v<T>) {
          using R = typename T::value_type;
          return std::fabs(x.real()) <= std::numeric_limits<R>::max() &&
                 std::fabs(x.imag()) <= std::numeric_limits<R>::max();
        } else {
          using M = opmath_t<T>;
          return std::fabs(M(x)) <= std::numeric_limits<M>::max();
        }
      });
    case UnaryOp::IsReal:
      return map1_to<kComplex>(iter, "isreal", [](auto x) -> bool { return x.imag() == 0; });
    case UnaryOp::ClampScalar:
      return dispatch_dtype<kIntegral | kFloating>(iter.common_dtype(), "clamp", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using M = opmath_t<T>;
        const M lo = p.has_a ? M(p.a) : lowest_of<M>();
        const M hi = p.has_b ? M(p.b) : highest_of<M>();
        if constexpr (std::is_floating_point_v<M>) {
          cpu_kernel(iter, [lo, hi](T t) -> T {
            M x = M(t);
            M r = x < lo ? lo : x;
            r = r > hi ? hi : r;
            return T(x != x ? x : r);
          });
        } else {
          cpu_kernel(iter, [lo, hi](T x) -> T {
            T r = x < lo ? lo : x;
            return r > hi ? hi : r;
          });
        }
      });
  }
  throw ValueError("unary_op: unknown op");
}

TC_REGISTER_KERNEL(unary_op_kernel, CPU, unary_cpu);

}  // namespace
}  // namespace tc
