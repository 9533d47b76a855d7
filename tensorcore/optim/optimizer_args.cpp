#include "tensorcore/optim/optimizer_args.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "tensorcore/core/error.h"

namespace tc::optim {

std::string repr_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // Shortest round-trip digits in scientific form ("d.ddde+XX"), laid out as Python's repr:
  // positional for exponents in [-4, 16), scientific with a two-digit exponent otherwise.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const size_t e_pos = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e_pos + 1);
  std::string digits;
  for (size_t i = 0; i < e_pos; ++i)
    if (sci[i] != '.') digits += sci[i];
  std::string out;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out = "0." + std::string(size_t(-exponent - 1), '0') + digits;
    } else {
      const size_t int_len = size_t(exponent) + 1;
      if (digits.size() <= int_len)
        out = digits + std::string(int_len - digits.size(), '0') + ".0";
      else
        out = digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int mag = std::abs(exponent);
    out +=
        std::string("e") + (exponent < 0 ? "-" : "+") + (mag < 10 ? "0" : "") + std::to_string(mag);
  }
  return negative ? std::string("-").append(out) : out;
}

namespace {

void check_nonneg(double v, const char* what) {
  TC_CHECK(0.0 <= v, "Invalid ", what, ": ", repr_float(v));
}

void check_betas(double beta1, double beta2) {
  TC_CHECK(0.0 <= beta1 && beta1 < 1.0, "Invalid beta parameter at index 0: ", repr_float(beta1));
  TC_CHECK(0.0 <= beta2 && beta2 < 1.0, "Invalid beta parameter at index 1: ", repr_float(beta2));
}

}  // namespace

void check_sgd_args(std::optional<double> lr, double momentum, double dampening,
                    double weight_decay, bool nesterov) {
  TC_CHECK(!lr || !(*lr < 0.0), "Invalid learning rate: ", repr_float(lr.value_or(0)));
  TC_CHECK(!(momentum < 0.0), "Invalid momentum value: ", repr_float(momentum));
  TC_CHECK(!(weight_decay < 0.0), "Invalid weight_decay value: ", repr_float(weight_decay));
  TC_CHECK(!nesterov || (momentum > 0 && dampening == 0),
           "Nesterov momentum requires a momentum and zero dampening");
}

void check_adam_args(double lr, double beta1, double beta2, double eps, double weight_decay) {
  check_nonneg(lr, "learning rate");
  check_nonneg(eps, "epsilon value");
  check_betas(beta1, beta2);
  check_nonneg(weight_decay, "weight_decay value");
}

void check_nadam_args(double lr, double beta1, double beta2, double eps, double weight_decay,
                      double momentum_decay) {
  check_adam_args(lr, beta1, beta2, eps, weight_decay);
  check_nonneg(momentum_decay, "momentum_decay value");
}

void check_adagrad_args(double lr, double lr_decay, double weight_decay,
                        double initial_accumulator_value, double eps) {
  check_nonneg(lr, "learning rate");
  check_nonneg(lr_decay, "lr_decay value");
  check_nonneg(weight_decay, "weight_decay value");
  check_nonneg(initial_accumulator_value, "initial_accumulator_value value");
  check_nonneg(eps, "epsilon value");
}

void check_rmsprop_args(double lr, double alpha, double eps, double weight_decay, double momentum) {
  check_nonneg(lr, "learning rate");
  check_nonneg(eps, "epsilon value");
  check_nonneg(momentum, "momentum value");
  check_nonneg(weight_decay, "weight_decay value");
  check_nonneg(alpha, "alpha value");
}

void check_adadelta_args(double lr, double rho, double eps, double weight_decay) {
  check_nonneg(lr, "learning rate");
  TC_CHECK(0.0 <= rho && rho <= 1.0, "Invalid rho value: ", repr_float(rho));
  check_nonneg(eps, "epsilon value");
  check_nonneg(weight_decay, "weight_decay value");
}

void check_param_group(const std::vector<bool>& is_leaf, bool overlaps_other_group) {
  for (bool leaf : is_leaf) TC_CHECK(leaf, "can't optimize a non-leaf Tensor");
  TC_CHECK(!overlaps_other_group, "some parameters appear in more than one parameter group");
}

}  // namespace tc::optim
