#include "tensorcore/nn/modules/sparse.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn {

using namespace detail;

EmbeddingImpl::EmbeddingImpl(int64_t n, int64_t d, std::optional<int64_t> pad,
                             std::optional<double> mn, double nt, bool sgf)
    : Module("Embedding"),
      num_embeddings(n),
      embedding_dim(d),
      padding_idx(pad),
      max_norm(mn),
      norm_type(nt),
      scale_grad_by_freq(sgf) {
  padding_idx = embedding_padding_idx(name(), n, pad);
  weight = register_parameter("weight", empty({n, d}));
  reset_embedding_parameters(weight, padding_idx);
}

Tensor EmbeddingImpl::forward(const Tensor& idx) {
  TC_CHECK_TYPE(idx.dtype() == DType::Int64 || idx.dtype() == DType::Int32,
                "Embedding: expected integer indices (int64 or int32), got ",
                dtype_name(idx.dtype()));
  return functional::embedding(idx, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq);
}

void EmbeddingImpl::pretty_print(std::ostream& os) const {
  os << "Embedding(" << num_embeddings << ", " << embedding_dim;
  if (padding_idx) os << ", padding_idx=" << *padding_idx;
  if (max_norm) os << ", max_norm=" << *max_norm;
  if (scale_grad_by_freq) os << ", scale_grad_by_freq=true";
  os << ")";
}

// ---- EmbeddingBag ----
EmbeddingBagImpl::EmbeddingBagImpl(int64_t n, int64_t d, EmbeddingBagOptions o)
    : Module("EmbeddingBag"), num_embeddings(n), embedding_dim(d), options(std::move(o)) {
  check_embedding_bag_mode(options.mode);
  options.padding_idx = embedding_padding_idx(name(), n, options.padding_idx);
  weight = register_parameter("weight", empty({n, d}));
  reset_embedding_parameters(weight, options.padding_idx);
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& psw) {
  TC_CHECK_TYPE(input.dtype() == DType::Int64 || input.dtype() == DType::Int32,
                "EmbeddingBag: expected integer indices (int64 or int32), got ",
                dtype_name(input.dtype()));
  TC_CHECK(input.dim() == 2 ? !offsets.defined()
                            : (input.dim() == 1 && offsets.defined() && offsets.dim() == 1),
           "EmbeddingBag: expected a 2-d input [B, L] without offsets or a 1-d input with 1-d "
           "offsets, but got input ",
           "of size ", shape_str(input.sizes()), " and ",
           offsets.defined() ? "offsets of size " + shape_str(offsets.sizes())
                             : std::string("no offsets"));
  TC_CHECK(!psw.defined() || psw.sizes() == input.sizes(),
           "EmbeddingBag: expected per_sample_weights of the input's ", "size ",
           shape_str(input.sizes()), ", but got ",
           psw.defined() ? shape_str(psw.sizes()) : std::string());
  TC_CHECK(!psw.defined() || options.mode == "sum",
           "EmbeddingBag: per_sample_weights are only supported with mode "
           "'sum', got mode '",
           options.mode, "'");
  return std::get<0>(functional::embedding_bag(
      input, weight, offsets, options.max_norm, options.norm_type, options.scale_grad_by_freq,
      options.mode, psw, options.include_last_offset, options.padding_idx));
}

void EmbeddingBagImpl::pretty_print(std::ostream& os) const {
  os << "EmbeddingBag(" << num_embeddings << ", " << embedding_dim << ", mode=" << options.mode;
  if (options.padding_idx) os << ", padding_idx=" << *options.padding_idx;
  os << ")";
}

ModulePtr EmbeddingBagImpl::clone() const {
  return with_state_of(std::make_shared<EmbeddingBagImpl>(num_embeddings, embedding_dim, options),
                       *this);
}

ModulePtr EmbeddingImpl::clone() const {
  return with_state_of(std::make_shared<EmbeddingImpl>(num_embeddings, embedding_dim, padding_idx,
                                                       max_norm, norm_type, scale_grad_by_freq),
                       *this);
}

}  // namespace tc::nn
