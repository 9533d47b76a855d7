#pragma once
// 16-bit float types stored as raw bits; arithmetic goes through float.
#include <cstdint>
#include <cstring>
#include <limits>

namespace tc {

namespace detail {
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace detail

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }

  static float to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return detail::bits_f32(sign | 0x7f800000u | (man << 13));  // inf/nan
    if (exp == 0) {
      if (man == 0) return detail::bits_f32(sign);
      // Subnormal half: value = man * 2^-24, exact in float.
      float v = float(man) * 5.9604644775390625e-8f;
      return sign ? -v : v;
    }
    return detail::bits_f32(sign | ((exp + 112) << 23) | (man << 13));
  }
  // Round to nearest even, like hardware conversion.
  static uint16_t from_float(float f) {
    uint32_t x = detail::f32_bits(f);
    uint16_t sign = uint16_t((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return uint16_t(sign | 0x7e00);   // nan
    if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // overflow -> inf
    if (ax < 0x38800000u) {                                 // subnormal or zero in half
      // Adding 0.5 (2^-1) aligns the mantissa so float rounding does RNE for us.
      float v = detail::bits_f32(ax) + 0.5f;
      return uint16_t(sign | (detail::f32_bits(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (ax >> 13) & 1;
    ax += 0xc8000fffu + mant_odd;  // rebias exponent (-112<<23) and round
    return uint16_t(sign | (ax >> 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(from_float(f)) {}
  operator float() const { return detail::bits_f32(uint32_t(bits) << 16); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  static uint16_t from_float(float f) {
    uint32_t x = detail::f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);  // keep nan quiet
    x += 0x7fffu + ((x >> 16) & 1);  // round to nearest even
    return uint16_t(x >> 16);
  }
};

}  // namespace tc

namespace std {
template <>
class numeric_limits<tc::Half> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false,
                        has_infinity = true, has_quiet_NaN = true;
  static tc::Half lowest() { return tc::Half::from_bits(0xfbff); }
  static tc::Half max() { return tc::Half::from_bits(0x7bff); }
  static tc::Half min() { return tc::Half::from_bits(0x0400); }
  static tc::Half epsilon() { return tc::Half::from_bits(0x1400); }
  static tc::Half infinity() { return tc::Half::from_bits(0x7c00); }
  static tc::Half quiet_NaN() { return tc::Half::from_bits(0x7e00); }
};
template <>
class numeric_limits<tc::BFloat16> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false,
                        has_infinity = true, has_quiet_NaN = true;
  static tc::BFloat16 lowest() { return tc::BFloat16::from_bits(0xff7f); }
  static tc::BFloat16 max() { return tc::BFloat16::from_bits(0x7f7f); }
  static tc::BFloat16 min() { return tc::BFloat16::from_bits(0x0080); }
  static tc::BFloat16 epsilon() { return tc::BFloat16::from_bits(0x3c00); }
  static tc::BFloat16 infinity() { return tc::BFloat16::from_bits(0x7f80); }
  static tc::BFloat16 quiet_NaN() { return tc::BFloat16::from_bits(0x7fc0); }
};
}  // namespace std
