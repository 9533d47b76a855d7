#pragma once
// Internal entry points of the recurrent layers (rnn_cells.cpp, rnn_layer.cpp). Arguments are
// already validated by functional::lstm_layer / gru_layer: input (T, N, I), h0/c0 (N, H) defined,
// weights as torch, biases optional.
#include <tuple>
#include <utility>

#include "tensorcore/core/tensor.h"

namespace tc::nn::detail {

// Per-step path: one hidden GEMM and one fused gate node per step (any device, any float dtype,
// twice differentiable).
std::tuple<Tensor, Tensor, Tensor> lstm_layer_steps(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                                    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse);
std::pair<Tensor, Tensor> gru_layer_steps(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse);

// Whether the whole-layer CPU path applies: CPU float32/float64 tensors of one dtype, T, N > 0,
// autocast not armed.
bool rnn_layer_fusable(const TensorList& tensors);

// Whole-layer path: one autograd node per layer; backward is back-propagation through time
// written directly, with the weight gradients as one GEMM over all steps. Under create_graph
// the backward re-runs the per-step path, so double backward works.
std::tuple<Tensor, Tensor, Tensor> lstm_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                                    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse);
std::pair<Tensor, Tensor> gru_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse);

std::pair<Tensor, Tensor> rnn_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool relu,
                                          bool reverse);
// The Elman layer step by step through the public rnn_tanh_cell / rnn_relu_cell.
std::pair<Tensor, Tensor> rnn_layer_cells(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool relu,
                                          bool reverse);

}  // namespace tc::nn::detail
