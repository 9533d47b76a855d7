#pragma once
// Turning Philox words into random values, shared by the CPU kernels (kernels/cpu/
// random_kernels.cpp, where GCC vectorizes loops over these branch-free functions) and the CUDA
// kernels (kernels/cuda/random.cu), so both devices draw the same values for a (seed, offset).
//
// Stream layout. An op's Philox subsequence is cut into groups of kGroupBlocks = 8 consecutive
// blocks (4 words each). Word k of block 8g + l is lane l of the group's word vector k, and the
// group's values are laid out vector by vector:
//  - one word per value (float/half/bfloat16 uniform and exponential, bernoulli): 32 values per
//    group, value 32g + 8k + l from word k of block 8g + l;
//  - two words per value (float64 uniform and exponential, integers): 16 values per group,
//    value 16g + 8j + l from words 2j, 2j+1 of block 8g + l;
//  - float normal: Box-Muller on words (2j, 2j+1) gives the pair 32g + 16j + l (the cosine
//    branch) and 32g + 16j + 8 + l (the sine branch);
//  - float64 normal: words (0, 1) are the radius' uniform and (2, 3) the angle's, giving
//    16g + l and 16g + 8 + l.
// Value i therefore depends only on (seed, offset, i), never on how the work is split.
//
// The math (log of a uniform in (0, 1], sin and cos of 2 pi v for v in [0, 1)) is written for
// exactly these arguments: no special cases, no argument reduction error (v - q/4 is exact), so
// it is short, branch-free and within about 1 ulp (measured in tests/python/core/
// test_random_streams.py). Every multiply-add is an explicit fma so the host compiler and nvcc
// round the same way.
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TC_RNG_FN __host__ __device__ __forceinline__
#elif defined(__GNUC__) || defined(__clang__)
#define TC_RNG_FN inline __attribute__((always_inline))
#else
#define TC_RNG_FN inline
#endif

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace tc::rng {

inline constexpr int kGroupBlocks = 8;
inline constexpr int kValuesPerGroup1 = 32;  // one word per value
inline constexpr int kValuesPerGroup2 = 16;  // two words per value

TC_RNG_FN float fma_(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
TC_RNG_FN double fma_(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
TC_RNG_FN float sqrt_(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}
TC_RNG_FN double sqrt_(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}
TC_RNG_FN uint32_t bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
#endif
}
TC_RNG_FN float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, 4);
  return x;
#endif
}
TC_RNG_FN uint64_t bits(double x) {
#if defined(__CUDA_ARCH__)
  return uint64_t(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
#endif
}
TC_RNG_FN double f64_from_bits(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(int64_t(u));
#else
  double x;
  std::memcpy(&x, &u, 8);
  return x;
#endif
}
// c ? a : b on the bits: always a blend, never a branch the vectorizer must if-convert.
TC_RNG_FN float select(bool c, float a, float b) {
  const uint32_t m = 0u - uint32_t(c);
  return f32_from_bits((bits(a) & m) | (bits(b) & ~m));
}
TC_RNG_FN double select(bool c, double a, double b) {
  const uint64_t m = uint64_t{0} - uint64_t(c);
  return f64_from_bits((bits(a) & m) | (bits(b) & ~m));
}
TC_RNG_FN float negate_if(bool c, float x) { return f32_from_bits(bits(x) ^ (uint32_t(c) << 31)); }
TC_RNG_FN double negate_if(bool c, double x) {
  return f64_from_bits(bits(x) ^ (uint64_t(c) << 63));
}
// uint32 -> double exactly with the signed conversion AVX2 has.
TC_RNG_FN double u32_to_double(uint32_t x) { return double(int32_t(x ^ 0x80000000u)) + 0x1p31; }

// ---- uniforms ---------------------------------------------------------------------------------

// [0, 1) on the 2^-24 grid.
TC_RNG_FN float unit_f(uint32_t w) { return float(int32_t(w >> 8)) * 0x1p-24f; }
// (0, 1]: the 31 high bits plus half a step, rounded to float (fine steps near 0 keep the
// log's tail: the smallest value is 2^-32).
TC_RNG_FN float open_unit_f(uint32_t w) { return fma_(float(int32_t(w >> 1)), 0x1p-31f, 0x1p-32f); }
// [0, 1) on the 2^-53 grid (53 bits: 32 of hi, 21 of lo).
TC_RNG_FN double unit_d(uint32_t hi, uint32_t lo) {
  return fma_(u32_to_double(hi), 0x1p-32, double(int32_t(lo >> 11)) * 0x1p-53);
}
// (0, 1]: all 64 bits plus half a step, rounded to double (smallest value 2^-65).
TC_RNG_FN double open_unit_d(uint32_t hi, uint32_t lo) {
  return fma_(u32_to_double(hi), 0x1p-32, fma_(u32_to_double(lo), 0x1p-64, 0x1p-65));
}

// ---- log of u in (0, 1] -------------------------------------------------------------------------
// u = 2^e m with m in [sqrt(1/2), sqrt(2)); log(m) = log1p(f), f = m - 1, through
// s = f / (2 + f): log1p(f) = f - hfsq + s (hfsq + R(s^2)), R(z) = 2z/3 + 2z^2/5 + ... (the
// atanh series, |s| < 0.172, truncated below 2^-60 relative for double and 2^-32 for float).

TC_RNG_FN float log_unit_f(float u) {
  const uint32_t ix = bits(u) - 0x3f3504f3u;  // bits(sqrt(1/2))
  const float e = float(int32_t(ix) >> 23);
  const float f = f32_from_bits((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float R = z * fma_(fma_(fma_(z, 2.0f / 9, 2.0f / 7), z, 2.0f / 5), z, 2.0f / 3);
  const float hfsq = 0.5f * f * f;
  const float hi = f - hfsq;
  const float lo = s * (hfsq + R);
  // ln2 = 0x1.62e4p-1 (16 bits: e * hi is exact) + 0x1.7f7d1cp-20
  return fma_(e, 0x1.62e4p-1f, hi + fma_(e, 0x1.7f7d1cp-20f, lo));
}

TC_RNG_FN double log_unit_d(double u) {
  const uint64_t ix = bits(u) - 0x3fe6a09e667f3bcdull;  // bits(sqrt(1/2))
  // The exponent as a double without a 64-bit arithmetic shift or int64 -> double (not in
  // AVX2): bias it positive and read it as the low bits of 2^52 + (e + 2048).
  const double e = f64_from_bits(((ix + (uint64_t{2048} << 52)) >> 52) | 0x4330000000000000ull) -
                   (0x1p52 + 2048.0);
  const double f = f64_from_bits((ix & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull) - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 2.0 / 23;
  p = fma_(p, z, 2.0 / 21);
  p = fma_(p, z, 2.0 / 19);
  p = fma_(p, z, 2.0 / 17);
  p = fma_(p, z, 2.0 / 15);
  p = fma_(p, z, 2.0 / 13);
  p = fma_(p, z, 2.0 / 11);
  p = fma_(p, z, 2.0 / 9);
  p = fma_(p, z, 2.0 / 7);
  p = fma_(p, z, 2.0 / 5);
  p = fma_(p, z, 2.0 / 3);
  const double R = z * p;
  const double hfsq = 0.5 * f * f;
  const double hi = f - hfsq;
  const double lo = s * (hfsq + R);
  // ln2 = 0x1.62e42fefa3ap-1 (44 bits: e * hi is exact for |e| <= 512) + lo
  return fma_(e, 0x1.62e42fefa3a00p-1, hi + fma_(e, -0x1.0ca86c3898d00p-49, lo));
}

// ---- sin and cos of 2 pi v, v in [0, 1) ---------------------------------------------------------
// v = q/4 + t with q = rint(4v) and t in [-1/8, 1/8] exactly; S = sin(2 pi t), C = cos(2 pi t)
// by their Taylor series in t (truncation below 2^-28 relative for float, 2^-60 for double),
// then the quadrant q rotates (S, C).

TC_RNG_FN void sincos_2pi_f(float v, float& sin_out, float& cos_out) {
  const float q = float(int32_t(fma_(v, 4.0f, 0.5f)));  // round(4v) for v >= 0
  const float t = fma_(q, -0.25f, v);                   // exact
  const float t2 = t * t;
  // sin(2 pi t) = 2 pi t + t^3 P(t^2); 2 pi split in two floats.
  float ps = 0x1.507834p+5f;
  ps = fma_(ps, t2, -0x1.32d2ccp+6f);
  ps = fma_(ps, t2, 0x1.466bc6p+6f);
  ps = fma_(ps, t2, -0x1.4abbcep+5f);
  const float S = fma_(0x1.921fb6p+2f, t, fma_(-0x1.777a5cp-23f, t, t * t2 * ps));
  float pc = -0x1.a6d1f2p+4f;
  pc = fma_(pc, t2, 0x1.e1f506p+5f);
  pc = fma_(pc, t2, -0x1.55d3c8p+6f);
  pc = fma_(pc, t2, 0x1.03c1f0p+6f);
  pc = fma_(pc, t2, -0x1.3bd3ccp+4f);
  const float C = fma_(pc, t2, 1.0f);
  const bool odd = (q == 1.0f) | (q == 3.0f);
  sin_out = negate_if((q == 2.0f) | (q == 3.0f), select(odd, C, S));
  cos_out = negate_if((q == 1.0f) | (q == 2.0f), select(odd, S, C));
}

TC_RNG_FN void sincos_2pi_d(double v, double& sin_out, double& cos_out) {
  const double q = double(int32_t(fma_(v, 4.0, 0.5)));
  const double t = fma_(q, -0.25, v);
  const double t2 = t * t;
  double ps = 0x1.aaec32af93359p-4;
  ps = fma_(ps, t2, -0x1.6fadb9f155744p-1);
  ps = fma_(ps, t2, 0x1.e8f434d018d63p+1);
  ps = fma_(ps, t2, -0x1.e3074fde8871fp+3);
  ps = fma_(ps, t2, 0x1.50783487ee782p+5);
  ps = fma_(ps, t2, -0x1.32d2cce62bd86p+6);
  ps = fma_(ps, t2, 0x1.466bc6775aae2p+6);
  ps = fma_(ps, t2, -0x1.4abbce625be53p+5);
  const double S = fma_(0x1.921fb54442d18p+2, t, fma_(0x1.1a62633145c07p-52, t, t * t2 * ps));
  double pc = 0x1.20c62c2f2d7f5p-2;
  pc = fma_(pc, t2, -0x1.b6e24f44b128fp+0);
  pc = fma_(pc, t2, 0x1.f9d38a3763cc3p+2);
  pc = fma_(pc, t2, -0x1.a6d1f2a204a8cp+4);
  pc = fma_(pc, t2, 0x1.e1f506891babbp+5);
  pc = fma_(pc, t2, -0x1.55d3c7e3cbffap+6);
  pc = fma_(pc, t2, 0x1.03c1f081b5ac4p+6);
  pc = fma_(pc, t2, -0x1.3bd3cc9be45dep+4);
  const double C = fma_(pc, t2, 1.0);
  const bool odd = (q == 1.0) | (q == 3.0);
  sin_out = negate_if((q == 2.0) | (q == 3.0), select(odd, C, S));
  cos_out = negate_if((q == 1.0) | (q == 2.0), select(odd, S, C));
}

// ---- distributions ------------------------------------------------------------------------------

// Box-Muller: the pair (r cos, r sin) from a radius word and an angle word.
TC_RNG_FN void normal_pair_f(uint32_t w_radius, uint32_t w_angle, float& z_cos, float& z_sin) {
  const float r = sqrt_(-2.0f * log_unit_f(open_unit_f(w_radius)));
  float s, c;
  sincos_2pi_f(unit_f(w_angle), s, c);
  z_cos = r * c;
  z_sin = r * s;
}
TC_RNG_FN void normal_pair_d(uint32_t r_hi, uint32_t r_lo, uint32_t a_hi, uint32_t a_lo,
                             double& z_cos, double& z_sin) {
  const double r = sqrt_(-2.0 * log_unit_d(open_unit_d(r_hi, r_lo)));
  double s, c;
  sincos_2pi_d(unit_d(a_hi, a_lo), s, c);
  z_cos = r * c;
  z_sin = r * s;
}

// from + (to - from) u; a value rounded up to `to` becomes `from`, so the range stays [from, to).
TC_RNG_FN float uniform_f(uint32_t w, float from, float span, float to) {
  const float r = fma_(span, unit_f(w), from);
  return select((r >= to) & (span > 0.0f), from, r);
}
TC_RNG_FN double uniform_d(uint32_t hi, uint32_t lo, double from, double span, double to) {
  const double r = fma_(span, unit_d(hi, lo), from);
  return select((r >= to) & (span > 0.0), from, r);
}

// Exponential(lambda) = -log(u) / lambda, u in (0, 1].
TC_RNG_FN float exponential_f(uint32_t w, float inv_lambda) {
  return -log_unit_f(open_unit_f(w)) * inv_lambda;
}
TC_RNG_FN double exponential_d(uint32_t hi, uint32_t lo, double inv_lambda) {
  return -log_unit_d(open_unit_d(hi, lo)) * inv_lambda;
}

// Bernoulli: a hit when word < p 2^32, i.e. word < ceil(p 2^32): probability p within 2^-32,
// p = 0 and p = 1 exact.
TC_RNG_FN uint64_t bernoulli_threshold(double p) {
  const double t = p * 0x1p32;
  const uint64_t ti = uint64_t(t);
  return ti + uint64_t(double(ti) < t);
}
TC_RNG_FN bool bernoulli_hit(uint32_t w, uint64_t threshold) { return uint64_t(w) < threshold; }

// An integer in [0, range) from 64 bits by the multiply-shift (Lemire) map: bias below
// range / 2^64. range == 0 stands for 2^64 (all the bits).
// For range < 2^32 the same value from two 32 x 32 -> 64 products (vectorizable):
// (x range) >> 64 = (hi range + (lo range >> 32)) >> 32, and the sum cannot overflow.
TC_RNG_FN uint64_t below_small(uint32_t hi, uint32_t lo, uint32_t range) {
  return (uint64_t(hi) * range + ((uint64_t(lo) * range) >> 32)) >> 32;
}
TC_RNG_FN uint64_t below(uint32_t hi, uint32_t lo, uint64_t range) {
  const uint64_t x = (uint64_t(hi) << 32) | lo;
  if (range == 0) return x;
#if defined(__CUDA_ARCH__)
  return __umul64hi(x, range);
#else
  return uint64_t((static_cast<unsigned __int128>(x) * range) >> 64);
#endif
}

}  // namespace tc::rng
