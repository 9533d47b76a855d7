#pragma once
// Element conversion between any two dtypes with PyTorch's semantics (complex -> real keeps the
// real part; float -> int truncates; anything -> bool is != 0).
#include "tensorcore/core/dtype.h"

namespace tc {

template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) {
      using R = typename To::value_type;
      return To(R(v.real()), R(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      return convert<To>(v.real());
    }
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(R(opmath_t<From>(v)), R(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return opmath_t<From>(v) != opmath_t<From>(0);
  } else if constexpr (is_reduced_float_v<From>) {
    return static_cast<To>(float(v));
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tc
