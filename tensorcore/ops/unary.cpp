// Unary math ops and complex views.
#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/kernel_tables.h"
#include "tensorcore/ops/shape.h"

namespace tc {

TC_DEFINE_KERNEL(neg, IterKernel);
TC_DEFINE_KERNEL(exp, IterKernel);
TC_DEFINE_KERNEL(log, IterKernel);
TC_DEFINE_KERNEL(sqrt, IterKernel);
TC_DEFINE_KERNEL(conj, IterKernel);

namespace {
Tensor run_unary(KernelTable<IterKernel>& table, const Tensor& a, const char* name,
                 bool int_to_float) {
  TensorIterConfig c;
  c.op_name = name;
  c.promote_int_to_float = int_to_float;
  TensorIter iter(Tensor(), {a}, c);
  table.get(iter.output().device().type)(iter);
  return iter.finish();
}
}  // namespace

Tensor neg(const Tensor& a) {
  TC_CHECK_TYPE(a.dtype() != DType::Bool,
                "neg: negation, the `-` operator, on a bool tensor is "
                "not supported. If you are trying to invert a mask, use the `~` or "
                "`logical_not()` operator instead.");
  Tensor out = run_unary(neg_kernel, a, "neg", false);
  if (autograd::needs_grad({a}))
    autograd::record(
        "NegBackward0", {a}, {out}, {},
        [](const TensorList&, const TensorList& g) -> TensorList { return {neg(g[0])}; });
  return out;
}

Tensor exp(const Tensor& a) {
  TC_AUTOCAST("exp", exp, a);
  Tensor out = run_unary(exp_kernel, a, "exp", true);
  if (autograd::needs_grad({a}))
    autograd::record("ExpBackward0", {a}, {out}, {out},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       return {mul(g[0], conj(s[0]))};
                     });
  return out;
}

Tensor log(const Tensor& a) {
  TC_AUTOCAST("log", log, a);
  Tensor out = run_unary(log_kernel, a, "log", true);
  if (autograd::needs_grad({a}))
    autograd::record("LogBackward0", {a}, {out}, {a},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       return {div(g[0], conj(s[0]))};
                     });
  return out;
}

Tensor sqrt(const Tensor& a) {
  Tensor out = run_unary(sqrt_kernel, a, "sqrt", true);
  if (autograd::needs_grad({a}))
    autograd::record("SqrtBackward0", {a}, {out}, {out},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       return {div(g[0], mul(conj(s[0]), 2))};
                     });
  return out;
}

Tensor conj(const Tensor& a) {
  if (!a.is_complex()) return a;
  Tensor out = run_unary(conj_kernel, a, "conj", false);
  if (autograd::needs_grad({a}))
    autograd::record(
        "ConjBackward0", {a}, {out}, {},
        [](const TensorList&, const TensorList& g) -> TensorList { return {conj(g[0])}; });
  return out;
}

// real/imag are views into the interleaved (re, im) storage.
static Tensor complex_part(const Tensor& a, int part) {
  Shape strides = a.strides();
  for (auto& s : strides) s *= 2;
  Tensor out =
      scalar_view(a, a.sizes(), strides, a.storage_offset() * 2 + part, to_real(a.dtype()));
  if (autograd::needs_grad({a})) {
    DType cdt = a.dtype();
    autograd::record(part ? "ImagBackward0" : "RealBackward0", {a}, {out}, {},
                     [part, cdt](const TensorList&, const TensorList& g) -> TensorList {
                       // Gradient of Re(z) is 1, of Im(z) is i (conjugate Wirtinger convention).
                       Tensor gc = to_dtype(g[0], cdt);
                       return {part ? mul(gc, Scalar(std::complex<double>(0, 1))) : gc};
                     });
  }
  return out;
}

Tensor real(const Tensor& a) { return a.is_complex() ? complex_part(a, 0) : a; }

Tensor imag(const Tensor& a) {
  TC_CHECK_TYPE(a.is_complex(), "imag is not implemented for tensors with non-complex dtypes");
  return complex_part(a, 1);
}

}  // namespace tc
