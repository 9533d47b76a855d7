#include "tensorcore/nn/rnn.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/rnn_stack.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {

namespace {

RNNMode mode_of(const std::string& type, const RNNOptions& o) {
  if (type == "LSTM") return RNNMode::LSTM;
  if (type == "GRU") return RNNMode::GRU;
  return rnn_mode_for_nonlinearity(o.nonlinearity);
}

RNNOptions checked_rnn_options(const std::string& type, RNNOptions o) {
  check_rnn_options(mode_of(type, o), o);
  return o;
}

}  // namespace

// The validation, parameter layout, initialisation and forward are rnn_stack.h's, shared with
// the Python modules.
RNNBaseImpl::RNNBaseImpl(std::string type, int64_t, RNNOptions o)
    : Module(type), options_(checked_rnn_options(type, o)) {
  TensorList flat;
  for (auto& [pname, shape] : rnn_flat_weight_shapes(mode_of(name(), o), o))
    flat.push_back(register_parameter(pname, empty(shape)));
  weights_ = rnn_group_weights(flat, o);
  reset_parameters();
}

void RNNBaseImpl::reset_parameters() {
  TensorList flat;
  for (auto& w : weights_)
    for (auto& t : w) flat.push_back(t);
  rnn_reset_parameters(flat, options_.hidden_size);
}

TensorList RNNBaseImpl::layer_weights(int64_t layer, int64_t dir) const {
  return weights_.at(size_t(layer * (options_.bidirectional ? 2 : 1) + dir));
}

void RNNBaseImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << options_.input_size << ", " << options_.hidden_size;
  if (options_.proj_size != 0) os << ", proj_size=" << options_.proj_size;
  if (options_.num_layers != 1) os << ", num_layers=" << options_.num_layers;
  if (!options_.bias) os << ", bias=false";
  if (options_.batch_first) os << ", batch_first=true";
  if (options_.dropout != 0) os << ", dropout=" << options_.dropout;
  if (options_.bidirectional) os << ", bidirectional=true";
  os << ")";
}

std::tuple<PackedSequence, Tensor, Tensor> RNNBaseImpl::forward_packed(Cell kind,
                                                                       const PackedSequence& input,
                                                                       const Tensor& h0,
                                                                       const Tensor& c0) {
  const RNNMode mode = kind == Cell::LSTM      ? RNNMode::LSTM
                       : kind == Cell::GRU     ? RNNMode::GRU
                       : kind == Cell::RNNRelu ? RNNMode::RNNRelu
                                               : RNNMode::RNNTanh;
  auto [data, hn, cn] =
      rnn_forward_packed(name(), mode, options_, weights_, input, h0, c0, training_);
  return {PackedSequence{data, input.batch_sizes, input.sorted_indices, input.unsorted_indices}, hn,
          cn};
}

std::tuple<PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const PackedSequence& input, const Tensor& h0, const Tensor& c0) {
  auto [out, hn, cn] = forward_packed(Cell::LSTM, input, h0, c0);
  return {out, {hn, cn}};
}

std::tuple<PackedSequence, Tensor> GRUImpl::forward(const PackedSequence& input, const Tensor& h0) {
  auto [out, hn, cn] = forward_packed(Cell::GRU, input, h0, Tensor());
  return {out, hn};
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 const Tensor& h0,
                                                                 const Tensor& c0) {
  auto [out, hn, cn] =
      rnn_forward(name(), RNNMode::LSTM, options_, weights_, input, h0, c0, training_);
  return {out, {hn, cn}};
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& h0) {
  auto [out, hn, cn] =
      rnn_forward(name(), RNNMode::GRU, options_, weights_, input, h0, Tensor(), training_);
  return {out, hn};
}

// ---- RNN (Elman) ----
RNNImpl::RNNImpl(RNNOptions o) : RNNBaseImpl("RNN", 1, o) {}

void RNNImpl::pretty_print(std::ostream& os) const {
  std::ostringstream base;
  RNNBaseImpl::pretty_print(base);
  std::string s = base.str();
  if (options_.nonlinearity != "tanh")
    s.insert(s.size() - 1, ", nonlinearity=" + options_.nonlinearity);
  os << s;
}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& h0) {
  const RNNMode mode = options_.nonlinearity == "relu" ? RNNMode::RNNRelu : RNNMode::RNNTanh;
  auto [out, hn, cn] =
      rnn_forward(name(), mode, options_, weights_, input, h0, Tensor(), training_);
  return {out, hn};
}

std::tuple<PackedSequence, Tensor> RNNImpl::forward(const PackedSequence& input, const Tensor& h0) {
  auto [out, hn, cn] = forward_packed(
      options_.nonlinearity == "relu" ? Cell::RNNRelu : Cell::RNNTanh, input, h0, Tensor());
  return {out, hn};
}

}  // namespace tc::nn
