// equal / isclose / allclose and the complex construction helpers: complex, polar,
// view_as_real, view_as_complex.
#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/elementwise_kernels.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc {

namespace {
bool all_true(const Tensor& mask) {
  if (mask.numel() == 0) return true;
  return sum(logical_not(mask)).item().to_int() == 0;
}
}  // namespace

bool equal(const Tensor& a, const Tensor& b) {
  autograd::NoGradGuard guard;
  if (a.sizes() != b.sizes()) return false;
  return all_true(eq(a, b));
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  TC_CHECK_TYPE(a.dtype() == b.dtype(),
                "isclose: expected self and other to have the same dtype, "
                "but got ",
                dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  TC_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  TC_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, but got ", atol);
  autograd::NoGradGuard guard;
  Tensor close = eq(a, b);
  if (equal_nan && (a.is_floating_point() || a.is_complex()))
    close = logical_or(close, logical_and(isnan(a), isnan(b)));
  if (a.dtype() == DType::Bool || (rtol == 0 && atol == 0)) return close;
  Tensor x = a, y = b;
  if (!a.is_floating_point() && !a.is_complex()) {
    x = to_dtype(a, DType::Float64);
    y = to_dtype(b, DType::Float64);
  }
  Tensor allowed = add(mul(abs(y), rtol), atol);
  Tensor actual = abs(sub(x, y));
  Tensor finite_close = logical_and(isfinite(actual), le(actual, allowed));
  return logical_or(close, finite_close);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all_true(isclose(a, b, rtol, atol, equal_nan));
}

Tensor complex(const Tensor& re, const Tensor& im) {
  auto ok = [](DType d) { return d == DType::Float32 || d == DType::Float64; };
  TC_CHECK_TYPE(ok(re.dtype()) && ok(im.dtype()) && re.dtype() == im.dtype(),
                "complex: expected both inputs to be Float or Double tensors of the same dtype "
                "but got ",
                dtype_name(re.dtype()), " and ", dtype_name(im.dtype()));
  TensorIterConfig c;
  c.op_name = "complex";
  c.output_dtype = to_complex(re.dtype());
  TensorIter iter(Tensor(), {re, im}, c);
  binary_op_kernel.get(iter.output().device().type)(iter, BinaryOp::Complex, {});
  Tensor out = iter.finish();
  if (autograd::needs_grad({re, im}))
    autograd::record("ComplexBackward0", {re, im}, {out}, {},
                     [](const TensorList&, const TensorList& g) -> TensorList {
                       return {real(g[0]), imag(g[0])};
                     });
  return out;
}

Tensor polar(const Tensor& r, const Tensor& theta) {
  TC_AUTOCAST("polar", polar, r, theta);
  auto ok = [](DType d) { return d == DType::Float32 || d == DType::Float64; };
  TC_CHECK_TYPE(ok(r.dtype()) && r.dtype() == theta.dtype(),
                "polar: expected both inputs to be Float or Double tensors of the same dtype "
                "but got ",
                dtype_name(r.dtype()), " and ", dtype_name(theta.dtype()));
  return complex(mul(r, cos(theta)), mul(r, sin(theta)));
}

Tensor view_as_real(const Tensor& a) {
  TC_CHECK_TYPE(a.is_complex(), "view_as_real is only supported for complex tensors, got ",
                dtype_name(a.dtype()));
  Shape sizes = a.sizes(), strides = a.strides();
  for (auto& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  Tensor out = scalar_view(a, sizes, strides, a.storage_offset() * 2, to_real(a.dtype()));
  if (autograd::needs_grad({a}))
    autograd::record("ViewAsRealBackward0", {a}, {out}, {},
                     [](const TensorList&, const TensorList& g) -> TensorList {
                       return {view_as_complex(contiguous(g[0]))};
                     });
  return out;
}

Tensor view_as_complex(const Tensor& a) {
  TC_AUTOCAST("view_as_complex", view_as_complex, a);
  TC_CHECK_TYPE(a.dtype() == DType::Float32 || a.dtype() == DType::Float64,
                "view_as_complex is only supported for float and double tensors, but got a tensor "
                "of scalar type: ",
                dtype_name(a.dtype()));
  TC_CHECK(a.dim() >= 1 && a.sizes().back() == 2,
           "view_as_complex: Tensor must have a last dimension of size 2");
  TC_CHECK(a.strides().back() == 1,
           "view_as_complex: Tensor must have a last dimension with stride 1");
  Shape sizes(a.sizes().begin(), a.sizes().end() - 1);
  Shape strides(a.strides().begin(), a.strides().end() - 1);
  for (auto& s : strides) {
    TC_CHECK(s % 2 == 0,
             "view_as_complex: Tensor must have a stride divisible by 2 for all but "
             "last dimension");
    s /= 2;
  }
  TC_CHECK(a.storage_offset() % 2 == 0,
           "view_as_complex: Tensor must have a storage_offset divisible by 2");
  Tensor out = scalar_view(a, sizes, strides, a.storage_offset() / 2, to_complex(a.dtype()));
  if (autograd::needs_grad({a}))
    autograd::record(
        "ViewAsComplexBackward0", {a}, {out}, {},
        [](const TensorList&, const TensorList& g) -> TensorList { return {view_as_real(g[0])}; });
  return out;
}

}  // namespace tc
