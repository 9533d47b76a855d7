#pragma once
// vec_math float functions: exp/log family, sin/cos/tan, tanh, sigmoid, sinh/cosh, erf/erfc,
// atan/atan2, pow (asin/acos share a template with double: vec_math_double.h). Part of
// vec_math.h (include that).
#include "tensorcore/kernels/cpu/vec_math_base.h"

namespace tc::vec_math {

// =============================================================================================
// float
// =============================================================================================

namespace detail {
// e^x = (hi + lo) 2^k with |lo| <= ulp(hi)/2 (~2^-30 relative accuracy); x clamped to
// [-104, 89] where the float result saturates. NaN propagates into hi.
TC_VM_INLINE float exp_parts_f(float x, int32_t& k_out, float& lo) {
  x = select(x > 89.0f, 89.0f, x);  // clamps keep k in [-150, 128]; NaN passes through
  x = select(x < -104.0f, -104.0f, x);
  const float kbig = mad(x, 0x1.715476p+0f, kShifterF);
  const float k = kbig - kShifterF;
  k_out = static_cast<int32_t>(as_u32(kbig) - kShifterBitsF);
  const float rh = x - k * 0x1.62e4p-1f;                 // exact: k has <= 8 bits, ln2_hi 15 bits
  const float r = mad(k, -0x1.7f7d1cp-20f, rh);          // ln2_lo
  const float r_err = mad(k, -0x1.7f7d1cp-20f, rh - r);  // rounding error of r
  // e^r = 1 + r + r^2 P(r); fit error 0.055 u. 1 + r is split exactly (Fast2Sum) so that only
  // the final add rounds; d e^r / dr = e^r ~ 1 + r scales the reduction error.
  const float p =
      poly(r, 0x1.fffffcp-2f, 0x1.55548ap-3f, 0x1.55584ep-5f, 0x1.123f3p-7f, 0x1.6ad158p-10f);
  const float s1 = 1.0f + r;
  const float v = ((1.0f - s1) + r) + mad(r * r, p, mad(r, r_err, r_err));
  const float hi = s1 + v;
  lo = (s1 - hi) + v;
  return hi;
}
// v * 2^k for k in [-150, 128]: 2^k in two halves, each a normal power of two; the last
// multiply rounds once, also into the subnormals.
TC_VM_INLINE float scale2_f(float v, int32_t k) {
  const int32_t k1 = k >> 1;
  return v * pow2i(k1) * pow2i(k - k1);
}
}  // namespace detail

namespace detail {
// e^r for x = k ln2 + r, |r| <= ln2/2, and kbig = k + 1.5*2^23 (k in its low bits). No clamping:
// the callers scale by 2^k and deal with |x| beyond the normal range themselves (keeping the
// select off the front of the dependency chain is worth ~20% in the vectorized loop).
TC_VM_INLINE float exp_core_f(float x, float& kbig) {
  kbig = mad(x, 0x1.715476p+0f, kShifterF);
  const float k = kbig - kShifterF;
  const float rh = x - k * 0x1.62e4p-1f;                 // exact for |k| < 2^9: ln2_hi has 15 bits
  const float r = mad(k, -0x1.7f7d1cp-20f, rh);          // ln2_lo
  const float r_err = mad(k, -0x1.7f7d1cp-20f, rh - r);  // rounding error of r (~0.25 ulp)
  // e^r = 1 + r + r^2 P(r); fit error 0.055 u.
  const float p =
      poly(r, 0x1.fffffcp-2f, 0x1.55548ap-3f, 0x1.55584ep-5f, 0x1.123f3p-7f, 0x1.6ad158p-10f);
  return (r + mad(r * r, p, r_err)) + 1.0f;
}
// |x| <= kExpFastMaxF: e^x and e^-x are normal floats, so 2^k goes straight into the exponent.
inline constexpr float kExpFastMaxF = 86.0f;
TC_VM_INLINE float exp_fast_f(float x) {
  float kbig;
  const float e = exp_core_f(x, kbig);
  return as_f32(as_u32(e) + (as_u32(kbig) << 23));
}
}  // namespace detail

// e^x. Max error 0.86 ulp. Overflow -> +inf for x > 88.72, underflow through the subnormals
// to +0 for x < -103.97. Lighter than exp_parts_f (no float-float tail): exp is the hot op of
// softmax-like code, so it trades ~0.1 ulp for ~a quarter fewer instructions.
TC_VM_INLINE float exp(float x) {
  using namespace detail;
  float kbig;
  const float e = exp_core_f(x, kbig);
  const int32_t ki = static_cast<int32_t>(as_u32(kbig) - kShifterBitsF);
  // Up to |x| = 174 the two-step scaling overflows / underflows exactly as e^x does; beyond
  // (and for +-inf, where the core gives NaN) the result is pinned. NaN propagates.
  const float res = scale2_f(e, ki);
  return select(x > 170.0f, kInfF, select(x < -170.0f, 0.0f, res));
}

// 2^x. Max error 0.88 ulp.
TC_VM_INLINE float exp2(float x) {
  using namespace detail;
  x = select(x > 129.0f, 129.0f, x);
  x = select(x < -151.0f, -151.0f, x);
  const float kbig = x + kShifterF;
  const float k = kbig - kShifterF;
  const int32_t ki = static_cast<int32_t>(as_u32(kbig) - kShifterBitsF);
  const float r = x - k;  // exact, |r| <= 1/2
  // 2^r = 1 + r Q(r); fit error 0.10 u.
  const float q = poly(r, 0x1.62e432p-1f, 0x1.ebfbe6p-3f, 0x1.c6ada8p-5f, 0x1.3b21c8p-7f,
                       0x1.5fb9p-10f, 0x1.4b6f06p-13f);
  const float er = mad(r, q, 1.0f);
  const int32_t k1 = ki >> 1;
  return er * pow2i(k1) * pow2i(ki - k1);
}

// e^x - 1, accurate near 0. Max error 0.86 ulp.
TC_VM_INLINE float expm1(float x) {
  using namespace detail;
  const float x0 = x;
  x = select(x > 89.0f, 89.0f, x);
  x = select(x < -30.0f, -30.0f, x);  // e^-30 - 1 rounds to -1
  const float kbig = mad(x, 0x1.715476p+0f, kShifterF);
  const float k = kbig - kShifterF;
  const int32_t ki = static_cast<int32_t>(as_u32(kbig) - kShifterBitsF);
  const float rh = x - k * 0x1.62e4p-1f;
  const float r = mad(k, -0x1.7f7d1cp-20f, rh);
  const float r_err = mad(k, -0x1.7f7d1cp-20f, rh - r);
  // expm1(r) = r + r^2/2 + r^3 P(r)
  const float p =
      poly(r, 0x1.555554p-3f, 0x1.5554eap-5f, 0x1.1113aap-7f, 0x1.6d4c84p-10f, 0x1.9c6536p-13f);
  const float t = mad(r * r, mad(r, p, 0.5f), mad(r, r_err, r_err));  // expm1(r) = r + t
  // e^x - 1 = 2 * (2^(k-1) (r + t) + (2^(k-1) - 1/2)). Halving the scale keeps k = 128 finite;
  // 2^(k-1) * r is exact and is added to a = 2^(k-1) - 1/2 with an exact error term
  // (Fast2Sum, |a| >= |2^(k-1) r| for k != 0), so only the last add rounds.
  const float s = pow2i(ki - 1);
  const float a = s - 0.5f;
  const float av = a - (a - s);  // TwoSum: a + aerr == s - 1/2 exactly (matters for k > 24)
  const float aerr = (s - av) + (-0.5f - (a - s));
  const float sr = s * r;
  const float h = a + sr;
  const float l = ((a - h) + sr) + aerr;
  const float res = 2.0f * (h + mad(s, t, l));
  const float e = r + t;
  return select(x0 == 0.0f, x0, select(ki == 0, e, res));  // keeps -0
}

// Natural log. Max error 0.83 ulp. log(0) = -inf, log(x<0) = NaN.
TC_VM_INLINE float log(float x) {
  using namespace detail;
  const LogParts lp = log_parts(x);
  // e*ln2_hi is exact (ln2_hi has 15 bits, |e| <= 152); ln2_lo joins the small terms.
  const float res = mad(lp.e, 0x1.62e4p-1f, lp.hi + mad(lp.e, 0x1.7f7d1cp-20f, lp.lo));
  return log_special(x, res);
}

// log2. Max error 0.91 ulp; exact for powers of two.
TC_VM_INLINE float log2(float x) {
  using namespace detail;
  const LogParts lp = log_parts(x);
  // (hi + lo) * log2(e) with log2(e) split so the dominant product is rounded only once.
  constexpr float kHi = 0x1.715476p+0f, kLo = 0x1.4ae0cp-26f;
  const float t = mad(lp.hi, kHi, mad(lp.hi, kLo, lp.lo * kHi));
  return log_special(x, lp.e + t);
}

// log10. Max error 0.90 ulp.
TC_VM_INLINE float log10(float x) {
  using namespace detail;
  const LogParts lp = log_parts(x);
  constexpr float kHi = 0x1.bcb7b2p-2f, kLo = -0x1.5b235ep-27f;   // 1/ln(10)
  constexpr float kL2Hi = 0x1.3442p-2f, kL2Lo = -0x1.95ec1p-19f;  // log10(2), hi 14 bits
  const float t = mad(lp.hi, kHi, mad(lp.hi, kLo, lp.lo * kHi));
  return log_special(x, mad(lp.e, kL2Hi, t + lp.e * kL2Lo));
}

// log(1 + x), accurate near 0. Max error 0.83 ulp.
TC_VM_INLINE float log1p(float x) {
  using namespace detail;
  const float u = 1.0f + x;
  // Exact rounding error of 1 + x (TwoSum); err/u corrects log(u) to log(1 + x).
  const float bv = u - 1.0f;
  const float err = (1.0f - (u - bv)) + (x - bv);
  const LogParts lp = log_parts(u);  // u >= 2^-24 on the valid domain: never subnormal
  const float lo = lp.lo + err / u;
  const float res = mad(lp.e, 0x1.62e4p-1f, lp.hi + mad(lp.e, 0x1.7f7d1cp-20f, lo));
  const float sp = select(x == -1.0f, -kInfF, select(x < -1.0f, kNanF, x + x));
  return select(x == 0.0f, x, select((x > -1.0f) & (x <= 0x1.fffffep127f), res, sp));
}

// True when sin/cos/tan(x) take the exact fast reduction (|x| <= 2^25). Outside, the scalar
// functions are inaccurate (except inf/NaN -> NaN); callers must use libm for those elements or
// call the *_array helpers, which do.
TC_VM_INLINE bool sin_cos_fast_ok(float x) { return std::fabs(x) <= 0x1p25f; }

namespace detail {
// sin(r) for |r| <= pi/2 + tiny, in double, relative error 2^-35 (float callers).
TC_VM_INLINE double sin_poly_f(double r) {
  const double z = r * r;
  const double p = poly(z, -0x1.5555554767196p-3, 0x1.11110c49600cbp-7, -0x1.a017d96a05197p-13,
                        0x1.717078fcb6e1ap-19, -0x1.9a67e246f9442p-26);
  // r + r^3 p has the sign of r for r != 0; r = 0 (only from x = +-0) gives +0, and sin()
  // restores -0 on the float result (2 float ops instead of a double copysign per half).
  return mad(r * z, p, r);
}
// x - q*pi/2 for integer |q| < 2^25 (float x widened to double). The 28-bit pieces make every
// q*piece exact; x - q*P1 is exact by Sterbenz-like spacing, later steps round at ~2^-53 |r|.
TC_VM_INLINE double reduce_pio2_f(double x, double q) {
#if defined(__FMA__) || defined(__aarch64__)
  // With FMA two steps suffice: each fma rounds once, at 2^-53 relative to its result, and the
  // double-double pi/2 (P1 + P2, good to 2^-107) leaves |q| 2^-107 <= 2^-81 absolute error, far
  // below 2^-53 |r| for the float inputs' smallest reduced argument (~2^-30).
  return std::fma(-q, 0x1.1a62633145c07p-54, std::fma(-q, 0x1.921fb54442d18p+0, x));
#else
  // Pieces are truncations (all positive), so q = 0 leaves x untouched, -0 included.
  double r = x - q * 0x1.921fb54p+0;
  r = r - q * 0x1.10b461p-30;
  r = r - q * 0x1.a62633p-58;
  return r - q * 0x1.45c06e0e68948p-86;
#endif
}
}  // namespace detail

// sin. Max error 0.5 ulp for |x| <= 2^25 (see sin_cos_fast_ok). sin(+-inf) = NaN.
TC_VM_INLINE float sin(float xf) {
  using namespace detail;
  const double x = xf;
  const double kbig = mad(x, 0x1.45f306dc9c883p-2, kShifterD);  // k = rint(x/pi)
  const double k = kbig - kShifterD;
  const uint64_t neg = as_u64(kbig) << 63;  // (-1)^k
  const double r = reduce_pio2_f(x, 2.0 * k);
  return select(xf == 0.0f, xf, static_cast<float>(as_f64(as_u64(sin_poly_f(r)) ^ neg)));
}

// cos. Max error 0.5 ulp for |x| <= 2^25.
TC_VM_INLINE float cos(float xf) {
  using namespace detail;
  const double x = xf;
  // x = (k + 1/2) pi + r  =>  cos(x) = (-1)^(k+1) sin(r)
  const double kbig = mad(x, 0x1.45f306dc9c883p-2, -0.5) + kShifterD;
  const double k = kbig - kShifterD;
  const uint64_t neg = (as_u64(kbig) << 63) ^ (uint64_t{1} << 63);
  const double r = reduce_pio2_f(x, mad(2.0, k, 1.0));
  return static_cast<float>(as_f64(as_u64(sin_poly_f(r)) ^ neg));
}

// tan. Max error 0.5 ulp for |x| <= 2^25.
TC_VM_INLINE float tan(float xf) {
  using namespace detail;
  const double x = xf;
  const double kbig = mad(x, 0x1.45f306dc9c883p-1, kShifterD);  // k = rint(2x/pi)
  const double k = kbig - kShifterD;
  const bool odd = (as_u64(kbig) & 1) != 0;
  const double r = reduce_pio2_f(x, k);  // |r| <= pi/4
  const double z = r * r;
  const double s = copysign_bits(mad(r * z,
                                     poly(z, -0x1.5555554c6f881p-3, 0x1.11110868b1102p-7,
                                          -0x1.a00f7dc93c03dp-13, 0x1.6cd19e44dfdf6p-19),
                                     r),
                                 r);
  const double c = mad(z * z,
                       poly(z, 0x1.5555554ed7d12p-5, -0x1.6c16b82840181p-10, 0x1.a010dd9b74048p-16,
                            -0x1.241e5c6db41bep-22),
                       mad(z, -0.5, 1.0));
  // tan(x) = s/c for even k, -c/s for odd k.
  return static_cast<float>(select(odd, -c, s) / select(odd, s, c));
}

namespace detail {
// (n_hi + n_lo) / (d_hi + d_lo) with one division; the quotient's rounding error is recovered
// from an FMA residual.
TC_VM_INLINE float div_ff(float n_hi, float n_lo, float d_hi, float d_lo) {
  const float inv = 1.0f / d_hi;
  const float q = n_hi * inv;
  const float rem = mad(-q, d_hi, n_hi) + (n_lo - q * d_lo);
  return mad(rem, inv, q);
}
}  // namespace detail

// tanh. Max error 0.79 ulp. |x| < 0.625: odd polynomial; above: 1 - 2/(e^2|x| + 1) with e^2|x|
// and the quotient carried in float-float.
TC_VM_INLINE float tanh(float x) {
  using namespace detail;
  const float a = std::fabs(x);
  const float z = a * a;
  // tanh(a) = a + a^3 P(a^2); fit error 0.003 u.
  const float small = mad(a * z,
                          poly(z, -0x1.555554p-2f, 0x1.11107ap-3f, -0x1.b9f188p-5f, 0x1.63a55p-6f,
                               -0x1.0c5edp-7f, 0x1.1a2816p-9f),
                          a);
  int32_t k;
  float e_lo;
  const float e_hi = exp_parts_f(2.0f * select(a > 20.0f, 20.0f, a), k, e_lo);
  const float E = scale2_f(e_hi, k), E_lo = scale2_f(e_lo, k);  // e^2a >= 3.4, no subnormals
  const float d = E + 1.0f;                                     // Fast2Sum: E >= 1
  const float d_lo = ((E - d) + 1.0f) + E_lo;
  const float q = div_ff(2.0f, 0.0f, d, d_lo);
  return copysign_bits(select(a < 0.625f, small, 1.0f - q), x);
}

// Logistic sigmoid 1/(1 + e^-x), stable for all x (0 and 1 at the extremes, no NaN from
// inf/inf): only E = e^-|x| <= 1 is computed, then 1/(1 + E) or E/(1 + E) with one plain
// division. Max error 2.3 ulp, the accuracy class of PyTorch's vectorized 1/(1 + e^-x) (2.37
// ulp on the same sweep); the float-float quotient it replaces (0.80 ulp) took twice the time.
TC_VM_INLINE float sigmoid(float x) {
  using namespace detail;
  const float E = vec_math::exp(-std::fabs(x));
  return select(x < 0.0f, E, 1.0f) / (1.0f + E);
}

// sinh. Max error 0.5 ulp; overflows to inf exactly where the true result does.
TC_VM_INLINE float sinh(float xf) {
  using namespace detail;
  const double x = xf;
  const double a = std::fabs(x);
  const double E = exp_for_float(a);
  const double big = 0.5 * (E - 1.0 / E);
  const double z = a * a;
  // |a| < 1/4: Taylor to a^9, relative error < 2^-45.
  const double small = mad(a * z, poly(z, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880), a);
  return static_cast<float>(copysign_bits(select(a < 0.25, small, big), x));
}

// cosh. Max error 0.5 ulp.
TC_VM_INLINE float cosh(float xf) {
  using namespace detail;
  const double E = detail::exp_for_float(std::fabs(static_cast<double>(xf)));
  return static_cast<float>(0.5 * (E + 1.0 / E));
}

namespace detail {
// erfc(a) for a >= 0 in double, relative error ~2^-28: t = 2/(2+a),
// erfc(a) = t * exp(-a^2 + G(t)) (Numerical Recipes' erfcc form with a refitted G).
TC_VM_INLINE double erfc_pos_f(double a) {
  const double t = 2.0 / (2.0 + a);
  const double g = poly(t, -0x1.43fabc78c320fp+0, 0x1.003c538b290aap+0, 0x1.74715aebb62b4p-2,
                        0x1.4c1aec4f133b9p-3, -0x1.b9ccf031a5880p-2, 0x1.acea2b8616168p-1,
                        -0x1.dea84f302c568p+0, 0x1.e4b66e496389cp+0, -0x1.28cda030a5f8cp-1,
                        -0x1.7bbaa05d946dap-2, 0x1.55fed6a6abc66p-2, -0x1.31b81abf362edp-4);
  return t * exp_for_float(g - a * a);  // a*a is exact for a float a
}
}  // namespace detail

// erf. Max error 0.51 ulp. erf(+-inf) = +-1.
TC_VM_INLINE float erf(float xf) {
  using namespace detail;
  const double x = xf;
  const double a = std::fabs(x);
  const double z = a * a;
  // |x| < 3/4: erf(x) = x P(x^2); above, 1 - erfc(|x|) loses nothing.
  const double small =
      a * poly(z, 0x1.20dd7504293e1p+0, -0x1.812746ae90c7dp-2, 0x1.ce2f20abd5c85p-4,
               -0x1.b82cacffc45bbp-6, 0x1.5655e6265e556p-8, -0x1.bf7980bf58257p-11,
               0x1.ed9bb45585b7bp-14, -0x1.873e0dbb88aabp-17);
  const double big = 1.0 - erfc_pos_f(select(a > 10.0, 10.0, a));
  return static_cast<float>(copysign_bits(select(a < 0.75, small, big), x));
}

// erfc. Max error 0.55 ulp (relative accuracy also deep in the tail, down to the subnormals).
TC_VM_INLINE float erfc(float xf) {
  using namespace detail;
  const double x = xf;
  const double a = std::fabs(x);
  const double e = erfc_pos_f(select(a > 11.0, 11.0, a));  // erfc(11) underflows a float
  return static_cast<float>(select(signbit_bits(x), 2.0 - e, e));
}

namespace detail {
// base + (t + c) where base = hi + lo is 0, pi/2 or pi, |t| <= |hi| (or hi = 0) and c is a small
// correction: hi + t is split exactly (Fast2Sum), so the result is rounded essentially once.
// This is what keeps atan/asin/acos at ~0.6 ulp instead of 1-2 ulp.
TC_VM_INLINE float add_base(float hi, float lo, float t, float c) {
  const float h = hi + t;
  const float l = (hi - h) + t;
  return h + ((l + lo) + c);
}
inline constexpr float kPiHiF = 0x1.921fb6p+1f, kPiLoF = -0x1.777a5cp-24f;
inline constexpr float kPio2HiF = 0x1.921fb6p+0f, kPio2LoF = -0x1.777a5cp-25f;

inline constexpr float kPio4HiF = 0x1.921fb6p-1f, kPio4LoF = -0x1.777a5cp-26f;

// TwoSum: a + b == s + err exactly.
TC_VM_INLINE float two_sum(float a, float b, float& err) {
  const float s = a + b;
  const float bv = s - a;
  err = (a - (s - bv)) + (b - bv);
  return s;
}

// atan(n/d) = t + c for |n/d| <= tan(pi/8) + tiny, with n = n + n_lo and d = d + d_lo given as
// float-float. t = fl(n/d); c holds the polynomial part plus the quotient's rounding error
// (recovered from an FMA residual) times 1/(1 + t^2).
TC_VM_INLINE void atan_core(float n, float n_lo, float d, float d_lo, float& t, float& c) {
  const float inv = 1.0f / d;
  t = n * inv;
  const float t_lo = (mad(-d, t, n) + (n_lo - d_lo * t)) * inv;
  const float z = t * t;
  // atan(t) = t + t^3 P(t^2) on |t| <= tan(pi/8); fit error 0.012 u.
  const float p =
      poly(z, -0x1.55554ap-2f, 0x1.9991e2p-3f, -0x1.23b99cp-3f, 0x1.b2239ap-4f, -0x1.f2e012p-5f);
  c = mad(t * z, p, t_lo * mad(z, z - 1.0f, 1.0f));
}
}  // namespace detail

// atan. Max error 0.65 ulp. Three ranges so the polynomial part stays small:
// a <= tan(pi/8): atan(a); a <= tan(3pi/8): pi/4 + atan((a-1)/(a+1)); else pi/2 - atan(1/a).
TC_VM_INLINE float atan(float x) {
  using namespace detail;
  float a = std::fabs(x);
  a = select(a > 0x1p60f, 0x1p60f, a);  // atan(2^60) rounds to pi/2 already; avoids inf/inf
  const bool mid = a > 0x1.a8279ap-2f, big = a > 0x1.3504f4p+1f;
  float n_lo, d_lo;
  const float n_m = two_sum(a, -1.0f, n_lo);
  const float d_m = two_sum(a, 1.0f, d_lo);
  const bool use_m = mid & !big;
  float t, c;
  atan_core(select(big, -1.0f, select(mid, n_m, a)), select(use_m, n_lo, 0.0f),
            select(big, a, select(mid, d_m, 1.0f)), select(use_m, d_lo, 0.0f), t, c);
  const float res = add_base(select(big, kPio2HiF, select(mid, kPio4HiF, 0.0f)),
                             select(big, kPio2LoF, select(mid, kPio4LoF, 0.0f)), t, c);
  return copysign_bits(res, x);
}

// atan2(y, x) with all C99 special cases (signed zeros, infinities). Max error 0.6 ulp.
TC_VM_INLINE float atan2(float y, float x) {
  using namespace detail;
  float ax = std::fabs(x), ay = std::fabs(y);
  // Both zero or both infinite: the answer only depends on signs and equals atan2 of
  // magnitudes (0, 1) resp. (1, 1), so substitute those. One infinite: angle 0 or pi/2.
  const bool both_inf = (ax == kInfF) & (ay == kInfF);
  const bool both_zero = (ax == 0.0f) & (ay == 0.0f);
  ax = select(both_inf | both_zero, 1.0f, ax);
  ay = select(both_inf, 1.0f, ay);
  const bool swap = ay > ax;
  float mx = select(swap, ay, ax), mn = select(swap, ax, ay);
  // Quotients below 2^-60 (atan(t) == t in float): the correctly rounded y/x is the answer,
  // also when it is subnormal, where the scaled path below would round twice.
  const float direct = ay / ax;
  const bool tiny = !swap & (mn < 0x1p-60f * mx);
  const bool mx_inf = mx == kInfF;
  mn = select(mx_inf, 0.0f, mn);
  mx = select(mx_inf, 1.0f, mx);
  // Scale both into mx in [1/2, 1) (exact powers of two, in two steps for extreme exponents):
  // no overflow in mn + mx, no subnormal 1/mx.
  const float pre = select(mx < 0x1p-100f, 0x1p100f, select(mx > 0x1p100f, 0x1p-100f, 1.0f));
  mx = mx * pre;
  mn = mn * pre;
  const float scale = as_f32(0x7e800000u - (as_u32(mx) & 0x7f800000u));
  mx = mx * scale;
  mn = mn * scale;
  // mn/mx > tan(pi/8): pi/4 + atan((mn - mx)/(mn + mx)).
  const bool mid = mn > 0x1.a8279ap-2f * mx;
  float n_lo, d_lo;
  const float n_m = two_sum(mn, -mx, n_lo);
  const float d_m = two_sum(mn, mx, d_lo);
  float t, c;
  atan_core(select(mid, n_m, mn), select(mid, n_lo, 0.0f), select(mid, d_m, mx),
            select(mid, d_lo, 0.0f), t, c);
  // angle = b + (t + c), b in {0, pi/4}; swap: pi/2 - angle; x < 0: pi - angle. As
  // q * pi/4 +- (t + c) with q in 0..4 (q * pi/4 split is exact).
  const bool xneg = signbit_bits(x);
  const bool negate = swap != xneg;
  float q = select(mid, 1.0f, 0.0f);
  q = select(swap, 2.0f - q, q);
  q = select(xneg, 4.0f - q, q);
  // q * pi/4 is exact in hi/lo except for q = 3, which gets its own split.
  const bool q3 = q == 3.0f;
  float res =
      add_base(select(q3, 0x1.2d97c8p+1f, q * kPio4HiF), select(q3, -0x1.99bc5cp-28f, q * kPio4LoF),
               select(negate, -t, t), select(negate, -c, c));
  res = select(tiny & !xneg, direct, res);
  return select((x != x) | (y != y), x + y, copysign_bits(res, y));
}

namespace detail {
// asin(v) for v in [0, 1/2] as s + c: s = v, or for the large-argument identity
// s = sqrt(z) rounded, with its rounding error (FMA residual) folded into c.
// asin(v) = v + v^3 P(v^2), fit error 0.08 u.
TC_VM_INLINE void asin_core(float a, bool big, float& s, float& c) {
  const float zb = 0.5f * (1.0f - a);  // exact for a in [1/2, 1]
  const float zc = select(zb > 0.0f, zb, 0.0f);
  float y = as_f32(0x5f375a86u - (as_u32(zc) >> 1));  // 1/sqrt(zc), 2 Newton steps
  y = y * (1.5f - 0.5f * zc * y * y);
  y = y * (1.5f - 0.5f * zc * y * y);
  const float sq0 = zc * y;
  const float sq = mad(mad(-sq0, sq0, zc), 0.5f * y, sq0);  // ~correctly rounded sqrt(zc)
  const float sq_lo = mad(-sq, sq, zc) * (0.5f * y);        // sqrt(zc) - sq
  s = select(big, sq, a);
  const float z = select(big, zb, a * a);
  const float p =
      poly(z, 0x1.5555c8p-3f, 0x1.330204p-4f, 0x1.747bbap-5f, 0x1.8c3e28p-6f, 0x1.595c92p-5f);
  // d asin/ds = 1/sqrt(1 - z) ~ 1 + z/2 is accurate enough for the sqrt's residual.
  c = mad(s * z, p, select(big, sq_lo * mad(0.5f, z, 1.0f), 0.0f));
}
}  // namespace detail

namespace detail {
// log2(a) in double for a float a > 0 (widened), relative error ~2^-50: what pow needs so that
// y * log2(a) stays exact to ~2^-40 even for |y log2 a| ~ 150.
TC_VM_INLINE double log2_for_float(double a) {
  const uint64_t ix = as_u64(a) - 0x3fe6a09e667f3bcdull;  // bits(sqrt(1/2))
  // Exponent via the shifter trick (AVX2 has no int64 -> double conversion): bias it to a
  // positive 12-bit field, OR it under 2^52's exponent and subtract.
  const uint64_t ebits = ((ix + (uint64_t{2048} << 52)) >> 52) | 0x4330000000000000ull;
  const double e = as_f64(ebits) - (0x1p52 + 2048.0);
  const double m = as_f64((ix & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double R = z * poly(z, 0x1.5555555555595p-1, 0x1.999999997ee41p-2, 0x1.24924942de3c0p-2,
                            0x1.c71c513ad8c29p-3, 0x1.74666bf4aa54ap-3, 0x1.399ceee52382fp-3,
                            0x1.2f382aba2f2a1p-3);
  const double hfsq = 0.5 * f * f;
  const double l1p = f - (hfsq - s * (hfsq + R));
  return mad(l1p, 0x1.71547652b82fep+0, e);
}
}  // namespace detail

// x^y with the C99 special cases (pow(x, +-0) = 1, pow(1, y) = 1, pow(-1, +-inf) = 1,
// negative x only for integer y, signed zeros/infinities by parity of y). Computed as
// 2^(y log2|x|) in double. Max error 0.5 ulp. Vectorizes, but costs about as much as glibc's
// scalar powf (a double division and two polynomials per element).
TC_VM_INLINE float pow(float x, float y) {
  using namespace detail;
  // Only the magnitude is computed in double; all special-case logic stays in float lanes (mixing
  // float conditions into double selects costs more than the math).
  const float ax = std::fabs(x);
  const double w =
      static_cast<double>(y) * log2_for_float(static_cast<double>(select(ax > 0.0f, ax, 1.0f)));
  float mag = static_cast<float>(exp_for_float(w * 0x1.62e42fefa39efp-1));
  // |x| = 0 or inf: the log above was masked; the magnitude is 0 or inf by sign of y.
  const bool x_zero = ax == 0.0f, x_inf = ax == kInfF;
  mag = select(x_zero | x_inf, select((y < 0.0f) == x_zero, kInfF, 0.0f), mag);
  // Integer and odd tests on y: |y| >= 2^24 is an even integer; below, round via the shifter.
  const float ay = std::fabs(y);
  const float yr_big = ay + 0x1p23f;  // rint(ay) in the low mantissa bits for ay < 2^23
  const bool small = ay < 0x1p23f;
  const bool y_int = (ay >= 0x1p23f) | ((yr_big - 0x1p23f) == ay);
  const bool y_odd = y_int & (ay < 0x1p24f) & (((small ? as_u32(yr_big) : as_u32(ay)) & 1u) != 0);
  float res = select(signbit_bits(x) & y_odd, -mag, mag);
  // Negative finite x with non-integer y: NaN.
  res = select((x < 0.0f) & !x_inf & !y_int, kNanF, res);
  // y = +-inf: |x| == 1 -> 1, else 0 or inf by |x| < 1 and sign of y.
  const float inf_res = select(ax == 1.0f, 1.0f, select((ax < 1.0f) == (y < 0.0f), kInfF, 0.0f));
  res = select(ay == kInfF, inf_res, res);
  res = select((x != x) | (y != y), kNanF, res);
  return select((y == 0.0f) | (x == 1.0f), 1.0f, res);
}
}  // namespace tc::vec_math
