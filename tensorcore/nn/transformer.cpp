#include "tensorcore/nn/transformer.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "tensorcore/nn/attention.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(int64_t e, int64_t h, double p, bool bias, bool bf)
    : Module("MultiheadAttention"), embed_dim(e), num_heads(h), dropout(p), batch_first(bf) {
  functional::check_multihead_attention_options(e, h);
  in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}));
  in_proj_bias = register_parameter("in_proj_bias", bias ? empty({3 * e}) : Tensor());
  out_proj = register_module("out_proj", Linear(e, e, bias));
  functional::multihead_attention_reset_parameters(in_proj_weight, Tensor(), Tensor(), Tensor(),
                                                   in_proj_bias, out_proj->bias, Tensor(),
                                                   Tensor());
}

void MultiheadAttentionImpl::pretty_print(std::ostream& os) const { os << "MultiheadAttention"; }

std::pair<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                          const Tensor& value,
                                                          const Tensor& key_padding_mask,
                                                          bool need_weights,
                                                          const Tensor& attn_mask, bool average) {
  // batch_first: each input transposed on its own, as the Python module does (so both frontends
  // take the same projection path and give the same bits).
  const bool to_seq_first = batch_first && query.dim() == 3;
  auto seq_first = [&](const Tensor& t) { return to_seq_first ? transpose(t, 0, 1) : t; };
  auto [out, weights] = functional::multi_head_attention_forward(
      seq_first(query), seq_first(key), seq_first(value), embed_dim, num_heads, in_proj_weight,
      in_proj_bias, Tensor(), Tensor(), false, dropout, out_proj->weight, out_proj->bias, training_,
      key_padding_mask, need_weights, attn_mask, false, Tensor(), Tensor(), Tensor(), Tensor(),
      Tensor(), average);
  return {to_seq_first ? transpose(out, 0, 1) : out, weights};
}

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions o)
    : Module("TransformerEncoderLayer"), options(o) {
  TC_CHECK(o.activation == "relu" || o.activation == "gelu",
           "TransformerEncoderLayer: activation must be 'relu' or 'gelu', got '", o.activation,
           "'");
  self_attn = register_module(
      "self_attn", MultiheadAttention(o.d_model, o.nhead, o.dropout, true, o.batch_first));
  linear1 = register_module("linear1", Linear(o.d_model, o.dim_feedforward));
  dropout = register_module("dropout", Dropout(o.dropout));
  linear2 = register_module("linear2", Linear(o.dim_feedforward, o.d_model));
  norm1 = register_module("norm1", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
  norm2 = register_module("norm2", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
  dropout1 = register_module("dropout1", Dropout(o.dropout));
  dropout2 = register_module("dropout2", Dropout(o.dropout));
}

namespace {

// One residual sub-block of a transformer layer: x + f(norm(x)) with norm_first (pre-norm),
// norm(x + f(x)) otherwise.
template <typename F>
Tensor residual(const Tensor& x, LayerNorm& norm, bool norm_first, F&& f) {
  return norm_first ? add(x, f(norm(x))) : norm(add(x, f(x)));
}

Tensor activate(const Tensor& h, const std::string& activation) {
  return activation == "relu" ? relu(h) : functional::gelu(h);
}

}  // namespace

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& mask,
                                            const Tensor& kpm) {
  auto sa = [&](const Tensor& x) { return dropout1(self_attn(x, x, x, kpm, false, mask).first); };
  auto ff = [&](const Tensor& x) {
    return dropout2(linear2(dropout(activate(linear1(x), options.activation))));
  };
  Tensor x = residual(src, norm1, options.norm_first, sa);
  return residual(x, norm2, options.norm_first, ff);
}

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderLayerOptions o, int64_t n,
                                               bool final_norm)
    : Module("TransformerEncoder") {
  TC_CHECK(n > 0, "TransformerEncoder: num_layers must be positive, got ", n);
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < n; ++i) layers->push_back(TransformerEncoderLayer(o));
  if (final_norm) norm = register_module("norm", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& mask, const Tensor& kpm) {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i)
    x = call(*layers->ptr<TransformerEncoderLayerImpl>(i), x, mask, kpm);
  return norm ? norm(x) : x;
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(TransformerDecoderLayerOptions o)
    : Module("TransformerDecoderLayer"), options(o) {
  TC_CHECK(o.activation == "relu" || o.activation == "gelu",
           "TransformerDecoderLayer: activation must be 'relu' or 'gelu', got '", o.activation,
           "'");
  self_attn = register_module(
      "self_attn", MultiheadAttention(o.d_model, o.nhead, o.dropout, true, o.batch_first));
  multihead_attn = register_module(
      "multihead_attn", MultiheadAttention(o.d_model, o.nhead, o.dropout, true, o.batch_first));
  linear1 = register_module("linear1", Linear(o.d_model, o.dim_feedforward));
  dropout = register_module("dropout", Dropout(o.dropout));
  linear2 = register_module("linear2", Linear(o.dim_feedforward, o.d_model));
  norm1 = register_module("norm1", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
  norm2 = register_module("norm2", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
  norm3 = register_module("norm3", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
  dropout1 = register_module("dropout1", Dropout(o.dropout));
  dropout2 = register_module("dropout2", Dropout(o.dropout));
  dropout3 = register_module("dropout3", Dropout(o.dropout));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_kpm, const Tensor& memory_kpm) {
  auto sa = [&](const Tensor& x) {
    return dropout1(self_attn(x, x, x, tgt_kpm, false, tgt_mask).first);
  };
  auto mha = [&](const Tensor& x) {
    return dropout2(multihead_attn(x, memory, memory, memory_kpm, false, memory_mask).first);
  };
  auto ff = [&](const Tensor& x) {
    return dropout3(linear2(dropout(activate(linear1(x), options.activation))));
  };
  Tensor x = residual(tgt, norm1, options.norm_first, sa);
  x = residual(x, norm2, options.norm_first, mha);
  return residual(x, norm3, options.norm_first, ff);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderLayerOptions o, int64_t n,
                                               bool final_norm)
    : Module("TransformerDecoder") {
  TC_CHECK(n > 0, "TransformerDecoder: num_layers must be positive, got ", n);
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < n; ++i) layers->push_back(TransformerDecoderLayer(o));
  if (final_norm) norm = register_module("norm", LayerNorm(IntList{o.d_model}, o.layer_norm_eps));
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_kpm, const Tensor& memory_kpm) {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    x = call(*layers->ptr<TransformerDecoderLayerImpl>(i), x, memory, tgt_mask, memory_mask,
             tgt_kpm, memory_kpm);
  return norm ? norm(x) : x;
}

TransformerImpl::TransformerImpl(TransformerOptions o) : Module("Transformer"), options(o) {
  TransformerEncoderLayerOptions lo{o.d_model,     o.nhead,      o.dim_feedforward,
                                    o.dropout,     o.activation, o.layer_norm_eps,
                                    o.batch_first, o.norm_first};
  encoder = register_module("encoder", TransformerEncoder(lo, o.num_encoder_layers, true));
  decoder = register_module("decoder", TransformerDecoder(lo, o.num_decoder_layers, true));
  functional::transformer_reset_parameters(parameters());
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_kpm, const Tensor& tgt_kpm,
                                const Tensor& memory_kpm) {
  const int bdim = options.batch_first ? 0 : 1;
  TC_CHECK(src.dim() == 3 && tgt.dim() == 3,
           "Transformer: expected 3-d src and tgt, but got src of size ", shape_str(src.sizes()),
           " and tgt of size ", shape_str(tgt.sizes()));
  TC_CHECK(src.size(bdim) == tgt.size(bdim),
           "Transformer: the batch number of src and tgt must be equal, got src ",
           shape_str(src.sizes()), " and tgt ", shape_str(tgt.sizes()),
           options.batch_first ? " (batch_first)" : "");
  TC_CHECK(src.size(2) == options.d_model && tgt.size(2) == options.d_model,
           "Transformer: the feature number of src and tgt must be equal to d_model (",
           options.d_model, "), got src ", shape_str(src.sizes()), " and tgt ",
           shape_str(tgt.sizes()));
  Tensor memory = encoder(src, src_mask, src_kpm);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_kpm, memory_kpm);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz, DType dtype) {
  TC_CHECK(sz >= 0, "Transformer.generate_square_subsequent_mask: size must be non-negative, got ",
           sz);
  return triu(full({sz, sz}, -std::numeric_limits<double>::infinity(), dtype), 1);
}

}  // namespace tc::nn

namespace tc::nn::functional {

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  TC_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2 && q.size(-1) == k.size(-1) &&
               k.size(-2) == v.size(-2),
           "scaled_dot_product_attention: expected query [*, L, E], key [*, S, E] and value [*, S, "
           "Ev], but got ",
           shape_str(q.sizes()), ", ", shape_str(k.sizes()), " and ", shape_str(v.sizes()));
  const int64_t L = q.size(-2), S = k.size(-2);
  const double s = scale ? *scale : 1.0 / std::sqrt(double(q.size(-1)));
  Tensor scores = mul(matmul(q, transpose(k, -2, -1)), s);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (is_causal)
    scores = masked_fill(scores, logical_not(tril(ones({L, S}, DType::Bool))), neg_inf);
  if (attn_mask.defined())
    scores = attn_mask.dtype() == DType::Bool ? masked_fill(scores, logical_not(attn_mask), neg_inf)
                                              : add(scores, attn_mask);
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0) weights = dropout(weights, dropout_p, true);
  return matmul(weights, v);
}

}  // namespace tc::nn::functional
