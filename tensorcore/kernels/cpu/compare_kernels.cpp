// CPU kernels for comparisons (bool output) and where(cond, a, b).
#include <complex>

#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/ops/elementwise_kernels.h"

namespace tc {
namespace {

template <uint32_t Set, typename F>
void cmp(TensorIter& iter, const char* name, F f) {
  dispatch_dtype<Set>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu_kernel(iter, [f](T x, T y) -> bool { return f(M(x), M(y)); });
  });
}

void compare_cpu(TensorIter& iter, BinaryOp op, const OpParams&) {
  switch (op) {
    case BinaryOp::Eq:
      return cmp<kAllTypes>(iter, "eq", [](auto a, auto b) { return a == b; });
    case BinaryOp::Ne:
      return cmp<kAllTypes>(iter, "ne", [](auto a, auto b) { return a != b; });
    case BinaryOp::Lt:
      return cmp<kAllReal>(iter, "lt", [](auto a, auto b) { return a < b; });
    case BinaryOp::Le:
      return cmp<kAllReal>(iter, "le", [](auto a, auto b) { return a <= b; });
    case BinaryOp::Gt:
      return cmp<kAllReal>(iter, "gt", [](auto a, auto b) { return a > b; });
    case BinaryOp::Ge:
      return cmp<kAllReal>(iter, "ge", [](auto a, auto b) { return a >= b; });
    default:
      break;
  }
  throw ValueError("compare_op: unknown op");
}

void where_cpu(TensorIter& iter) {
  dispatch_dtype<kAllTypes>(iter.common_dtype(), "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu_kernel(iter, [](bool c, T a, T b) -> T { return c ? a : b; });
  });
}

// ReLU's gradient in one pass, as torch's threshold_backward (0 where out <= 0 even for a
// non-finite grad, which the product grad * (out > 0) would turn into NaN).
void relu_backward_cpu(TensorIter& iter) {
  dispatch_dtype<kFloating>(iter.common_dtype(), "relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu_kernel(iter, [](T g, T o) -> T { return M(o) > M(0) ? g : T(M(0)); });
  });
}

TC_REGISTER_KERNEL(compare_op_kernel, CPU, compare_cpu);
TC_REGISTER_KERNEL(relu_backward_kernel, CPU, relu_backward_cpu);
TC_REGISTER_KERNEL(where_kernel, CPU, where_cpu);

}  // namespace
}  // namespace tc
