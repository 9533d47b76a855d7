// The layer ops over packed sequences (lstm_layer_packed, gru_layer_packed, rnn_layer_packed) and
// LSTM with projections (lstm_layer's w_hr): argument checks, then the whole-layer CPU node
// (rnn_layer.cpp) where it applies, else the per-step path (rnn_cells.cpp: CUDA). float16 /
// bfloat16 inputs compute in float32; under autocast the cells' policy applies.
#include <numeric>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/rnn_internal.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {
namespace {

std::string shape_or_none(const Tensor& t) {
  return t.defined() ? shape_str(t.sizes()) : std::string("None");
}

// Checks the weights and states of one layer over `layout` (input already checked for rank) and
// runs it. h0 [N, P] and c0 [N, H] may be undefined (zeros).
std::tuple<Tensor, Tensor, Tensor> run_layer(const char* op, CellKind kind, const Tensor& input,
                                             const RowLayout& L, const Tensor& h0_in,
                                             const Tensor& c0_in, const LayerWeights& w,
                                             bool reverse) {
  const int64_t gates = kind == CellKind::LSTM ? 4 : kind == CellKind::GRU ? 3 : 1;
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  TC_CHECK(w.w_ih.defined() && w.w_hh.defined(), op, ": weight_ih and weight_hh must be tensors");
  TC_CHECK(w.w_hh.dim() == 2 && w.w_hh.size(0) > 0 && w.w_hh.size(0) % gates == 0, op,
           ": expected weight_hh of shape (", gates, "*hidden_size, hidden_size), got ",
           shape_str(w.w_hh.sizes()));
  const int64_t H = w.w_hh.size(0) / gates, I = input.size(-1);
  int64_t P = H;
  if (w.w_hr.defined()) {
    TC_CHECK(kind == CellKind::LSTM, op,
             ": a projection weight (proj_size) is only supported for LSTM");
    TC_CHECK(w.w_hr.dim() == 2 && w.w_hr.size(1) == H && w.w_hr.size(0) > 0, op,
             ": expected weight_hr of shape [proj_size, ", H, "], got ", shape_str(w.w_hr.sizes()));
    P = w.w_hr.size(0);
  }
  TC_CHECK(w.w_hh.size(1) == P, op, ": expected weight_hh of shape [", gates * H, ", ", P,
           "], got ", shape_str(w.w_hh.sizes()));
  TC_CHECK(w.w_ih.dim() == 2 && w.w_ih.size(0) == gates * H && w.w_ih.size(1) == I, op,
           ": expected weight_ih of shape [", gates * H, ", ", I, "], got ",
           shape_str(w.w_ih.sizes()));
  for (const Tensor* b : {&w.b_ih, &w.b_hh})
    if (b->defined())
      TC_CHECK(b->dim() == 1 && b->size(0) == gates * H, op, ": expected biases of shape [",
               gates * H, "], got ", shape_str(b->sizes()));
  const TensorOptions opts = TensorOptions(input.dtype()).device(input.device());
  Tensor h0 = h0_in.defined() ? h0_in : zeros({L.N, P}, opts);
  TC_CHECK(h0.dim() == 2 && h0.size(0) == L.N && h0.size(1) == P, op,
           ": expected hidden state of shape [", L.N, ", ", P, "], got ", shape_or_none(h0_in));
  Tensor c0;
  if (kind == CellKind::LSTM) {
    c0 = c0_in.defined() ? c0_in : zeros({L.N, H}, opts);
    TC_CHECK(c0.dim() == 2 && c0.size(0) == L.N && c0.size(1) == H, op,
             ": expected cell state of shape [", L.N, ", ", H, "], got ", shape_or_none(c0_in));
  }
  if (L.T == 0) {
    Shape out_shape = input.sizes();
    out_shape.back() = P;
    return {zeros(out_shape, opts), h0, c0};
  }
  if (rnn_layer_fusable({input, h0, c0, w.w_ih, w.w_hh, w.b_ih, w.b_hh, w.w_hr}))
    return layer_fused(kind, input, L, h0, c0, w, reverse);
  return layer_steps(kind, input, L, h0, c0, w, reverse);
}

RowLayout checked_packing(const char* op, const Tensor& data,
                          const std::vector<int64_t>& batch_sizes) {
  TC_CHECK(data.defined() && data.dim() == 2, op,
           ": expected packed data of shape [sum(batch_sizes), input_size], "
           "got ",
           shape_or_none(data));
  TC_CHECK(!batch_sizes.empty(), op, ": batch_sizes is empty");
  for (size_t t = 0; t < batch_sizes.size(); ++t)
    TC_CHECK(batch_sizes[t] > 0 && (t == 0 || batch_sizes[t] <= batch_sizes[t - 1]), op,
             ": batch_sizes must be positive and non-increasing (sequences sorted by decreasing "
             "length), got ",
             batch_sizes[t], " at step ", t);
  RowLayout L = RowLayout::packed(batch_sizes);
  TC_CHECK(L.total == data.size(0), op, ": batch_sizes sum to ", L.total,
           " but the packed data has ", data.size(0), " rows");
  return L;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lstm_layer_proj(const Tensor& input, const Tensor& h0,
                                                   const Tensor& c0, const Tensor& w_ih,
                                                   const Tensor& w_hh, const Tensor& b_ih,
                                                   const Tensor& b_hh, bool reverse,
                                                   const Tensor& w_hr) {
  TC_AUTOCAST_NATIVE("lstm_cell", lstm_layer_proj, input, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse,
                     w_hr);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, lstm_layer_proj, input, h0, c0, w_ih, w_hh, b_ih, b_hh,
                               reverse, w_hr);
  return run_layer("lstm_layer", CellKind::LSTM, input,
                   RowLayout::padded(input.size(0), input.size(1)), h0, c0,
                   LayerWeights{w_ih, w_hh, b_ih, b_hh, w_hr}, reverse);
}

}  // namespace tc::nn::detail

namespace tc::nn::functional {

std::tuple<Tensor, Tensor, Tensor> lstm_layer_packed(const Tensor& data_in,
                                                     const std::vector<int64_t>& batch_sizes,
                                                     const Tensor& h0_in, const Tensor& c0_in,
                                                     const Tensor& w_ih, const Tensor& w_hh,
                                                     const Tensor& b_ih, const Tensor& b_hh,
                                                     bool reverse, const Tensor& w_hr) {
  const auto [data, h0, c0] = detail::widen_under_cpu_autocast(data_in, h0_in, c0_in, w_ih);
  TC_AUTOCAST_NATIVE("lstm_cell", lstm_layer_packed, data, batch_sizes, h0, c0, w_ih, w_hh, b_ih,
                     b_hh, reverse, w_hr);
  TC_REDUCED_FLOAT_VIA_FLOAT32(data, lstm_layer_packed, data, batch_sizes, h0, c0, w_ih, w_hh, b_ih,
                               b_hh, reverse, w_hr);
  const char* op = "lstm_layer_packed";
  return detail::run_layer(op, detail::CellKind::LSTM, data,
                           detail::checked_packing(op, data, batch_sizes), h0, c0,
                           detail::LayerWeights{w_ih, w_hh, b_ih, b_hh, w_hr}, reverse);
}

std::pair<Tensor, Tensor> gru_layer_packed(const Tensor& data_in,
                                           const std::vector<int64_t>& batch_sizes,
                                           const Tensor& h0_in, const Tensor& w_ih,
                                           const Tensor& w_hh, const Tensor& b_ih,
                                           const Tensor& b_hh, bool reverse) {
  const auto [data, h0, unused_c0] =
      detail::widen_under_cpu_autocast(data_in, h0_in, Tensor(), w_ih);
  TC_AUTOCAST_NATIVE("gru_cell", gru_layer_packed, data, batch_sizes, h0, w_ih, w_hh, b_ih, b_hh,
                     reverse);
  TC_REDUCED_FLOAT_VIA_FLOAT32(data, gru_layer_packed, data, batch_sizes, h0, w_ih, w_hh, b_ih,
                               b_hh, reverse);
  const char* op = "gru_layer_packed";
  auto [o, h, c] = detail::run_layer(
      op, detail::CellKind::GRU, data, detail::checked_packing(op, data, batch_sizes), h0, Tensor(),
      detail::LayerWeights{w_ih, w_hh, b_ih, b_hh, Tensor()}, reverse);
  return {o, h};
}

std::pair<Tensor, Tensor> rnn_layer_packed(const Tensor& data_in,
                                           const std::vector<int64_t>& batch_sizes,
                                           const Tensor& h0_in, const Tensor& w_ih,
                                           const Tensor& w_hh, const Tensor& b_ih,
                                           const Tensor& b_hh, const std::string& nonlinearity,
                                           bool reverse) {
  const auto [data, h0, unused_c0] =
      detail::widen_under_cpu_autocast(data_in, h0_in, Tensor(), w_ih);
  const char* op = "rnn_layer_packed";
  TC_CHECK(nonlinearity == "tanh" || nonlinearity == "relu", op, ": unknown nonlinearity '",
           nonlinearity, "', expected 'tanh' or 'relu'");
  const bool relu = nonlinearity == "relu";
  TC_AUTOCAST_NATIVE(relu ? "rnn_relu_cell" : "rnn_tanh_cell", rnn_layer_packed, data, batch_sizes,
                     h0, w_ih, w_hh, b_ih, b_hh, nonlinearity, reverse);
  TC_REDUCED_FLOAT_VIA_FLOAT32(data, rnn_layer_packed, data, batch_sizes, h0, w_ih, w_hh, b_ih,
                               b_hh, nonlinearity, reverse);
  auto [o, h, c] =
      detail::run_layer(op, relu ? detail::CellKind::RNNRelu : detail::CellKind::RNNTanh, data,
                        detail::checked_packing(op, data, batch_sizes), h0, Tensor(),
                        detail::LayerWeights{w_ih, w_hh, b_ih, b_hh, Tensor()}, reverse);
  return {o, h};
}

}  // namespace tc::nn::functional
