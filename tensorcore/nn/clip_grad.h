#pragma once
// torch.nn.utils.clip_grad_norm_ / clip_grad_value_ for C++ training loops.
#include "tensorcore/core/tensor.h"

namespace tc::nn::utils {

// Scales every gradient by max_norm / (total_norm + 1e-6) when that is below 1, where total_norm
// is the norm_type-norm of all gradients together (norm_type = infinity: the largest |g|).
// Parameters without a gradient are skipped. Returns total_norm (before clipping).
double clip_grad_norm_(const TensorList& parameters, double max_norm, double norm_type = 2.0);
// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const TensorList& parameters, double clip_value);

}  // namespace tc::nn::utils
