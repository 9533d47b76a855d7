#pragma once
// Elementwise ops (torch names and semantics: broadcasting, type promotion, autograd).
#include <optional>

#include "tensorcore/core/tensor.h"

namespace tc {

// ---- binary arithmetic ----
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor rsub(const Tensor& a, const Scalar& b);  // b - a
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Scalar& b);
// rounding_mode: "" (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode = "");
Tensor div(const Tensor& a, const Scalar& b, const std::string& rounding_mode = "");
Tensor rdiv(const Tensor& a, const Scalar& b);  // b / a
Tensor& add_(Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor& add_(Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor& sub_(Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor& sub_(Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor& mul_(Tensor& a, const Tensor& b);
Tensor& mul_(Tensor& a, const Scalar& b);
Tensor& div_(Tensor& a, const Tensor& b, const std::string& rounding_mode = "");
Tensor& div_(Tensor& a, const Scalar& b, const std::string& rounding_mode = "");

// ---- unary ----
Tensor neg(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor real(const Tensor& a);  // a view for complex tensors, `a` itself otherwise
Tensor imag(const Tensor& a);
Tensor conj(const Tensor& a);

// ---- unary math (elementwise_ops: unary_math.cpp). Each has an in-place form `name_`. ----
#define TC_UNARY_DECL(name)     \
  Tensor name(const Tensor& a); \
  Tensor& name##_(Tensor& a);
// An X-macro list, wrapped by hand.
// clang-format off
#define TC_UNARY_OPS(_)                                                                            \
  _(abs) _(sign) _(sgn) _(exp2) _(expm1) _(log2) _(log10) _(log1p) _(rsqrt) _(sin) _(cos)          \
  _(tan) _(asin) _(acos) _(atan) _(sinh) _(cosh) _(tanh) _(asinh) _(acosh) _(atanh) _(sigmoid)     \
  _(erf) _(erfc) _(erfinv) _(lgamma) _(digamma) _(floor) _(ceil) _(trunc) _(frac) _(reciprocal)    \
  _(square) _(relu) _(bitwise_not) _(logical_not) _(i0)
// clang-format on
TC_UNARY_OPS(TC_UNARY_DECL)
#undef TC_UNARY_DECL
Tensor& neg_(Tensor& a);
Tensor& exp_(Tensor& a);
Tensor& log_(Tensor& a);
Tensor& sqrt_(Tensor& a);
Tensor polygamma(int64_t n, const Tensor& a);  // n = 0 (digamma) or 1 (trigamma)
Tensor special_i1(const Tensor& a);            // modified Bessel I1 (i0's derivative)
Tensor round(const Tensor& a, int64_t decimals = 0);
Tensor& round_(Tensor& a, int64_t decimals = 0);
Tensor angle(const Tensor& a);
Tensor nan_to_num(const Tensor& a, std::optional<double> nan = 0.0,
                  std::optional<double> posinf = {}, std::optional<double> neginf = {});
Tensor& nan_to_num_(Tensor& a, std::optional<double> nan = 0.0, std::optional<double> posinf = {},
                    std::optional<double> neginf = {});
// clamp: either bound may be absent (not both).
Tensor clamp(const Tensor& a, const std::optional<Scalar>& min, const std::optional<Scalar>& max);
Tensor clamp(const Tensor& a, const Tensor& min, const Tensor& max);  // undefined = absent
Tensor& clamp_(Tensor& a, const std::optional<Scalar>& min, const std::optional<Scalar>& max);
Tensor& clamp_(Tensor& a, const Tensor& min, const Tensor& max);

// ---- predicates (bool output, no autograd) ----
Tensor isnan(const Tensor& a);
Tensor isinf(const Tensor& a);
Tensor isposinf(const Tensor& a);
Tensor isneginf(const Tensor& a);
Tensor isfinite(const Tensor& a);
Tensor isreal(const Tensor& a);

// ---- binary math (binary_math.cpp) ----
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Scalar& b);
Tensor pow(const Scalar& a, const Tensor& b);
Tensor& pow_(Tensor& a, const Tensor& b);
Tensor& pow_(Tensor& a, const Scalar& b);
#define TC_BINARY_DECL(name)                     \
  Tensor name(const Tensor& a, const Tensor& b); \
  Tensor& name##_(Tensor& a, const Tensor& b);
// An X-macro list, wrapped by hand.
// clang-format off
#define TC_BINARY_OPS(_)                                                                           \
  _(atan2) _(maximum) _(minimum) _(fmax) _(fmin) _(fmod) _(remainder) _(hypot) _(bitwise_and)      \
  _(bitwise_or) _(bitwise_xor) _(bitwise_left_shift) _(bitwise_right_shift) _(logical_and)         \
  _(logical_or) _(logical_xor) _(eq) _(ne) _(lt) _(le) _(gt) _(ge) _(igamma) _(igammac)            \
  _(nextafter)
// clang-format on
TC_BINARY_OPS(TC_BINARY_DECL)
#undef TC_BINARY_DECL
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor& lerp_(Tensor& start, const Tensor& end, const Scalar& weight);
Tensor& lerp_(Tensor& start, const Tensor& end, const Tensor& weight);
// where(cond, a, b): cond must be bool; a and b promote like a binary op.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// ---- comparisons and complex helpers (compare.cpp) ----
bool equal(const Tensor& a, const Tensor& b);  // same shape and values
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
Tensor complex(const Tensor& real, const Tensor& imag);
Tensor polar(const Tensor& abs, const Tensor& angle);
Tensor view_as_real(const Tensor& a);     // shares storage: [..., 2]
Tensor view_as_complex(const Tensor& a);  // shares storage; last dim 2 with stride 1

// Operators for C++ users.
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return rdiv(b, a); }
inline Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace tc
