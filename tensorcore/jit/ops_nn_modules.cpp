// Runtime adapters for the module-level nn bindings of python/src/nn_modules.cpp
// (tensorcore._C._nn_modules): the recurrent stack and multi-head attention, so traced models
// with LSTM/GRU/RNN or attention layers replay in C++. Arguments are unpacked as the bindings do.
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/nn/attention.h"
#include "tensorcore/nn/rnn_stack.h"

namespace tc::jit {
namespace {

namespace F = tc::nn::functional;

nn::RNNOptions rnn_options(const OpArgs& a, size_t first) {
  nn::RNNOptions o{a.int_(first), a.int_(first + 1), a.int_(first + 2)};
  o.bias = a.bool_(first + 3);
  o.batch_first = a.bool_(first + 4);
  o.dropout = a.double_(first + 5);
  o.bidirectional = a.bool_(first + 6);
  o.proj_size = a.int_(first + 7);
  return o;
}

IValue states(const std::tuple<Tensor, Tensor, Tensor>& r) {
  const Tensor& c = std::get<2>(r);
  return IValue::tuple({std::get<0>(r), std::get<1>(r), c.defined() ? IValue(c) : IValue()});
}

IValue rnn_forward(const OpArgs& a) {
  // (name, mode, flat_weights, input, h0, c0, training, input_size, hidden_size, num_layers,
  //  bias, batch_first, dropout, bidirectional, proj_size)
  nn::RNNOptions o = rnn_options(a, 7);
  return states(nn::rnn_forward(a.str(0), nn::rnn_mode(a.str(1)), o,
                                nn::rnn_group_weights(a.tensors(2), o), a.tensor(3),
                                a.opt_tensor(4), a.opt_tensor(5), a.bool_(6)));
}

IValue multi_head_attention_forward(const OpArgs& a) {
  auto flag = [&](size_t i, bool fallback) { return a.has(i) ? a.bool_(i) : fallback; };
  auto [out, weights] = F::multi_head_attention_forward(
      a.tensor(0), a.tensor(1), a.tensor(2), a.int_(3), a.int_(4), a.opt_tensor(5), a.opt_tensor(6),
      a.opt_tensor(7), a.opt_tensor(8), a.bool_(9), a.double_(10), a.tensor(11), a.opt_tensor(12),
      flag(13, true), a.opt_tensor(14), flag(15, true), a.opt_tensor(16), flag(17, false),
      a.opt_tensor(18), a.opt_tensor(19), a.opt_tensor(20), a.opt_tensor(21), a.opt_tensor(22),
      flag(23, true), flag(24, false));
  return IValue::tuple({out, weights.defined() ? IValue(weights) : IValue()});
}

const OpRegistrar registrar({
    {"_C._nn_modules.rnn_forward", rnn_forward},
    {"_C._nn_modules.multi_head_attention_forward", multi_head_attention_forward},
});

}  // namespace
}  // namespace tc::jit
