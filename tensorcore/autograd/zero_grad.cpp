#include "tensorcore/autograd/zero_grad.h"

#include "tensorcore/ops/creation.h"

namespace tc::autograd {

void zero_grad(const TensorList& params, bool set_to_none) {
  for (const auto& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none)
      p.set_grad(Tensor());
    else
      zero_(g);
  }
}

}  // namespace tc::autograd
