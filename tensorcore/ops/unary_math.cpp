// Unary elementwise math: abs, trig, exp/log family, special functions, rounding, clamp,
// predicates; with autograd (vjps in tensor ops, conjugate Wirtinger convention for complex).
#include <cmath>
#include <limits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/elementwise_kernels.h"

namespace tc {

TC_DEFINE_KERNEL(unary_op, UnaryOpKernel);
TC_DEFINE_KERNEL(clamp_tensor, IterKernel);
TC_DEFINE_KERNEL(relu_backward, IterKernel);

namespace {

constexpr double kLn2 = 0.693147180559945309417232121458;
constexpr double kLn10 = 2.30258509299404568401799145468;
constexpr double kPi = 3.14159265358979323846;

Tensor wrap(const Scalar& s) { return scalar_tensor(s, {}, Device(), /*wrapped=*/true); }

Tensor run_unary(Tensor out, const Tensor& a, UnaryOp op, const char* name, bool int_to_float,
                 const OpParams& p = {}, std::optional<DType> out_dtype = {}) {
  TensorIterConfig c;
  c.op_name = name;
  c.promote_int_to_float = int_to_float;
  c.output_dtype = out_dtype;
  TensorIter iter(out, {a}, c);
  unary_op_kernel.get(iter.output().device().type)(iter, op, p);
  return iter.finish();
}

// vjp(x, out, grad) -> grad_x.
using Vjp1 = Tensor (*)(const Tensor& x, const Tensor& out, const Tensor& g);

struct Spec {
  UnaryOp op;
  const char* name;
  const char* iname;  // in-place name
  const char* node;
  bool int_to_float;
  bool uses_x;  // the vjp reads the input (in-place forms must save a copy)
  Vjp1 vjp;     // null: not differentiable (no graph)
};

Tensor zero_grad(const Tensor&, const Tensor&, const Tensor& g) { return zeros_like(g); }

void record1(const Spec& s, const Tensor& in, const Tensor& out, const Tensor& saved_x) {
  Vjp1 f = s.vjp;
  // Save the result only when the vjp reads it (so modifying it in place later stays legal).
  bool uses_out = !s.uses_x || s.op == UnaryOp::Rsqrt || s.op == UnaryOp::Sgn;
  autograd::record(s.node, {in}, {out}, {s.uses_x ? saved_x : Tensor(), uses_out ? out : Tensor()},
                   [f](const TensorList& sv, const TensorList& g) -> TensorList {
                     return {f(sv[0], sv[1], g[0])};
                   });
}

Tensor apply(const Spec& s, const Tensor& a, const OpParams& p = {}) {
  TC_AUTOCAST(
      s.name, [&](const Tensor& x) { return apply(s, x, p); }, a);
  Tensor out = run_unary(Tensor(), a, s.op, s.name, s.int_to_float, p);
  if (s.vjp && autograd::needs_grad({a})) record1(s, a, out, a);
  return out;
}

Tensor& apply_(const Spec& s, Tensor& a, const OpParams& p = {}) {
  autograd::check_inplace(a, s.iname);
  bool ng = s.vjp && autograd::needs_grad({a});
  Tensor old = ng && s.uses_x ? clone(a.detach()) : Tensor();
  run_unary(a, a, s.op, s.iname, s.int_to_float, p);
  a.bump_version();
  if (ng) record1(s, a, a, old);
  return a;
}

Tensor cj(const Tensor& t) { return conj(t); }

#define TC_VJP(expr)                                                  \
  [](const Tensor& x, const Tensor& out, const Tensor& g) -> Tensor { \
    (void)x;                                                          \
    (void)out;                                                        \
    return expr;                                                      \
  }

const Spec kSign{UnaryOp::Sign, "sign", "sign_", "SignBackward0", false, false, zero_grad};
const Spec kExp2{UnaryOp::Exp2,
                 "exp2",
                 "exp2_",
                 "Exp2Backward0",
                 true,
                 false,
                 TC_VJP(mul(g, cj(mul(out, kLn2))))};
const Spec kExpm1{UnaryOp::Expm1,
                  "expm1",
                  "expm1_",
                  "Expm1Backward0",
                  true,
                  false,
                  TC_VJP(mul(g, cj(add(out, 1))))};
const Spec kLog2{
    UnaryOp::Log2, "log2", "log2_", "Log2Backward0", true, true, TC_VJP(div(g, cj(mul(x, kLn2))))};
const Spec kLog10{UnaryOp::Log10,
                  "log10",
                  "log10_",
                  "Log10Backward0",
                  true,
                  true,
                  TC_VJP(div(g, cj(mul(x, kLn10))))};
const Spec kLog1p{
    UnaryOp::Log1p, "log1p", "log1p_", "Log1PBackward0", true, true, TC_VJP(div(g, cj(add(x, 1))))};
const Spec kRsqrt{UnaryOp::Rsqrt,
                  "rsqrt",
                  "rsqrt_",
                  "RsqrtBackward0",
                  true,
                  true,
                  TC_VJP(mul(g, cj(mul(div(out, x), -0.5))))};
const Spec kSin{
    UnaryOp::Sin, "sin", "sin_", "SinBackward0", true, true, TC_VJP(mul(g, cj(cos(x))))};
const Spec kCos{
    UnaryOp::Cos, "cos", "cos_", "CosBackward0", true, true, TC_VJP(mul(g, cj(neg(sin(x)))))};
const Spec kTan{UnaryOp::Tan,
                "tan",
                "tan_",
                "TanBackward0",
                true,
                false,
                TC_VJP(mul(g, cj(add(square(out), 1))))};
const Spec kAsin{UnaryOp::Asin,
                 "asin",
                 "asin_",
                 "AsinBackward0",
                 true,
                 true,
                 TC_VJP(div(g, cj(sqrt(rsub(square(x), 1)))))};
const Spec kAcos{UnaryOp::Acos,
                 "acos",
                 "acos_",
                 "AcosBackward0",
                 true,
                 true,
                 TC_VJP(neg(div(g, cj(sqrt(rsub(square(x), 1))))))};
const Spec kAtan{UnaryOp::Atan,
                 "atan",
                 "atan_",
                 "AtanBackward0",
                 true,
                 true,
                 TC_VJP(div(g, cj(add(square(x), 1))))};
const Spec kSinh{
    UnaryOp::Sinh, "sinh", "sinh_", "SinhBackward0", true, true, TC_VJP(mul(g, cj(cosh(x))))};
const Spec kCosh{
    UnaryOp::Cosh, "cosh", "cosh_", "CoshBackward0", true, true, TC_VJP(mul(g, cj(sinh(x))))};
const Spec kTanh{UnaryOp::Tanh,
                 "tanh",
                 "tanh_",
                 "TanhBackward0",
                 true,
                 false,
                 TC_VJP(mul(g, cj(rsub(square(out), 1))))};
const Spec kAsinh{UnaryOp::Asinh,
                  "asinh",
                  "asinh_",
                  "AsinhBackward0",
                  true,
                  true,
                  TC_VJP(div(g, cj(sqrt(add(square(x), 1)))))};
const Spec kAcosh{UnaryOp::Acosh,
                  "acosh",
                  "acosh_",
                  "AcoshBackward0",
                  true,
                  true,
                  TC_VJP(div(g, cj(mul(sqrt(sub(x, 1)), sqrt(add(x, 1))))))};
const Spec kAtanh{UnaryOp::Atanh,
                  "atanh",
                  "atanh_",
                  "AtanhBackward0",
                  true,
                  true,
                  TC_VJP(div(g, cj(rsub(square(x), 1))))};
const Spec kSigmoid{UnaryOp::Sigmoid,
                    "sigmoid",
                    "sigmoid_",
                    "SigmoidBackward0",
                    true,
                    false,
                    TC_VJP(mul(g, cj(mul(out, rsub(out, 1)))))};
const Spec kErf{UnaryOp::Erf,
                "erf",
                "erf_",
                "ErfBackward0",
                true,
                true,
                TC_VJP(mul(g, mul(exp(neg(square(x))), 1.12837916709551257390)))};
const Spec kErfc{UnaryOp::Erfc,
                 "erfc",
                 "erfc_",
                 "ErfcBackward0",
                 true,
                 true,
                 TC_VJP(mul(g, mul(exp(neg(square(x))), -1.12837916709551257390)))};
const Spec kErfinv{UnaryOp::Erfinv,
                   "erfinv",
                   "erfinv_",
                   "ErfinvBackward0",
                   true,
                   false,
                   TC_VJP(mul(g, mul(exp(square(out)), 0.886226925452758013649)))};
const Spec kLgamma{UnaryOp::Lgamma,           "lgamma", "lgamma_", "LgammaBackward0", true, true,
                   TC_VJP(mul(g, digamma(x)))};
const Spec kDigamma{UnaryOp::Digamma,
                    "digamma",
                    "digamma_",
                    "DigammaBackward0",
                    true,
                    true,
                    TC_VJP(mul(g, polygamma(1, x)))};
// d/dx I1 = I0 - I1 / x (-> 1/2 at 0). The output is not saved (the spec reads x).
Tensor i1_grad(const Tensor& x, const Tensor&, const Tensor& g) {
  Tensor ratio = where(eq(x, zeros_like(x)), full_like(x, 0.5), div(special_i1(x), x));
  return mul(g, sub(i0(x), ratio));
}
const Spec kI0{UnaryOp::I0, "i0", "i0_", "I0Backward0", true, true, TC_VJP(mul(g, special_i1(x)))};
const Spec kI1{UnaryOp::I1, "special_i1", "special_i1_", "SpecialI1Backward0", true, true, i1_grad};
const Spec kTrigamma{UnaryOp::Trigamma,
                     "polygamma",
                     "polygamma_",
                     "PolygammaBackward0",
                     true,
                     true,
                     [](const Tensor&, const Tensor&, const Tensor&) -> Tensor {
                       throw NotImplementedError(
                           "polygamma: backward of polygamma(1, x) is not "
                           "implemented");
                     }};
const Spec kFloor{UnaryOp::Floor, "floor", "floor_", "FloorBackward0", false, false, zero_grad};
const Spec kCeil{UnaryOp::Ceil, "ceil", "ceil_", "CeilBackward0", false, false, zero_grad};
const Spec kTrunc{UnaryOp::Trunc, "trunc", "trunc_", "TruncBackward0", false, false, zero_grad};
const Spec kRound{UnaryOp::Round, "round", "round_", "RoundBackward0", false, false, zero_grad};
const Spec kRoundD{
    UnaryOp::RoundDecimals, "round", "round_", "RoundBackward1", false, false, zero_grad};
const Spec kFrac{UnaryOp::Frac, "frac", "frac_", "FracBackward0", false, false, TC_VJP(g)};
const Spec kReciprocal{UnaryOp::Reciprocal,
                       "reciprocal",
                       "reciprocal_",
                       "ReciprocalBackward0",
                       true,
                       false,
                       TC_VJP(mul(g, cj(neg(square(out)))))};
const Spec kSquare{UnaryOp::Square,
                   "square",
                   "square_",
                   "PowBackward0",
                   false,
                   true,
                   TC_VJP(mul(g, cj(mul(x, 2))))};
// One fused pass where a kernel exists and no graph is being built (double backward keeps the
// differentiable product): gt + bool->float cast + mul took three passes and two temporaries,
// ~0.35 s of a ResNet-50 training step at batch 8 against torch's 0.2 s threshold_backward.
Tensor relu_grad(const Tensor&, const Tensor& out, const Tensor& g) {
  const DeviceType dev = g.device().type;
  if (autograd::needs_grad({g, out}) || relu_backward_kernel.kernels[int(dev)] == nullptr ||
      g.dtype() != out.dtype() || !g.is_floating_point())
    return mul(g, gt(out, wrap(0)));
  TensorIterConfig c;
  c.op_name = "relu_backward";
  TensorIter iter(Tensor(), {g, out}, c);
  relu_backward_kernel.get(dev)(iter);
  return iter.finish();
}
const Spec kRelu{UnaryOp::Relu, "relu", "relu_", "ReluBackward0", false, false, relu_grad};
const Spec kBitNot{UnaryOp::BitwiseNot, "bitwise_not", "bitwise_not_", "", false, false, nullptr};
const Spec kLogicalNot{
    UnaryOp::LogicalNot, "logical_not", "logical_not_", "", false, false, nullptr};
const Spec kNanToNum{UnaryOp::NanToNum,          "nan_to_num", "nan_to_num_",
                     "NanToNumBackward0",        false,        true,
                     TC_VJP(mul(g, isfinite(x)))};

Tensor abs_vjp(const Tensor& x, const Tensor&, const Tensor& g) { return mul(g, sgn(x)); }
Tensor sgn_vjp(const Tensor& x, const Tensor& out, const Tensor& g) {
  if (!x.is_complex()) return zeros_like(g);
  Tensor a = abs(x);
  Tensor r = div(sub(g, mul(out, real(mul(g, conj(out))))), a);
  return where(eq(a, wrap(0)), zeros({}, TensorOptions(r.dtype())), r);
}
const Spec kAbs{UnaryOp::Abs, "abs", "abs_", "AbsBackward0", false, true, abs_vjp};
const Spec kSgn{UnaryOp::Sgn, "sgn", "sgn_", "SgnBackward0", false, true, sgn_vjp};

bool is_int_like(const Tensor& a) { return !a.is_floating_point() && !a.is_complex(); }

void check_not_complex(const Tensor& a, const char* name, const char* hint = "") {
  TC_CHECK_TYPE(!a.is_complex(), name, ": not implemented for complex tensors (dtype ",
                dtype_name(a.dtype()), ")", hint);
}

}  // namespace

// ---- simple unary ops ----
#define TC_SIMPLE_UNARY(fname, spec)                       \
  Tensor fname(const Tensor& a) { return apply(spec, a); } \
  Tensor& fname##_(Tensor& a) { return apply_(spec, a); }
TC_SIMPLE_UNARY(exp2, kExp2)
TC_SIMPLE_UNARY(expm1, kExpm1)
TC_SIMPLE_UNARY(log2, kLog2)
TC_SIMPLE_UNARY(log10, kLog10)
TC_SIMPLE_UNARY(log1p, kLog1p)
TC_SIMPLE_UNARY(rsqrt, kRsqrt)
TC_SIMPLE_UNARY(sin, kSin)
TC_SIMPLE_UNARY(cos, kCos)
TC_SIMPLE_UNARY(tan, kTan)
TC_SIMPLE_UNARY(asin, kAsin)
TC_SIMPLE_UNARY(acos, kAcos)
TC_SIMPLE_UNARY(atan, kAtan)
TC_SIMPLE_UNARY(sinh, kSinh)
TC_SIMPLE_UNARY(cosh, kCosh)
TC_SIMPLE_UNARY(tanh, kTanh)
TC_SIMPLE_UNARY(asinh, kAsinh)
TC_SIMPLE_UNARY(acosh, kAcosh)
TC_SIMPLE_UNARY(atanh, kAtanh)
TC_SIMPLE_UNARY(sigmoid, kSigmoid)
TC_SIMPLE_UNARY(erfinv, kErfinv)
TC_SIMPLE_UNARY(reciprocal, kReciprocal)
TC_SIMPLE_UNARY(relu, kRelu)
#undef TC_SIMPLE_UNARY

// Real-only float functions (erf & co.): complex inputs get a clear TypeError.
#define TC_REAL_UNARY(fname, spec)    \
  Tensor fname(const Tensor& a) {     \
    check_not_complex(a, #fname);     \
    return apply(spec, a);            \
  }                                   \
  Tensor& fname##_(Tensor& a) {       \
    check_not_complex(a, #fname "_"); \
    return apply_(spec, a);           \
  }
TC_REAL_UNARY(erf, kErf)
TC_REAL_UNARY(erfc, kErfc)
TC_REAL_UNARY(lgamma, kLgamma)
TC_REAL_UNARY(digamma, kDigamma)
TC_REAL_UNARY(i0, kI0)
#undef TC_REAL_UNARY

Tensor special_i1(const Tensor& a) {
  check_not_complex(a, "special_i1");
  return apply(kI1, a);
}

// Rounding: identity (a copy) on integers, like torch.
#define TC_ROUNDING_UNARY(fname, spec)   \
  Tensor fname(const Tensor& a) {        \
    check_not_complex(a, #fname);        \
    if (is_int_like(a)) return clone(a); \
    return apply(spec, a);               \
  }                                      \
  Tensor& fname##_(Tensor& a) {          \
    check_not_complex(a, #fname "_");    \
    if (is_int_like(a)) return a;        \
    return apply_(spec, a);              \
  }
TC_ROUNDING_UNARY(floor, kFloor)
TC_ROUNDING_UNARY(ceil, kCeil)
TC_ROUNDING_UNARY(trunc, kTrunc)
#undef TC_ROUNDING_UNARY

Tensor round(const Tensor& a, int64_t decimals) {
  check_not_complex(a, "round");
  if (is_int_like(a) && decimals == 0) return clone(a);
  OpParams p;
  p.i = decimals;
  return apply(decimals == 0 ? kRound : kRoundD, a, p);
}
Tensor& round_(Tensor& a, int64_t decimals) {
  check_not_complex(a, "round_");
  if (is_int_like(a) && decimals == 0) return a;
  OpParams p;
  p.i = decimals;
  return apply_(decimals == 0 ? kRound : kRoundD, a, p);
}

Tensor frac(const Tensor& a) {
  check_not_complex(a, "frac");
  return apply(kFrac, a);
}
Tensor& frac_(Tensor& a) {
  check_not_complex(a, "frac_");
  return apply_(kFrac, a);
}

Tensor sign(const Tensor& a) {
  check_not_complex(a, "sign",
                    "; unlike NumPy, torch.sign is not intended to support complex "
                    "numbers. Please use torch.sgn instead.");
  return apply(kSign, a);
}
Tensor& sign_(Tensor& a) {
  check_not_complex(a, "sign_", "; use sgn_ instead");
  return apply_(kSign, a);
}
Tensor sgn(const Tensor& a) { return apply(kSgn, a); }
Tensor& sgn_(Tensor& a) { return apply_(kSgn, a); }

Tensor abs(const Tensor& a) {
  TC_CHECK_TYPE(a.dtype() != DType::Bool, "abs: not implemented for dtype bool");
  if (!a.is_complex()) return apply(kAbs, a);
  Tensor out = run_unary(Tensor(), a, UnaryOp::Abs, "abs", false, {}, to_real(a.dtype()));
  if (autograd::needs_grad({a})) record1(kAbs, a, out, a);
  return out;
}
Tensor& abs_(Tensor& a) {
  TC_CHECK_TYPE(!a.is_complex(), "abs_: in-place abs is not supported for complex tensors");
  TC_CHECK_TYPE(a.dtype() != DType::Bool, "abs_: not implemented for dtype bool");
  return apply_(kAbs, a);
}

Tensor square(const Tensor& a) {
  return apply(kSquare, a.dtype() == DType::Bool ? to_dtype(a, DType::Int64) : a);
}
Tensor& square_(Tensor& a) {
  TC_CHECK_TYPE(a.dtype() != DType::Bool,
                "square_: result type Long can't be cast to the "
                "desired output type Bool");
  return apply_(kSquare, a);
}

Tensor logical_not(const Tensor& a) {
  return run_unary(Tensor(), a, UnaryOp::LogicalNot, "logical_not", false, {}, DType::Bool);
}
Tensor& logical_not_(Tensor& a) { return apply_(kLogicalNot, a); }

Tensor bitwise_not(const Tensor& a) { return apply(kBitNot, a); }
Tensor& bitwise_not_(Tensor& a) { return apply_(kBitNot, a); }

Tensor polygamma(int64_t n, const Tensor& a) {
  TC_CHECK(n == 0 || n == 1, "polygamma: only n = 0 and n = 1 are implemented, got ", n);
  check_not_complex(a, "polygamma");
  return n == 0 ? digamma(a) : apply(kTrigamma, a);
}

namespace {
// neg_/exp_/log_/sqrt_ reuse the core kernels.
Tensor& core_inplace(Tensor& a, KernelTable<IterKernel>& table, const char* name, int which) {
  autograd::check_inplace(a, name);
  bool ng = autograd::needs_grad({a});
  Tensor old = ng && which == 1 ? clone(a.detach()) : Tensor();
  TensorIterConfig c;
  c.op_name = name;
  c.promote_int_to_float = which != 3;
  TensorIter iter(a, {a}, c);
  table.get(iter.output().device().type)(iter);
  iter.finish();
  a.bump_version();
  if (ng) {
    const char* node = which == 0   ? "ExpBackward0"
                       : which == 1 ? "LogBackward0"
                       : which == 2 ? "SqrtBackward0"
                                    : "NegBackward0";
    autograd::record(node, {a}, {a}, {old, a},
                     [which](const TensorList& s, const TensorList& g) -> TensorList {
                       if (which == 0) return {mul(g[0], conj(s[1]))};
                       if (which == 1) return {div(g[0], conj(s[0]))};
                       if (which == 3) return {neg(g[0])};
                       return {div(g[0], mul(conj(s[1]), 2))};
                     });
  }
  return a;
}
}  // namespace

Tensor& exp_(Tensor& a) { return core_inplace(a, exp_kernel, "exp_", 0); }
Tensor& log_(Tensor& a) { return core_inplace(a, log_kernel, "log_", 1); }
Tensor& sqrt_(Tensor& a) { return core_inplace(a, sqrt_kernel, "sqrt_", 2); }
Tensor& neg_(Tensor& a) {
  TC_CHECK_TYPE(a.dtype() != DType::Bool,
                "neg_: negation, the `-` operator, on a bool tensor is "
                "not supported. If you are trying to invert a mask, use the `~` or "
                "`logical_not()` operator instead.");
  return core_inplace(a, neg_kernel, "neg_", 3);
}

Tensor angle(const Tensor& a) {
  std::optional<DType> od;
  if (a.is_complex()) od = to_real(a.dtype());
  Tensor out = run_unary(Tensor(), a, UnaryOp::Angle, "angle", true, {}, od);
  if (autograd::needs_grad({a})) {
    autograd::record("AngleBackward0", {a}, {out}, {a},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       const Tensor& x = s[0];
                       if (!x.is_complex()) return {zeros_like(g[0])};
                       Tensor r = mul(div(mul(g[0], x), square(abs(x))),
                                      Scalar(std::complex<double>(0, 1)));
                       return {where(eq(x, wrap(0)), zeros({}, TensorOptions(r.dtype())), r)};
                     });
  }
  return out;
}

namespace {
OpParams nan_params(std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  OpParams p;
  p.a = nan.value_or(0.0);
  p.has_a = posinf.has_value();
  p.b = posinf.value_or(0);
  p.has_b = neginf.has_value();
  p.c = neginf.value_or(0);
  return p;
}
}  // namespace

Tensor nan_to_num(const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  check_not_complex(a, "nan_to_num");
  if (is_int_like(a)) return clone(a);
  return apply(kNanToNum, a, nan_params(nan, posinf, neginf));
}
Tensor& nan_to_num_(Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  check_not_complex(a, "nan_to_num_");
  if (is_int_like(a)) return a;
  return apply_(kNanToNum, a, nan_params(nan, posinf, neginf));
}

// ---- predicates ----
namespace {
Tensor predicate(const Tensor& a, UnaryOp op, const char* name, bool int_value) {
  if (is_int_like(a))
    return full(a.sizes(), int_value, TensorOptions(DType::Bool).device(a.device()));
  return run_unary(Tensor(), a, op, name, false, {}, DType::Bool);
}
}  // namespace
Tensor isnan(const Tensor& a) { return predicate(a, UnaryOp::IsNan, "isnan", false); }
Tensor isinf(const Tensor& a) { return predicate(a, UnaryOp::IsInf, "isinf", false); }
Tensor isfinite(const Tensor& a) { return predicate(a, UnaryOp::IsFinite, "isfinite", true); }
Tensor isposinf(const Tensor& a) {
  TC_CHECK_TYPE(!a.is_complex(), "isposinf does not support complex inputs.");
  return predicate(a, UnaryOp::IsPosInf, "isposinf", false);
}
Tensor isneginf(const Tensor& a) {
  TC_CHECK_TYPE(!a.is_complex(), "isneginf does not support complex inputs.");
  return predicate(a, UnaryOp::IsNegInf, "isneginf", false);
}
Tensor isreal(const Tensor& a) {
  if (!a.is_complex()) return full(a.sizes(), true, TensorOptions(DType::Bool).device(a.device()));
  return run_unary(Tensor(), a, UnaryOp::IsReal, "isreal", false, {}, DType::Bool);
}

// ---- clamp ----
namespace {
Tensor bound_tensor(const std::optional<Scalar>& s) { return s ? wrap(*s) : Tensor(); }

// The widest value of dtype `dt` in direction `high` (for an absent tensor bound).
Tensor extreme(DType dt, bool high, Device dev) {
  Scalar v = dispatch_dtype<kIntegral | kFloating>(dt, "clamp", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return Scalar(
          int64_t(high ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest()));
    } else {
      return Scalar(high ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity());
    }
  });
  return scalar_tensor(v, dt, dev);
}

void record_clamp(const Tensor& in, const Tensor& out, const Tensor& x, const Tensor& lo,
                  const Tensor& hi, bool inplace) {
  TensorList inputs{in};
  if (lo.defined() && !lo.impl()->is_wrapped_number)
    inputs.push_back(lo);
  else
    inputs.push_back(Tensor());
  if (hi.defined() && !hi.impl()->is_wrapped_number)
    inputs.push_back(hi);
  else
    inputs.push_back(Tensor());
  if (!autograd::needs_grad(inputs)) return;
  (void)inplace;
  autograd::record("ClampBackward1", inputs, {out}, {x, lo, hi},
                   [](const TensorList& s, const TensorList& g) -> TensorList {
                     const Tensor &x = s[0], &lo = s[1], &hi = s[2];
                     Tensor mask = ones({}, TensorOptions(DType::Bool));
                     if (lo.defined()) mask = logical_and(mask, ge(x, lo));
                     if (hi.defined()) mask = logical_and(mask, le(x, hi));
                     Tensor gx = mul(g[0], mask);
                     Tensor glo = lo.defined() ? mul(g[0], lt(x, lo)) : Tensor();
                     Tensor ghi = hi.defined() ? mul(g[0], gt(x, hi)) : Tensor();
                     return {gx, glo, ghi};
                   });
}

Tensor clamp_impl(Tensor out, const Tensor& a, const Tensor& lo, const Tensor& hi,
                  const char* name) {
  TC_CHECK(lo.defined() || hi.defined(), name, ": At least one of 'min' or 'max' must not be None");
  TC_CHECK_TYPE(
      !a.is_complex() && !(lo.defined() && lo.is_complex()) && !(hi.defined() && hi.is_complex()),
      name, ": clamp is not supported for complex types");
  DType dt = result_type({a, lo, hi});
  TC_CHECK_TYPE(dt != DType::Bool, name, ": not implemented for dtype bool");
  bool scalar_bounds = (!lo.defined() || lo.impl()->is_wrapped_number) &&
                       (!hi.defined() || hi.impl()->is_wrapped_number);
  if (scalar_bounds) {
    OpParams p;
    if (lo.defined()) {
      p.has_a = true;
      p.a = lo.item().to_double();
    }
    if (hi.defined()) {
      p.has_b = true;
      p.b = hi.item().to_double();
    }
    TensorIterConfig c;
    c.op_name = name;
    c.compute_dtype = dt;
    TensorIter iter(out, {a}, c);
    unary_op_kernel.get(iter.output().device().type)(iter, UnaryOp::ClampScalar, p);
    return iter.finish();
  }
  Tensor l = lo.defined() ? lo : extreme(dt, false, a.device());
  Tensor h = hi.defined() ? hi : extreme(dt, true, a.device());
  TensorIterConfig c;
  c.op_name = name;
  c.compute_dtype = dt;
  TensorIter iter(out, {a, l, h}, c);
  clamp_tensor_kernel.get(iter.output().device().type)(iter);
  return iter.finish();
}
}  // namespace

Tensor clamp(const Tensor& a, const Tensor& min, const Tensor& max) {
  Tensor out = clamp_impl(Tensor(), a, min, max, "clamp");
  record_clamp(a, out, a, min, max, false);
  return out;
}
Tensor clamp(const Tensor& a, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp(a, bound_tensor(min), bound_tensor(max));
}
Tensor& clamp_(Tensor& a, const Tensor& min, const Tensor& max) {
  autograd::check_inplace(a, "clamp_");
  bool ng = autograd::needs_grad({a, min, max});
  Tensor old = ng ? clone(a.detach()) : Tensor();
  clamp_impl(a, a, min, max, "clamp_");
  a.bump_version();
  if (ng) record_clamp(a, a, old, min, max, true);
  return a;
}
Tensor& clamp_(Tensor& a, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_(a, bound_tensor(min), bound_tensor(max));
}

}  // namespace tc
