#include "tensorcore/nn/init.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/linalg/linalg.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::init {

double calculate_gain(const std::string& nl, std::optional<double> param) {
  static const char* linear_fns[] = {"linear",           "conv1d",           "conv2d",
                                     "conv3d",           "conv_transpose1d", "conv_transpose2d",
                                     "conv_transpose3d", "sigmoid"};
  for (const char* f : linear_fns)
    if (nl == f) return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nl == "selu") return 0.75;
  throw ValueError("Unsupported nonlinearity " + nl);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  TC_CHECK(t.dim() >= 2,
           "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

int64_t calculate_correct_fan(const Tensor& t, const std::string& mode_in) {
  std::string mode = mode_in;
  std::transform(mode.begin(), mode.end(), mode.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  TC_CHECK(mode == "fan_in" || mode == "fan_out", "Mode ", mode,
           " not supported, please use one of ['fan_in', 'fan_out']");
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  return mode == "fan_in" ? fi : fo;
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

bool trunc_normal_mean_far(double mean, double std, double a, double b) {
  return mean < a - 2 * std || mean > b + 2 * std;
}

Tensor trunc_normal_(Tensor t, double mean, double std, double a, double b,
                     const GeneratorPtr& gen) {
  auto norm_cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  autograd::NoGradGuard g;
  const double lo = norm_cdf((a - mean) / std), hi = norm_cdf((b - mean) / std);
  tc::uniform_(t, 2 * lo - 1, 2 * hi - 1, gen);
  erfinv_(t);
  mul_(t, Scalar(std * std::sqrt(2.0)));
  add_(t, Scalar(mean));
  clamp_(t, Scalar(a), Scalar(b));
  return t;
}

Tensor constant_(Tensor t, double value) {
  autograd::NoGradGuard g;
  fill_(t, value);
  return t;
}
Tensor zeros_(Tensor t) { return constant_(t, 0); }
Tensor ones_(Tensor t) { return constant_(t, 1); }

Tensor eye_(Tensor t) {
  TC_CHECK(t.dim() == 2, "Only tensors with 2 dimensions are supported");
  autograd::NoGradGuard g;
  copy_(t, eye(t.size(0), t.size(1), TensorOptions(t.dtype()).device(t.device())));
  return t;
}

Tensor dirac_(Tensor t, int64_t groups) {
  TC_CHECK(t.dim() >= 3 && t.dim() <= 5, "Only tensors with 3, 4, or 5 dimensions are supported");
  TC_CHECK(groups > 0 && t.size(0) % groups == 0, "dim 0 must be divisible by groups");
  autograd::NoGradGuard g;
  fill_(t, 0);
  const int64_t out_per_group = t.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, t.size(1));
  for (int64_t grp = 0; grp < groups; ++grp)
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor at = select(select(t, 0, grp * out_per_group + d), 0, d);
      while (at.dim() > 0) at = select(at, 0, at.size(0) / 2);
      fill_(at, 1);
    }
  return t;
}

Tensor xavier_uniform_(Tensor t, double gain, const GeneratorPtr& gen) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / double(fi + fo));
  const double bound = std::sqrt(3.0) * std;
  return init::uniform_(t, -bound, bound, gen);
}

Tensor xavier_normal_(Tensor t, double gain, const GeneratorPtr& gen) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  return init::normal_(t, 0, gain * std::sqrt(2.0 / double(fi + fo)), gen);
}

namespace {

double kaiming_std(const Tensor& t, double a, const std::string& mode, const std::string& nl) {
  const int64_t fan = calculate_correct_fan(t, mode);
  return calculate_gain(nl, a) / std::sqrt(double(fan));
}

}  // namespace

Tensor kaiming_uniform_(Tensor t, double a, const std::string& mode, const std::string& nl,
                        const GeneratorPtr& gen) {
  if (t.numel() == 0) return t;
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nl);
  return init::uniform_(t, -bound, bound, gen);
}

Tensor kaiming_normal_(Tensor t, double a, const std::string& mode, const std::string& nl,
                       const GeneratorPtr& gen) {
  if (t.numel() == 0) return t;
  return init::normal_(t, 0, kaiming_std(t, a, mode, nl), gen);
}

Tensor orthogonal_(Tensor t, double gain, const GeneratorPtr& gen) {
  TC_CHECK(t.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  if (t.numel() == 0) return t;
  autograd::NoGradGuard g;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  Tensor flat = empty({rows, cols}, TensorOptions(DType::Float64));
  tc::normal_(flat, 0.0, 1.0, gen);
  if (rows < cols) flat = contiguous(transpose(flat, 0, 1));
  auto [q, r] = linalg::qr(flat);
  q = mul(q, sign(diagonal(r, 0, 0, 1)));
  if (rows < cols) q = transpose(q, 0, 1);
  copy_(t, reshape(mul(q, gain), t.sizes()));
  return t;
}

Tensor sparse_(Tensor t, double sparsity, double std, const GeneratorPtr& gen) {
  TC_CHECK(t.dim() == 2, "Only tensors with 2 dimensions are supported");
  const int64_t rows = t.size(0), cols = t.size(1);
  // As torch's idx[:num_zeros]: a negative count drops that many from the end of the permutation.
  int64_t num_zeros = int64_t(std::ceil(sparsity * double(rows)));
  num_zeros = std::clamp(num_zeros < 0 ? rows + num_zeros : num_zeros, int64_t(0), rows);
  autograd::NoGradGuard g;
  tc::normal_(t, 0, std, gen);
  for (int64_t c = 0; c < cols; ++c) {
    Tensor idx = narrow(randperm(rows, gen), 0, 0, num_zeros);
    Tensor column = select(t, 1, c);
    index_fill_(column, 0, idx, Scalar(0));
  }
  return t;
}

}  // namespace tc::nn::init
