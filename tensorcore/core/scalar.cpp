#include "tensorcore/core/scalar.h"

#include <sstream>

namespace tc {

DType Scalar::default_dtype() const {
  switch (kind_) {
    case Kind::Bool:
      return DType::Bool;
    case Kind::Int:
      return DType::Int64;
    case Kind::Float:
      return DType::Float32;
    default:
      return DType::Complex64;
  }
}

std::string Scalar::str() const {
  std::ostringstream os;
  switch (kind_) {
    case Kind::Bool:
      os << (i_ ? "True" : "False");
      break;
    case Kind::Int:
      os << i_;
      break;
    case Kind::Float:
      os << d_;
      break;
    case Kind::Complex:
      os << "(" << c_.real() << (c_.imag() < 0 ? "" : "+") << c_.imag() << "j)";
      break;
  }
  return os.str();
}

Scalar Scalar::operator-() const {
  switch (kind_) {
    case Kind::Bool:
      return Scalar(-int64_t(i_));
    case Kind::Int:
      return Scalar(-i_);
    case Kind::Float:
      return Scalar(-d_);
    default:
      return Scalar(-c_);
  }
}

}  // namespace tc
