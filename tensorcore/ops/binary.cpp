// Arithmetic: add, sub, mul, div (with their in-place and scalar forms).
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {

TC_DEFINE_KERNEL(add, IterScalarKernel);
TC_DEFINE_KERNEL(mul, IterKernel);
TC_DEFINE_KERNEL(div_true, IterKernel);
TC_DEFINE_KERNEL(div_trunc, IterKernel);
TC_DEFINE_KERNEL(div_floor, IterKernel);

namespace {

TensorIterConfig config(const char* name, bool int_to_float = false) {
  TensorIterConfig c;
  c.op_name = name;
  c.promote_int_to_float = int_to_float;
  return c;
}

Tensor wrap(const Scalar& s) { return scalar_tensor(s, {}, Device(), /*wrapped=*/true); }

void check_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha, const char* op) {
  DType dt = result_type({a, b});
  TC_CHECK_TYPE(!(alpha.is_floating() && !is_floating(dt) && !is_complex(dt)), op,
                ": for integral input tensors, argument alpha must not be a floating point number");
  TC_CHECK_TYPE(!(alpha.is_complex() && !is_complex(dt)), op,
                ": for non-complex input tensors, argument alpha must not be a complex number");
}

Tensor add_impl(Tensor out, const Tensor& a, const Tensor& b, const Scalar& alpha, const char* op) {
  check_alpha(a, b, alpha, op);
  TC_CHECK_TYPE(!(a.dtype() == DType::Bool && b.dtype() == DType::Bool && out.defined() == false &&
                  alpha.is_integral() && alpha.to_int() < 0),
                op, ": subtraction, the `-` operator, with two bool tensors is not supported");
  TensorIter iter(out, {a, b}, config(op));
  add_kernel.get(iter.output().device().type)(iter, alpha);
  return iter.finish();
}

void record_add(const char* name, const Tensor& a, const Tensor& b, const Tensor& out,
                const Scalar& alpha) {
  if (!autograd::needs_grad({a, b})) return;
  bool unit = alpha.is_integral() && alpha.to_int() == 1;
  autograd::record(
      name, {a, b}, {out}, {}, [alpha, unit](const TensorList&, const TensorList& g) -> TensorList {
        return {g[0], unit ? g[0]
                           : mul(g[0], alpha.is_complex() ? Scalar(std::conj(alpha.to_complex()))
                                                          : alpha)};
      });
}

Tensor div_impl(Tensor out, const Tensor& a, const Tensor& b, const std::string& mode) {
  if (mode.empty()) {
    TensorIter iter(out, {a, b}, config("div", true));
    div_true_kernel.get(iter.output().device().type)(iter);
    return iter.finish();
  }
  TC_CHECK(mode == "trunc" || mode == "floor",
           "div expected rounding_mode to be one of None, "
           "'trunc', or 'floor' but found '",
           mode, "'");
  TensorIter iter(out, {a, b}, config("div"));
  TC_CHECK_TYPE(!is_complex(iter.common_dtype()), "div: rounding_mode='", mode,
                "' is not supported for complex inputs");
  (mode == "trunc" ? div_trunc_kernel : div_floor_kernel).get(iter.output().device().type)(iter);
  return iter.finish();
}

void record_mul(const char* name, const Tensor& a_saved, const Tensor& b, const Tensor& out,
                const Tensor& a_in) {
  if (!autograd::needs_grad({a_in, b})) return;
  autograd::record(name, {a_in, b}, {out}, {a_saved, b},
                   [](const TensorList& s, const TensorList& g) -> TensorList {
                     return {mul(g[0], conj(s[1])), mul(g[0], conj(s[0]))};
                   });
}

void record_div(const char* name, const Tensor& a_saved, const Tensor& b, const Tensor& out,
                const Tensor& a_in) {
  if (!autograd::needs_grad({a_in, b})) return;
  autograd::record(name, {a_in, b}, {out}, {a_saved, b},
                   [](const TensorList& s, const TensorList& g) -> TensorList {
                     Tensor ga = div(g[0], conj(s[1]));
                     // d(a/b)/db = -a/b^2
                     Tensor gb = neg(mul(ga, conj(div(s[0], s[1]))));
                     return {ga, gb};
                   });
}

// For in-place ops whose vjp needs the old value of self.
Tensor saved_self(const Tensor& self, const Tensor& other) {
  return autograd::needs_grad({other}) ? clone(self)
                                       : self.detach();  // clone keeps the graph (double backward)
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  Tensor out = add_impl(Tensor(), a, b, alpha, "add");
  record_add("AddBackward0", a, b, out, alpha);
  return out;
}
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) { return add(a, wrap(b), alpha); }

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  TC_CHECK_TYPE(!(a.dtype() == DType::Bool && b.dtype() == DType::Bool),
                "sub: subtraction, the "
                "`-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
  Tensor out = add_impl(Tensor(), a, b, -alpha, "sub");
  record_add("SubBackward0", a, b, out, -alpha);
  return out;
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) { return sub(a, wrap(b), alpha); }
Tensor rsub(const Tensor& a, const Scalar& b) { return sub(wrap(b), a); }

Tensor mul(const Tensor& a, const Tensor& b) {
  TensorIter iter(Tensor(), {a, b}, config("mul"));
  mul_kernel.get(iter.output().device().type)(iter);
  Tensor out = iter.finish();
  record_mul("MulBackward0", a, b, out, a);
  return out;
}
Tensor mul(const Tensor& a, const Scalar& b) { return mul(a, wrap(b)); }

Tensor div(const Tensor& a, const Tensor& b, const std::string& mode) {
  Tensor out = div_impl(Tensor(), a, b, mode);
  if (mode.empty()) record_div("DivBackward0", a, b, out, a);
  return out;
}
Tensor div(const Tensor& a, const Scalar& b, const std::string& mode) {
  return div(a, wrap(b), mode);
}
Tensor rdiv(const Tensor& a, const Scalar& b) { return div(wrap(b), a); }

Tensor& add_(Tensor& a, const Tensor& b, const Scalar& alpha) {
  autograd::check_inplace(a, "add_");
  add_impl(a, a, b, alpha, "add_");
  a.bump_version();
  record_add("AddBackward0", a, b, a, alpha);
  return a;
}
Tensor& add_(Tensor& a, const Scalar& b, const Scalar& alpha) { return add_(a, wrap(b), alpha); }
Tensor& sub_(Tensor& a, const Tensor& b, const Scalar& alpha) { return add_(a, b, -alpha); }
Tensor& sub_(Tensor& a, const Scalar& b, const Scalar& alpha) { return add_(a, wrap(b), -alpha); }

Tensor& mul_(Tensor& a, const Tensor& b_in) {
  autograd::check_inplace(a, "mul_");
  const Tensor b = autograd::unalias_operand(b_in, a);
  Tensor old = autograd::needs_grad({a, b}) ? saved_self(a, b) : Tensor();
  TensorIter iter(a, {a, b}, config("mul_"));
  mul_kernel.get(iter.output().device().type)(iter);
  iter.finish();
  a.bump_version();
  record_mul("MulBackward0", old, b, a, a);
  return a;
}
Tensor& mul_(Tensor& a, const Scalar& b) { return mul_(a, wrap(b)); }

Tensor& div_(Tensor& a, const Tensor& b_in, const std::string& mode) {
  autograd::check_inplace(a, "div_");
  const Tensor b = autograd::unalias_operand(b_in, a);
  Tensor old = autograd::needs_grad({a, b}) ? saved_self(a, b) : Tensor();
  div_impl(a, a, b, mode);
  a.bump_version();
  if (mode.empty()) record_div("DivBackward0", old, b, a, a);
  return a;
}
Tensor& div_(Tensor& a, const Scalar& b, const std::string& mode) { return div_(a, wrap(b), mode); }

}  // namespace tc
