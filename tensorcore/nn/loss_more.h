#pragma once
// More losses for the C++ frontend (torch.nn's names, arguments and reductions), as functions
// in tc::nn::functional and as modules: L1Loss, SmoothL1Loss, HuberLoss, BCELoss, KLDivLoss,
// MarginRankingLoss, CosineEmbeddingLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss.
// All are tensor-op composites, so autograd (and double backward) comes from the core ops.
#include <string>

#include "tensorcore/nn/module.h"

namespace tc::nn {
namespace functional {
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const std::string& reduction = "mean", double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
// Probabilities in [0, 1]; the logs are clamped at -100 like torch.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            const std::string& reduction = "mean");
// input holds log-probabilities; reduction also "batchmean" (sum / batch size).
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, const std::string& reduction = "mean");
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, const std::string& reduction = "mean");
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2.0, double eps = 1e-6,
                           bool swap = false, const std::string& reduction = "mean");
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true,
                        bool full = false, double eps = 1e-8,
                        const std::string& reduction = "mean");
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         bool full = false, double eps = 1e-6,
                         const std::string& reduction = "mean");
}  // namespace functional

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
#undef TC_LOSS_MODULE

}  // namespace tc::nn
