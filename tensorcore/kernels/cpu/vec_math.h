#pragma once
// Elementwise math for the CPU kernels that GCC auto-vectorizes.
//
// std::exp & co. are opaque libm calls, so `for (i) out[i] = std::exp(in[i])` runs one element
// at a time. The functions here are inline, branch-free straight-line code (selects are bitwise
// blends, no tables, no libm calls), so the same loop compiled with -O3 -march=x86-64-v3
// vectorizes 8 floats / 4 doubles wide. No -ffast-math is needed or assumed: NaN, infinities,
// signed zeros, overflow and underflow follow the C library (C99 Annex F).
//
// Method: Cody-Waite range reduction (the high constant has few enough bits that k*hi is exact,
// with or without FMA) followed by minimax polynomials derived by benchmarks/cpp/fit_coeffs.py
// (double erf/erfc: benchmarks/cpp/fit_erf_double.py).
// Several float functions are evaluated internally in double (4-wide) where that is the cheapest
// way to stay below one ulp: sin/cos/tan (exact reduction), sinh, cosh, erf, erfc, pow. Where a
// float result needs a few bits more than float gives (exp's 1 + r, tanh, sigmoid, atan, asin),
// the critical step is carried as an unevaluated float-float sum (Fast2Sum/TwoSum, FMA
// residuals) instead.
//
// Accuracy (max error vs the correctly rounded result; float measured exhaustively over all 2^32
// inputs against double libm, double measured on dense sweeps against long double libm) is
// documented per function below and in the table at the end of the file.
//
// Large arguments of sin/cos/tan: the branch-free reduction is exact for |x| <= 2^25 (float) and
// |x| <= 2^20 (double); sin_cos_fast_ok(x) says whether x is in that range. Beyond it the scalar
// functions return garbage (not NaN), so callers either check, or use sin_array()/cos_array()/
// tan_array(), which run the vectorized loop and patch the rare out-of-range elements with libm.
//
// Non-FMA builds (e.g. plain x86-64, which is what the test binary gets without TC_ARCH_FLAGS)
// are slower (no fma, and nothing vectorizes 8-wide) and up to ~0.7 ulp less accurate: mad()
// then rounds twice. The algorithms never rely on fusion for exactness, and contraction
// (-ffp-contract=fast, the default in gnu++ mode) does not change the results.
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
  const float rh = x - k * 0x1.62e4p-1f;         // exact for |k| < 2^9: ln2_hi has 15 bits
  const float r = mad(k, -0x1.7f7d1cp-20f, rh);  // ln2_lo
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
  // sin(r) has the sign of r on |r| <= pi/2; copying it keeps sin(-0) = -0.
  return copysign_bits(mad(r * z, p, r), r);
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
  return static_cast<float>(as_f64(as_u64(sin_poly_f(r)) ^ neg));
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

// =============================================================================================
// double (same methods, longer polynomials; 4 lanes per AVX2 vector)
// =============================================================================================

namespace detail {
// er * 2^k for k (an integer-valued double, |k| <= 1100) without overflow in the scale: two
// halves, each a normal power of two; the final multiply rounds once (also into subnormals).
TC_VM_INLINE double scale2_d(double er, double k) {
  const double k1 = (mad(k, 0.5, kShifterD) - kShifterD);  // rint(k/2), any split works
  const double k2 = k - k1;
  return er * pow2i_from_shifted(k1 + kShifterD, 0) * pow2i_from_shifted(k2 + kShifterD, 0);
}
// x = k ln2 + r, r = reduced argument and r_err its rounding error. x is clamped to where the
// callers' results saturate.
TC_VM_INLINE double exp_reduce_d(double x, double& k, double& r_err) {
  x = select(x > 711.0, 711.0, x);
  x = select(x < -746.0, -746.0, x);
  const double kbig = mad(x, 0x1.71547652b82fep+0, kShifterD);
  k = kbig - kShifterD;
  const double rh = x - k * 0x1.62e42ff000000p-1;  // exact: |k| < 2^11, ln2_hi has 32 bits
  const double r = mad(k, 0x1.718432a1b0e26p-35, rh);
  r_err = mad(k, 0x1.718432a1b0e26p-35, rh - r);
  return r;
}
// e^x = (hi + lo) 2^k with |lo| <= ulp(hi)/2, error ~2^-60 relative.
TC_VM_INLINE double exp_parts_d(double x, double& k, double& lo) {
  double r_err;
  const double r = exp_reduce_d(x, k, r_err);
  // e^r = 1 + r + r^2 P(r); fit error 0.034 u.
  const double p = poly(r, 0x1.000000000000ap-1, 0x1.55555555554ffp-3, 0x1.55555555505f1p-5,
                        0x1.1111111125f28p-7, 0x1.6c16c184bc60fp-10, 0x1.a01a01369e250p-13,
                        0x1.a019987660b56p-16, 0x1.71df047866115p-19, 0x1.28aef1b6fd5c8p-22,
                        0x1.adbbaff3ebd08p-26);
  const double s1 = 1.0 + r;
  const double v = ((1.0 - s1) + r) + mad(r * r, p, mad(r, r_err, r_err));
  const double hi = s1 + v;
  lo = (s1 - hi) + v;
  return hi;
}
// e^x / 2^bias as hi + lo (bias 0 or 1; 1 keeps e^x/2 finite up to x = 710.47).
TC_VM_INLINE double exp_dd(double x, double bias, double& lo) {
  double k, plo;
  const double phi = exp_parts_d(x, k, plo);
  lo = scale2_d(plo, k - bias);
  return scale2_d(phi, k - bias);
}
// (n_hi + n_lo) / (d_hi + d_lo) to ~0.5 ulp: one division, the quotient's error recovered from
// an FMA residual.
TC_VM_INLINE double div_dd(double n_hi, double n_lo, double d_hi, double d_lo) {
  const double inv = 1.0 / d_hi;
  const double q = n_hi * inv;
  const double rem = mad(-q, d_hi, n_hi) + (n_lo - q * d_lo);
  return mad(rem, inv, q);
}
}  // namespace detail

namespace detail {
// e^r for x = k ln2 + r, rounded once (1 + r split exactly), and kbig = k + 1.5*2^52. Same
// polynomial as exp_parts_d, evaluated by Estrin's scheme (shorter dependency chain), and no
// clamping: see exp_core_f.
TC_VM_INLINE double exp_core_d(double x, double& kbig) {
  kbig = mad(x, 0x1.71547652b82fep+0, kShifterD);
  const double k = kbig - kShifterD;
  const double rh = x - k * 0x1.62e42ff000000p-1;  // exact: |k| < 2^21, ln2_hi has 32 bits
  const double r = mad(k, 0x1.718432a1b0e26p-35, rh);
  const double r_err = mad(k, 0x1.718432a1b0e26p-35, rh - r);
  const double r2 = r * r, r4 = r2 * r2;
  const double p01 = mad(r, 0x1.55555555554ffp-3, 0x1.000000000000ap-1);
  const double p23 = mad(r, 0x1.1111111125f28p-7, 0x1.55555555505f1p-5);
  const double p45 = mad(r, 0x1.a01a01369e250p-13, 0x1.6c16c184bc60fp-10);
  const double p67 = mad(r, 0x1.71df047866115p-19, 0x1.a019987660b56p-16);
  const double p89 = mad(r, 0x1.adbbaff3ebd08p-26, 0x1.28aef1b6fd5c8p-22);
  const double p = mad(r4 * r4, p89, mad(r4, mad(r2, p67, p45), mad(r2, p23, p01)));
  const double s1 = 1.0 + r;
  const double v = ((1.0 - s1) + r) + mad(r2, p, r_err);  // r_err (1 + r) ~ r_err
  return s1 + v;
}
// |x| <= kExpFastMaxD: e^x and e^-x are normal doubles, 2^k goes straight into the exponent.
inline constexpr double kExpFastMaxD = 708.0;
TC_VM_INLINE double exp_fast_d(double x) {
  double kbig;
  const double e = exp_core_d(x, kbig);
  return as_f64(as_u64(e) + (as_u64(kbig) << 52));
}
}  // namespace detail

// e^x. Max error 0.75 ulp.
TC_VM_INLINE double exp(double x) {
  using namespace detail;
  double kbig;
  const double e = exp_core_d(x, kbig);
  // 2^k as two normal factors: up to |x| = 1400 this overflows / underflows (through the
  // subnormals, rounding once) exactly as e^x does; beyond, and for +-inf, the result is pinned.
  const double k = kbig - kShifterD;
  const double k1big = mad(k, 0.5, kShifterD);  // rint(k/2) + shifter
  const double k2big = kbig - (k1big - kShifterD);
  const double res = e * pow2i_from_shifted(k1big, 0) * pow2i_from_shifted(k2big, 0);
  return select(x > 1400.0, kInfD, select(x < -1400.0, 0.0, res));
}

// 2^x. Max error 0.9 ulp.
TC_VM_INLINE double exp2(double x) {
  using namespace detail;
  x = select(x > 1025.0, 1025.0, x);
  x = select(x < -1076.0, -1076.0, x);
  const double k = (x + kShifterD) - kShifterD;
  const double r = x - k;  // exact
  const double q = poly(r, 0x1.62e42fefa39f3p-1, 0x1.ebfbdff82c599p-3, 0x1.c6b08d7048dd9p-5,
                        0x1.3b2ab6fba1c72p-7, 0x1.5d87fe7bef08bp-10, 0x1.43091309f38ffp-13,
                        0x1.ffcbed8f09f4ap-17, 0x1.62bfd2a77e2dbp-20, 0x1.b542524d88d3ep-24,
                        0x1.e60a1ef1af9a1p-28, 0x1.bf8b61b43f59ep-32);
  return scale2_d(mad(r, q, 1.0), k);
}

namespace detail {
// e^x - 1 as hi + lo (x is not +-0; callers handle zeros). Same scheme as the float expm1.
TC_VM_INLINE double expm1_dd(double x, double& lo) {
  x = select(x > 709.9, 709.9, x);
  x = select(x < -40.0, -40.0, x);
  double k, r_err;
  const double r = exp_reduce_d(x, k, r_err);
  const double p = poly(r, 0x1.5555555555559p-3, 0x1.555555555554ep-5, 0x1.111111110f5c5p-7,
                        0x1.6c16c16c19816p-10, 0x1.a01a01b06571bp-13, 0x1.a01a019811d5fp-16,
                        0x1.71ddf6daa2f39p-19, 0x1.27e4fa0c9b2f9p-22, 0x1.af619068bc5aap-26,
                        0x1.1f3febba43386p-29);
  const double t = mad(r * r, mad(r, p, 0.5), mad(r, r_err, r_err));  // expm1(r) = r + t
  const double s = pow2i_from_shifted(k + kShifterD, -1);             // 2^(k-1)
  const double a = s - 0.5;
  const double av = a - (a - s);
  const double aerr = (s - av) + (-0.5 - (a - s));
  const double sr = s * r;
  const double h = select(k == 0.0, r, a + sr);
  const double l = ((a - h) + sr) + aerr;
  const double u = select(k == 0.0, t, mad(s, t, l));
  const double m = select(k == 0.0, 1.0, 2.0);
  const double hi = h + u;  // Fast2Sum: |h| >= |u|
  lo = m * ((h - hi) + u);
  return m * hi;
}
}  // namespace detail

// e^x - 1. Max error 0.9 ulp.
TC_VM_INLINE double expm1(double x) {
  double lo;
  return detail::select(x == 0.0, x, detail::expm1_dd(x, lo));
}

namespace detail {
struct LogPartsD {
  double e, hi, lo;
};
// x = 2^e (1 + f); log1p(f) = hi + lo (see LogParts).
TC_VM_INLINE LogPartsD log_parts_d(double x) {
  const bool sub = x < 0x1p-1022;
  const double xs = select(sub, x * 0x1p52, x);
  const uint64_t ix = as_u64(xs) - 0x3fe6a09e667f3bcdull;
  const uint64_t ebits = ((ix + (uint64_t{2048} << 52)) >> 52) | 0x4330000000000000ull;
  const double e = as_f64(ebits) - (0x1p52 + 2048.0) - select(sub, 52.0, 0.0);
  const double m = as_f64((ix & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  // R(z) ~ (2 atanh(s) - 2s)/s; fit error 0.012 u.
  const double R = z * poly(z, 0x1.5555555555595p-1, 0x1.999999997ee41p-2, 0x1.24924942de3c0p-2,
                            0x1.c71c513ad8c29p-3, 0x1.74666bf4aa54ap-3, 0x1.399ceee52382fp-3,
                            0x1.2f382aba2f2a1p-3);
  const double hfsq = 0.5 * f * f;
  const double y = s * (hfsq + R);
  const double hi = f - hfsq;
  const double lo = ((f - hi) - hfsq) + y;
  return {e, hi, lo};
}
TC_VM_INLINE double log_special_d(double x, double res) {
  const double sp = select(x == 0.0, -kInfD, select(x < 0.0, kNanD, x + x));
  return select((x > 0.0) & (x <= 0x1.fffffffffffffp1023), res, sp);
}
inline constexpr double kLn2HiD = 0x1.62e42ff000000p-1, kLn2LoD = -0x1.718432a1b0e26p-35;
}  // namespace detail

// Natural log. Max error 0.82 ulp.
TC_VM_INLINE double log(double x) {
  using namespace detail;
  const LogPartsD lp = log_parts_d(x);
  return log_special_d(x, mad(lp.e, kLn2HiD, lp.hi + mad(lp.e, kLn2LoD, lp.lo)));
}

// log2. Max error 0.88 ulp.
TC_VM_INLINE double log2(double x) {
  using namespace detail;
  const LogPartsD lp = log_parts_d(x);
  constexpr double kHi = 0x1.71547652b82fep+0, kLo = 0x1.777d0ffda0d24p-56;
  const double t = mad(lp.hi, kHi, mad(lp.hi, kLo, lp.lo * kHi));
  return log_special_d(x, lp.e + t);
}

// log10. Max error 0.93 ulp.
TC_VM_INLINE double log10(double x) {
  using namespace detail;
  const LogPartsD lp = log_parts_d(x);
  constexpr double kHi = 0x1.bcb7b1526e50ep-2, kLo = 0x1.95355baaafad3p-57;
  constexpr double kL2Hi = 0x1.3441350ap-2, kL2Lo = -0x1.0c0219dc1da99p-39;  // hi 32 bits
  const double t = mad(lp.hi, kHi, mad(lp.hi, kLo, lp.lo * kHi));
  return log_special_d(x, mad(lp.e, kL2Hi, t + lp.e * kL2Lo));
}

// log(1 + x). Max error 0.81 ulp.
TC_VM_INLINE double log1p(double x) {
  using namespace detail;
  const double u = 1.0 + x;
  const double bv = u - 1.0;
  const double err = (1.0 - (u - bv)) + (x - bv);
  const LogPartsD lp = log_parts_d(u);
  const double lo = lp.lo + err / u;
  const double res = mad(lp.e, kLn2HiD, lp.hi + mad(lp.e, kLn2LoD, lo));
  const double sp = select(x == -1.0, -kInfD, select(x < -1.0, kNanD, x + x));
  return select(x == 0.0, x, select((x > -1.0) & (x <= 0x1.fffffffffffffp1023), res, sp));
}

// True when the double sin/cos/tan reduction is exact (|x| <= 2^20).
TC_VM_INLINE bool sin_cos_fast_ok(double x) { return std::fabs(x) <= 0x1p20; }

namespace detail {
// x - q*c as hi + lo for integer |q| < 2^21, c = pi or pi/2 given as three 32/33-bit pieces
// (q*piece exact) and a full tail; the first subtraction is exact, the second is a TwoSum, the
// rest only feeds the low part. Used without FMA; next to a multiple of pi/2 (|r| < 2^-50) its
// tail loses a few bits (tan 1.8 ulp there).
TC_VM_INLINE double reduce_d(double x, double q, double c1, double c2, double c3, double c4,
                             double& lo) {
  const double r1 = x - q * c1;
  const double b = q * c2;
  const double r2 = r1 - b;
  const double bv = r1 - r2;
  const double e2 = (r1 - (r2 + bv)) + (bv - b);
  const double tail = e2 - q * c3 - q * c4;
  const double hi = r2 + tail;
  lo = (r2 - hi) + tail;
  return hi;
}
TC_VM_INLINE double reduce_pio2_d(double x, double q, double& lo) {
#if defined(__FMA__) || defined(__aarch64__)
  // With FMA three pieces suffice (6 operations instead of 13): P1 = pi/2 rounded, so x - q P1 is
  // one exact fma (x and q P1 are multiples of 2^-53 and the result is below 2 in magnitude);
  // P2 has 32 bits, so q P2 is exact for |q| < 2^21 and Fast2Sum gives the rounding error of the
  // subtraction exactly (r1 is a multiple of 2^-53, hence of ulp(q P2)); P3 = the rest rounded.
  // The pieces are pi/2 to 2^-141, so the reduced argument is off by at most |q| 2^-141 + the
  // rounding of lo; the smallest |r| for |x| <= 2^20 is 2^-60.5 (x = 0x1.6c6cbc45dc8dep+5), so
  // the relative error stays below 2^-75. lo is not renormalized: |lo| <= ulp(hi)/2 + |q P3|,
  // which the polynomial only takes to first order.
  const double r1 = mad(-q, 0x1.921fb54442d18p+0, x);
  const double p = q * 0x1.1a626332p-54;
  const double hi = r1 - p;
  lo = mad(-q, -0x1.747f23e32ed70p-87, (r1 - hi) - p);
  return hi;
#else
  return reduce_d(x, q, 0x1.921fb544p+0, 0x1.0b4611a6p-34, 0x1.3198a2ep-69, 0x1.b839a252049c1p-104,
                  lo);
#endif
}
// sin and cos of r + lo for |r| <= pi/4 + tiny; fit errors < 0.001 u. The leading terms are
// added last (cos: 1 - z/2 split exactly) so each result is rounded about once.
TC_VM_INLINE void sincos_d(double r, double lo, double& s, double& c, double& s_lo, double& c_lo) {
  const double z = r * r;
  const double sp = poly(z, -0x1.5555555555555p-3, 0x1.1111111111069p-7, -0x1.a01a019ffe521p-13,
                         0x1.71de3a33a5234p-19, -0x1.ae642c50ede03p-26, 0x1.6109bcc5079adp-33,
                         -0x1.9ffd025553b36p-41);
  const double cp = poly(z, 0x1.5555555555555p-5, -0x1.6c16c16c16b30p-10, 0x1.a01a019ffcb75p-16,
                         -0x1.27e4fb5a1eeb5p-22, 0x1.1eed6f7e15cb0p-29, -0x1.93744f8c260b0p-37,
                         0x1.9dac7881378f1p-45);
  const double sc = mad(r * z, sp, lo * mad(z, -0.5, 1.0));
  s = r + sc;
  s_lo = (r - s) + sc;
  const double hz = 0.5 * z;
  const double c_hi = 1.0 - hz;
  const double cc = ((1.0 - c_hi) - hz) + mad(z * z, cp, -r * lo);
  c = c_hi + cc;
  c_lo = (c_hi - c) + cc;
}
// sin(x) for quad = 0, cos(x) for quad = 1, |x| <= 2^20. The lanes whose quadrant k + quad is odd
// need cos(r + lo), the others sin(r + lo); instead of evaluating both polynomials and selecting,
// each lane picks its coefficients (a constant select is one and + xor) and one polynomial is
// evaluated (7% less time per element with AVX2; same max error, 0.77 ulp on 30M points).
// Same fits as sincos_d.
TC_VM_INLINE double sin_cos_d(double x, uint64_t quad) {
  const double kbig = mad(x, 0x1.45f306dc9c883p-1, kShifterD);  // k = rint(2x/pi)
  const double k = kbig - kShifterD;
  const uint64_t kb = as_u64(kbig) + quad;
  double lo;
  const double r = reduce_pio2_d(x, k, lo);
  const bool odd = (kb & 1) != 0;
  const uint64_t odd_mask = uint64_t{0} - (kb & 1);
  auto coef = [odd_mask](double s, double c) {
    return as_f64(as_u64(s) ^ (odd_mask & (as_u64(s) ^ as_u64(c))));
  };
  const double z = r * r;
  const double p = poly(z, coef(-0x1.5555555555555p-3, 0x1.5555555555555p-5),
                        coef(0x1.1111111111069p-7, -0x1.6c16c16c16b30p-10),
                        coef(-0x1.a01a019ffe521p-13, 0x1.a01a019ffcb75p-16),
                        coef(0x1.71de3a33a5234p-19, -0x1.27e4fb5a1eeb5p-22),
                        coef(-0x1.ae642c50ede03p-26, 0x1.1eed6f7e15cb0p-29),
                        coef(0x1.6109bcc5079adp-33, -0x1.93744f8c260b0p-37),
                        coef(-0x1.9ffd025553b36p-41, 0x1.9dac7881378f1p-45));
  // sin: r + (r z p + lo (1 - z/2)); cos: (1 - z/2) + (z^2 p - r lo + rounding error of 1 - z/2).
  const double hz = 0.5 * z;
  const double c_hi = 1.0 - hz;
  const double head = select(odd, c_hi, r);
  const double scale = select(odd, z, r) * z;
  const double corr = select(odd, ((1.0 - c_hi) - hz) - r * lo, lo * c_hi);
  const double res = head + mad(scale, p, corr);
  // quadrant (k + quad) mod 4: s, c, -s, -c
  return as_f64(as_u64(res) ^ ((kb & 2) << 62));
}
}  // namespace detail

// sin. Max error 0.78 ulp for |x| <= 2^20 (see sin_cos_fast_ok). With FMA, 0.5 ulp at the
// arguments closest to a multiple of pi/2 (tests/cpp/mathtail2/trig_fma_test.cpp).
TC_VM_INLINE double sin(double x) {
  return detail::select(x == 0.0, x, detail::sin_cos_d(x, 0));  // sin(-0) = -0
}

// cos. Max error 0.77 ulp for |x| <= 2^20.
TC_VM_INLINE double cos(double x) { return detail::sin_cos_d(x, 1); }

// tan. Max error 0.96 ulp for |x| <= 2^20 (FMA build; 1.8 ulp next to multiples of pi/2 without
// FMA, where the four-piece reduction loses a few bits).
TC_VM_INLINE double tan(double x) {
  using namespace detail;
  const double kbig = mad(x, 0x1.45f306dc9c883p-1, kShifterD);
  const double k = kbig - kShifterD;
  const bool odd = (as_u64(kbig) & 1) != 0;
  double lo, s, c, s_lo, c_lo;
  const double r = reduce_pio2_d(x, k, lo);
  sincos_d(r, lo, s, c, s_lo, c_lo);
  // s/c or -c/s, divided in double-double so the result is rounded about once.
  const double res = div_dd(select(odd, -c, s), select(odd, -c_lo, s_lo), select(odd, s, c),
                            select(odd, s_lo, c_lo));
  return select(x == 0.0, x, res);
}

// tanh = em / (em + 2), em = e^(2|x|) - 1 carried as hi + lo. Max error 0.75 ulp.
TC_VM_INLINE double tanh(double x) {
  using namespace detail;
  const double a = std::fabs(x);
  double em_lo;
  const double em = expm1_dd(2.0 * select(a > 22.0, 22.0, a), em_lo);
  const double d = em + 2.0;  // TwoSum
  const double dv = d - em;
  const double d_lo = ((em - (d - dv)) + (2.0 - dv)) + em_lo;
  const double res = div_dd(em, em_lo, d, d_lo);
  return copysign_bits(select(a == 0.0, 0.0, res), x);
}

// Logistic sigmoid, stable for all x (e^-|x| only): 1/(1+E) for x >= 0, E/(1+E) below, with
// one plain division, as the float version. Max error 2.4 ulp, as PyTorch's 1/(1 + e^-x) on the
// same sweep; the double-double quotient it replaces (0.71 ulp) was 1.5x PyTorch's time.
TC_VM_INLINE double sigmoid(double x) {
  using namespace detail;
  const double E = vec_math::exp(-std::fabs(x));
  return select(x < 0.0, E, 1.0) / (1.0 + E);
}

// sinh. Max error 0.78 ulp.
TC_VM_INLINE double sinh(double x) {
  using namespace detail;
  const double a = std::fabs(x);
  double h_lo;
  const double h = exp_dd(a, 1.0, h_lo);  // e^a / 2, finite up to a = 710.47
  const double inv = 0.25 / h;
  const double b_hi = h - inv;  // Fast2Sum: h >= 1.35 > inv for a >= 1
  const double big = select(h == kInfD, h, b_hi + (((h - b_hi) - inv) + h_lo));
  const double z = a * a;
  // |a| < 1: Taylor to a^19 (relative error < 2^-57).
  const double small =
      mad(a * z,
          poly(z, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800, 1.0 / 6227020800.0,
               1.0 / 1307674368000.0, 1.0 / 355687428096000.0, 1.0 / 121645100408832000.0),
          a);
  return copysign_bits(select(a < 1.0, small, big), x);
}

// cosh. Max error 0.84 ulp.
TC_VM_INLINE double cosh(double x) {
  double h_lo;
  const double h = detail::exp_dd(std::fabs(x), 1.0, h_lo);
  const double inv = 0.25 / h;
  const double b_hi = h + inv;  // h >= 1/2 >= inv
  return detail::select(h == detail::kInfD, h, b_hi + (((h - b_hi) + inv) + h_lo));
}

namespace detail {
// x * x = hi + lo exactly (FMA; Dekker's split without it).
TC_VM_INLINE double two_prod_sq(double x, double& lo) {
  const double hi = x * x;
#if defined(__FMA__) || defined(__aarch64__)
  lo = std::fma(x, x, -hi);
#else
  const double c = 134217729.0 * x;  // 2^27 + 1
  const double xh = c - (c - x), xl = x - xh;
  lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl;
#endif
  return hi;
}
// a * b = hi + lo exactly (FMA; Dekker's split without it), for |a b| well inside the range.
TC_VM_INLINE double two_prod(double a, double b, double& lo) {
  const double hi = a * b;
#if defined(__FMA__) || defined(__aarch64__)
  lo = std::fma(a, b, -hi);
#else
  const double ca = 134217729.0 * a, cb = 134217729.0 * b;
  const double ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
  lo = (((ah * bh - hi) + ah * bl) + al * bh) + al * bl;
#endif
  return hi;
}

// erfc(a) for 1/2 <= a <= 27.3 (clamped by the callers) as hi + lo, |lo| <= ulp(hi)/2, hi the
// rounded result (also when subnormal; lo is then meaningless).
//   erfc(a) = e^(-a^2) erfcx(a),  erfcx(a) = (1/sqrt(pi)) / (a + g(a)).
// g (the Mills-ratio tail, 0.03..0.44 here) only has to be accurate relative to a + g >= 1.1,
// so its fit and rounding errors are damped; g is a polynomial in a - 3/2 on [1/2, 3) (the
// subtraction is exact by Sterbenz) and t K(t^2), t = 1/a, above (K is smooth; the weight of
// its error falls as 1/a^2). a + g, the quotient, a^2 = h + l and e^-h are each carried as
// hi + lo, so the result is rounded once: fit errors 0.05 u (g near), 0.01 u (K), measured
// max 0.66 ulp for erfc over [1/2, 27.3] (see the table at the end).
// kTail = false (erf): a <= 6 only, where erfc(a) > 2^-55 is needed to ~2^-43 relative beyond
// a = 3 (erfc(3) = 2.2e-5 of erf's ulp scale), so the far part is a short fit evaluated plainly,
// and 2^k needs no care (k >= -53).
template <bool kTail>
TC_VM_INLINE double erfc_big_dd(double a, double& lo) {
  // a < 3: s = a + c0 + c1 u + u^2 Q(u), u = a - 3/2 (exact), the first three terms summed
  // exactly; only u^2 Q (< 0.06) is rounded. Horner on all of g would round at |g| ~ 0.4 and
  // cost up to 0.45 ulp near a = 1/2, where g is half of s.
  const double u = a - 1.5;
  constexpr double kG0 = 0x1.048189e7a4af5p-2, kG1 = -0x1.b7bec5ceaf445p-4;
  const double an = a + kG0;  // Fast2Sum: a >= 1/2 > kG0
  const double an_lo = (a - an) + kG0;
  double pu_lo;
  const double pu = two_prod(u, kG1, pu_lo);
  const double sn = an + pu;  // Fast2Sum: |pu| <= 0.17 < an
  const double rest = (u * u) * poly(u, 0x1.3d53b8e680a43p-5, -0x1.89a87b48fe5d5p-7, 0x1.9bf6fac5487f3p-9, -0x1.53ae4ffa149c1p-11, 0x1.49ea486560e0cp-14, 0x1.634097b3b07f5p-17, -0x1.65fbe8797074ep-17, 0x1.12ba997c266dfp-18, -0x1.1c5e254c31b98p-20, 0x1.67394d819b477p-23, 0x1.e44759456461ep-28, -0x1.21685b054a917p-26, 0x1.f77d1f9912216p-28, -0x1.1c66f3512b469p-29, 0x1.9dd247b050e6cp-32, -0x1.7736afdbe5038p-38, -0x1.0ed1813f1cda2p-35, 0x1.01161bfdf57cfp-36, -0x1.efae6eb0cd343p-39, 0x1.9e1f94f0f2616p-42);
  const double sn_lo = ((an - sn) + pu) + (an_lo + (pu_lo + rest));
  // a >= 3: g = t K(t^2), t = 1/a with its rounding error t_lo folded in.
  const double t = 1.0 / a;
  double sf, sf_lo;
  if constexpr (kTail) {
    double at_lo;
    const double at = two_prod(a, t, at_lo);
    const double t_lo = ((1.0 - at) - at_lo) * t;  // 1 - at is exact (Sterbenz)
    const double kp = poly(t * t, 0x1.fffffffffff78p-2, -0x1.ffffffffd7e79p-2, 0x1.3fffffee33f8cp+0, -0x1.27fffbd577a7ap+2, 0x1.60ff66b8406e1p+4, -0x1.fe1139106c558p+6, 0x1.aec8533062c35p+9, -0x1.9dcad3a9e7248p+12, 0x1.b58dfcea460a9p+15, -0x1.e4eabeffb23aap+18, 0x1.07c0abbcf7e9dp+22, -0x1.0692c4992cafcp+25, 0x1.c0ac1005e941cp+27, -0x1.3687782d929c9p+30, 0x1.485a5da6f3bb6p+32, -0x1.ec69522286165p+33, 0x1.cf325e0d10ebep+34, -0x1.993244c0abab7p+34);
    double gf_lo;
    const double gf = two_prod(t, kp, gf_lo);
    sf = a + gf;  // Fast2Sum
    sf_lo = ((a - sf) + gf) + (gf_lo + t_lo * kp);
  } else {
    // a in [3, 6]: error weight erfc(a) t/(a + g); fit error 0.008 u of erf.
    const double gf = t * poly(t * t, 0x1.fffd585a8e5f3p-2, -0x1.ff218a97b129dp-2, 0x1.37fc4b502b213p+0, -0x1.f9af9132313b1p+1, 0x1.8f6e1a4a12891p+3, -0x1.cedc65b2008a6p+4, 0x1.0c17da32e57efp+5);
    sf = a + gf;
    sf_lo = (a - sf) + gf;
  }
  const bool near = a < 3.0;
  const double s0 = select(near, sn, sf), s0_lo = select(near, sn_lo, sf_lo);
  const double s = s0 + s0_lo;
  const double s_lo = (s0 - s) + s0_lo;
  constexpr double kC = 0x1.20dd750429b6dp-1, kCLo = 0x1.1ae3a914fed80p-57;  // 1/sqrt(pi)
  const double inv = 1.0 / s;
  const double r = kC * inv;
  double rs_lo;
  const double rs = two_prod(r, s, rs_lo);
  const double r_lo = (((kC - rs) - rs_lo) + mad(-r, s_lo, kCLo)) * inv;  // kC - rs: Sterbenz
  double l;
  const double h = two_prod_sq(a, l);
  double k, e_lo;
  const double e = exp_parts_d(-h, k, e_lo);  // e^-h = (e + e_lo) 2^k; e^-(h+l) = e^-h (1 - l)
  double p_lo0;
  const double p = two_prod(e, r, p_lo0);
  const double p_lo = p_lo0 + mad(e, r_lo, mad(e_lo, r, -p * l));
  const double sum = p + p_lo;
  if constexpr (!kTail) {
    const double scale = pow2i_from_shifted(k + kShifterD, 0);  // k >= -53: exact
    lo = ((p - sum) + p_lo) * scale;
    return sum * scale;
  } else {
    lo = scale2_d((p - sum) + p_lo, k);
    const double res = scale2_d(sum, k);  // exact scaling: the one rounding was sum's
    // Subnormal results (a > 26.55): scaling sum would round a second time. Instead round
    // v = (p + p_lo) 2^(k+1022) < 1 once to a multiple of 2^-52 by adding 1 (Fast2Sum), which
    // is the subnormal grid of v 2^-1022.
    const double v = scale2_d(p, k + 1022.0), v_lo = scale2_d(p_lo, k + 1022.0);
    const double one_v = 1.0 + v;
    const double sub = ((one_v + (((1.0 - one_v) + v) + v_lo)) - 1.0) * 0x1p-1022;
    return select(res < 0x1p-1022, sub, res);
  }
}

// erf(x)/x - 1 = Y(x^2) for |x| < 3/4; fit error 0.10 u (relative to erf(x)/x). The rounding
// error of x^2 would cost up to 0.2 ulp in erf (Y'(0.56) = -0.38): it is added back to first order.
TC_VM_INLINE double erf_y(double x) {
  double zl;
  const double z = two_prod_sq(x, zl);
  constexpr double kY0 = 0x1.06eba8214db69p-3, kY0Lo = -0x1.ca38add602500p-57;  // 2/sqrt(pi) - 1
  const double p = poly(z, -0x1.812746b0379e7p-2, 0x1.ce2f21a042c19p-4, -0x1.b82ce31289cafp-6, 0x1.565bcd0e91debp-8, -0x1.c02db404a7a7ap-11, 0x1.f9a326a03d7d0p-14, -0x1.f4d22fca79f6ep-17, 0x1.b9e08b61169dap-20, -0x1.5ef9f3af6318bp-23, 0x1.f1d10b964e769p-27, -0x1.0b96632a02750p-30);
  return mad(z, p, kY0) + mad(zl, p, kY0Lo);
}
}  // namespace detail

// erf. Max error 0.70 ulp (Sleef's u10: 0.89 on the same sweep). |x| < 3/4: x + x Y(x^2) (one FMA rounding); above, 1 - erfc(|x|)
// with erfc carried as hi + lo (erfc(6) < 2^-54, so |x| >= 6 gives +-1).
TC_VM_INLINE double erf(double x) {
  using namespace detail;
  const double a = std::fabs(x);
  const double small = mad(x, erf_y(x), x);  // keeps the sign of zero
  double e_lo;
  const double e = erfc_big_dd<false>(select(a > 6.0, 6.0, select(a < 0.75, 0.75, a)), e_lo);
  const double h = 1.0 - e;  // Fast2Sum
  const double big = h + (((1.0 - h) - e) - e_lo);
  return select(a < 0.75, small, copysign_bits(big, x));
}

// erfc. Max error 0.66 ulp (Sleef's u15, torch.erfc's: 1.47), relative accuracy down to the subnormals (erfc(x) underflows to 0
// at x = 27.23). |x| < 1/2: 1 - x - x Y(x^2) with 1 - x split exactly; x >= 1/2: erfc_big_dd;
// x <= -1/2: 2 - erfc(-x).
TC_VM_INLINE double erfc(double x) {
  using namespace detail;
  const double a = std::fabs(x);
  const double s = 1.0 - x;  // Fast2Sum: |x| < 1
  const double small = s + mad(-x, erf_y(x), (1.0 - s) - x);
  double e_lo;
  const double e = erfc_big_dd<true>(select(a > 27.3, 27.3, select(a < 0.5, 0.5, a)), e_lo);
  const double h = 2.0 - e;  // Fast2Sum
  const double neg = h + (((2.0 - h) - e) - e_lo);
  return select(a < 0.5, small, select(signbit_bits(x), neg, e));
}

namespace detail {
// base + (t + c), double version.
TC_VM_INLINE double add_base(double hi, double lo, double t, double c) {
  const double h = hi + t;
  const double l = (hi - h) + t;
  return h + ((l + lo) + c);
}
inline constexpr double kPiHiD = 0x1.921fb54442d18p+1, kPiLoD = 0x1.1a62633145c07p-53;
inline constexpr double kPio2HiD = 0x1.921fb54442d18p+0, kPio2LoD = 0x1.1a62633145c07p-54;
inline constexpr double kPio4HiD = 0x1.921fb54442d18p-1, kPio4LoD = 0x1.1a62633145c07p-55;

// atan(n/d) = t + c for |n/d| <= tan(pi/8) + tiny, where n = n_hi + n_lo, d = d_hi + d_lo.
// The quotient's rounding error is recovered from an FMA residual.
TC_VM_INLINE void atan_core_d(double n, double n_lo, double d, double d_lo, double& t, double& c) {
  const double inv = 1.0 / d;
  t = n * inv;
  const double t_lo = (mad(-d, t, n) + (n_lo - d_lo * t)) * inv;
  const double z = t * t;
  const double p = poly(z, -0x1.5555555555554p-2, 0x1.9999999999584p-3, -0x1.249249246f58cp-3,
                        0x1.c71c71b458c26p-4, -0x1.745d145045596p-4, 0x1.3b1364efef503p-4,
                        -0x1.110beb745059cp-4, 0x1.e167bb5224164p-5, -0x1.ab3bf445b4cbep-5,
                        0x1.6fe4f6ece0eeep-5, -0x1.0fd5703da83cdp-5, 0x1.e84d65b11d5f7p-7);
  c = mad(t * z, p, t_lo * mad(z, z - 1.0, 1.0));  // t_lo / (1 + z)
}
// TwoSum: a + b = s + err exactly.
TC_VM_INLINE double two_sum(double a, double b, double& err) {
  const double s = a + b;
  const double bv = s - a;
  err = (a - (s - bv)) + (b - bv);
  return s;
}
}  // namespace detail

// atan. Max error 0.63 ulp.
TC_VM_INLINE double atan(double x) {
  using namespace detail;
  double a = std::fabs(x);
  a = select(a > 0x1p200, 0x1p200, a);
  // a <= tan(pi/8): t = a; a <= tan(3pi/8): pi/4 + atan((a-1)/(a+1)); else pi/2 - atan(1/a).
  const bool mid = a > 0x1.a827999fcef32p-2, big = a > 0x1.3504f333f9de6p+1;
  double n_lo, d_lo;
  const double n_m = two_sum(a, -1.0, n_lo);
  const double d_m = two_sum(a, 1.0, d_lo);
  const double n = select(big, -1.0, select(mid, n_m, a));
  const double d = select(big, a, select(mid, d_m, 1.0));
  double t, c;
  atan_core_d(n, select(mid & !big, n_lo, 0.0), d, select(mid & !big, d_lo, 0.0), t, c);
  const double res = add_base(select(big, kPio2HiD, select(mid, kPio4HiD, 0.0)),
                                select(big, kPio2LoD, select(mid, kPio4LoD, 0.0)), t, c);
  return copysign_bits(res, x);
}

// atan2 with the C99 special cases. Max error 1 ulp (1.4 ulp for subnormal results).
TC_VM_INLINE double atan2(double y, double x) {
  using namespace detail;
  double ax = std::fabs(x), ay = std::fabs(y);
  const bool both_inf = (ax == kInfD) & (ay == kInfD);
  const bool both_zero = (ax == 0.0) & (ay == 0.0);
  ax = select(both_inf | both_zero, 1.0, ax);
  ay = select(both_inf, 1.0, ay);
  const bool swap = ay > ax;
  double mx = select(swap, ay, ax), mn = select(swap, ax, ay);
  const bool mx_inf = mx == kInfD;
  mn = select(mx_inf, 0.0, mn);
  mx = select(mx_inf, 1.0, mx);
  const double pre = select(mx < 0x1p-600, 0x1p600, select(mx > 0x1p600, 0x1p-600, 1.0));
  mx = mx * pre;
  mn = mn * pre;
  const double scale = as_f64(0x7fd0000000000000ull - (as_u64(mx) & 0x7ff0000000000000ull));
  mx = mx * scale;  // in [1/2, 1)
  mn = mn * scale;
  // ratio r = mn/mx in [0, 1]: r > tan(pi/8) -> pi/4 + atan((mn - mx)/(mn + mx)).
  const bool mid = mn > 0x1.a827999fcef32p-2 * mx;
  double n_lo, d_lo;
  const double n_m = two_sum(mn, -mx, n_lo);
  const double d_m = two_sum(mn, mx, d_lo);
  double t, c;
  atan_core_d(select(mid, n_m, mn), select(mid, n_lo, 0.0), select(mid, d_m, mx),
              select(mid, d_lo, 0.0), t, c);
  // angle = b + (t + c) with b in {0, pi/4}; then swap: pi/2 - angle; x < 0: pi - angle.
  // Fold all into base +- (t + c) with base in {0, pi/4, pi/2, 3pi/4, pi}.
  const bool xneg = signbit_bits(x);
  const bool negate = swap != xneg;
  // base index in quarter-pi units: q0 = mid ? 1 : 0; swap: 2 - q0; xneg: 4 - that.
  double q = select(mid, 1.0, 0.0);
  q = select(swap, 2.0 - q, q);
  q = select(xneg, 4.0 - q, q);
  // q * pi/4 is exact in hi/lo except for q = 3, which gets its own split.
  const bool q3 = q == 3.0;
  const double bhi = select(q3, 0x1.2d97c7f3321d2p+1, q * kPio4HiD);
  const double blo = select(q3, 0x1.a79394c9e8a0ap-54, q * kPio4LoD);
  const double res = add_base(bhi, blo, select(negate, -t, t), select(negate, -c, c));
  return select((x != x) | (y != y), x + y, copysign_bits(res, y));
}

// hypot(a, b) = sqrt(a^2 + b^2) without overflow or underflow in between: both scaled by the
// same power of two so the larger is in [1, 2), the sum of squares carried as hi + lo, and the
// square root corrected by one Newton step on its exact residual, so the result is rounded
// about once. +-inf wins over NaN (C99). Max error 0.51 ulp.
TC_VM_INLINE double hypot(double a, double b) {
  using namespace detail;
  const double ax = std::fabs(a), ay = std::fabs(b);
  const bool swap = ay > ax;
  const double mx = select(swap, ay, ax), mn = select(swap, ax, ay);
  const double pre = select(mx < 0x1p-600, 0x1p600, select(mx > 0x1p600, 0x1p-600, 1.0));
  const double mxp = mx * pre;
  const uint64_t eb = as_u64(mxp) & 0x7ff0000000000000ull;
  const double scale = as_f64(0x7fe0000000000000ull - eb);  // mxp * scale in [1, 2)
  const double x = mxp * scale, y = (mn * pre) * scale;
  double xl, yl;
  const double xh = two_prod_sq(x, xl), yh = two_prod_sq(y, yl);
  const double sh = xh + yh;  // Fast2Sum: xh >= yh
  const double sl = ((xh - sh) + yh) + (xl + yl);
  const double r = std::sqrt(sh);
  double rr_lo;
  const double rr = two_prod_sq(r, rr_lo);
  const double rc = mad(((sh - rr) - rr_lo) + sl, 0.5 / r, r);  // sh - rr: Sterbenz
  const double res = select(sh == 0.0, 0.0, rc) * as_f64(eb) / pre;
  const bool any_inf = (ax == kInfD) | (ay == kInfD);
  return select(any_inf, kInfD, select((a != a) | (b != b), kNanD, res));
}

namespace detail {
// asin(v) = s + c for v in [0, 1/2] (big: v = sqrt((1 - a)/2)).
TC_VM_INLINE void asin_core(double a, bool big, double& s, double& c) {
  const double zb = 0.5 * (1.0 - a);
  const double zc = select(zb > 0.0, zb, 0.0);
  double y = as_f64(0x5fe6eb50c7b537a9ull - (as_u64(zc) >> 1));
  y = y * (1.5 - 0.5 * zc * y * y);
  y = y * (1.5 - 0.5 * zc * y * y);
  y = y * (1.5 - 0.5 * zc * y * y);
  const double sq0 = zc * y;
  const double sq = mad(mad(-sq0, sq0, zc), 0.5 * y, sq0);
  const double sq_lo = mad(-sq, sq, zc) * (0.5 * y);
  s = select(big, sq, a);
  const double z = select(big, zb, a * a);
  const double p = poly(z, 0x1.5555555555390p-3, 0x1.333333336e82cp-4, 0x1.6db6db42785b0p-5,
                        0x1.f1c72c39cbb8cp-6, 0x1.6e89f42918bf0p-6, 0x1.1c6be32cbf6cep-6,
                        0x1.c6fda0ae5d672p-7, 0x1.8ec3e5e036f24p-7, 0x1.abc6f9d94f2e1p-8,
                        0x1.3ffab76b826f1p-6, -0x1.09dd1d7f807b3p-6, 0x1.0570fb9f0f5e2p-5);
  c = mad(s * z, p, select(big, sq_lo * mad(0.375 * z, z, mad(0.5, z, 1.0)), 0.0));
}
}  // namespace detail

namespace detail {
// pi and pi/2 as hi + lo pairs, and NaN, for the asin/acos templates below.
template <typename T> struct AsinConsts;
template <> struct AsinConsts<float> {
  static constexpr float pi_hi = kPiHiF, pi_lo = kPiLoF, pio2_hi = kPio2HiF, pio2_lo = kPio2LoF,
                         nan = kNanF;
};
template <> struct AsinConsts<double> {
  static constexpr double pi_hi = kPiHiD, pi_lo = kPiLoD, pio2_hi = kPio2HiD, pio2_lo = kPio2LoD,
                          nan = kNanD;
};

// asin/acos from asin_core (each type has its own polynomial fit); the reconstruction around
// it is the same for both types.
template <typename T>
TC_VM_INLINE T asin_t(T x) {
  using K = AsinConsts<T>;
  const T a = std::fabs(x);
  const bool big = a > T(0.5);  // asin(a) = pi/2 - 2 asin(sqrt((1 - a)/2))
  T s, c;
  asin_core(a, big, s, c);
  const T res = add_base(select(big, K::pio2_hi, T(0)), select(big, K::pio2_lo, T(0)),
                         select(big, T(-2) * s, s), select(big, T(-2) * c, c));
  return select(a > T(1), K::nan, copysign_bits(res, x));
}

template <typename T>
TC_VM_INLINE T acos_t(T x) {
  using K = AsinConsts<T>;
  const T a = std::fabs(x);
  const bool big = a > T(0.5);
  const bool neg = signbit_bits(x);
  T s, c;
  asin_core(a, big, s, c);
  // |x| <= 1/2: pi/2 - asin(x); x > 1/2: 2 asin(s); x < -1/2: pi - 2 asin(s).
  const T m = select(big, T(2), T(1));
  const bool minus = big == neg;
  const T sg = select(minus, -m, m);
  const bool full = big & neg, half = !big;
  const T res = add_base(select(full, K::pi_hi, select(half, K::pio2_hi, T(0))),
                         select(full, K::pi_lo, select(half, K::pio2_lo, T(0))), sg * s, sg * c);
  return select(a > T(1), K::nan, res);
}
}  // namespace detail

// asin. Max error 0.71 ulp (float), 0.75 ulp (double). |x| > 1 -> NaN.
TC_VM_INLINE float asin(float x) { return detail::asin_t(x); }
TC_VM_INLINE double asin(double x) { return detail::asin_t(x); }
// acos. Max error 0.68 ulp (float), 0.73 ulp (double). |x| > 1 -> NaN.
TC_VM_INLINE float acos(float x) { return detail::acos_t(x); }
TC_VM_INLINE double acos(double x) { return detail::acos_t(x); }

// =============================================================================================
// Array helpers for sin/cos/tan: vectorized loop plus a libm fix-up for |x| beyond the exact
// reduction range: the range is checked while the block is computed, and a block with an
// out-of-range element is redone per element (libm where needed). in == out is allowed.
// =============================================================================================

namespace detail {
// Runs fast(x) over blocks of 256 and checks on the way that every |x| <= bound (as bit
// patterns, so NaN and inf fail too); a block that fails is redone with general(x). in == out
// is allowed (the block is copied first, to keep the inputs for a redo).
template <typename T, typename Fast, typename General>
inline void guarded_array(const T* in, T* out, int64_t n, T bound, Fast fast, General general) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kAbs = ~U{0} >> 1;
  const U bound_bits = std::bit_cast<U>(bound);
  constexpr int64_t kBlock = 256;
  T buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = n - b < kBlock ? n - b : kBlock;
    const T* src = in + b;
    T* dst = out + b;
    if (src == dst) {  // in place: keep the inputs for a redo
      std::memcpy(buf, src, static_cast<size_t>(m) * sizeof(T));
      src = buf;
    }
    U bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      const T x = src[i];
      dst[i] = fast(x);
      bad |= U{0} - static_cast<U>((std::bit_cast<U>(x) & kAbs) > bound_bits);  // NaN too
    }
    if (bad != 0)
      for (int64_t i = 0; i < m; ++i) dst[i] = general(src[i]);
  }
}
template <typename T, typename Fast, typename Slow>
inline void trig_array(const T* in, T* out, int64_t n, Fast fast, Slow slow) {
  const T bound = sizeof(T) == 4 ? T(0x1p25) : T(0x1p20);  // exact reduction range
  guarded_array(in, out, n, bound, fast,
                [fast, slow](T x) { return sin_cos_fast_ok(x) ? fast(x) : slow(x); });
}
}  // namespace detail

inline void sin_array(const float* in, float* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](float x) { return vec_math::sin(x); },
      [](float x) { return static_cast<float>(std::sin(static_cast<double>(x))); });
}
inline void cos_array(const float* in, float* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](float x) { return vec_math::cos(x); },
      [](float x) { return static_cast<float>(std::cos(static_cast<double>(x))); });
}
inline void tan_array(const float* in, float* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](float x) { return vec_math::tan(x); },
      [](float x) { return static_cast<float>(std::tan(static_cast<double>(x))); });
}
inline void sin_array(const double* in, double* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](double x) { return vec_math::sin(x); }, [](double x) { return std::sin(x); });
}
inline void cos_array(const double* in, double* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](double x) { return vec_math::cos(x); }, [](double x) { return std::cos(x); });
}
inline void tan_array(const double* in, double* out, int64_t n) {
  detail::trig_array(
      in, out, n, [](double x) { return vec_math::tan(x); }, [](double x) { return std::tan(x); });
}

// =============================================================================================
// Array helpers for exp and sigmoid: the contiguous loop runs a version without any range
// handling (2^k is added into the exponent field; valid while e^-|x| is a normal number) and
// checks |x| on the way; a block with a large, infinite or NaN element is redone with the
// branch-free general function. Same results as the scalar functions, ~20% faster (exp double
// 0.80 vs 1.04 ns/element on the machine of docs/coreperf.md). in == out is allowed.
// =============================================================================================

namespace detail {
TC_VM_INLINE float sigmoid_fast(float x) {
  const float E = exp_fast_f(-std::fabs(x));
  return select(x < 0.0f, E, 1.0f) / (1.0f + E);
}
TC_VM_INLINE double sigmoid_fast(double x) {
  const double E = exp_fast_d(-std::fabs(x));
  return select(x < 0.0, E, 1.0) / (1.0 + E);
}
}  // namespace detail

inline void exp_array(const float* in, float* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxF, [](float x) { return detail::exp_fast_f(x); },
      [](float x) { return vec_math::exp(x); });
}
inline void exp_array(const double* in, double* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxD, [](double x) { return detail::exp_fast_d(x); },
      [](double x) { return vec_math::exp(x); });
}
inline void sigmoid_array(const float* in, float* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxF, [](float x) { return detail::sigmoid_fast(x); },
      [](float x) { return vec_math::sigmoid(x); });
}
inline void sigmoid_array(const double* in, double* out, int64_t n) {
  detail::guarded_array(
      in, out, n, detail::kExpFastMaxD, [](double x) { return detail::sigmoid_fast(x); },
      [](double x) { return vec_math::sigmoid(x); });
}

// =============================================================================================
// Measured accuracy, max error in ulps of the correctly rounded result.
//   float: every one of the 2^32 inputs vs double libm (sin/cos/tan over |x| <= 2^25, the rest
//          via the *_array helpers is libm-exact); atan2/pow: 400k random pairs + special grid.
//   double: 2^25 inputs per function (golden-ratio walk over all bit patterns + dense
//          |x| in [2^-4, 2^6]) vs long double libm.
//   "no FMA" = float built for plain x86-64 (mad() rounds twice).
//
//   function  float  float(no FMA)  double      function  float  float(no FMA)  double
//   exp       0.84   0.78           0.75        tanh      0.79   1.02           0.75
//   exp2      0.88   1.08           0.90        sigmoid   2.30*  2.03*          2.37*
//   expm1     0.86   0.95           0.91        sinh      0.50   0.50           0.78
//   log       0.83   0.83           0.82        cosh      0.50   0.50           0.84
//   log2      0.91   1.28           0.88        erf       0.51   0.51           0.70 (0.81 no FMA)
//   log10     0.90   1.20           0.93        erfc      0.55   0.55           0.66 (0.65 no FMA)
//   log1p     0.83   0.83           0.82        atan      0.65   1.24           0.63
//   sin       0.50   0.50           0.78        asin      0.71   0.97           0.76
//   cos       0.50   0.50           0.78        acos      0.68   0.97           0.73
//   tan       0.50   0.50           0.93        atan2     0.58   1.43           1.42 (subnormal)
//   pow       0.50   0.50           -  (no double pow)        hypot     -      -              0.51
//   * one plain division, PyTorch's accuracy class (its vectorized sigmoid measured 2.37 ulp
//     float / 2.38 double on the same sweeps); dense sweeps, not exhaustive.
// =============================================================================================

}  // namespace tc::vec_math

#undef TC_VM_INLINE
