#include "tensorcore/nn/rnn_stack.h"

#include <cmath>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/tuple_str.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {

namespace {

int64_t directions(const RNNOptions& o) { return o.bidirectional ? 2 : 1; }
int64_t real_hidden(const RNNOptions& o) { return o.proj_size > 0 ? o.proj_size : o.hidden_size; }

// h0 / c0 of [L*D, N, features] (checked after an unbatched state got its batch dim).
void check_state(const std::string& name, const Tensor& h, const char* which, int64_t batch,
                 int64_t features, const RNNOptions& o) {
  if (!h.defined()) return;
  const Shape expect{o.num_layers * directions(o), batch, features};
  TC_CHECK(h.sizes() == expect, name, ": Expected hidden size ", tuple_str(expect), ", got ",
           tuple_str(h.sizes()), " for ", which);
}

// One layer and direction through the layer op of `mode`: (output, h_n, c_n or undefined).
std::tuple<Tensor, Tensor, Tensor> run_layer(RNNMode mode, const Tensor& x,
                                             const std::vector<int64_t>* batch_sizes,
                                             const Tensor& h0, const Tensor& c0,
                                             const TensorList& w, bool reverse) {
  namespace F = functional;
  if (mode == RNNMode::LSTM)
    return batch_sizes ? F::lstm_layer_packed(x, *batch_sizes, h0, c0, w[0], w[1], w[2], w[3],
                                              reverse, w[4])
                       : F::lstm_layer(x, h0, c0, w[0], w[1], w[2], w[3], reverse, w[4]);
  std::pair<Tensor, Tensor> r;
  if (mode == RNNMode::GRU) {
    r = batch_sizes ? F::gru_layer_packed(x, *batch_sizes, h0, w[0], w[1], w[2], w[3], reverse)
                    : F::gru_layer(x, h0, w[0], w[1], w[2], w[3], reverse);
  } else {
    const char* act = mode == RNNMode::RNNRelu ? "relu" : "tanh";
    r = batch_sizes ? F::rnn_layer_packed(x, *batch_sizes, h0, w[0], w[1], w[2], w[3], act, reverse)
                    : F::rnn_layer(x, h0, w[0], w[1], w[2], w[3], act, reverse);
  }
  return {r.first, r.second, Tensor()};
}

// Every layer and direction; directions concatenated on the feature dim, dropout between layers
// as torch. Returns (last layer's output, h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> run_stack(RNNMode mode, const RNNOptions& o,
                                             const std::vector<TensorList>& weights, Tensor x,
                                             const std::vector<int64_t>* batch_sizes,
                                             const Tensor& h0, const Tensor& c0, bool training) {
  const int64_t D = directions(o);
  const bool lstm = mode == RNNMode::LSTM;
  TC_CHECK(int64_t(weights.size()) == o.num_layers * D, "rnn: expected ", o.num_layers * D,
           " weight groups, got ", weights.size());
  TensorList hs, cs;
  for (int64_t l = 0; l < o.num_layers; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t k = l * D + d;
      auto [out, h, c] =
          run_layer(mode, x, batch_sizes, h0.defined() ? select(h0, 0, k) : Tensor(),
                    c0.defined() ? select(c0, 0, k) : Tensor(), weights[size_t(k)], d == 1);
      outs.push_back(out);
      hs.push_back(h);
      if (lstm) cs.push_back(c);
    }
    x = D == 2 ? cat(outs, x.dim() - 1) : outs[0];
    if (o.dropout > 0 && training && l + 1 < o.num_layers)
      x = functional::dropout(x, o.dropout, true);
  }
  return {x, stack(hs, 0), lstm ? stack(cs, 0) : Tensor()};
}

}  // namespace

RNNMode rnn_mode(const std::string& mode) {
  if (mode == "LSTM") return RNNMode::LSTM;
  if (mode == "GRU") return RNNMode::GRU;
  if (mode == "RNN_TANH") return RNNMode::RNNTanh;
  if (mode == "RNN_RELU") return RNNMode::RNNRelu;
  throw ValueError("Unrecognized RNN mode: " + mode);
}

RNNMode rnn_mode_for_nonlinearity(const std::string& nl) {
  TC_CHECK(nl == "tanh" || nl == "relu", "Unknown nonlinearity '", nl, "'");
  return nl == "relu" ? RNNMode::RNNRelu : RNNMode::RNNTanh;
}

int64_t rnn_gates(RNNMode mode) { return mode == RNNMode::LSTM ? 4 : mode == RNNMode::GRU ? 3 : 1; }

void check_rnn_options(RNNMode mode, const RNNOptions& o) {
  TC_CHECK(o.dropout >= 0 && o.dropout <= 1,
           "dropout should be a number in range [0, 1] representing the probability of an "
           "element being zeroed");
  TC_CHECK(o.proj_size >= 0,
           "proj_size should be a positive integer or zero to disable projections");
  TC_CHECK(o.proj_size < o.hidden_size, "proj_size has to be smaller than hidden_size");
  TC_CHECK(o.proj_size == 0 || mode == RNNMode::LSTM,
           "proj_size argument is only supported for LSTM, not RNN or GRU");
  TC_CHECK(o.num_layers > 0, "num_layers must be greater than zero, got ", o.num_layers);
  TC_CHECK(o.input_size >= 0, "input_size must be non-negative, got ", o.input_size);
}

std::vector<std::pair<std::string, Shape>> rnn_flat_weight_shapes(RNNMode mode,
                                                                  const RNNOptions& o) {
  check_rnn_options(mode, o);
  const int64_t G = rnn_gates(mode) * o.hidden_size, P = real_hidden(o), D = directions(o);
  std::vector<std::pair<std::string, Shape>> r;
  for (int64_t l = 0; l < o.num_layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      const std::string sfx = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      const int64_t in = l == 0 ? o.input_size : P * D;
      r.push_back({"weight_ih" + sfx, {G, in}});
      r.push_back({"weight_hh" + sfx, {G, P}});
      if (o.bias) {
        r.push_back({"bias_ih" + sfx, {G}});
        r.push_back({"bias_hh" + sfx, {G}});
      }
      if (o.proj_size > 0) r.push_back({"weight_hr" + sfx, {P, o.hidden_size}});
    }
  return r;
}

void rnn_reset_parameters(const TensorList& flat_weights, int64_t hidden_size) {
  const double bound = hidden_size > 0 ? 1.0 / std::sqrt(double(hidden_size)) : 0.0;
  for (const Tensor& w : flat_weights)
    if (w.defined()) init::uniform_(w, -bound, bound);
}

std::vector<TensorList> rnn_group_weights(const TensorList& flat, const RNNOptions& o) {
  const size_t per = 2 + (o.bias ? 2 : 0) + (o.proj_size > 0 ? 1 : 0);
  const size_t groups = size_t(o.num_layers * directions(o));
  TC_CHECK(flat.size() == per * groups, "rnn: expected ", per * groups, " weights, got ",
           flat.size());
  std::vector<TensorList> r;
  for (size_t g = 0; g < groups; ++g) {
    const Tensor* w = flat.data() + g * per;
    r.push_back({w[0], w[1], o.bias ? w[2] : Tensor(), o.bias ? w[3] : Tensor(),
                 o.proj_size > 0 ? w[per - 1] : Tensor()});
  }
  return r;
}

std::tuple<Tensor, Tensor, Tensor> rnn_forward(const std::string& name, RNNMode mode,
                                               const RNNOptions& o,
                                               const std::vector<TensorList>& weights,
                                               const Tensor& input, const Tensor& h0_in,
                                               const Tensor& c0_in, bool training) {
  TC_CHECK(input.dim() == 2 || input.dim() == 3, name, ": Expected input to be 2D or 3D, got ",
           input.dim(), "D instead (shape ", tuple_str(input.sizes()), ")");
  TC_CHECK(input.size(-1) == o.input_size, name,
           ": input.size(-1) must be equal to input_size. Expected ", o.input_size, ", got ",
           input.size(-1));
  const bool batched = input.dim() == 3;
  Tensor x = !batched ? unsqueeze(input, 1) : o.batch_first ? transpose(input, 0, 1) : input;
  Tensor h0 = h0_in.defined() && !batched ? unsqueeze(h0_in, 1) : h0_in;
  Tensor c0 = c0_in.defined() && !batched ? unsqueeze(c0_in, 1) : c0_in;
  check_state(name, h0, "hx", x.size(1), real_hidden(o), o);
  if (mode == RNNMode::LSTM) check_state(name, c0, "cx", x.size(1), o.hidden_size, o);
  auto [out, hn, cn] = run_stack(mode, o, weights, x, nullptr, h0, c0, training);
  if (!batched) {
    out = squeeze(out, 1);
    hn = squeeze(hn, 1);
    if (cn.defined()) cn = squeeze(cn, 1);
  } else if (o.batch_first) {
    out = transpose(out, 0, 1);
  }
  return {out, hn, cn};
}

std::tuple<Tensor, Tensor, Tensor> rnn_forward_packed(const std::string& name, RNNMode mode,
                                                      const RNNOptions& o,
                                                      const std::vector<TensorList>& weights,
                                                      const PackedSequence& input,
                                                      const Tensor& h0_in, const Tensor& c0_in,
                                                      bool training) {
  const Tensor& data = input.data;
  TC_CHECK(data.defined() && data.dim() == 2 && data.size(-1) == o.input_size, name,
           ": input.size(-1) must be equal to input_size. Expected ", o.input_size, ", got ",
           data.defined() ? data.size(-1) : 0, " (packed data of shape ",
           data.defined() ? tuple_str(data.sizes()) : std::string("undefined"), ")");
  const std::vector<int64_t> bs = input.sizes();
  TC_CHECK(!bs.empty(), name, ": batch_sizes is empty");
  Tensor h0 = h0_in, c0 = mode == RNNMode::LSTM ? c0_in : Tensor();
  check_state(name, h0, "hx", bs[0], real_hidden(o), o);
  check_state(name, c0, "cx", bs[0], o.hidden_size, o);
  // States come in the caller's order; the packed rows are length-sorted.
  if (input.sorted_indices.defined()) {
    if (h0.defined()) h0 = index_select(h0, 1, input.sorted_indices);
    if (c0.defined()) c0 = index_select(c0, 1, input.sorted_indices);
  }
  auto [out, hn, cn] = run_stack(mode, o, weights, data, &bs, h0, c0, training);
  if (input.unsorted_indices.defined()) {
    hn = index_select(hn, 1, input.unsorted_indices);
    if (cn.defined()) cn = index_select(cn, 1, input.unsorted_indices);
  }
  return {out, hn, cn};
}

}  // namespace tc::nn
