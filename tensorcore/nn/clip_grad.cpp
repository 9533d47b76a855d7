#include "tensorcore/nn/clip_grad.h"

#include <cmath>
#include <limits>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::utils {

double clip_grad_norm_(const TensorList& parameters, double max_norm, double norm_type) {
  TC_CHECK(max_norm >= 0, "clip_grad_norm_: max_norm must be non-negative, got ", max_norm);
  TC_CHECK(norm_type > 0, "clip_grad_norm_: norm_type must be positive, got ", norm_type);
  autograd::NoGradGuard no_grad;
  TensorList grads;
  for (auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  // Reduce on the gradients' device and read the total once: one host sync however many
  // parameters (gradients on other devices are moved to the first one's).
  const bool inf = std::isinf(norm_type);
  const Device device = grads[0].device();
  TensorList norms;
  for (auto& g : grads) norms.push_back(to_device(inf ? amax(abs(g)) : norm(g, norm_type), device));
  Tensor stacked = stack(norms);
  const double total = (inf ? amax(stacked) : norm(stacked, norm_type)).item<double>();
  double coef = max_norm / (total + 1e-6);
  if (coef < 1)
    for (auto& g : grads) {
      Tensor gm = g;
      mul_(gm, coef);
    }
  return total;
}

void clip_grad_value_(const TensorList& parameters, double clip_value) {
  TC_CHECK(clip_value >= 0, "clip_grad_value_: clip_value must be non-negative, got ", clip_value);
  autograd::NoGradGuard no_grad;
  for (auto& p : parameters) {
    Tensor g = p.grad();
    if (g.defined()) clamp_(g, Scalar(-clip_value), Scalar(clip_value));
  }
}

}  // namespace tc::nn::utils
