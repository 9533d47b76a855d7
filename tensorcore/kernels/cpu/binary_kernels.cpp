// CPU kernels for add/mul/div.
#include <cmath>

#include "tensorcore/kernels/cpu/half_loops.h"
#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {
namespace {

void add_cpu(TensorIter& iter, const Scalar& alpha) {
  dispatch_dtype<kAllTypes>(iter.common_dtype(), "add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      bool a = alpha.to<bool>();
      cpu_kernel(iter, [a](bool x, bool y) -> bool { return x || (a && y); });
    } else if constexpr (is_reduced_float_v<T>) {
      // float16/bfloat16: chunked float32 loops (sub is add with alpha -1).
      M a = alpha.to<M>();
      if (a == M(1))
        cpu_half_binary_kernel<T>(iter, [](auto x, auto y) { return x + y; });
      else
        cpu_half_binary_kernel<T>(iter, [a](auto x, auto y) { return x + a * y; });
    } else {
      M a = alpha.to<M>();
      if (a == M(1)) {
        cpu_kernel(iter, [](T x, T y) -> T { return T(M(x) + M(y)); });
      } else {
        cpu_kernel(iter, [a](T x, T y) -> T { return T(M(x) + a * M(y)); });
      }
    }
  });
}

void mul_cpu(TensorIter& iter) {
  dispatch_dtype<kAllTypes>(iter.common_dtype(), "mul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      cpu_kernel(iter, [](bool x, bool y) -> bool { return x && y; });
    } else if constexpr (is_reduced_float_v<T>) {
      cpu_half_binary_kernel<T>(iter, [](auto x, auto y) { return x * y; });
    } else {
      cpu_kernel(iter, [](T x, T y) -> T { return T(M(x) * M(y)); });
    }
  });
}

void div_true_cpu(TensorIter& iter) {
  dispatch_dtype<kFloating | kComplex>(iter.common_dtype(), "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (is_reduced_float_v<T>)
      cpu_half_binary_kernel<T>(iter, [](auto x, auto y) { return x / y; });
    else
      cpu_kernel(iter, [](T x, T y) -> T { return T(M(x) / M(y)); });
  });
}

template <bool Floor>
void div_round_cpu(TensorIter& iter) {
  dispatch_dtype<kIntegral | kFloating>(iter.common_dtype(), "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_integral_v<T>) {
      cpu_kernel(iter, [](T x, T y) -> T {
        if (y == 0) throw ValueError("ZeroDivisionError: integer division by zero");
        if constexpr (std::is_signed_v<T>) {
          if (y == T(-1)) return T(-x);  // avoids INT_MIN / -1 overflow trap
        }
        T q = T(x / y);
        if constexpr (Floor && std::is_signed_v<T>) {
          if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        }
        return q;
      });
    } else {
      cpu_kernel(iter, [](T x, T y) -> T {
        M a = M(x), b = M(y);
        if constexpr (Floor) {
          // Python's floor division: floor((a - fmod(a, b)) / b) with sign fix-up.
          if (b == 0) return T(a / b);
          M mod = std::fmod(a, b);
          M d = (a - mod) / b;
          if (mod != 0 && ((b < 0) != (mod < 0))) d -= 1;
          M fl = std::floor(d);
          if (d - fl > M(0.5)) fl += 1;
          return T(d == 0 ? std::copysign(M(0), a / b) : fl);
        } else {
          return T(std::trunc(a / b));
        }
      });
    }
  });
}

TC_REGISTER_KERNEL(add_kernel, CPU, add_cpu);
TC_REGISTER_KERNEL(mul_kernel, CPU, mul_cpu);
TC_REGISTER_KERNEL(div_true_kernel, CPU, div_true_cpu);
TC_REGISTER_KERNEL(div_trunc_kernel, CPU, div_round_cpu<false>);
TC_REGISTER_KERNEL(div_floor_kernel, CPU, div_round_cpu<true>);

}  // namespace
}  // namespace tc
