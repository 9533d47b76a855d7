#pragma once
// Multi-layer RNN (Elman, tanh or relu) / LSTM / GRU: per layer and direction one layer op
// (functional::lstm_layer / gru_layer / rnn_layer, or their _packed forms for a PackedSequence;
// on the CPU one autograd node each).
// Parameters as torch: weight_ih_l{k}[_reverse] [G*H, in], weight_hh_l{k} [G*H, H], bias_ih_l{k},
// bias_hh_l{k} (G = 4 for LSTM, 3 for GRU, 1 for RNN), all U(-1/sqrt(H), 1/sqrt(H)); an LSTM with
// proj_size P > 0 also has weight_hr_l{k} [P, H], its h (and output) has P features and
// weight_hh_l{k} is [4H, P].
// Input (T, N, I), or (N, T, I) with batch_first, or unbatched (T, I), or a PackedSequence;
// states (L*D, N, H). Validation, parameter layout and the forward are rnn_stack.h's (shared with
// the Python modules).
#include <tuple>

#include "tensorcore/nn/module.h"
#include "tensorcore/nn/packed.h"

namespace tc::nn {

struct RNNOptions {
  int64_t input_size, hidden_size, num_layers = 1;
  bool bias = true, batch_first = false;
  double dropout = 0;
  bool bidirectional = false;
  std::string nonlinearity = "tanh";  // RNN only: "tanh" | "relu"
  int64_t proj_size = 0;  // LSTM only: h_t = W_hr (o_t * tanh(c_t)), 0 < proj_size < hidden_size
};

class RNNBaseImpl : public Module {
 public:
  enum class Cell { GRU, LSTM, RNNTanh, RNNRelu };
  RNNBaseImpl(std::string type, int64_t gates, RNNOptions options);
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  const RNNOptions& options() const { return options_; }
  // w_ih, w_hh, b_ih, b_hh, w_hr of layer `layer`, direction `dir` (biases undefined with
  // bias=false, w_hr without proj_size).
  TensorList layer_weights(int64_t layer, int64_t dir) const;

 protected:
  // The stack over a PackedSequence (the *_layer_packed ops per layer and direction); h0/c0 in the
  // caller's batch order. Returns (output, h_n, c_n); c_n undefined for GRU.
  std::tuple<PackedSequence, Tensor, Tensor> forward_packed(Cell cell, const PackedSequence& input,
                                                            const Tensor& h0, const Tensor& c0);
  RNNOptions options_;
  std::vector<TensorList> weights_;  // per (layer, dir)
};

class LSTMImpl : public RNNBaseImpl {
 public:
  ModulePtr clone() const override;
  explicit LSTMImpl(RNNOptions options) : RNNBaseImpl("LSTM", 4, options) {}
  LSTMImpl(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : LSTMImpl(RNNOptions{input_size, hidden_size, num_layers}) {}
  // Returns (output, (h_n, c_n)); undefined states mean zeros.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input, const Tensor& h0 = {},
                                                         const Tensor& c0 = {});
  // Packed input: returns (packed output, (h_n, c_n)); padded steps do not advance the states.
  std::tuple<PackedSequence, std::tuple<Tensor, Tensor>> forward(const PackedSequence& input,
                                                                 const Tensor& h0 = {},
                                                                 const Tensor& c0 = {});
};
TC_MODULE(LSTM);

class GRUImpl : public RNNBaseImpl {
 public:
  ModulePtr clone() const override;
  explicit GRUImpl(RNNOptions options) : RNNBaseImpl("GRU", 3, options) {}
  GRUImpl(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : GRUImpl(RNNOptions{input_size, hidden_size, num_layers}) {}
  // Returns (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& h0 = {});
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input, const Tensor& h0 = {});
};
TC_MODULE(GRU);

class RNNImpl : public RNNBaseImpl {
 public:
  ModulePtr clone() const override;
  explicit RNNImpl(RNNOptions options);
  RNNImpl(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : RNNImpl(RNNOptions{input_size, hidden_size, num_layers}) {}
  // Returns (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& h0 = {});
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input, const Tensor& h0 = {});
  void pretty_print(std::ostream& os) const override;
};
TC_MODULE(RNN);

}  // namespace tc::nn
