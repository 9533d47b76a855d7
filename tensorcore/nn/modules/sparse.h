#pragma once
// Embedding and EmbeddingBag (torch.nn.modules.sparse).
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class EmbeddingImpl : public Module {
 public:
  ModulePtr clone() const override;
  // max_norm renormalizes the looked-up rows in place (torch's semantics).
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim,
                std::optional<int64_t> padding_idx = {}, std::optional<double> max_norm = {},
                double norm_type = 2.0, bool scale_grad_by_freq = false);
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& os) const override;
  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  Tensor weight;
};
TC_MODULE(Embedding);

struct EmbeddingBagOptions {
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";  // "sum" | "mean" | "max"
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx;
};
// Sums / averages / maxes bags of embeddings: input [B, L] (bags of equal length) or 1-d with
// offsets [B] (or [B + 1] with include_last_offset); per_sample_weights only with mode "sum".
// weight N(0, 1), padding row zeroed.
class EmbeddingBagImpl : public Module {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim, EmbeddingBagOptions options = {});
  ModulePtr clone() const override;
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& os) const override;
  int64_t num_embeddings, embedding_dim;
  EmbeddingBagOptions options;
  Tensor weight;
};
TC_MODULE(EmbeddingBag);

}  // namespace tc::nn
