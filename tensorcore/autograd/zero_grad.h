#pragma once
// zero_grad over a parameter list: what nn::Module::zero_grad and optim::Optimizer::zero_grad do.
#include "tensorcore/core/tensor.h"

namespace tc::autograd {

// Drops each defined gradient (set_to_none, torch's default) or fills it with zeros in place.
void zero_grad(const TensorList& params, bool set_to_none);

}  // namespace tc::autograd
