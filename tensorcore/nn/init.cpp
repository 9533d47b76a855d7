#include "tensorcore/nn/init.h"

#include <cmath>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/random.h"

namespace tc::nn::init {

double calculate_gain(const std::string& nl, double param) {
  if (nl == "linear" || nl == "sigmoid" || nl.rfind("conv", 0) == 0) return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nl == "selu") return 0.75;
  throw ValueError("calculate_gain: unsupported nonlinearity '" + nl + "'");
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  TC_CHECK(t.dim() >= 2, "calculate_fan_in_and_fan_out: needs a tensor with at least 2 dims, got ",
           shape_str(t.sizes()));
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

Tensor uniform_(Tensor t, double a, double b, const GeneratorPtr& gen) {
  autograd::NoGradGuard g;
  tc::uniform_(t, a, b, gen);
  return t;
}

Tensor normal_(Tensor t, double mean, double std, const GeneratorPtr& gen) {
  autograd::NoGradGuard g;
  tc::normal_(t, mean, std, gen);
  return t;
}

Tensor constant_(Tensor t, double value) {
  autograd::NoGradGuard g;
  fill_(t, value);
  return t;
}
Tensor zeros_(Tensor t) { return constant_(t, 0); }
Tensor ones_(Tensor t) { return constant_(t, 1); }

Tensor xavier_uniform_(Tensor t, double gain, const GeneratorPtr& gen) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  double bound = std::sqrt(3.0) * gain * std::sqrt(2.0 / double(fi + fo));
  return init::uniform_(t, -bound, bound, gen);
}

Tensor xavier_normal_(Tensor t, double gain, const GeneratorPtr& gen) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  return init::normal_(t, 0, gain * std::sqrt(2.0 / double(fi + fo)), gen);
}

static double kaiming_std(const Tensor& t, double a, const std::string& mode,
                          const std::string& nl) {
  TC_CHECK(mode == "fan_in" || mode == "fan_out",
           "kaiming init: mode must be 'fan_in' or 'fan_out', got '", mode, "'");
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  int64_t fan = mode == "fan_in" ? fi : fo;
  TC_CHECK(fan > 0, "kaiming init: zero fan for a tensor of shape ", shape_str(t.sizes()));
  return calculate_gain(nl, a) / std::sqrt(double(fan));
}

Tensor kaiming_uniform_(Tensor t, double a, const std::string& mode, const std::string& nl,
                        const GeneratorPtr& gen) {
  double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nl);
  return init::uniform_(t, -bound, bound, gen);
}

Tensor kaiming_normal_(Tensor t, double a, const std::string& mode, const std::string& nl,
                       const GeneratorPtr& gen) {
  return init::normal_(t, 0, kaiming_std(t, a, mode, nl), gen);
}

}  // namespace tc::nn::init
