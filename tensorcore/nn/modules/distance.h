#pragma once
// CosineSimilarity and PairwiseDistance (torch.nn.modules.distance).
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(int64_t dim = 1, double eps = 1e-8);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  int64_t dim;
  double eps;
};
TC_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(double p = 2.0, double eps = 1e-6, bool keepdim = false);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  double p, eps;
  bool keepdim;
};
TC_MODULE(PairwiseDistance);

}  // namespace tc::nn
