#pragma once
// tc::nn::init: torch.nn.init's in-place initializers (no autograd recorded). Fans follow
// torch: fan_in = size(1) * receptive field, fan_out = size(0) * receptive field.
#include <string>
#include <utility>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::nn::init {

// "linear", "conv*", "sigmoid" (1), "tanh" (5/3), "relu" (sqrt 2), "leaky_relu" (sqrt(2/(1+a^2))),
// "selu" (3/4).
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);

Tensor uniform_(Tensor t, double a = 0, double b = 1, const GeneratorPtr& gen = {});
Tensor normal_(Tensor t, double mean = 0, double std = 1, const GeneratorPtr& gen = {});
Tensor constant_(Tensor t, double value);
Tensor zeros_(Tensor t);
Tensor ones_(Tensor t);
Tensor xavier_uniform_(Tensor t, double gain = 1, const GeneratorPtr& gen = {});
Tensor xavier_normal_(Tensor t, double gain = 1, const GeneratorPtr& gen = {});
// mode "fan_in" or "fan_out"; a is the leaky_relu slope.
Tensor kaiming_uniform_(Tensor t, double a = 0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu",
                        const GeneratorPtr& gen = {});
Tensor kaiming_normal_(Tensor t, double a = 0, const std::string& mode = "fan_in",
                       const std::string& nonlinearity = "leaky_relu",
                       const GeneratorPtr& gen = {});

}  // namespace tc::nn::init
