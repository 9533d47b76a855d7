#include "tensorcore/nn/rnn.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {

RNNBaseImpl::RNNBaseImpl(std::string type, int64_t gates, RNNOptions o)
    : Module(std::move(type)), options_(o) {
  TC_CHECK(o.input_size > 0 && o.hidden_size > 0 && o.num_layers > 0, name(),
           ": input_size, hidden_size and num_layers must be positive, got ", o.input_size, ", ",
           o.hidden_size, ", ", o.num_layers);
  TC_CHECK(o.dropout >= 0 && o.dropout <= 1, name(), ": dropout must be in [0, 1], got ",
           o.dropout);
  TC_CHECK(o.proj_size == 0 || name() == "LSTM", name(), ": proj_size is only supported for LSTM");
  TC_CHECK(o.proj_size >= 0 && o.proj_size < o.hidden_size, name(),
           ": proj_size must be in [0, hidden_size) (", o.hidden_size, "), got ", o.proj_size);
  int64_t D = o.bidirectional ? 2 : 1, H = o.hidden_size, P = o.proj_size > 0 ? o.proj_size : H;
  for (int64_t l = 0; l < o.num_layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      std::string sfx = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      int64_t in = l == 0 ? o.input_size : P * D;
      TensorList w;
      w.push_back(register_parameter("weight_ih" + sfx, empty({gates * H, in})));
      w.push_back(register_parameter("weight_hh" + sfx, empty({gates * H, P})));
      w.push_back(register_parameter("bias_ih" + sfx, o.bias ? empty({gates * H}) : Tensor()));
      w.push_back(register_parameter("bias_hh" + sfx, o.bias ? empty({gates * H}) : Tensor()));
      w.push_back(o.proj_size > 0 ? register_parameter("weight_hr" + sfx, empty({P, H}))
                                  : Tensor());
      weights_.push_back(w);
    }
  reset_parameters();
}

void RNNBaseImpl::reset_parameters() {
  double bound = 1.0 / std::sqrt(double(options_.hidden_size));
  for (auto& w : weights_)
    for (auto& t : w)
      if (t.defined()) init::uniform_(t, -bound, bound);
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

std::pair<Tensor, bool> RNNBaseImpl::prepare(const Tensor& input) const {
  TC_CHECK((input.dim() == 3 || input.dim() == 2) && input.size(-1) == options_.input_size, name(),
           ": expected input of shape [T, N, ", options_.input_size, "]",
           options_.batch_first ? " (batch_first: [N, T, " : "",
           options_.batch_first ? std::to_string(options_.input_size) + "])" : "", " or [T, ",
           options_.input_size, "], but got input of size ", shape_str(input.sizes()));
  if (input.dim() == 2) return {unsqueeze(input, 1), true};
  return {options_.batch_first ? contiguous(transpose(input, 0, 1)) : input, false};
}

Tensor RNNBaseImpl::check_state(const Tensor& h, const char* what, int64_t batch, bool unbatched,
                                int64_t features) const {
  if (!h.defined()) return h;
  int64_t L = options_.num_layers * (options_.bidirectional ? 2 : 1);
  Shape expect = unbatched ? Shape{L, features} : Shape{L, batch, features};
  TC_CHECK(h.sizes() == expect, name(), ": expected ", what, " of shape ", shape_str(expect),
           ", but got ", shape_str(h.sizes()));
  return unbatched ? unsqueeze(h, 1) : h;
}

Tensor RNNBaseImpl::finish_output(const Tensor& out, bool unbatched) const {
  if (unbatched) return squeeze(out, 1);
  return options_.batch_first ? transpose(out, 0, 1) : out;
}

namespace {

// One layer and direction over packed rows through the layer ops (the whole-layer node on the
// CPU). Returns (output rows [sum(bs), H], h_n [N, H], c_n).
using Cell = RNNBaseImpl::Cell;

std::tuple<Tensor, Tensor, Tensor> packed_layer(Cell kind, const Tensor& data,
                                                const std::vector<int64_t>& bs, const Tensor& h0,
                                                const Tensor& c0, const TensorList& w,
                                                bool reverse) {
  if (kind == Cell::LSTM)
    return functional::lstm_layer_packed(data, bs, h0, c0, w[0], w[1], w[2], w[3], reverse, w[4]);
  std::pair<Tensor, Tensor> r =
      kind == Cell::GRU
          ? functional::gru_layer_packed(data, bs, h0, w[0], w[1], w[2], w[3], reverse)
          : functional::rnn_layer_packed(data, bs, h0, w[0], w[1], w[2], w[3],
                                         kind == Cell::RNNRelu ? "relu" : "tanh", reverse);
  return {r.first, r.second, Tensor()};
}

}  // namespace

std::tuple<PackedSequence, Tensor, Tensor> RNNBaseImpl::forward_packed(Cell kind,
                                                                       const PackedSequence& input,
                                                                       const Tensor& h0_in,
                                                                       const Tensor& c0_in) {
  const bool lstm = kind == Cell::LSTM;
  TC_CHECK(
      input.data.defined() && input.data.dim() == 2 && input.data.size(1) == options_.input_size,
      name(), ": expected packed data of shape [*, ", options_.input_size, "], but got ",
      input.data.defined() ? shape_str(input.data.sizes()) : std::string("undefined data"));
  std::vector<int64_t> bs = input.sizes();
  TC_CHECK(!bs.empty(), name(), ": the PackedSequence is empty");
  const int64_t N = bs[0];
  for (size_t t = 1; t < bs.size(); ++t)
    TC_CHECK(bs[t] <= bs[t - 1] && bs[t] > 0, name(),
             ": PackedSequence batch_sizes must be positive and "
             "non-increasing");
  const int64_t P = options_.proj_size > 0 ? options_.proj_size : options_.hidden_size;
  Tensor h0 = check_state(h0_in, "h0", N, false, P),
         c0 = check_state(c0_in, "c0", N, false, options_.hidden_size);
  // States come in the caller's order; the packed rows are length-sorted.
  if (input.sorted_indices.defined()) {
    if (h0.defined()) h0 = index_select(h0, 1, input.sorted_indices);
    if (c0.defined()) c0 = index_select(c0, 1, input.sorted_indices);
  }
  const int64_t D = options_.bidirectional ? 2 : 1;
  Tensor x = input.data;
  TensorList hs, cs;
  for (int64_t l = 0; l < options_.num_layers; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t k = l * D + d;
      auto [o, h, c] =
          packed_layer(kind, x, bs, h0.defined() ? select(h0, 0, k) : Tensor(),
                       c0.defined() ? select(c0, 0, k) : Tensor(), weights_[size_t(k)], d == 1);
      outs.push_back(o);
      hs.push_back(h);
      if (lstm) cs.push_back(c);
    }
    x = D == 2 ? cat(outs, 1) : outs[0];
    if (options_.dropout > 0 && training_ && l + 1 < options_.num_layers)
      x = functional::dropout(x, options_.dropout, true);
  }
  Tensor hn = stack(hs, 0), cn = lstm ? stack(cs, 0) : Tensor();
  if (input.unsorted_indices.defined()) {
    hn = index_select(hn, 1, input.unsorted_indices);
    if (lstm) cn = index_select(cn, 1, input.unsorted_indices);
  }
  PackedSequence out{x, input.batch_sizes, input.sorted_indices, input.unsorted_indices};
  return {out, hn, cn};
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
                                                                 const Tensor& h0_in,
                                                                 const Tensor& c0_in) {
  auto [x, unbatched] = prepare(input);
  const int64_t P = options_.proj_size > 0 ? options_.proj_size : options_.hidden_size;
  Tensor h0 = check_state(h0_in, "h0", x.size(1), unbatched, P);
  Tensor c0 = check_state(c0_in, "c0", x.size(1), unbatched, options_.hidden_size);
  int64_t D = options_.bidirectional ? 2 : 1;
  TensorList hs, cs;
  for (int64_t l = 0; l < options_.num_layers; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < D; ++d) {
      int64_t k = l * D + d;
      const TensorList& w = weights_[size_t(k)];
      auto [o, h, c] = functional::lstm_layer(x, h0.defined() ? select(h0, 0, k) : Tensor(),
                                              c0.defined() ? select(c0, 0, k) : Tensor(), w[0],
                                              w[1], w[2], w[3], d == 1, w[4]);
      outs.push_back(o);
      hs.push_back(h);
      cs.push_back(c);
    }
    x = D == 2 ? cat(outs, 2) : outs[0];
    if (options_.dropout > 0 && training_ && l + 1 < options_.num_layers)
      x = functional::dropout(x, options_.dropout, true);
  }
  Tensor hn = stack(hs, 0), cn = stack(cs, 0);
  if (unbatched) {
    hn = squeeze(hn, 1);
    cn = squeeze(cn, 1);
  }
  return {finish_output(x, unbatched), {hn, cn}};
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& h0_in) {
  auto [x, unbatched] = prepare(input);
  Tensor h0 = check_state(h0_in, "h0", x.size(1), unbatched, options_.hidden_size);
  int64_t D = options_.bidirectional ? 2 : 1;
  TensorList hs;
  for (int64_t l = 0; l < options_.num_layers; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < D; ++d) {
      int64_t k = l * D + d;
      const TensorList& w = weights_[size_t(k)];
      auto [o, h] = functional::gru_layer(x, h0.defined() ? select(h0, 0, k) : Tensor(), w[0], w[1],
                                          w[2], w[3], d == 1);
      outs.push_back(o);
      hs.push_back(h);
    }
    x = D == 2 ? cat(outs, 2) : outs[0];
    if (options_.dropout > 0 && training_ && l + 1 < options_.num_layers)
      x = functional::dropout(x, options_.dropout, true);
  }
  Tensor hn = stack(hs, 0);
  if (unbatched) hn = squeeze(hn, 1);
  return {finish_output(x, unbatched), hn};
}

// ---- RNN (Elman) ----
RNNImpl::RNNImpl(RNNOptions o) : RNNBaseImpl("RNN", 1, o) {
  TC_CHECK(o.nonlinearity == "tanh" || o.nonlinearity == "relu",
           "RNN: nonlinearity must be 'tanh' or 'relu', got '", o.nonlinearity, "'");
}

void RNNImpl::pretty_print(std::ostream& os) const {
  std::ostringstream base;
  RNNBaseImpl::pretty_print(base);
  std::string s = base.str();
  if (options_.nonlinearity != "tanh")
    s.insert(s.size() - 1, ", nonlinearity=" + options_.nonlinearity);
  os << s;
}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& h0_in) {
  auto [x, unbatched] = prepare(input);
  Tensor h0 = check_state(h0_in, "h0", x.size(1), unbatched, options_.hidden_size);
  const bool relu_act = options_.nonlinearity == "relu";
  const int64_t D = options_.bidirectional ? 2 : 1;
  TensorList hs;
  for (int64_t l = 0; l < options_.num_layers; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t k = l * D + d;
      const TensorList& w = weights_[size_t(k)];
      auto [o, h] = functional::rnn_layer(x, h0.defined() ? select(h0, 0, k) : Tensor(), w[0], w[1],
                                          w[2], w[3], relu_act ? "relu" : "tanh", d == 1);
      outs.push_back(o);
      hs.push_back(h);
    }
    x = D == 2 ? cat(outs, 2) : outs[0];
    if (options_.dropout > 0 && training_ && l + 1 < options_.num_layers)
      x = functional::dropout(x, options_.dropout, true);
  }
  Tensor hn = stack(hs, 0);
  if (unbatched) hn = squeeze(hn, 1);
  return {finish_output(x, unbatched), hn};
}

std::tuple<PackedSequence, Tensor> RNNImpl::forward(const PackedSequence& input, const Tensor& h0) {
  auto [out, hn, cn] = forward_packed(
      options_.nonlinearity == "relu" ? Cell::RNNRelu : Cell::RNNTanh, input, h0, Tensor());
  return {out, hn};
}

}  // namespace tc::nn
