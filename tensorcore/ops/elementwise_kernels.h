#pragma once
// Kernel tables of the elementwise math family. One table per op *kind* (unary math, binary
// math, comparison); the op itself is an enum argument, so a backend registers three functions
// instead of ~80 and the per-op code stays a switch case.
#include "tensorcore/ops/kernel_tables.h"

namespace tc {

enum class UnaryOp : int {
  Abs,
  Sign,
  Sgn,
  Exp2,
  Expm1,
  Log2,
  Log10,
  Log1p,
  Rsqrt,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Asinh,
  Acosh,
  Atanh,
  Sigmoid,
  Erf,
  Erfc,
  Erfinv,
  Lgamma,
  Digamma,
  Trigamma,
  I0,
  I1,
  Floor,
  Ceil,
  Round,
  RoundDecimals,
  Trunc,
  Frac,
  Reciprocal,
  Square,
  Relu,
  Angle,
  NanToNum,
  BitwiseNot,
  LogicalNot,
  IsNan,
  IsInf,
  IsPosInf,
  IsNegInf,
  IsFinite,
  IsReal,
  ClampScalar,  // p.a = min (if p.has_a), p.b = max (if p.has_b)
};

enum class BinaryOp : int {
  Atan2,
  Pow,
  Maximum,
  Minimum,
  Fmax,
  Fmin,
  Fmod,
  Remainder,
  Hypot,
  BitAnd,
  BitOr,
  BitXor,
  Lshift,
  Rshift,
  Igamma,
  Igammac,
  Nextafter,
  LogicalAnd,
  LogicalOr,
  LogicalXor,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Complex,
  LerpScalar,  // inputs start, end; weight in p.a (or p.ca for complex)
};

// Extra scalar arguments of a few ops (round decimals, nan_to_num, clamp bounds, lerp weight).
struct OpParams {
  double a = 0, b = 0, c = 0;
  bool has_a = false, has_b = false;
  std::complex<double> ca{0, 0};
  int64_t i = 0;
};

using UnaryOpKernel = void (*)(TensorIter&, UnaryOp, const OpParams&);
using BinaryOpKernel = void (*)(TensorIter&, BinaryOp, const OpParams&);

TC_DECLARE_KERNEL(unary_op, UnaryOpKernel);
TC_DECLARE_KERNEL(binary_op, BinaryOpKernel);   // math + bitwise + logical
TC_DECLARE_KERNEL(compare_op, BinaryOpKernel);  // Eq..Ge, output bool
TC_DECLARE_KERNEL(where, IterKernel);           // (cond, a, b)
TC_DECLARE_KERNEL(lerp_tensor, IterKernel);     // (start, end, weight)
TC_DECLARE_KERNEL(clamp_tensor, IterKernel);    // (x, min, max), both defined
TC_DECLARE_KERNEL(relu_backward, IterKernel);   // (grad, out): out > 0 ? grad : 0

}  // namespace tc
