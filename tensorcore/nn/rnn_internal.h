#pragma once
// Internal entry points of the recurrent layers (rnn_cells.cpp, rnn_layer.cpp, rnn_layer_ops.cpp).
// Arguments are already validated by the functional ops (lstm_layer, gru_layer, rnn_layer and their
// _packed forms): h0/c0 defined, weights as torch, biases and the LSTM projection optional.
#include <tuple>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn::detail {

// Where each step's rows lie in a layer's sequence buffers (rows x features, the step blocks one
// after another): step t owns rows [off[t], off[t] + bs[t]), its first bs[t] sequences. A packed
// batch (sequences sorted by decreasing length, PyTorch's PackedSequence layout) has
// non-increasing bs; a padded (T, N, ·) sequence is the uniform case bs[t] = N.
struct RowLayout {
  int64_t T = 0, N = 0, total = 0;
  std::vector<int64_t> bs, off;
  bool uniform = true;

  static RowLayout padded(int64_t T, int64_t N);
  // batch_sizes must be positive and non-increasing (the caller checks).
  static RowLayout packed(const std::vector<int64_t>& batch_sizes);
  // The step processed just before t (t - 1; t + 1 in reverse), or -1 when t comes first.
  int64_t prev(int64_t t, bool reverse) const;
  // How many of step t's rows continue the previous step's states (its first rows); rows
  // [carried, bs[t]) start from h0/c0. Only a reverse pass over a packed batch has such rows:
  // shorter sequences start there at their own last step.
  int64_t carried(int64_t t, bool reverse) const;
};

enum class CellKind { LSTM, GRU, RNNTanh, RNNRelu };

// The tensors of one layer and direction; w_hr (LSTM proj_size > 0, [P, H]) and biases optional.
struct LayerWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// Per-step path over any layout: one hidden GEMM and one gate node per step (f32/f64, CPU or
// CUDA, twice differentiable). input (T, N, I) or packed (total, I); h0 [N, P], c0 [N, H] (LSTM).
// Returns (output shaped like input with P features, h_n, c_n); h_n/c_n hold each sequence's
// state after its last step (c_n undefined but for LSTM).
std::tuple<Tensor, Tensor, Tensor> layer_steps(CellKind kind, const Tensor& input,
                                               const RowLayout& layout, const Tensor& h0,
                                               const Tensor& c0, const LayerWeights& w,
                                               bool reverse);

// CPU autocast lists no RNN cell (torch 1.13's does not either), so under it a CPU layer
// computes in float32: a bfloat16 input (and states) with float32 weights is widened once, and
// the layer runs as one float32 node. Elsewhere the tensors come back unchanged.
struct LayerStart {
  Tensor input, h0, c0;
};
LayerStart widen_under_cpu_autocast(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                    const Tensor& w_ih);

// Whether the whole-layer CPU path applies: CPU float32/float64 tensors of one dtype, T, N > 0,
// autocast not armed.
bool rnn_layer_fusable(const TensorList& tensors);

// Whole-layer path: one autograd node per layer and direction over any layout; backward is
// back-propagation through time written directly, with the weight gradients as one GEMM over
// all steps. Under create_graph the backward re-runs layer_steps, so double backward works.
std::tuple<Tensor, Tensor, Tensor> layer_fused(CellKind kind, const Tensor& input,
                                               const RowLayout& layout, const Tensor& h0,
                                               const Tensor& c0, const LayerWeights& w,
                                               bool reverse);

// lstm_layer with a projection weight w_hr [P, H] (padded input (T, N, I)).
std::tuple<Tensor, Tensor, Tensor> lstm_layer_proj(const Tensor& input, const Tensor& h0,
                                                   const Tensor& c0, const Tensor& w_ih,
                                                   const Tensor& w_hh, const Tensor& b_ih,
                                                   const Tensor& b_hh, bool reverse,
                                                   const Tensor& w_hr);

// Padded-sequence shorthands (T, N, I) of the above, as the functional ops call them.
std::tuple<Tensor, Tensor, Tensor> lstm_layer_steps(const Tensor& input, const Tensor& h0,
                                                    const Tensor& c0, const Tensor& w_ih,
                                                    const Tensor& w_hh, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse);
std::pair<Tensor, Tensor> gru_layer_steps(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool reverse);
std::tuple<Tensor, Tensor, Tensor> lstm_layer_fused(const Tensor& input, const Tensor& h0,
                                                    const Tensor& c0, const Tensor& w_ih,
                                                    const Tensor& w_hh, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse);
std::pair<Tensor, Tensor> gru_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool reverse);
std::pair<Tensor, Tensor> rnn_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool relu, bool reverse);
// The Elman layer step by step through the public rnn_tanh_cell / rnn_relu_cell.
std::pair<Tensor, Tensor> rnn_layer_cells(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool relu, bool reverse);

}  // namespace tc::nn::detail
