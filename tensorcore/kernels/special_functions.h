#pragma once
// Modified Bessel functions I0/I1 and the regularized incomplete gamma functions P(a, x) and
// Q(a, x), shared by the CPU kernels and the CUDA kernels (the same code on both devices).
// Everything runs in double: these are not throughput-critical, and double keeps float results
// correctly rounded.
//
// I0, I1: the power series for |x| <= 30 (positive terms, no cancellation), the asymptotic
// expansion e^x / sqrt(2 pi x) * sum_k t_k above (its smallest term there is below 1e-25).
// P, Q: the series for x < a + 1, the continued fraction for Q otherwise (evaluated with the
// modified Lentz method), each normalised by x^a e^-x / Gamma(a) computed in log space.
#include "tensorcore/core/host_device.h"

#ifndef __CUDA_ARCH__
#include <cmath>
#include <limits>
#endif

namespace tc::special_fn {

namespace detail {
TC_HOST_DEVICE bool d_isnan(double x) { return x != x; }
TC_HOST_DEVICE double d_nan() { return __builtin_nan(""); }
TC_HOST_DEVICE double d_inf() { return __builtin_inf(); }

constexpr double kEps = 1.1102230246251565e-16;    // 2^-53
constexpr double kLog2Pi = 1.8378770664093454836;  // log(2 pi)

// I_nu(x) for nu in {0, 1}, x >= 0.
TC_HOST_DEVICE double bessel_i(int nu, double x) {
  if (d_isnan(x)) return x;
  if (x <= 30.0) {
    const double q = 0.25 * x * x;
    double term = nu == 0 ? 1.0 : 0.5 * x;
    double sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= q / (double(k) * double(k + nu));
      sum += term;
      if (term <= sum * kEps) break;
    }
    return sum;
  }
  // sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! (8x)^k), truncated at its smallest term.
  const double four_nu2 = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0, last = 1.0;
  for (int k = 1; k < 100; ++k) {
    const double odd = 2.0 * k - 1.0;
    term *= -(four_nu2 - odd * odd) / (8.0 * k * x);
    if (hd::abs(term) >= last) break;  // the asymptotic series has started to diverge
    sum += term;
    last = hd::abs(term);
    if (last <= hd::abs(sum) * kEps) break;
  }
  // e^x / sqrt(2 pi x) in log space: finite up to x ~ 713 instead of overflowing at 709.
  return hd::exp(x - 0.5 * (kLog2Pi + hd::log(x))) * sum;
}

// log(x^a e^-x / Gamma(a)).
TC_HOST_DEVICE double log_gamma_prefactor(double a, double x) {
  return a * hd::log(x) - x - hd::lgamma(a);
}

// P(a, x) by its series; valid (and used) for x < a + 1.
TC_HOST_DEVICE double igamma_series(double a, double x) {
  double ap = a, term = 1.0 / a, sum = term;
  for (int n = 0; n < 5000; ++n) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (hd::abs(term) <= hd::abs(sum) * kEps) break;
  }
  return sum * hd::exp(log_gamma_prefactor(a, x));
}

// Q(a, x) by its continued fraction; used for x >= a + 1.
TC_HOST_DEVICE double igammac_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < 5000; ++i) {
    const double an = -double(i) * (double(i) - a);
    b += 2.0;
    d = an * d + b;
    if (hd::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (hd::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (hd::abs(step - 1.0) <= kEps) break;
  }
  return hd::exp(log_gamma_prefactor(a, x)) * h;
}

// Domain and edge cases shared by P and Q; returns true with *p set when (a, x) is one.
TC_HOST_DEVICE bool igamma_edge(double a, double x, bool upper, double* p) {
  if (d_isnan(a) || d_isnan(x) || a < 0.0 || x < 0.0 || (a == d_inf() && x == d_inf())) {
    *p = d_nan();
    return true;
  }
  if (a == 0.0) {  // the limit a -> 0+: all of the mass at 0 (both 0 at x = 0 as in torch)
    *p = x > 0.0 ? (upper ? 0.0 : 1.0) : d_nan();
    return true;
  }
  if (x == 0.0) {
    *p = upper ? 1.0 : 0.0;
    return true;
  }
  if (x == d_inf()) {
    *p = upper ? 0.0 : 1.0;
    return true;
  }
  if (a == d_inf()) {
    *p = upper ? 1.0 : 0.0;
    return true;
  }
  return false;
}
}  // namespace detail

// Modified Bessel function of the first kind, order 0 (even).
template <typename T>
TC_HOST_DEVICE T i0(T x) {
  return T(detail::bessel_i(0, hd::abs(double(x))));
}

// Modified Bessel function of the first kind, order 1 (odd).
template <typename T>
TC_HOST_DEVICE T i1(T x) {
  const double v = detail::bessel_i(1, hd::abs(double(x)));
  return T(double(x) < 0 ? -v : v);
}

// Regularized lower incomplete gamma P(a, x) = gamma(a, x) / Gamma(a).
template <typename T>
TC_HOST_DEVICE T igamma(T a_in, T x_in) {
  const double a = double(a_in), x = double(x_in);
  double p;
  if (detail::igamma_edge(a, x, false, &p)) return T(p);
  return T(x < a + 1.0 ? detail::igamma_series(a, x) : 1.0 - detail::igammac_fraction(a, x));
}

// Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x).
template <typename T>
TC_HOST_DEVICE T igammac(T a_in, T x_in) {
  const double a = double(a_in), x = double(x_in);
  double q;
  if (detail::igamma_edge(a, x, true, &q)) return T(q);
  return T(x < a + 1.0 ? 1.0 - detail::igamma_series(a, x) : detail::igammac_fraction(a, x));
}

}  // namespace tc::special_fn
