#pragma once
// MultiheadAttention, TransformerEncoder(Layer), TransformerDecoder(Layer) and Transformer with
// torch 1.13's parameter names and math (in_proj_weight/in_proj_bias packed q,k,v; out_proj;
// post-norm by default, norm_first option), so state_dicts interchange with torch.nn.Transformer.
#include <string>
#include <utility>

#include "tensorcore/nn/containers.h"
#include "tensorcore/nn/modules/dropout.h"
#include "tensorcore/nn/modules/linear.h"
#include "tensorcore/nn/modules/normalization.h"

namespace tc::nn {

class MultiheadAttentionImpl : public Module {
 public:
  ModulePtr clone() const override;
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads, double dropout = 0.0,
                         bool bias = true, bool batch_first = false);
  // query [L, N, E], key/value [S, N, E] ([N, *, E] with batch_first). attn_mask [L, S] or
  // [N*heads, L, S], bool (true = masked out) or float (added); key_padding_mask [N, S] bool
  // (true = padding). Returns (output, attention weights [N, L, S] averaged over heads, or
  // [N, heads, L, S] without averaging; undefined when need_weights is false).
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask = {}, bool need_weights = true,
                                    const Tensor& attn_mask = {}, bool average_attn_weights = true);
  void pretty_print(std::ostream& os) const override;
  int64_t embed_dim, num_heads;
  double dropout;
  bool batch_first;
  Tensor in_proj_weight, in_proj_bias;
  Linear out_proj{nullptr};
};
TC_MODULE(MultiheadAttention);

struct TransformerEncoderLayerOptions {
  int64_t d_model, nhead, dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false, norm_first = false;
};

class TransformerEncoderLayerImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options);
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions{d_model, nhead}) {}
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
};
TC_MODULE(TransformerEncoderLayer);

// num_layers layers made from `layer_options` (state_dict keys layers.<i>.*), plus an optional
// final LayerNorm ("norm.*").
class TransformerEncoderImpl : public Module {
 public:
  ModulePtr clone() const override;
  TransformerEncoderImpl(TransformerEncoderLayerOptions layer_options, int64_t num_layers,
                         bool final_norm = false);
  Tensor forward(const Tensor& src, const Tensor& mask = {},
                 const Tensor& src_key_padding_mask = {});
  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};
};
TC_MODULE(TransformerEncoder);

// Same fields as the encoder layer's options.
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

// Self-attention over tgt, cross-attention to memory, feed-forward; keys self_attn.*,
// multihead_attn.*, linear1/2.*, norm1/2/3.*.
class TransformerDecoderLayerImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options);
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions{d_model, nhead}) {}
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
};
TC_MODULE(TransformerDecoderLayer);

class TransformerDecoderImpl : public Module {
 public:
  ModulePtr clone() const override;
  TransformerDecoderImpl(TransformerDecoderLayerOptions layer_options, int64_t num_layers,
                         bool final_norm = false);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};
};
TC_MODULE(TransformerDecoder);

struct TransformerOptions {
  int64_t d_model = 512, nhead = 8, num_encoder_layers = 6, num_decoder_layers = 6,
          dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false, norm_first = false;
};

// torch.nn.Transformer: encoder (with final norm) and decoder (with final norm); every parameter
// with more than one dimension is xavier_uniform_-initialized, as torch does.
class TransformerImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit TransformerImpl(TransformerOptions options = {});
  // src [S, N, E], tgt [T, N, E] ([N, *, E] with batch_first). Masks as in the layers.
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  // [sz, sz] float mask: -inf above the diagonal, 0 elsewhere.
  static Tensor generate_square_subsequent_mask(int64_t sz, DType dtype = DType::Float32);
  TransformerOptions options;
  TransformerEncoder encoder{nullptr};
  TransformerDecoder decoder{nullptr};
};
TC_MODULE(Transformer);

}  // namespace tc::nn
