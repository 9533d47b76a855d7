#pragma once
// Dropout family (torch.nn.modules.dropout): Dropout, Dropout1d/2d/3d, AlphaDropout,
// FeatureAlphaDropout.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class DropoutImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit DropoutImpl(double p = 0.5);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  double p;
};
TC_MODULE(Dropout);

// Dropout1d / Dropout3d drop whole channels of [N, C, L] / [N, C, D, H, W] (or unbatched) inputs;
// AlphaDropout / FeatureAlphaDropout keep SELU's mean and variance.
class DropoutVariantImpl : public Module {
 public:
  DropoutVariantImpl(std::string type, double p);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  double p;
};
#define TC_DROPOUT_MODULE(Name)                                           \
  class Name##Impl : public DropoutVariantImpl {                          \
   public:                                                                \
    explicit Name##Impl(double p = 0.5) : DropoutVariantImpl(#Name, p) {} \
  };                                                                      \
  TC_MODULE(Name)
TC_DROPOUT_MODULE(Dropout1d);
TC_DROPOUT_MODULE(Dropout3d);
TC_DROPOUT_MODULE(AlphaDropout);
TC_DROPOUT_MODULE(FeatureAlphaDropout);
#undef TC_DROPOUT_MODULE

// Zeroes whole channels with probability p (training only), scaling the rest by 1/(1-p).
class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(double p = 0.5);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  double p;
};
TC_MODULE(Dropout2d);

}  // namespace tc::nn
