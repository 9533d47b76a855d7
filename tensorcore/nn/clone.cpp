// clone() of the built-in layers: a fresh module from the same options, then copy_state_from
// (parameters, buffers, gradients, requires_grad, training mode) into its new storage.
#include "tensorcore/nn/modules/linear.h"
#include "tensorcore/nn/loss.h"
#include "tensorcore/nn/rnn.h"
#include "tensorcore/nn/transformer.h"
#include "tensorcore/ops/copy.h"

namespace tc::nn {
namespace {

template <typename M>
ModulePtr finish(std::shared_ptr<M> copy, const Module& src) {
  copy->copy_state_from(src);
  return copy;
}

Tensor copy_of(const Tensor& t) { return t.defined() ? tc::clone(t.detach()) : Tensor(); }

}  // namespace

ModulePtr LinearImpl::clone() const {
  return finish(std::make_shared<LinearImpl>(in_features, out_features, bias.defined()), *this);
}
ModulePtr Conv1dImpl::clone() const {
  return finish_clone(std::make_shared<Conv1dImpl>(in_channels, out_channels, kernel_size, stride,
                                                   padding, dilation, groups, bias.defined(),
                                                   padding_mode));
}
ModulePtr Conv2dImpl::clone() const {
  return finish_clone(std::make_shared<Conv2dImpl>(in_channels, out_channels, kernel_size, stride,
                                                   padding, dilation, groups, bias.defined(),
                                                   padding_mode));
}
ModulePtr ConvTranspose2dImpl::clone() const {
  return finish(
      std::make_shared<ConvTranspose2dImpl>(in_channels, out_channels, kernel_size, stride, padding,
                                            output_padding, groups, bias.defined(), dilation),
      *this);
}
ModulePtr BatchNorm1dImpl::clone() const {
  return finish(
      std::make_shared<BatchNorm1dImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
}
ModulePtr BatchNorm2dImpl::clone() const {
  return finish(
      std::make_shared<BatchNorm2dImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
}
ModulePtr LayerNormImpl::clone() const {
  return finish(std::make_shared<LayerNormImpl>(normalized_shape, eps, weight.defined()), *this);
}
ModulePtr GroupNormImpl::clone() const {
  return finish(std::make_shared<GroupNormImpl>(num_groups, num_channels, eps, weight.defined()),
                *this);
}
ModulePtr DropoutImpl::clone() const { return finish(std::make_shared<DropoutImpl>(p), *this); }
ModulePtr EmbeddingImpl::clone() const {
  return finish(std::make_shared<EmbeddingImpl>(num_embeddings, embedding_dim, padding_idx,
                                                max_norm, norm_type, scale_grad_by_freq),
                *this);
}
ModulePtr MaxPool2dImpl::clone() const {
  return finish(std::make_shared<MaxPool2dImpl>(kernel_size, stride, padding, dilation, ceil_mode),
                *this);
}
ModulePtr AvgPool2dImpl::clone() const {
  return finish(std::make_shared<AvgPool2dImpl>(kernel_size, stride, padding, ceil_mode,
                                                count_include_pad, divisor_override),
                *this);
}
ModulePtr AdaptiveAvgPool2dImpl::clone() const {
  return finish(std::make_shared<AdaptiveAvgPool2dImpl>(output_size), *this);
}
ModulePtr FlattenImpl::clone() const {
  return finish(std::make_shared<FlattenImpl>(start_dim, end_dim), *this);
}
ModulePtr ReLUImpl::clone() const { return finish(std::make_shared<ReLUImpl>(), *this); }
ModulePtr GELUImpl::clone() const { return finish(std::make_shared<GELUImpl>(approximate), *this); }
ModulePtr SiLUImpl::clone() const { return finish(std::make_shared<SiLUImpl>(), *this); }
ModulePtr TanhImpl::clone() const { return finish(std::make_shared<TanhImpl>(), *this); }
ModulePtr SigmoidImpl::clone() const { return finish(std::make_shared<SigmoidImpl>(), *this); }
ModulePtr SoftmaxImpl::clone() const { return finish(std::make_shared<SoftmaxImpl>(dim), *this); }
ModulePtr LogSoftmaxImpl::clone() const {
  return finish(std::make_shared<LogSoftmaxImpl>(dim), *this);
}

ModulePtr LSTMImpl::clone() const { return finish(std::make_shared<LSTMImpl>(options_), *this); }
ModulePtr GRUImpl::clone() const { return finish(std::make_shared<GRUImpl>(options_), *this); }
ModulePtr RNNImpl::clone() const { return finish(std::make_shared<RNNImpl>(options_), *this); }

ModulePtr MultiheadAttentionImpl::clone() const {
  return finish(std::make_shared<MultiheadAttentionImpl>(embed_dim, num_heads, dropout,
                                                         in_proj_bias.defined(), batch_first),
                *this);
}
ModulePtr TransformerEncoderLayerImpl::clone() const {
  return finish(std::make_shared<TransformerEncoderLayerImpl>(options), *this);
}
ModulePtr TransformerEncoderImpl::clone() const {
  auto first = layers->ptr<TransformerEncoderLayerImpl>(0);
  return finish(std::make_shared<TransformerEncoderImpl>(first->options, int64_t(layers->size()),
                                                         !norm.is_empty()),
                *this);
}

ModulePtr TransformerDecoderLayerImpl::clone() const {
  return finish(std::make_shared<TransformerDecoderLayerImpl>(options), *this);
}
ModulePtr TransformerDecoderImpl::clone() const {
  auto first = layers->ptr<TransformerDecoderLayerImpl>(0);
  return finish(std::make_shared<TransformerDecoderImpl>(first->options, int64_t(layers->size()),
                                                         !norm.is_empty()),
                *this);
}
ModulePtr TransformerImpl::clone() const {
  return finish(std::make_shared<TransformerImpl>(options), *this);
}

ModulePtr CrossEntropyLossImpl::clone() const {
  return finish(std::make_shared<CrossEntropyLossImpl>(copy_of(weight), ignore_index, reduction,
                                                       label_smoothing),
                *this);
}
ModulePtr NLLLossImpl::clone() const {
  return finish(std::make_shared<NLLLossImpl>(copy_of(weight), ignore_index, reduction), *this);
}
ModulePtr MSELossImpl::clone() const {
  return finish(std::make_shared<MSELossImpl>(reduction), *this);
}
ModulePtr BCEWithLogitsLossImpl::clone() const {
  return finish(
      std::make_shared<BCEWithLogitsLossImpl>(copy_of(weight), reduction, copy_of(pos_weight)),
      *this);
}
ModulePtr CTCLossImpl::clone() const {
  return finish(std::make_shared<CTCLossImpl>(blank, reduction, zero_infinity), *this);
}

}  // namespace tc::nn
