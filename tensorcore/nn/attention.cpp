#include "tensorcore/nn/attention.h"

#include <cmath>
#include <limits>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/tuple_str.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// One more key position: masks get a zero (attend) column at the end.
Tensor pad_one_key(const Tensor& mask) { return mask.defined() ? pad(mask, {0, 1}) : mask; }

Tensor causal_mask_out(int64_t L, int64_t S) {  // true where j > i
  return logical_not(tril(ones({L, S}, TensorOptions(DType::Bool))));
}

}  // namespace

void check_multihead_attention_options(int64_t embed_dim, int64_t num_heads) {
  TC_CHECK(embed_dim > 0 && num_heads > 0 && embed_dim % num_heads == 0,
           "MultiheadAttention: embed_dim (", embed_dim, ") must be divisible by num_heads (",
           num_heads, ")");
}

void multihead_attention_reset_parameters(Tensor in_proj_weight, Tensor q_proj_weight,
                                          Tensor k_proj_weight, Tensor v_proj_weight,
                                          Tensor in_proj_bias, Tensor out_proj_bias, Tensor bias_k,
                                          Tensor bias_v) {
  if (in_proj_weight.defined()) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.0);
    if (out_proj_bias.defined()) init::constant_(out_proj_bias, 0.0);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

void transformer_reset_parameters(const TensorList& parameters) {
  for (Tensor p : parameters)
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor mask_to_additive(const Tensor& mask, DType dtype) {
  if (!mask.defined()) return mask;
  if (mask.dtype() == DType::Bool)
    return masked_fill(zeros(mask.sizes(), TensorOptions(dtype).device(mask.device())), mask,
                       kNegInf);
  return to(mask, mask.device(), dtype);
}

std::tuple<Tensor, Tensor, Tensor> in_projection(const Tensor& q, const Tensor& k, const Tensor& v,
                                                 const Tensor& w, const Tensor& b, int64_t E,
                                                 const Tensor& wq_in, const Tensor& wk_in,
                                                 const Tensor& wv_in) {
  const bool separate = wq_in.defined();
  Tensor bq, bk, bv;
  if (b.defined()) {
    bq = narrow(b, 0, 0, E);
    bk = narrow(b, 0, E, E);
    bv = narrow(b, 0, 2 * E, E);
  }
  if (!separate && q.is_same(k) && k.is_same(v)) {
    Tensor qkv = linear(q, w, b);
    return {narrow(qkv, -1, 0, E), narrow(qkv, -1, E, E), narrow(qkv, -1, 2 * E, E)};
  }
  Tensor wq = separate ? wq_in : narrow(w, 0, 0, E);
  Tensor wk = separate ? wk_in : narrow(w, 0, E, E);
  Tensor wv = separate ? wv_in : narrow(w, 0, 2 * E, E);
  return {linear(q, wq, bq), linear(k, wk, bk), linear(v, wv, bv)};
}

std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in,
    int64_t embed_dim_to_check, int64_t num_heads, const Tensor& in_proj_weight,
    const Tensor& in_proj_bias, const Tensor& bias_k, const Tensor& bias_v, bool add_zero_attn,
    double dropout_p, const Tensor& out_proj_weight, const Tensor& out_proj_bias, bool training,
    const Tensor& key_padding_mask_in, bool need_weights, const Tensor& attn_mask_in,
    bool use_separate_proj_weight, const Tensor& q_proj_weight, const Tensor& k_proj_weight,
    const Tensor& v_proj_weight, const Tensor& static_k, const Tensor& static_v,
    bool average_attn_weights, bool is_causal) {
  TC_CHECK(query_in.dim() == 2 || query_in.dim() == 3,
           "MultiheadAttention: query should be unbatched 2D or batched 3D tensor but received ",
           query_in.dim(), "-D query tensor");
  const bool batched = query_in.dim() == 3;
  // Unbatched inputs get a batch dim of 1 (the same tensor keeps being the same tensor, so the
  // packed self-attention projection still applies).
  auto batch = [&](const Tensor& t) { return batched ? t : unsqueeze(t, 1); };
  Tensor query = batch(query_in);
  Tensor key = key_in.is_same(query_in) ? query : batch(key_in);
  Tensor value = value_in.is_same(key_in) ? key : batch(value_in);
  Tensor key_padding_mask = key_padding_mask_in.defined() && !batched
                                ? unsqueeze(key_padding_mask_in, 0)
                                : key_padding_mask_in;
  TC_CHECK(key.dim() == 3 && value.dim() == 3,
           "MultiheadAttention: key and value must have the same number of dimensions as query");
  const int64_t tgt_len = query.size(0), bsz = query.size(1), E = query.size(2);
  TC_CHECK(E == embed_dim_to_check, "MultiheadAttention: was expecting embedding dimension of ",
           embed_dim_to_check, ", but got ", E);
  TC_CHECK(num_heads > 0 && E % num_heads == 0, "MultiheadAttention: embed_dim ", E,
           " not divisible by num_heads ", num_heads);
  const int64_t head_dim = E / num_heads;
  if (use_separate_proj_weight)
    TC_CHECK(q_proj_weight.defined() && k_proj_weight.defined() && v_proj_weight.defined(),
             "MultiheadAttention: use_separate_proj_weight is True but q_proj_weight, "
             "k_proj_weight or v_proj_weight is None");
  auto [q, k, v] = use_separate_proj_weight
                       ? in_projection(query, key, value, in_proj_weight, in_proj_bias, E,
                                       q_proj_weight, k_proj_weight, v_proj_weight)
                       : in_projection(query, key, value, in_proj_weight, in_proj_bias, E);

  Tensor attn_mask = mask_to_additive(attn_mask_in, q.dtype());
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      const Shape want{tgt_len, key.size(0)};
      TC_CHECK(attn_mask.sizes() == want, "MultiheadAttention: the shape of the 2D attn_mask is ",
               tuple_str(attn_mask.sizes()), ", but should be ", tuple_str(want), ".");
      attn_mask = unsqueeze(attn_mask, 0);
    } else {
      TC_CHECK(attn_mask.dim() == 3, "MultiheadAttention: attn_mask's dimension ", attn_mask.dim(),
               " is not supported");
    }
  }
  if (bias_k.defined() && bias_v.defined()) {
    k = cat({k, expand(bias_k, {1, bsz, E})}, 0);
    v = cat({v, expand(bias_v, {1, bsz, E})}, 0);
    attn_mask = pad_one_key(attn_mask);
    key_padding_mask = pad_one_key(key_padding_mask);
  }
  q = transpose(reshape(q, {tgt_len, bsz * num_heads, head_dim}), 0, 1);
  k = static_k.defined() ? static_k
                         : transpose(reshape(k, {k.size(0), bsz * num_heads, head_dim}), 0, 1);
  v = static_v.defined() ? static_v
                         : transpose(reshape(v, {v.size(0), bsz * num_heads, head_dim}), 0, 1);
  if (add_zero_attn) {
    k = cat({k, zeros({bsz * num_heads, 1, head_dim}, TensorOptions(k.dtype()).device(k.device()))},
            1);
    v = cat({v, zeros({bsz * num_heads, 1, head_dim}, TensorOptions(v.dtype()).device(v.device()))},
            1);
    attn_mask = pad_one_key(attn_mask);
    key_padding_mask = pad_one_key(key_padding_mask);
  }
  const int64_t src_len = k.size(1);
  if (key_padding_mask.defined()) {
    const Shape want{bsz, src_len};
    TC_CHECK(key_padding_mask.sizes() == want,
             "MultiheadAttention: expecting key_padding_mask shape of ", tuple_str(want),
             ", but got ", tuple_str(key_padding_mask.sizes()));
    Tensor kpm = reshape(mask_to_additive(key_padding_mask, q.dtype()), {bsz, 1, 1, src_len});
    kpm = reshape(expand(kpm, {bsz, num_heads, 1, src_len}), {bsz * num_heads, 1, src_len});
    attn_mask = attn_mask.defined() ? add(attn_mask, kpm) : kpm;
  }

  Tensor scores = matmul(mul(q, 1.0 / std::sqrt(double(head_dim))), transpose(k, 1, 2));
  if (is_causal && !attn_mask.defined())
    scores = masked_fill(scores, causal_mask_out(tgt_len, src_len), kNegInf);
  if (attn_mask.defined()) scores = add(scores, attn_mask);
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0.0 && training) weights = dropout(weights, dropout_p, true);
  Tensor out = bmm(weights, v);  // [N*heads, L, head_dim]
  out = reshape(transpose(out, 0, 1), {tgt_len * bsz, E});
  out = reshape(linear(out, out_proj_weight, out_proj_bias), {tgt_len, bsz, E});
  if (!batched) out = squeeze(out, 1);
  if (!need_weights) return {out, Tensor()};
  weights = reshape(weights, {bsz, num_heads, tgt_len, src_len});
  if (average_attn_weights) weights = mean(weights, {1});
  if (!batched) weights = squeeze(weights, 0);
  return {out, weights};
}

}  // namespace tc::nn::functional
