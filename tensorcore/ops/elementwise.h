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
