#pragma once
// More layers and functional forms for the C++ frontend (torch.nn names, arguments, parameter
// names and init): Bilinear, EmbeddingBag, ConstantPad1d/3d, ReflectionPad1d/3d,
// ReplicationPad1d/3d, Dropout1d/3d, AlphaDropout, FeatureAlphaDropout, CosineSimilarity,
// PairwiseDistance, Fold, Unfold, Softmax2d, ChannelShuffle; functional bilinear, one_hot,
// normalize, cosine_similarity, pairwise_distance, scaled_dot_product_attention, softmin, glu,
// interpolate. Built on the native kernels of tc::nn::functional where one exists, otherwise the
// same core-op composites as tensorcore.nn.functional.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

namespace functional {
// y_k = x1^T W_k x2 + b_k over the last dims; weight [out, in1, in2].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {});
// int64 class indices -> int64 [*, num_classes] (num_classes -1: max + 1).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);
// softmax(Q K^T * scale + mask) V; a bool attn_mask marks the positions that may attend (true).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = {});
Tensor softmin(const Tensor& input, int64_t dim);
Tensor glu(const Tensor& input, int64_t dim = -1);
// (N, g*c, *) -> (N, c*g, *): the group and per-group channel axes transposed.
Tensor channel_shuffle(const Tensor& input, int64_t groups);
// torch's interpolate: exactly one of size (1 or one per spatial dim) and scale_factor; the output
// is floor(in * scale) and the coordinate mapping uses the given scale unless
// recompute_scale_factor. align_corners only for linear modes.
Tensor interpolate(const Tensor& input, const IntList& size = {},
                   const std::vector<double>& scale_factor = {},
                   const std::string& mode = "nearest", std::optional<bool> align_corners = {},
                   bool recompute_scale_factor = false, bool antialias = false);
}  // namespace functional

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

// Padding over the last `spatial` dims: one value for every side or (left, right[, top, bottom
// [, front, back]]); mode "constant" | "reflect" | "replicate".
class PadNdImpl : public Module {
 public:
  PadNdImpl(std::string type, int spatial, IntList padding, std::string mode, double value);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int spatial;
  IntList padding;
  std::string mode;
  double value;
};
#define TC_PAD_MODULE(Name, N, Mode)                                                             \
  class Name##Impl : public PadNdImpl {                                                          \
   public:                                                                                       \
    explicit Name##Impl(IntList padding) : PadNdImpl(#Name, N, std::move(padding), Mode, 0.0) {} \
  };                                                                                             \
  TC_MODULE(Name)
TC_PAD_MODULE(ReflectionPad1d, 1, "reflect");
TC_PAD_MODULE(ReflectionPad3d, 3, "reflect");
TC_PAD_MODULE(ReplicationPad1d, 1, "replicate");
TC_PAD_MODULE(ReplicationPad3d, 3, "replicate");
#undef TC_PAD_MODULE
class ConstantPad1dImpl : public PadNdImpl {
 public:
  ConstantPad1dImpl(IntList padding, double value)
      : PadNdImpl("ConstantPad1d", 1, std::move(padding), "constant", value) {}
};
TC_MODULE(ConstantPad1d);
class ConstantPad3dImpl : public PadNdImpl {
 public:
  ConstantPad3dImpl(IntList padding, double value)
      : PadNdImpl("ConstantPad3d", 3, std::move(padding), "constant", value) {}
};
TC_MODULE(ConstantPad3d);

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

// Softmax over the channel dim of [N, C, H, W] or [C, H, W].
class Softmax2dImpl : public Module {
 public:
  Softmax2dImpl() : Module("Softmax2d") {}
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
};
TC_MODULE(Softmax2d);

class ChannelShuffleImpl : public Module {
 public:
  explicit ChannelShuffleImpl(int64_t groups);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x) { return functional::channel_shuffle(x, groups); }
  int64_t groups;
};
TC_MODULE(ChannelShuffle);

// im2col / col2im as modules (functional::unfold / fold).
class UnfoldImpl : public Module {
 public:
  explicit UnfoldImpl(IntList kernel_size, IntList dilation = {1}, IntList padding = {0},
                      IntList stride = {1});
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  IntList kernel_size, dilation, padding, stride;
};
TC_MODULE(Unfold);
class FoldImpl : public Module {
 public:
  FoldImpl(IntList output_size, IntList kernel_size, IntList dilation = {1}, IntList padding = {0},
           IntList stride = {1});
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  IntList output_size, kernel_size, dilation, padding, stride;
};
TC_MODULE(Fold);

}  // namespace tc::nn
