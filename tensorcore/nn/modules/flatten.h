#pragma once
// Flatten and Unflatten (torch.nn.modules.flatten).
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class FlattenImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit FlattenImpl(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int64_t start_dim, end_dim;
};
TC_MODULE(Flatten);

class UnflattenImpl : public Module {
 public:
  UnflattenImpl(int64_t dim, IntList sizes);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t dim;
  IntList sizes;
};
TC_MODULE(Unflatten);

}  // namespace tc::nn
