#pragma once
// vec_math building blocks: FMA/blend/bit helpers, Horner, constants, and the shared float
// helpers evaluated in double. Part of vec_math.h (include that; see its header for the methods).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

// Everything is force-inlined: the functions are large, and a single out-of-line call in a
// loop body (GCC's inliner gives up on big callees with several call sites) stops the whole
// loop from vectorizing.
#if defined(__GNUC__) || defined(__clang__)
#define TC_VM_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define TC_VM_INLINE __forceinline
#else
#define TC_VM_INLINE inline
#endif

namespace tc::vec_math {
namespace detail {

// ---------------------------------------------------------------------------------------------
// Building blocks. Everything is inline and free of control flow so the vectorizer can if-convert.

TC_VM_INLINE float mad(float a, float b, float c) {
#if defined(__FMA__) || defined(__aarch64__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}
TC_VM_INLINE double mad(double a, double b, double c) {
#if defined(__FMA__) || defined(__aarch64__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

TC_VM_INLINE uint32_t as_u32(float x) { return std::bit_cast<uint32_t>(x); }
TC_VM_INLINE float as_f32(uint32_t x) { return std::bit_cast<float>(x); }
TC_VM_INLINE uint64_t as_u64(double x) { return std::bit_cast<uint64_t>(x); }
TC_VM_INLINE double as_f64(uint64_t x) { return std::bit_cast<double>(x); }

// c ? a : b as a bitwise blend. A plain ?: on floats lets GCC sink the computation of a or b
// into a branch, and a branch containing a (possibly trapping) FP op blocks if-conversion; the
// bit form always compiles to one vblendv.
TC_VM_INLINE float select(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return as_f32((as_u32(a) & m) | (as_u32(b) & ~m));
}
TC_VM_INLINE double select(bool c, double a, double b) {
  const uint64_t m = uint64_t{0} - static_cast<uint64_t>(c);
  return as_f64((as_u64(a) & m) | (as_u64(b) & ~m));
}

TC_VM_INLINE float copysign_bits(float mag, float sgn) {
  return as_f32((as_u32(mag) & 0x7fffffffu) | (as_u32(sgn) & 0x80000000u));
}
TC_VM_INLINE double copysign_bits(double mag, double sgn) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  return as_f64((as_u64(mag) & ~kSign) | (as_u64(sgn) & kSign));
}
TC_VM_INLINE bool signbit_bits(float x) { return (as_u32(x) >> 31) != 0; }
TC_VM_INLINE bool signbit_bits(double x) { return (as_u64(x) >> 63) != 0; }

// Horner evaluation, coefficients lowest degree first.
template <typename T>
TC_VM_INLINE T poly(T, T c0) {
  return c0;
}
template <typename T, typename... Cs>
TC_VM_INLINE T poly(T x, T c0, T c1, Cs... cs) {
  return mad(poly(x, c1, static_cast<T>(cs)...), x, c0);
}

inline constexpr float kInfF = std::numeric_limits<float>::infinity();
inline constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();
inline constexpr double kInfD = std::numeric_limits<double>::infinity();
inline constexpr double kNanD = std::numeric_limits<double>::quiet_NaN();

// x + 1.5*2^23 (resp. 2^52) rounds x to an integer held in the low mantissa bits: the float
// k and the integer k come out of one add without a float->int conversion (which AVX2 lacks for
// 64-bit lanes and which is UB for NaN).
inline constexpr float kShifterF = 0x1.8p23f;
inline constexpr uint32_t kShifterBitsF = 0x4b400000u;
inline constexpr double kShifterD = 0x1.8p52;

// 2^k for integer k in [-126, 127] (float) / [-1022, 1023] (double), from the exponent field.
TC_VM_INLINE float pow2i(int32_t k) { return as_f32(static_cast<uint32_t>(k + 127) << 23); }
TC_VM_INLINE double pow2i_from_shifted(double kbig, int64_t add) {
  // kbig = k + 1.5*2^52 holds k in its low bits; shifting them into the exponent field.
  return as_f64((as_u64(kbig) << 52) + (static_cast<uint64_t>(1023 + add) << 52));
}

// e^y in double with ~2^-39 relative error, for float results computed in double.
// Valid for all y (clamped to +-700 where the float callers saturate anyway); NaN propagates.
TC_VM_INLINE double exp_for_float(double y) {
  y = select(y > 700.0, 700.0, y);
  y = select(y < -700.0, -700.0, y);
  const double kbig = mad(y, 0x1.71547652b82fep+0, kShifterD);
  const double k = kbig - kShifterD;
  double r = y - k * 0x1.62e42ff000000p-1;  // exact: |k| < 2^11, hi has 32 bits
  r = mad(k, 0x1.718432a1b0e26p-35, r);     // - k * ln2_lo (lo is negative)
  // e^r = 1 + r + r^2 P(r), |r| <= ln2/2; fit error 1.2e-12.
  const double p = poly(r, 0x1.000000005ef0fp-1, 0x1.5555557e266c0p-3, 0x1.5555541bd0414p-5,
                        0x1.1110a1c7a6c51p-7, 0x1.6c18d606584dap-10, 0x1.a186591421a2dp-13,
                        0x1.9e88259c96e63p-16);
  return (mad(r * r, p, r) + 1.0) * pow2i_from_shifted(kbig, 0);
}

// Shared float log core: x = 2^e * (1 + f), f in [sqrt(1/2)-1, sqrt(2)-1). Returns e as float
// and log1p(f) as hi + lo with |lo| << ulp(hi) (hi + lo carries ~30 good bits).
// log1p(f) = f - f^2/2 + s*(f^2/2 + R(s^2)) with s = f/(2+f): the division only scales a term
// of size f^3, so its rounding barely matters (fdlibm's formulation).
struct LogParts {
  float e, hi, lo;
};
TC_VM_INLINE LogParts log_parts(float x) {
  const bool sub = x < 0x1p-126f;  // subnormal (and <= 0, which the caller masks)
  const float xs = select(sub, x * 0x1p23f, x);
  const uint32_t ix = as_u32(xs) - 0x3f3504f3u;  // bits(sqrt(1/2))
  const int32_t e = (static_cast<int32_t>(ix) >> 23) - 23 * static_cast<int32_t>(sub);
  const float m = as_f32((ix & 0x007fffffu) + 0x3f3504f3u);  // in [sqrt(1/2), sqrt(2))
  const float f = m - 1.0f;                                  // exact
  const float s = f / (2.0f + f);
  const float z = s * s;
  // R(z) ~ (2 atanh(s) - 2s)/s; fit error 0.014 u.
  const float R = z * poly(z, 0x1.55557ap-1f, 0x1.995eap-2f, 0x1.31eap-2f);
  const float hfsq = 0.5f * f * f;
  const float y = s * (hfsq + R);
  const float hi = f - hfsq;
  const float lo = ((f - hi) - hfsq) + y;  // (f - hi) - hfsq is exact (Sterbenz)
  return {static_cast<float>(e), hi, lo};
}

TC_VM_INLINE float log_special(float x, float res) {
  // x == 0 -> -inf, x < 0 -> NaN, +inf/NaN -> x. Finite positive x keeps res.
  const float sp = select(x == 0.0f, -kInfF, select(x < 0.0f, kNanF, x + x));
  return select((x > 0.0f) & (x <= 0x1.fffffep127f), res, sp);
}

}  // namespace detail

}  // namespace tc::vec_math
