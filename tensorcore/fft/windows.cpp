// Window functions with torch's definitions, computed in double and cast to the requested dtype.
#include <cmath>
#include <functional>

#include "tensorcore/fft/spectral.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"

namespace tc {
namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

// Modified Bessel function of the first kind, order 0 (power series; converges for all x).
double bessel_i0(double x) {
  const double q = x * x / 4.0;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 500; ++k) {
    term *= q / (double(k) * double(k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

// value(n, N) for n < N over a symmetric window of N points.
Tensor make_window(const char* op, int64_t length, bool periodic, const TensorOptions& opts,
                   const std::function<double(double, double)>& value) {
  TC_CHECK(length >= 0, op, " requires non-negative window_length, got window_length=", length);
  TC_CHECK_TYPE(is_floating(opts.dtype_), op,
                " expects floating point dtypes, got: ", dtype_name(opts.dtype_));
  Tensor w = empty({length}, TensorOptions(DType::Float64));
  double* p = w.data<double>();
  if (length == 1) {
    p[0] = 1.0;
  } else if (length > 1) {
    const double N = double(periodic ? length + 1 : length);
    for (int64_t n = 0; n < length; ++n) p[n] = value(double(n), N);
  }
  Tensor out = to(w, opts.device_, opts.dtype_, true);
  if (opts.requires_grad_) out.requires_grad_(true);
  return out;
}

}  // namespace

Tensor hamming_window(int64_t length, bool periodic, double alpha, double beta,
                      TensorOptions opts) {
  return make_window("hamming_window", length, periodic, opts, [=](double n, double N) {
    return alpha - beta * std::cos(2 * kPi * n / (N - 1));
  });
}

Tensor hann_window(int64_t length, bool periodic, TensorOptions opts) {
  return make_window("hann_window", length, periodic, opts, [](double n, double N) {
    return 0.5 - 0.5 * std::cos(2 * kPi * n / (N - 1));
  });
}

Tensor blackman_window(int64_t length, bool periodic, TensorOptions opts) {
  return make_window("blackman_window", length, periodic, opts, [](double n, double N) {
    const double a = kPi * n / (N - 1);
    return 0.42 - 0.5 * std::cos(2 * a) + 0.08 * std::cos(4 * a);
  });
}

Tensor bartlett_window(int64_t length, bool periodic, TensorOptions opts) {
  return make_window("bartlett_window", length, periodic, opts,
                     [](double n, double N) { return 1.0 - std::abs(2.0 * n / (N - 1) - 1.0); });
}

Tensor kaiser_window(int64_t length, bool periodic, double beta, TensorOptions opts) {
  const double denom = bessel_i0(beta);
  return make_window("kaiser_window", length, periodic, opts, [=](double n, double N) {
    const double alpha = (N - 1) / 2.0;
    const double r = (n - alpha) / alpha;
    return bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / denom;
  });
}

}  // namespace tc
