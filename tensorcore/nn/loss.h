#pragma once
// Losses as functions (tc::nn::functional) and modules, torch's semantics and defaults.
// reduction: "mean" | "sum" | "none".
#include <string>

#include "tensorcore/nn/module.h"

namespace tc::nn {

namespace functional {
// input [N, C, *] log-probabilities, target int64 [N, *]; weight [C] optional.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                int64_t ignore_index = -100, const std::string& reduction = "mean");
// The fused kernel behind cross_entropy for float32/float64 CPU input with class-index targets
// (same arguments and results; double backward works).
Tensor cross_entropy_fused(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                           int64_t ignore_index = -100, const std::string& reduction = "mean",
                           double label_smoothing = 0.0);
// input [N, C, *] logits (or unbatched [C]); target int64 class indices [N, *] or floating class
// probabilities of the input's shape; label_smoothing in [0, 1].
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                     int64_t ignore_index = -100, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = {},
                                        const std::string& reduction = "mean",
                                        const Tensor& pos_weight = {});
}  // namespace functional

class CrossEntropyLossImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit CrossEntropyLossImpl(Tensor weight = {}, int64_t ignore_index = -100,
                                std::string reduction = "mean", double label_smoothing = 0.0);
  Tensor forward(const Tensor& input, const Tensor& target);
  int64_t ignore_index;
  std::string reduction;
  double label_smoothing;
  Tensor weight;
};
TC_MODULE(CrossEntropyLoss);

class NLLLossImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit NLLLossImpl(Tensor weight = {}, int64_t ignore_index = -100,
                       std::string reduction = "mean");
  Tensor forward(const Tensor& input, const Tensor& target);
  int64_t ignore_index;
  std::string reduction;
  Tensor weight;
};
TC_MODULE(NLLLoss);

class MSELossImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit MSELossImpl(std::string reduction = "mean");
  Tensor forward(const Tensor& input, const Tensor& target);
  std::string reduction;
};
TC_MODULE(MSELoss);

class BCEWithLogitsLossImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit BCEWithLogitsLossImpl(Tensor weight = {}, std::string reduction = "mean",
                                 Tensor pos_weight = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  std::string reduction;
  Tensor weight, pos_weight;
};
TC_MODULE(BCEWithLogitsLoss);

class CTCLossImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit CTCLossImpl(int64_t blank = 0, std::string reduction = "mean",
                       bool zero_infinity = false);
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  int64_t blank;
  std::string reduction;
  bool zero_infinity;
};
TC_MODULE(CTCLoss);

}  // namespace tc::nn
