#pragma once
// Multi-head attention as torch.nn.functional's multi_head_attention_forward (sequence-first [L, N,
// E], or unbatched [L, E]). The one implementation: tc::nn::MultiheadAttention (transformer.h) and
// tensorcore.nn.MultiheadAttention / tensorcore.nn.functional (Python, through
// tensorcore._C._nn_modules) call these.
#include <tuple>
#include <utility>

#include "tensorcore/core/tensor.h"

namespace tc::nn::functional {

// MultiheadAttention's constructor rule: embed_dim divisible by num_heads (both positive).
void check_multihead_attention_options(int64_t embed_dim, int64_t num_heads);

// MultiheadAttention's initialisation (torch's _reset_parameters): xavier_uniform_ on the packed
// in_proj_weight or, when undefined, on q/k/v_proj_weight; in_proj_bias and out_proj_bias zero;
// bias_k / bias_v xavier_normal_. Undefined tensors are skipped.
void multihead_attention_reset_parameters(Tensor in_proj_weight, Tensor q_proj_weight,
                                          Tensor k_proj_weight, Tensor v_proj_weight,
                                          Tensor in_proj_bias, Tensor out_proj_bias, Tensor bias_k,
                                          Tensor bias_v);

// Transformer's initialisation: xavier_uniform_ on every parameter of more than one dim.
void transformer_reset_parameters(const TensorList& parameters);

// A bool mask (true = masked out) as 0 / -inf in `dtype`; other masks converted to `dtype`;
// undefined stays undefined.
Tensor mask_to_additive(const Tensor& mask, DType dtype);

// The q, k, v input projections: one linear of the packed [3E, E] weight when query, key and
// value are the same tensor, otherwise three (slices of in_proj_weight, or the separate
// q/k/v weights when `separate` holds them).
std::tuple<Tensor, Tensor, Tensor> in_projection(const Tensor& q, const Tensor& k, const Tensor& v,
                                                 const Tensor& in_proj_weight,
                                                 const Tensor& in_proj_bias, int64_t embed_dim,
                                                 const Tensor& q_proj_weight = {},
                                                 const Tensor& k_proj_weight = {},
                                                 const Tensor& v_proj_weight = {});

// torch.nn.functional.multi_head_attention_forward, same arguments and order. Masks: attn_mask
// [L, S] or [N*heads, L, S], key_padding_mask [N, S]; bool ones mark positions that are masked
// out. Returns (output [L, N, E], attention weights [N, L, S] averaged over heads or
// [N, heads, L, S]; undefined when need_weights is false).
std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check,
    int64_t num_heads, const Tensor& in_proj_weight, const Tensor& in_proj_bias,
    const Tensor& bias_k, const Tensor& bias_v, bool add_zero_attn, double dropout_p,
    const Tensor& out_proj_weight, const Tensor& out_proj_bias, bool training = true,
    const Tensor& key_padding_mask = {}, bool need_weights = true, const Tensor& attn_mask = {},
    bool use_separate_proj_weight = false, const Tensor& q_proj_weight = {},
    const Tensor& k_proj_weight = {}, const Tensor& v_proj_weight = {}, const Tensor& static_k = {},
    const Tensor& static_v = {}, bool average_attn_weights = true, bool is_causal = false);

}  // namespace tc::nn::functional
