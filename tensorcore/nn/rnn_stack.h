#pragma once
// The multi-layer RNN / LSTM / GRU stack that both frontends run: option validation (torch's
// messages), parameter names and shapes, initialisation, and the forward over padded or packed
// input (one layer op per layer and direction, dropout between layers, state permutation for
// unsorted packed batches). tc::nn::LSTM / GRU / RNN (rnn.h) and tensorcore.nn.LSTM / GRU / RNN
// (Python, through tensorcore._C._nn_modules) are thin shells over these functions.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/nn/rnn.h"

namespace tc::nn {

enum class RNNMode { LSTM, GRU, RNNTanh, RNNRelu };
// "LSTM", "GRU", "RNN_TANH", "RNN_RELU" (torch's mode strings).
RNNMode rnn_mode(const std::string& mode);
int64_t rnn_gates(RNNMode mode);
// RNN's nonlinearity: "tanh" -> RNNTanh, "relu" -> RNNRelu; anything else throws torch's
// ValueError "Unknown nonlinearity '<x>'" (torch 1.13's message).
RNNMode rnn_mode_for_nonlinearity(const std::string& nonlinearity);

// Throws ValueError with torch's message for an invalid configuration (dropout outside [0, 1],
// negative or too large proj_size, proj_size on a non-LSTM, non-positive sizes).
void check_rnn_options(RNNMode mode, const RNNOptions& options);
// Parameter names and shapes in torch's order (_flat_weights_names): per layer and direction
// weight_ih, weight_hh, [bias_ih, bias_hh], [weight_hr].
std::vector<std::pair<std::string, Shape>> rnn_flat_weight_shapes(RNNMode mode,
                                                                  const RNNOptions& options);
// U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for every tensor, in order.
void rnn_reset_parameters(const TensorList& flat_weights, int64_t hidden_size);
// The flat list (rnn_flat_weight_shapes order) regrouped per (layer, direction) as
// {w_ih, w_hh, b_ih, b_hh, w_hr} with undefined tensors for absent ones.
std::vector<TensorList> rnn_group_weights(const TensorList& flat_weights,
                                          const RNNOptions& options);

// Padded input [T, N, I] ([N, T, I] with batch_first) or unbatched [T, I]; h0 / c0 (c0 LSTM
// only) [L*D, N, H] ([L*D, H] unbatched) or undefined for zeros. `name` prefixes error messages
// (the module's class name). Returns (output, h_n, c_n; c_n undefined unless LSTM).
std::tuple<Tensor, Tensor, Tensor> rnn_forward(const std::string& name, RNNMode mode,
                                               const RNNOptions& options,
                                               const std::vector<TensorList>& weights,
                                               const Tensor& input, const Tensor& h0,
                                               const Tensor& c0, bool training);
// A PackedSequence's parts; states in the caller's batch order. Returns (output data, h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> rnn_forward_packed(const std::string& name, RNNMode mode,
                                                      const RNNOptions& options,
                                                      const std::vector<TensorList>& weights,
                                                      const PackedSequence& input, const Tensor& h0,
                                                      const Tensor& c0, bool training);

}  // namespace tc::nn
