#pragma once
// A Python-like number: bool, int, float or complex, kept at full precision.
#include <complex>
#include <cstdint>
#include <string>

#include "tensorcore/core/dtype.h"

namespace tc {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float, Complex };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(int64_t(v)) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(float v) : kind_(Kind::Float), d_(v) {}
  Scalar(Half v) : kind_(Kind::Float), d_(float(v)) {}
  Scalar(BFloat16 v) : kind_(Kind::Float), d_(float(v)) {}
  Scalar(std::complex<double> v) : kind_(Kind::Complex), c_(v) {}
  Scalar(std::complex<float> v) : kind_(Kind::Complex), c_(v) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // The dtype a Python number of this kind gets (int64, float32 by default, complex64).
  DType default_dtype() const;

  template <typename T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      switch (kind_) {
        case Kind::Complex:
          return T(R(c_.real()), R(c_.imag()));
        case Kind::Float:
          return T(R(d_), R(0));
        default:
          return T(R(i_), R(0));
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      switch (kind_) {
        case Kind::Complex:
          return c_ != std::complex<double>(0, 0);
        case Kind::Float:
          return d_ != 0;
        default:
          return i_ != 0;
      }
    } else {
      switch (kind_) {
        case Kind::Complex:
          return static_cast<T>(c_.real());
        case Kind::Float:
          return static_cast<T>(d_);
        default:
          return static_cast<T>(i_);
      }
    }
  }
  double to_double() const { return to<double>(); }
  int64_t to_int() const { return to<int64_t>(); }
  std::complex<double> to_complex() const { return to<std::complex<double>>(); }
  std::string str() const;
  Scalar operator-() const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
    std::complex<double> c_;
  };
};

}  // namespace tc
