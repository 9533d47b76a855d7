#pragma once
// Identity-free linear maps: Linear and Bilinear (torch.nn.modules.linear).
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class LinearImpl : public Module {
 public:
  ModulePtr clone() const override;
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x);
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  int64_t in_features, out_features;
  Tensor weight, bias;
};
TC_MODULE(Linear);

// weight [out, in1, in2], bias [out], both U(-1/sqrt(in1), 1/sqrt(in1)).
class BilinearImpl : public Module {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  int64_t in1_features, in2_features, out_features;
  Tensor weight, bias;
};
TC_MODULE(Bilinear);

}  // namespace tc::nn
