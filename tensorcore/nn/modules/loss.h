#pragma once
// The loss modules (torch.nn.modules.loss): each holds its options (and weight buffers) and calls
// the matching function of tc::nn::functional (nn/functional.h; defined in nn/loss.cpp,
// cross_entropy.cpp and ctc.cpp), with torch's names, arguments, defaults and reductions.
#include <string>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

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

#define TC_LOSS_MODULE(Name, Fields, Args, Call) \
  class Name##Impl : public Module {             \
   public:                                       \
    explicit Name##Impl Args;                    \
    ModulePtr clone() const override;            \
    Call;                                        \
    Fields                                       \
  };                                             \
  TC_MODULE(Name)

TC_LOSS_MODULE(L1Loss, std::string reduction;
               , (std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(SmoothL1Loss, std::string reduction; double beta;
               , (std::string reduction = "mean", double beta = 1.0),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(HuberLoss, std::string reduction; double delta;
               , (std::string reduction = "mean", double delta = 1.0),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(BCELoss, Tensor weight; std::string reduction;
               , (Tensor weight = {}, std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(KLDivLoss, std::string reduction; bool log_target;
               , (std::string reduction = "mean", bool log_target = false),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(MarginRankingLoss, double margin; std::string reduction;
               , (double margin = 0.0, std::string reduction = "mean"),
               Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target));
TC_LOSS_MODULE(CosineEmbeddingLoss, double margin; std::string reduction;
               , (double margin = 0.0, std::string reduction = "mean"),
               Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target));
TC_LOSS_MODULE(TripletMarginLoss, double margin; double p; double eps; bool swap;
               std::string reduction;,
                                     (double margin = 1.0, double p = 2.0, double eps = 1e-6,
                                      bool swap = false, std::string reduction = "mean"),
                                     Tensor forward(const Tensor& anchor, const Tensor& positive,
                                                    const Tensor& negative));
TC_LOSS_MODULE(PoissonNLLLoss, bool log_input; bool full; double eps; std::string reduction;
               ,
               (bool log_input = true, bool full = false, double eps = 1e-8,
                std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(GaussianNLLLoss, bool full; double eps; std::string reduction;
               , (bool full = false, double eps = 1e-6, std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var));
TC_LOSS_MODULE(HingeEmbeddingLoss, double margin; std::string reduction;
               , (double margin = 1.0, std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(SoftMarginLoss, std::string reduction;
               , (std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
// weight [C] (optional) is a buffer, as torch's.
TC_LOSS_MODULE(MultiLabelSoftMarginLoss, Tensor weight; std::string reduction;
               , (Tensor weight = {}, std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(MultiMarginLoss, int64_t p; double margin; Tensor weight; std::string reduction;
               ,
               (int64_t p = 1, double margin = 1.0, Tensor weight = {},
                std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
TC_LOSS_MODULE(MultiLabelMarginLoss, std::string reduction;
               , (std::string reduction = "mean"),
               Tensor forward(const Tensor& input, const Tensor& target));
// distance_function empty: pairwise_distance.
TC_LOSS_MODULE(TripletMarginWithDistanceLoss, functional::DistanceFunction distance_function;
               double margin; bool swap; std::string reduction;
               ,
               (functional::DistanceFunction distance_function = {}, double margin = 1.0,
                bool swap = false, std::string reduction = "mean"),
               Tensor forward(const Tensor& anchor, const Tensor& positive,
                              const Tensor& negative));
#undef TC_LOSS_MODULE

}  // namespace tc::nn
