// CPU kernels for binary elementwise math, bitwise and logical ops, lerp and tensor clamp.
#include <cmath>
#include <complex>
#include <limits>

#include "tensorcore/kernels/cpu/half_loops.h"
#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/kernels/special_functions.h"
#include "tensorcore/ops/elementwise_kernels.h"

namespace tc {
namespace {

constexpr uint32_t kFC = kFloating | kComplex;

// This TU is large enough that GCC stops inlining per-element lambdas into the loops (a call
// per element, no vectorization: atan2 float64 ran 10x PyTorch's time); force it where it
// matters.
#define TC_INLINE_LAMBDA __attribute__((always_inline))

template <uint32_t Set, typename F>
void map2(TensorIter& iter, const char* name, F f) {
  dispatch_dtype<Set>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (is_reduced_float_v<T>)  // float16/bfloat16: widened chunks, rounded once
      cpu_half_binary_kernel<T>(
          iter, [f](float x, float y) TC_INLINE_LAMBDA -> float { return f(x, y); });
    else
      cpu_kernel(iter, [f](T x, T y) TC_INLINE_LAMBDA -> T { return T(f(M(x), M(y))); });
  });
}

template <uint32_t Set, typename F>
void map2_bool(TensorIter& iter, const char* name, F f) {
  dispatch_dtype<Set>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu_kernel(iter, [f](T x, T y) -> bool { return f(M(x), M(y)); });
  });
}

template <typename T>
T int_pow(T base, T e) {
  if constexpr (std::is_signed_v<T>) {
    if (e < 0) {
      if (base == 1) return 1;
      if (base == -1) return (e & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<T>;
  U r = 1, b = U(base);
  auto n = std::make_unsigned_t<T>(e);
  while (n) {
    if (n & 1) r = U(r * b);
    b = U(b * b);
    n >>= 1;
  }
  return T(r);
}

template <typename T>
constexpr bool is_nan_like(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}

[[noreturn]] void zero_div() { throw ValueError("ZeroDivisionError: integer division by zero"); }

void binary_cpu(TensorIter& iter, BinaryOp op, const OpParams& p) {
  switch (op) {
    case BinaryOp::Atan2:
      return map2<kFloating>(iter, "atan2", [](auto y, auto x) TC_INLINE_LAMBDA {
        using X = decltype(x);
        if constexpr (std::is_same_v<X, float> || std::is_same_v<X, double>) {
          return vec_math::atan2(y, x);
        } else {
          return std::atan2(y, x);
        }
      });
    case BinaryOp::Pow:
      return map2<kIntegral | kFC>(iter, "pow", [](auto x, auto y) {
        using X = decltype(x);
        if constexpr (std::is_integral_v<X>)
          return int_pow(x, y);
        else
          return X(std::pow(x, y));
      });
    case BinaryOp::Maximum:
      return map2<kAllReal>(iter, "maximum", [](auto a, auto b) {
        using X = decltype(a);
        if constexpr (std::is_same_v<X, bool>)
          return bool(a || b);
        else {
          X r = a > b ? a : b;
          r = is_nan_like(b) ? b : r;
          return is_nan_like(a) ? a : r;
        }
      });
    case BinaryOp::Minimum:
      return map2<kAllReal>(iter, "minimum", [](auto a, auto b) {
        using X = decltype(a);
        if constexpr (std::is_same_v<X, bool>)
          return bool(a && b);
        else {
          X r = a < b ? a : b;
          r = is_nan_like(b) ? b : r;
          return is_nan_like(a) ? a : r;
        }
      });
    case BinaryOp::Fmax:
      return map2<kIntegral | kFloating>(iter, "fmax", [](auto a, auto b) {
        if constexpr (std::is_floating_point_v<decltype(a)>)
          return std::fmax(a, b);
        else
          return a > b ? a : b;
      });
    case BinaryOp::Fmin:
      return map2<kIntegral | kFloating>(iter, "fmin", [](auto a, auto b) {
        if constexpr (std::is_floating_point_v<decltype(a)>)
          return std::fmin(a, b);
        else
          return a < b ? a : b;
      });
    case BinaryOp::Fmod:
      return map2<kIntegral | kFloating>(iter, "fmod", [](auto a, auto b) {
        using X = decltype(a);
        if constexpr (std::is_floating_point_v<X>) {
          return std::fmod(a, b);
        } else {
          if (b == 0) zero_div();
          if constexpr (std::is_signed_v<X>) {
            if (b == X(-1)) return X(0);
          }
          return X(a % b);
        }
      });
    case BinaryOp::Remainder:
      return map2<kIntegral | kFloating>(iter, "remainder", [](auto a, auto b) {
        using X = decltype(a);
        if constexpr (std::is_floating_point_v<X>) {
          X m = std::fmod(a, b);
          return (m != 0 && ((b < 0) != (m < 0))) ? X(m + b) : m;
        } else {
          if (b == 0) zero_div();
          if constexpr (std::is_signed_v<X>) {
            if (b == X(-1)) return X(0);
            X m = X(a % b);
            return (m != 0 && ((b < 0) != (m < 0))) ? X(m + b) : m;
          } else {
            return X(a % b);
          }
        }
      });
    case BinaryOp::Hypot:
      return map2<kFloating>(iter, "hypot", [](auto a, auto b) TC_INLINE_LAMBDA {
        // float: the sum of squares in double cannot overflow and rounds once (inf wins over NaN
        // as in C).
        if constexpr (std::is_same_v<decltype(a), float>) {
          const double da = a, db = b;
          const float h = static_cast<float>(std::sqrt(da * da + db * db));
          return std::fabs(a) == INFINITY || std::fabs(b) == INFINITY ? INFINITY : h;
        } else if constexpr (std::is_same_v<decltype(a), double>) {
          return vec_math::hypot(a, b);  // 0.51 ulp, vectorized
        } else {
          return std::hypot(a, b);
        }
      });
    case BinaryOp::BitAnd:
      return map2<kIntegral | kBoolSet>(iter, "bitwise_and",
                                        [](auto a, auto b) { return decltype(a)(a & b); });
    case BinaryOp::BitOr:
      return map2<kIntegral | kBoolSet>(iter, "bitwise_or",
                                        [](auto a, auto b) { return decltype(a)(a | b); });
    case BinaryOp::BitXor:
      return map2<kIntegral | kBoolSet>(iter, "bitwise_xor",
                                        [](auto a, auto b) { return decltype(a)(a ^ b); });
    case BinaryOp::Lshift:
      return map2<kIntegral>(iter, "bitwise_left_shift", [](auto a, auto b) {
        using X = decltype(a);
        using U = std::make_unsigned_t<X>;
        constexpr int bits = int(sizeof(X) * 8);
        if constexpr (std::is_signed_v<X>) {
          if (b < 0) return X(0);
        }
        return b >= X(bits) ? X(0) : X(U(a) << b);
      });
    case BinaryOp::Igamma:
      return map2<kFloating>(iter, "igamma",
                             [](auto a, auto x) { return special_fn::igamma(a, x); });
    case BinaryOp::Igammac:
      return map2<kFloating>(iter, "igammac",
                             [](auto a, auto x) { return special_fn::igammac(a, x); });
    case BinaryOp::Nextafter:
      return map2<kFloating>(iter, "nextafter", [](auto a, auto b) {
        using X = decltype(a);
        // The op admits float32/float64 only (as torch); the reduced types never get here.
        if constexpr (std::is_floating_point_v<X>) {
          return std::nextafter(a, b);
        } else {
          return a;
        }
      });
    case BinaryOp::Rshift:
      return map2<kIntegral>(iter, "bitwise_right_shift", [](auto a, auto b) {
        using X = decltype(a);
        constexpr int bits = int(sizeof(X) * 8);
        if constexpr (std::is_signed_v<X>) {
          if (b < 0 || b >= X(bits)) return X(a >> (bits - 1));
        } else {
          if (b >= X(bits)) return X(0);
        }
        return X(a >> b);
      });
    case BinaryOp::LogicalAnd:
      return map2_bool<kAllTypes>(iter, "logical_and", [](auto a, auto b) {
        using M = decltype(a);
        return a != M(0) && b != M(0);
      });
    case BinaryOp::LogicalOr:
      return map2_bool<kAllTypes>(iter, "logical_or", [](auto a, auto b) {
        using M = decltype(a);
        return a != M(0) || b != M(0);
      });
    case BinaryOp::LogicalXor:
      return map2_bool<kAllTypes>(iter, "logical_xor", [](auto a, auto b) {
        using M = decltype(a);
        return (a != M(0)) != (b != M(0));
      });
    case BinaryOp::Complex:
      return dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64))>(
          iter.common_dtype(), "complex", [&](auto tag) {
            using T = typename decltype(tag)::type;
            cpu_kernel(iter, [](T re, T im) -> std::complex<T> { return {re, im}; });
          });
    case BinaryOp::LerpScalar:
      return dispatch_dtype<kFC>(iter.common_dtype(), "lerp", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using M = opmath_t<T>;
        M w;
        if constexpr (is_complex_v<M>)
          w = M(p.ca);
        else
          w = M(p.a);
        const bool small = std::abs(w) < 0.5;
        const M w1 = M(1) - w;
        if (small)
          cpu_kernel(iter, [w](T s, T e) -> T { return T(M(s) + w * (M(e) - M(s))); });
        else
          cpu_kernel(iter, [w1](T s, T e) -> T { return T(M(e) - (M(e) - M(s)) * w1); });
      });
    default:
      break;
  }
  throw ValueError("binary_op: unknown op");
}

void lerp_tensor_cpu(TensorIter& iter) {
  dispatch_dtype<kFC>(iter.common_dtype(), "lerp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu_kernel(iter, [](T s, T e, T wt) -> T {
      M w = M(wt), a = M(s), b = M(e);
      return T(std::abs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (M(1) - w));
    });
  });
}

void clamp_tensor_cpu(TensorIter& iter) {
  dispatch_dtype<kIntegral | kFloating>(iter.common_dtype(), "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu_kernel(iter, [](T xt, T lot, T hit) -> T {
      M x = M(xt), lo = M(lot), hi = M(hit);
      M r = x < lo ? lo : x;
      r = r > hi ? hi : r;
      if constexpr (std::is_floating_point_v<M>) {
        r = (lo != lo) ? lo : r;
        r = (hi != hi) ? hi : r;
        r = (x != x) ? x : r;
      }
      return T(r);
    });
  });
}

TC_REGISTER_KERNEL(binary_op_kernel, CPU, binary_cpu);
TC_REGISTER_KERNEL(lerp_tensor_kernel, CPU, lerp_tensor_cpu);
TC_REGISTER_KERNEL(clamp_tensor_kernel, CPU, clamp_tensor_cpu);

}  // namespace
}  // namespace tc
