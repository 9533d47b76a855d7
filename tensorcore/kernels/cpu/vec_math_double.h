#pragma once
// vec_math double functions: exp/log family, sin/cos/tan, tanh, sigmoid, sinh/cosh, erf/erfc,
// atan/atan2, hypot, and asin/acos (float and double, one template). Part of vec_math.h
// (include that).
#include "tensorcore/kernels/cpu/vec_math_float.h"

namespace tc::vec_math {

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
// arguments closest to a multiple of pi/2 (tests/cpp/kernels/trig_fma_test.cpp).
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
  const double rest =
      (u * u) * poly(u, 0x1.3d53b8e680a43p-5, -0x1.89a87b48fe5d5p-7, 0x1.9bf6fac5487f3p-9,
                     -0x1.53ae4ffa149c1p-11, 0x1.49ea486560e0cp-14, 0x1.634097b3b07f5p-17,
                     -0x1.65fbe8797074ep-17, 0x1.12ba997c266dfp-18, -0x1.1c5e254c31b98p-20,
                     0x1.67394d819b477p-23, 0x1.e44759456461ep-28, -0x1.21685b054a917p-26,
                     0x1.f77d1f9912216p-28, -0x1.1c66f3512b469p-29, 0x1.9dd247b050e6cp-32,
                     -0x1.7736afdbe5038p-38, -0x1.0ed1813f1cda2p-35, 0x1.01161bfdf57cfp-36,
                     -0x1.efae6eb0cd343p-39, 0x1.9e1f94f0f2616p-42);
  const double sn_lo = ((an - sn) + pu) + (an_lo + (pu_lo + rest));
  // a >= 3: g = t K(t^2), t = 1/a with its rounding error t_lo folded in.
  const double t = 1.0 / a;
  double sf, sf_lo;
  if constexpr (kTail) {
    double at_lo;
    const double at = two_prod(a, t, at_lo);
    const double t_lo = ((1.0 - at) - at_lo) * t;  // 1 - at is exact (Sterbenz)
    const double kp = poly(t * t, 0x1.fffffffffff78p-2, -0x1.ffffffffd7e79p-2, 0x1.3fffffee33f8cp+0,
                           -0x1.27fffbd577a7ap+2, 0x1.60ff66b8406e1p+4, -0x1.fe1139106c558p+6,
                           0x1.aec8533062c35p+9, -0x1.9dcad3a9e7248p+12, 0x1.b58dfcea460a9p+15,
                           -0x1.e4eabeffb23aap+18, 0x1.07c0abbcf7e9dp+22, -0x1.0692c4992cafcp+25,
                           0x1.c0ac1005e941cp+27, -0x1.3687782d929c9p+30, 0x1.485a5da6f3bb6p+32,
                           -0x1.ec69522286165p+33, 0x1.cf325e0d10ebep+34, -0x1.993244c0abab7p+34);
    double gf_lo;
    const double gf = two_prod(t, kp, gf_lo);
    sf = a + gf;  // Fast2Sum
    sf_lo = ((a - sf) + gf) + (gf_lo + t_lo * kp);
  } else {
    // a in [3, 6]: error weight erfc(a) t/(a + g); fit error 0.008 u of erf.
    const double gf = t * poly(t * t, 0x1.fffd585a8e5f3p-2, -0x1.ff218a97b129dp-2,
                               0x1.37fc4b502b213p+0, -0x1.f9af9132313b1p+1, 0x1.8f6e1a4a12891p+3,
                               -0x1.cedc65b2008a6p+4, 0x1.0c17da32e57efp+5);
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
  const double p = poly(z, -0x1.812746b0379e7p-2, 0x1.ce2f21a042c19p-4, -0x1.b82ce31289cafp-6,
                        0x1.565bcd0e91debp-8, -0x1.c02db404a7a7ap-11, 0x1.f9a326a03d7d0p-14,
                        -0x1.f4d22fca79f6ep-17, 0x1.b9e08b61169dap-20, -0x1.5ef9f3af6318bp-23,
                        0x1.f1d10b964e769p-27, -0x1.0b96632a02750p-30);
  return mad(z, p, kY0) + mad(zl, p, kY0Lo);
}
}  // namespace detail

// erf. Max error 0.70 ulp (Sleef's u10: 0.89 on the same sweep). |x| < 3/4: x + x Y(x^2) (one FMA
// rounding); above, 1 - erfc(|x|) with erfc carried as hi + lo (erfc(6) < 2^-54, so |x| >= 6 gives
// +-1).
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

// erfc. Max error 0.66 ulp (Sleef's u15, torch.erfc's: 1.47), relative accuracy down to the
// subnormals (erfc(x) underflows to 0 at x = 27.23). |x| < 1/2: 1 - x - x Y(x^2) with 1 - x split
// exactly; x >= 1/2: erfc_big_dd; x <= -1/2: 2 - erfc(-x).
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
template <typename T>
struct AsinConsts;
template <>
struct AsinConsts<float> {
  static constexpr float pi_hi = kPiHiF, pi_lo = kPiLoF, pio2_hi = kPio2HiF, pio2_lo = kPio2LoF,
                         nan = kNanF;
};
template <>
struct AsinConsts<double> {
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

}  // namespace tc::vec_math
