// clone() of the recurrent, transformer and loss modules (the layer families define theirs): a
// fresh module from the same options, then copy_state_from (parameters, buffers, gradients,
// requires_grad, training mode) into its new storage.
#include "tensorcore/nn/modules/loss.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/rnn.h"
#include "tensorcore/nn/transformer.h"
#include "tensorcore/ops/copy.h"

namespace tc::nn {
using detail::with_state_of;

namespace {

Tensor copy_of(const Tensor& t) { return t.defined() ? tc::clone(t.detach()) : Tensor(); }

}  // namespace

ModulePtr LSTMImpl::clone() const {
  return with_state_of(std::make_shared<LSTMImpl>(options_), *this);
}
ModulePtr GRUImpl::clone() const {
  return with_state_of(std::make_shared<GRUImpl>(options_), *this);
}
ModulePtr RNNImpl::clone() const {
  return with_state_of(std::make_shared<RNNImpl>(options_), *this);
}

ModulePtr MultiheadAttentionImpl::clone() const {
  return with_state_of(std::make_shared<MultiheadAttentionImpl>(
                           embed_dim, num_heads, dropout, in_proj_bias.defined(), batch_first),
                       *this);
}
ModulePtr TransformerEncoderLayerImpl::clone() const {
  return with_state_of(std::make_shared<TransformerEncoderLayerImpl>(options), *this);
}
ModulePtr TransformerEncoderImpl::clone() const {
  auto first = layers->ptr<TransformerEncoderLayerImpl>(0);
  return with_state_of(std::make_shared<TransformerEncoderImpl>(
                           first->options, int64_t(layers->size()), !norm.is_empty()),
                       *this);
}

ModulePtr TransformerDecoderLayerImpl::clone() const {
  return with_state_of(std::make_shared<TransformerDecoderLayerImpl>(options), *this);
}
ModulePtr TransformerDecoderImpl::clone() const {
  auto first = layers->ptr<TransformerDecoderLayerImpl>(0);
  return with_state_of(std::make_shared<TransformerDecoderImpl>(
                           first->options, int64_t(layers->size()), !norm.is_empty()),
                       *this);
}
ModulePtr TransformerImpl::clone() const {
  return with_state_of(std::make_shared<TransformerImpl>(options), *this);
}

ModulePtr CrossEntropyLossImpl::clone() const {
  return with_state_of(std::make_shared<CrossEntropyLossImpl>(copy_of(weight), ignore_index,
                                                              reduction, label_smoothing),
                       *this);
}
ModulePtr NLLLossImpl::clone() const {
  return with_state_of(std::make_shared<NLLLossImpl>(copy_of(weight), ignore_index, reduction),
                       *this);
}
ModulePtr MSELossImpl::clone() const {
  return with_state_of(std::make_shared<MSELossImpl>(reduction), *this);
}
ModulePtr BCEWithLogitsLossImpl::clone() const {
  return with_state_of(
      std::make_shared<BCEWithLogitsLossImpl>(copy_of(weight), reduction, copy_of(pos_weight)),
      *this);
}
ModulePtr CTCLossImpl::clone() const {
  return with_state_of(std::make_shared<CTCLossImpl>(blank, reduction, zero_infinity), *this);
}

}  // namespace tc::nn
