#pragma once
// Scalar special functions without a <cmath> equivalent: erfinv, digamma, trigamma.
#include <cmath>
#include <limits>

namespace tc::special {

// Inverse error function: Giles' single-precision approximation, then two Newton steps on erf.
template <typename T>
inline T erfinv(T y) {
  if (y != y || y < T(-1) || y > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y == T(1)) return std::numeric_limits<T>::infinity();
  if (y == T(-1)) return -std::numeric_limits<T>::infinity();
  double x = double(y);
  double w = -std::log((1.0 - x) * (1.0 + x));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double r = p * x;
  const double k = 0.886226925452758013649;  // sqrt(pi) / 2
  for (int i = 0; i < 2; ++i) r -= (std::erf(r) - x) * k * std::exp(r * r);
  return T(r);
}

template <typename T>
inline T digamma(T xin) {
  double x = double(xin);
  constexpr double kPi = 3.14159265358979323846;
  if (x == 0) return T(std::copysign(std::numeric_limits<double>::infinity(), -x));
  if (x != x) return T(x);
  double result = 0;
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    // psi(1 - x) - psi(x) = pi / tan(pi x)
    result = -kPi / std::tan(kPi * x);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == std::numeric_limits<double>::infinity()) return T(result + x);
  double z = 1 / (x * x);
  double poly =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132)))));
  return T(result + std::log(x) - 0.5 / x - poly);
}

template <typename T>
inline T trigamma(T xin) {
  double x = double(xin);
  constexpr double kPi = 3.14159265358979323846;
  if (x != x) return T(x);
  double sign = 1, result = 0;
  if (x < 0.5) {
    // psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
    double s = std::sin(kPi * x);
    if (s == 0) return std::numeric_limits<T>::infinity();
    result = kPi * kPi / (s * s);
    sign = -1;
    x = 1 - x;
  }
  double acc = 0;
  while (x < 10) {
    acc += 1 / (x * x);
    x += 1;
  }
  double z = 1 / (x * x);
  double tail =
      1 / x + z / 2 + z / x * (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30))));
  return T(result + sign * (acc + tail));
}

}  // namespace tc::special
