#pragma once
// The dtype list lives in one X-macro so every switch stays in sync.
#include <complex>
#include <cstdint>
#include <string>
#include <string_view>

#include "tensorcore/core/half.h"

namespace tc {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// _(EnumName, c++ type, python name, short name)
#define TC_FORALL_DTYPES(_)                        \
  _(Bool, bool, "bool", "b1")                      \
  _(UInt8, uint8_t, "uint8", "u1")                 \
  _(Int8, int8_t, "int8", "i1")                    \
  _(Int16, int16_t, "int16", "i2")                 \
  _(UInt16, uint16_t, "uint16", "u2")              \
  _(Int32, int32_t, "int32", "i4")                 \
  _(Int64, int64_t, "int64", "i8")                 \
  _(Float16, ::tc::Half, "float16", "f2")          \
  _(BFloat16, ::tc::BFloat16, "bfloat16", "bf2")   \
  _(Float32, float, "float32", "f4")               \
  _(Float64, double, "float64", "f8")              \
  _(Complex64, ::tc::complex64, "complex64", "c8") \
  _(Complex128, ::tc::complex128, "complex128", "c16")

enum class DType : int8_t {
#define TC_ENUM(E, T, N, S) E,
  TC_FORALL_DTYPES(TC_ENUM)
#undef TC_ENUM
};
constexpr int kNumDTypes = 13;

size_t itemsize(DType dt);
const char* dtype_name(DType dt);              // "float32"
DType dtype_from_name(std::string_view name);  // accepts torch aliases (float, long, half, ...)

inline bool is_floating(DType d) {
  return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64;
}
inline bool is_complex(DType d) { return d == DType::Complex64 || d == DType::Complex128; }
inline bool is_integral(DType d, bool include_bool = false) {
  return (include_bool && d == DType::Bool) || (d >= DType::UInt8 && d <= DType::Int64);
}
inline bool is_signed(DType d) {
  return !(d == DType::Bool || d == DType::UInt8 || d == DType::UInt16);
}

// Type promotion as in torch.promote_types.
DType promote_types(DType a, DType b);
// Whether a value of `from` can be stored into `to` (torch.can_cast).
bool can_cast(DType from, DType to);
DType to_real(DType d);     // complex64 -> float32
DType to_complex(DType d);  // float32 -> complex64

// Compile-time mapping between C++ types and dtypes.
template <typename T>
struct dtype_of;
#define TC_DTYPE_OF(E, T, N, S)              \
  template <>                                \
  struct dtype_of<T> {                       \
    static constexpr DType value = DType::E; \
  };
TC_FORALL_DTYPES(TC_DTYPE_OF)
#undef TC_DTYPE_OF
template <typename T>
constexpr DType dtype_of_v = dtype_of<T>::value;

template <DType D>
struct cpp_type;
#define TC_CPP_TYPE(E, T, N, S) \
  template <>                   \
  struct cpp_type<DType::E> {   \
    using type = T;             \
  };
TC_FORALL_DTYPES(TC_CPP_TYPE)
#undef TC_CPP_TYPE
template <DType D>
using cpp_type_t = typename cpp_type<D>::type;

template <typename T>
struct is_complex_t : std::false_type {};
template <typename T>
struct is_complex_t<std::complex<T>> : std::true_type {};
template <typename T>
constexpr bool is_complex_v = is_complex_t<T>::value;
template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_floating_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;

// The type arithmetic is done in: float for half types, T otherwise.
template <typename T>
struct acc_type {
  using type = T;
};
template <>
struct acc_type<Half> {
  using type = float;
};
template <>
struct acc_type<BFloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename acc_type<T>::type;

}  // namespace tc
