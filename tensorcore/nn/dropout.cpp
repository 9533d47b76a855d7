// Dropout family as composites over the core's Philox bernoulli: the mask is drawn once (per
// element, or per (N, C) feature map for the feature variants) and the output is input * mask
// (+ b for alpha dropout), so autograd comes from mul/add.
#include <cmath>

#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

Tensor noise_like(const Tensor& input, bool feature, double keep) {
  Shape s = input.sizes();
  if (feature)
    for (size_t i = 2; i < s.size(); ++i) s[i] = 1;
  Tensor noise = empty(s, TensorOptions(input.dtype()));
  bernoulli_(noise, keep);
  return noise;
}

Tensor dropout_impl(const char* op, const Tensor& input, double p, bool training, bool inplace,
                    bool feature, bool alpha) {
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  TC_CHECK(p >= 0 && p <= 1, op, ": dropout probability has to be between 0 and 1, but got ", p);
  TC_CHECK_TYPE(input.is_floating_point(), op, ": expected a floating point input, got ",
                dtype_name(input.dtype()));
  if (feature)
    TC_CHECK(input.dim() >= 2, op,
             ": feature dropout needs an input of at least 2 dims (N, C, *), got shape ",
             shape_str(input.sizes()));
  if (!training || p == 0 || input.numel() == 0) return input;
  Tensor x = input;
  if (p == 1) {
    // Everything dropped (torch returns input * 0 for every variant).
    return inplace ? mul_(x, Scalar(0)) : mul(input, zeros_like(input));
  }
  Tensor noise = noise_like(input, feature, 1 - p);
  if (!alpha) {
    Tensor mask = mul(noise, Scalar(1.0 / (1 - p)));
    return inplace ? mul_(x, mask) : mul(input, mask);
  }
  const double a_const = 1.7580993408473766;
  double a = 1.0 / std::sqrt((a_const * a_const * p + 1) * (1 - p));
  Tensor b = add(mul(sub(noise, Scalar(1)), Scalar(a_const * a)), Scalar(a_const * a * p));
  Tensor mask = mul(noise, Scalar(a));
  if (inplace) return add_(mul_(x, mask), b);
  return add(mul(input, mask), b);
}

}  // namespace

namespace functional {

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  return dropout_impl("dropout", input, p, training, inplace, false, false);
}
Tensor feature_dropout(const Tensor& input, double p, bool training, bool inplace) {
  return dropout_impl("feature_dropout", input, p, training, inplace, true, false);
}
Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  return dropout_impl("alpha_dropout", input, p, training, inplace, false, true);
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  return dropout_impl("feature_alpha_dropout", input, p, training, inplace, true, true);
}

// Channel-wise dropout of an input whose batch dim may be missing (unsqueezed for the call, as
// torch 1.13 does).
Tensor feature_dropout_maybe_unbatched(const Tensor& input, double p, bool training, bool inplace,
                                       bool batched) {
  if (batched) return feature_dropout(input, p, training, inplace);
  if (inplace) {
    Tensor x = input;
    feature_dropout(unsqueeze(x, 0), p, training, true);
    return x;
  }
  Tensor y = feature_dropout(unsqueeze(input, 0), p, training, false);
  return y.is_same(input) ? input : squeeze(y, 0);
}

Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace) {
  TC_CHECK(input.defined(), "dropout1d: input must be a tensor");
  TC_CHECK(p >= 0 && p <= 1, "dropout1d: dropout probability has to be between 0 and 1, but got ",
           p);
  TC_CHECK(input.dim() == 2 || input.dim() == 3,
           "dropout1d: Expected 2D or 3D input, but received a ", input.dim(),
           "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
           "spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or "
           "3D inputs).");
  return feature_dropout_maybe_unbatched(input, p, training, inplace, input.dim() == 3);
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  TC_CHECK(input.defined(), "dropout2d: input must be a tensor");
  TC_CHECK(p >= 0 && p <= 1, "dropout2d: dropout probability has to be between 0 and 1, but got ",
           p);
  TC_CHECK(input.dim() >= 2, "dropout2d: feature dropout needs at least 2 dimensions, got shape ",
           shape_str(input.sizes()));
  // torch 1.13 takes a 3-d input as (N, C, L) and any other rank as batched too.
  return feature_dropout(input, p, training, inplace);
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  TC_CHECK(input.defined(), "dropout3d: input must be a tensor");
  TC_CHECK(p >= 0 && p <= 1, "dropout3d: dropout probability has to be between 0 and 1, but got ",
           p);
  return feature_dropout_maybe_unbatched(input, p, training, inplace, input.dim() == 5);
}

}  // namespace functional
}  // namespace tc::nn
