#pragma once
// tc::nn::init: torch.nn.init's in-place initializers (no autograd recorded), with torch 1.13's
// rules and error messages. This is the only implementation: tensorcore.nn.init (Python) calls
// these through tensorcore._C._nn_init. Fans follow torch: fan_in = size(1) * receptive field,
// fan_out = size(0) * receptive field. Random fills draw from `gen` (the default generator when
// null) in the order documented in docs/random.md.
#include <optional>
#include <string>
#include <utility>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::nn::init {

// "linear", "conv{1,2,3}d", "conv_transpose{1,2,3}d", "sigmoid" (1), "tanh" (5/3), "relu"
// (sqrt 2), "leaky_relu" (sqrt(2/(1+a^2)), a = param or 0.01), "selu" (3/4); anything else throws
// ValueError "Unsupported nonlinearity <name>".
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = {});
// (fan_in, fan_out); ValueError for tensors with fewer than 2 dims.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);
// mode "fan_in" or "fan_out" (case-insensitive, as torch).
int64_t calculate_correct_fan(const Tensor& t, const std::string& mode);

Tensor uniform_(Tensor t, double a = 0, double b = 1, const GeneratorPtr& gen = {});
Tensor normal_(Tensor t, double mean = 0, double std = 1, const GeneratorPtr& gen = {});
// Normal(mean, std) truncated to [a, b] by inverse-CDF sampling: one uniform_ fill, then erfinv_,
// scale, shift and clamp (torch's method and order).
Tensor trunc_normal_(Tensor t, double mean = 0, double std = 1, double a = -2, double b = 2,
                     const GeneratorPtr& gen = {});
// True when mean lies more than 2 std outside [a, b] (torch warns: the values may be wrong).
bool trunc_normal_mean_far(double mean, double std, double a, double b);
Tensor constant_(Tensor t, double value);
Tensor zeros_(Tensor t);
Tensor ones_(Tensor t);
Tensor eye_(Tensor t);                        // 2-D only
Tensor dirac_(Tensor t, int64_t groups = 1);  // 3-, 4- or 5-D; size(0) divisible by groups
Tensor xavier_uniform_(Tensor t, double gain = 1, const GeneratorPtr& gen = {});
Tensor xavier_normal_(Tensor t, double gain = 1, const GeneratorPtr& gen = {});
// a is the leaky_relu slope. A zero-element tensor is left as it is (torch warns there; the
// Python binding does).
Tensor kaiming_uniform_(Tensor t, double a = 0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu",
                        const GeneratorPtr& gen = {});
Tensor kaiming_normal_(Tensor t, double a = 0, const std::string& mode = "fan_in",
                       const std::string& nonlinearity = "leaky_relu",
                       const GeneratorPtr& gen = {});
// (Semi-)orthogonal: the Q of the QR of a float64 [rows, numel/rows] normal_ fill (transposed
// when rows < cols), columns sign-corrected by diag(R), times gain.
Tensor orthogonal_(Tensor t, double gain = 1, const GeneratorPtr& gen = {});
// 2-D: normal_(0, std), then in each column ceil(sparsity * rows) rows (the first of one
// randperm(rows) per column) set to zero.
Tensor sparse_(Tensor t, double sparsity, double std = 0.01, const GeneratorPtr& gen = {});

}  // namespace tc::nn::init
