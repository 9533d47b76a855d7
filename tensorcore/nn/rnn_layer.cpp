// Whole-layer LSTM/GRU/RNN on the CPU: one autograd node per layer and direction.
//
// The per-step path (rnn_cells.cpp) records a hidden GEMM, a gate node and a slice per time step,
// and its backward accumulates a weight gradient per step. Here the forward writes every step
// into preallocated (rows, ·) buffers: the input projections of all steps are one GEMM, each step
// adds its hidden GEMM into its block of that buffer (beta = 1) and one fused kernel turns it
// into activated gates, the new cell state and h. Backward is back-propagation through time
// written out: per step the fused gate backward and one GEMM for dh_{t-1}; then the weight
// gradients of all steps are single GEMMs over all rows and the bias gradients column sums.
//
// The same code runs padded sequences and packed ones (RowLayout): at step t only the first
// bs[t] sequences are active and the states of finished ones stay as they were, so h_n/c_n are
// each sequence's state after its own last step. In reverse over a packed batch, the sequences
// that start at step t (rows [carried, bs[t])) read h0/c0 instead of the previous step's block,
// and their dh0/dc0 rows are final once step t is back-propagated. LSTM with a projection
// (proj_size, w_hr [P, H]) stores m = o * tanh(c) and gets h = m W_hr^T per step as one more GEMM.
// Under create_graph the vjp re-runs the per-step path (layer_steps) and differentiates it, so
// double backward works (at the per-step path's speed).
#include <cstring>
#include <optional>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/nn/rnn_internal.h"
#include "tensorcore/nn/rnn_layer_kernels.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {

RowLayout RowLayout::padded(int64_t T, int64_t N) {
  RowLayout L;
  L.T = T;
  L.N = N;
  L.total = T * N;
  L.bs.assign(size_t(T), N);
  L.off.resize(size_t(T));
  for (int64_t t = 0; t < T; ++t) L.off[size_t(t)] = t * N;
  return L;
}

RowLayout RowLayout::packed(const std::vector<int64_t>& batch_sizes) {
  RowLayout L;
  L.T = int64_t(batch_sizes.size());
  L.N = batch_sizes.empty() ? 0 : batch_sizes[0];
  L.bs = batch_sizes;
  L.off.resize(batch_sizes.size());
  for (size_t t = 0; t < batch_sizes.size(); ++t) {
    L.off[t] = L.total;
    L.total += batch_sizes[t];
    L.uniform = L.uniform && batch_sizes[t] == L.N;
  }
  return L;
}

int64_t RowLayout::prev(int64_t t, bool reverse) const {
  const int64_t tp = reverse ? t + 1 : t - 1;
  return tp < 0 || tp >= T ? -1 : tp;
}

int64_t RowLayout::carried(int64_t t, bool reverse) const {
  const int64_t tp = prev(t, reverse);
  return tp < 0 ? 0 : std::min(bs[size_t(t)], bs[size_t(tp)]);
}

namespace {

using namespace kernels;

// fn(first_row, rows) over step t's rows in two parts: those continuing the previous step's
// state and those starting from the initial state (either may be empty).
template <typename Fn>
void for_parts(const RowLayout& L, int64_t t, bool reverse, Fn&& fn) {
  const int64_t b = L.bs[size_t(t)], p = L.carried(t, reverse);
  if (p > 0) fn(int64_t(0), p);
  if (b > p) fn(p, b - p);
}

// The state row `row` of step t reads: row `row` of the previous step's block in buf, or of init.
template <typename T>
const T* prev_state(const RowLayout& L, int64_t t, bool reverse, int64_t row, const T* buf,
                    const T* init, int64_t F) {
  if (row < L.carried(t, reverse)) return buf + (L.off[size_t(L.prev(t, reverse))] + row) * F;
  return init + row * F;
}

// Each sequence's row at its last processed step: for the forward direction the step where it
// ends, for the reverse direction step 0 (every sequence is active there).
template <typename T>
void gather_final(const RowLayout& L, bool reverse, const T* buf, int64_t F, T* dst) {
  if (reverse) {
    std::memcpy(dst, buf, size_t(L.N * F) * sizeof(T));
    return;
  }
  for (int64_t t = 0; t < L.T; ++t) {
    const int64_t next = t + 1 < L.T ? L.bs[size_t(t) + 1] : 0, b = L.bs[size_t(t)];
    if (b > next)
      std::memcpy(dst + next * F, buf + (L.off[size_t(t)] + next) * F,
                  size_t((b - next) * F) * sizeof(T));
  }
}

// dw = sum over rows of d[r]^T h_prev[r]: two GEMMs for a padded layout (hidden_weight_grad),
// else the previous states gathered into one (rows, P) block and one GEMM.
template <typename T>
void hidden_grad(const RowLayout& L, bool reverse, const T* d, int64_t G, const T* out, const T* h0,
                 int64_t P, T* dw) {
  if (L.uniform) return hidden_weight_grad<T>(d, G, out, h0, L.T, L.N, P, reverse, dw);
  std::vector<T> hp(size_t(L.total * P));
  for (int64_t t = 0; t < L.T; ++t)
    for_parts(L, t, reverse, [&](int64_t r0, int64_t rows) {
      std::memcpy(hp.data() + (L.off[size_t(t)] + r0) * P,
                  prev_state(L, t, reverse, r0, out, h0, P), size_t(rows * P) * sizeof(T));
    });
  gemm<T>(true, false, G, P, L.total, d, G, hp.data(), P, T(0), dw, P);
}

// Which inputs need a gradient, taken at record time: x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr.
bool req(const Tensor& t) { return t.defined() && t.requires_grad(); }

struct NeedGrad {
  bool x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr;
  explicit NeedGrad(const TensorList& in)
      : x(req(in[0])),
        h0(req(in[1])),
        c0(req(in[2])),
        w_ih(req(in[3])),
        w_hh(req(in[4])),
        b_ih(req(in[5])),
        b_hh(req(in[6])),
        w_hr(req(in[7])) {}
};

// The gradients every layer kind shares (result[0] input, [3] w_ih, [4] w_hh) from the gate
// gradients: d_in (R, G) on the input side, d_hid (R, G) on the hidden side (the same buffer when
// both sides' gates add before the nonlinearity); P the width of the hidden state.
template <typename T>
void input_and_weight_grads(const NeedGrad& ng, const RowLayout& L, bool reverse, const T* d_in,
                            const T* d_hid, int64_t G, const Tensor& x, const Tensor& w_ih,
                            const T* out, const T* h0, int64_t P, const TensorOptions& opts,
                            TensorList& result) {
  const int64_t R = L.total, I = x.size(-1);
  if (ng.x) {
    result[0] = empty(x.sizes(), opts);
    gemm<T>(false, false, R, I, G, d_in, G, w_ih.data<T>(), I, T(0), result[0].data<T>(), I);
  }
  if (ng.w_ih) {
    result[3] = empty({G, I}, opts);
    gemm<T>(true, false, G, I, R, d_in, G, x.data<T>(), I, T(0), result[3].data<T>(), I);
  }
  if (ng.w_hh) {
    result[4] = empty({G, P}, opts);
    hidden_grad<T>(L, reverse, d_hid, G, out, h0, P, result[4].data<T>());
  }
}

// A contiguous copy of g that the backward may update in place (g can be a transposed or
// expanded view, or a tensor someone else holds).
Tensor owned_contiguous(const Tensor& g) {
  Tensor c = contiguous(g);
  return (c.is_same(g) ? clone(g) : c).detach();
}

// b_ih + b_hh (LSTM and Elman add them once up front), zeros without biases.
Tensor combined_bias(const Tensor& b_ih, const Tensor& b_hh, int64_t G, const TensorOptions& opts) {
  if (b_ih.defined()) return b_hh.defined() ? add(b_ih, b_hh) : contiguous(b_ih);
  return b_hh.defined() ? contiguous(b_hh) : zeros({G}, opts);
}

// The node's 8 inputs (undefined where a kind or call has none).
TensorList node_inputs(const Tensor& input, const Tensor& h0, const Tensor& c0,
                       const LayerWeights& w) {
  return {input, h0, c0, w.w_ih, w.w_hh, w.b_ih, w.b_hh, w.w_hr};
}

// Gradients of the per-step path, differentiable (create_graph). Each input that needs a gradient
// goes in through a fresh clone node so the gradients stop exactly at this layer's inputs.
TensorList steps_vjp(CellKind kind, const TensorList& saved, const TensorList& grads,
                     const RowLayout& L, bool reverse) {
  TensorList alias(8), wrt;
  std::vector<size_t> slots;
  for (size_t i = 0; i < 8; ++i) {
    alias[i] = saved[i];
    if (req(saved[i])) {
      alias[i] = clone(saved[i]);
      wrt.push_back(alias[i]);
      slots.push_back(i);
    }
  }
  auto [o, h, c] =
      layer_steps(kind, alias[0], L, alias[1], alias[2],
                  LayerWeights{alias[3], alias[4], alias[5], alias[6], alias[7]}, reverse);
  TensorList outs = kind == CellKind::LSTM ? TensorList{o, h, c} : TensorList{o, h};
  TensorList g = autograd::grad(
      outs, wrt, TensorList(grads.begin(), grads.begin() + long(outs.size())), true, true, true);
  TensorList result(8);
  for (size_t k = 0; k < slots.size(); ++k) result[slots[k]] = g[k];
  return result;
}

// Bias gradients from the summed pre-activation gradients db (shared by b_ih and b_hh).
void bias_grads(const NeedGrad& ng, const Tensor& db, TensorList& result) {
  result[5] = ng.b_ih ? db : Tensor();
  result[6] = ng.b_hh ? (ng.b_ih ? clone(db) : db) : Tensor();
}

std::tuple<Tensor, Tensor, Tensor> lstm_fused(const Tensor& input, const RowLayout& L,
                                              const Tensor& h0_in, const Tensor& c0_in,
                                              const LayerWeights& w, bool reverse) {
  const int64_t T_ = L.T, N = L.N, R = L.total, I = input.size(-1), H = w.w_hh.size(0) / 4,
                G = 4 * H;
  const bool proj = w.w_hr.defined();
  const int64_t P = proj ? w.w_hr.size(0) : H;
  const TensorOptions opts(input.dtype());
  Shape out_shape = input.sizes();
  out_shape.back() = P;
  std::optional<autograd::NoGradGuard> no_grad(std::in_place);  // only the layer node is recorded
  Tensor x = contiguous(input), h0 = contiguous(h0_in), c0 = contiguous(c0_in);
  Tensor w_ih = contiguous(w.w_ih), w_hh = contiguous(w.w_hh),
         w_hr = proj ? contiguous(w.w_hr) : Tensor();
  Tensor bias = combined_bias(w.b_ih, w.b_hh, G, opts);
  Tensor act = empty({R, G}, opts), cs = empty({R, H}, opts), out = empty(out_shape, opts);
  Tensor m = proj ? empty({R, H}, opts) : Tensor();  // o * tanh(c), before the projection
  Tensor h_n = empty({N, P}, opts), c_n = empty({N, H}, opts);
  dispatch_dtype<kF32F64>(input.dtype(), "lstm_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *g = act.data<T>(), *o = out.data<T>(), *c = cs.data<T>();
    T* mp = proj ? m.data<T>() : o;
    const T *hi = h0.data<T>(), *ci = c0.data<T>(), *whh = w_hh.data<T>(), *b = bias.data<T>();
    gemm<T>(false, true, R, G, I, x.data<T>(), I, w_ih.data<T>(), I, T(0), g, G);
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s, r = L.off[size_t(t)];
      for_parts(L, t, reverse, [&](int64_t r0, int64_t rows) {
        T* gt = g + (r + r0) * G;
        gemm<T>(false, true, rows, G, P, prev_state(L, t, reverse, r0, o, hi, P), P, whh, P, T(1),
                gt, G);
        lstm_step_forward<T>(gt, b, prev_state(L, t, reverse, r0, c, ci, H), c + (r + r0) * H,
                             mp + (r + r0) * H, rows, H);
      });
      if (proj)
        gemm<T>(false, true, L.bs[size_t(t)], P, H, mp + r * H, H, w_hr.data<T>(), H, T(0),
                o + r * P, P);
    }
    gather_final<T>(L, reverse, o, P, h_n.data<T>());
    gather_final<T>(L, reverse, c, H, c_n.data<T>());
  });
  no_grad.reset();
  TensorList inputs = node_inputs(input, h0_in, c0_in, w);
  if (autograd::needs_grad(inputs)) {
    NeedGrad ng(inputs);
    TensorList saved = inputs;
    saved.insert(saved.end(), {act, cs, out, m});
    autograd::record(
        "LstmLayerBackward0", inputs, {out, h_n, c_n}, saved,
        [ng, L, reverse, I, H, G, P, proj](const TensorList& s,
                                           const TensorList& gr) -> TensorList {
          if (autograd::grad_enabled()) return steps_vjp(CellKind::LSTM, s, gr, L, reverse);
          const int64_t T_ = L.T, N = L.N, R = L.total;
          Tensor x = contiguous(s[0]).detach(), h0 = contiguous(s[1]).detach(),
                 c0 = contiguous(s[2]).detach();
          Tensor w_ih = contiguous(s[3]).detach(), w_hh = contiguous(s[4]).detach();
          Tensor w_hr = proj ? contiguous(s[7]).detach() : Tensor();
          const Tensor &act = s[8], &cs = s[9], &out = s[10], &m = s[11];
          const TensorOptions opts(x.dtype());
          Tensor g_out = contiguous(gr[0]);
          Tensor dh = owned_contiguous(gr[1]),
                 dc = owned_contiguous(gr[2]);  // running, updated in place
          Tensor d = empty({R, G}, opts);
          // With a projection: dm = (dh + g_out) W_hr per step (the gate kernel's incoming h
          // gradient), and the summed dh of every step kept for dW_hr.
          Tensor dm = proj ? empty({N, H}, opts) : Tensor(),
                 no_dh = proj ? zeros({N, H}, opts) : Tensor();
          Tensor dh_all = proj ? empty({R, P}, opts) : Tensor();
          TensorList result(8);
          dispatch_dtype<kF32F64>(x.dtype(), "lstm_layer backward", [&](auto tag) {
            using T = typename decltype(tag)::type;
            T *dp = d.data<T>(), *dhp = dh.data<T>(), *dcp = dc.data<T>();
            const T *a = act.data<T>(), *c = cs.data<T>(), *ci = c0.data<T>(),
                    *whh = w_hh.data<T>();
            for (int64_t k = T_ - 1; k >= 0; --k) {  // k: processing order, t: time index
              const int64_t t = reverse ? T_ - 1 - k : k, r = L.off[size_t(t)], b = L.bs[size_t(t)];
              const T* go = g_out.data<T>() + r * P;
              const T* dh_in = dhp;  // the gate kernel's dh_next and g_out (rows of this step)
              if (proj) {
                T* sum = dh_all.data<T>() + r * P;
                for (int64_t i = 0; i < b * P; ++i) sum[i] = dhp[i] + go[i];
                gemm<T>(false, false, b, H, P, sum, P, w_hr.data<T>(), H, T(0), dm.data<T>(), H);
                go = dm.data<T>();
                dh_in = no_dh.data<T>();
              }
              for_parts(L, t, reverse, [&](int64_t r0, int64_t rows) {
                lstm_step_backward<T>(a + (r + r0) * G, prev_state(L, t, reverse, r0, c, ci, H),
                                      c + (r + r0) * H, go + r0 * H, dh_in + r0 * H, dcp + r0 * H,
                                      dp + (r + r0) * G, rows, H);
              });
              // The kernel has read dh_t; the GEMM overwrites it with dh_{t-1} (no aliasing). Rows
              // starting from h0 are final here; they are needed only for h0's gradient.
              const int64_t rows_dh = ng.h0 ? b : L.carried(t, reverse);
              if (rows_dh > 0)
                gemm<T>(false, false, rows_dh, P, G, dp + r * G, G, whh, P, T(0), dhp, P);
            }
            input_and_weight_grads<T>(ng, L, reverse, dp, dp, G, x, w_ih, out.data<T>(),
                                      h0.data<T>(), P, opts, result);
            if (ng.w_hr) {
              result[7] = empty({P, H}, opts);
              gemm<T>(true, false, P, H, R, dh_all.data<T>(), P, m.data<T>(), H, T(0),
                      result[7].data<T>(), H);
            }
            if (ng.b_ih || ng.b_hh) {
              Tensor db = empty({G}, opts);
              column_sum<T>(dp, R, G, db.data<T>());
              bias_grads(ng, db, result);
            }
          });
          if (ng.h0) result[1] = dh;
          if (ng.c0) result[2] = dc;
          return result;
        });
  }
  return {out, h_n, c_n};
}

std::pair<Tensor, Tensor> gru_fused(const Tensor& input, const RowLayout& L, const Tensor& h0_in,
                                    const LayerWeights& w, bool reverse) {
  const int64_t T_ = L.T, N = L.N, R = L.total, I = input.size(-1), H = w.w_hh.size(1), G = 3 * H;
  const TensorOptions opts(input.dtype());
  std::optional<autograd::NoGradGuard> no_grad(std::in_place);
  Tensor x = contiguous(input), h0 = contiguous(h0_in);
  Tensor w_ih = contiguous(w.w_ih), w_hh = contiguous(w.w_hh);
  Tensor b_ih = w.b_ih.defined() ? contiguous(w.b_ih).detach() : zeros({G}, opts);
  Tensor b_hh = w.b_hh.defined() ? contiguous(w.b_hh).detach() : zeros({G}, opts);
  Shape out_shape = input.sizes();
  out_shape.back() = H;
  Tensor act = empty({R, G}, opts), ghn = empty({R, H}, opts), out = empty(out_shape, opts);
  Tensor gh = empty({N, G}, opts), h_n = empty({N, H}, opts);
  dispatch_dtype<kF32F64>(input.dtype(), "gru_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *g = act.data<T>(), *o = out.data<T>(), *ghp = gh.data<T>();
    const T *hi = h0.data<T>(), *whh = w_hh.data<T>();
    gemm<T>(false, true, R, G, I, x.data<T>(), I, w_ih.data<T>(), I, T(0), g, G);
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s, r = L.off[size_t(t)];
      for_parts(L, t, reverse, [&](int64_t r0, int64_t rows) {
        const T* hp = prev_state(L, t, reverse, r0, o, hi, H);
        gemm<T>(false, true, rows, G, H, hp, H, whh, H, T(0), ghp + r0 * G, G);
        gru_step_forward<T>(g + (r + r0) * G, ghp + r0 * G, b_ih.data<T>(), b_hh.data<T>(), hp,
                            ghn.data<T>() + (r + r0) * H, o + (r + r0) * H, rows, H);
      });
    }
    gather_final<T>(L, reverse, o, H, h_n.data<T>());
  });
  no_grad.reset();
  TensorList inputs = node_inputs(input, h0_in, Tensor(), w);
  if (autograd::needs_grad(inputs)) {
    NeedGrad ng(inputs);
    TensorList saved = inputs;
    saved.insert(saved.end(), {act, ghn, out});
    autograd::record(
        "GruLayerBackward0", inputs, {out, h_n}, saved,
        [ng, L, reverse, I, H, G](const TensorList& s, const TensorList& gr) -> TensorList {
          if (autograd::grad_enabled()) return steps_vjp(CellKind::GRU, s, gr, L, reverse);
          const int64_t T_ = L.T, R = L.total;
          Tensor x = contiguous(s[0]).detach(), h0 = contiguous(s[1]).detach();
          Tensor w_ih = contiguous(s[3]).detach(), w_hh = contiguous(s[4]).detach();
          const Tensor &act = s[8], &ghn = s[9], &out = s[10];
          const TensorOptions opts(x.dtype());
          Tensor g_out = contiguous(gr[0]);
          Tensor dh = owned_contiguous(gr[1]);  // running dh, updated in place
          Tensor d_gi = empty({R, G}, opts), d_gh = empty({R, G}, opts);
          TensorList result(8);
          dispatch_dtype<kF32F64>(x.dtype(), "gru_layer backward", [&](auto tag) {
            using T = typename decltype(tag)::type;
            T *dgi = d_gi.data<T>(), *dgh = d_gh.data<T>(), *dhp = dh.data<T>();
            const T *o = out.data<T>(), *hi = h0.data<T>();
            for (int64_t k = T_ - 1; k >= 0; --k) {
              const int64_t t = reverse ? T_ - 1 - k : k, r = L.off[size_t(t)], b = L.bs[size_t(t)];
              for_parts(L, t, reverse, [&](int64_t r0, int64_t rows) {
                gru_step_backward<T>(act.data<T>() + (r + r0) * G, ghn.data<T>() + (r + r0) * H,
                                     prev_state(L, t, reverse, r0, o, hi, H),
                                     g_out.data<T>() + (r + r0) * H, dhp + r0 * H,
                                     dgi + (r + r0) * G, dgh + (r + r0) * G, rows, H);
              });
              const int64_t rows_dh = ng.h0 ? b : L.carried(t, reverse);
              if (rows_dh > 0)
                gemm<T>(false, false, rows_dh, H, G, dgh + r * G, G, w_hh.data<T>(), H, T(1), dhp,
                        H);
            }
            input_and_weight_grads<T>(ng, L, reverse, dgi, dgh, G, x, w_ih, o, hi, H, opts, result);
            if (ng.b_ih) {
              result[5] = empty({G}, opts);
              column_sum<T>(dgi, R, G, result[5].data<T>());
            }
            if (ng.b_hh) {
              result[6] = empty({G}, opts);
              column_sum<T>(dgh, R, G, result[6].data<T>());
            }
          });
          if (ng.h0) result[1] = dh;
          return result;
        });
  }
  return {out, h_n};
}

std::pair<Tensor, Tensor> elman_fused(const Tensor& input, const RowLayout& L, const Tensor& h0_in,
                                      const LayerWeights& w, bool relu, bool reverse) {
  const int64_t T_ = L.T, N = L.N, R = L.total, I = input.size(-1), H = w.w_hh.size(1);
  const TensorOptions opts(input.dtype());
  std::optional<autograd::NoGradGuard> no_grad(std::in_place);
  Tensor x = contiguous(input), h0 = contiguous(h0_in);
  Tensor w_ih = contiguous(w.w_ih), w_hh = contiguous(w.w_hh);
  Tensor bias = combined_bias(w.b_ih, w.b_hh, H, opts);
  Shape out_shape = input.sizes();
  out_shape.back() = H;
  // The input projections go straight into the output buffer; each step adds its hidden GEMM
  // and applies the nonlinearity in place.
  Tensor out = empty(out_shape, opts), h_n = empty({N, H}, opts);
  dispatch_dtype<kF32F64>(input.dtype(), "rnn_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    const T *hi = h0.data<T>(), *whh = w_hh.data<T>(), *b = bias.data<T>();
    gemm<T>(false, true, R, H, I, x.data<T>(), I, w_ih.data<T>(), I, T(0), o, H);
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s, r = L.off[size_t(t)];
      T* ht = o + r * H;
      for_parts(L, t, reverse, [&](int64_t r0, int64_t rows) {
        gemm<T>(false, true, rows, H, H, prev_state(L, t, reverse, r0, o, hi, H), H, whh, H, T(1),
                ht + r0 * H, H);
      });
      parallel_for(0, L.bs[size_t(t)], row_grain(H), [&](int64_t n0, int64_t n1) {
        for (int64_t n = n0; n < n1; ++n) elman_row_forward<T>(ht + n * H, b, H, relu);
      });
    }
    gather_final<T>(L, reverse, o, H, h_n.data<T>());
  });
  no_grad.reset();
  TensorList inputs = node_inputs(input, h0_in, Tensor(), w);
  if (autograd::needs_grad(inputs)) {
    NeedGrad ng(inputs);
    TensorList saved = inputs;
    saved.push_back(out);
    autograd::record(
        "RnnLayerBackward0", inputs, {out, h_n}, saved,
        [ng, L, relu, reverse, I, H](const TensorList& s, const TensorList& gr) -> TensorList {
          if (autograd::grad_enabled())
            return steps_vjp(relu ? CellKind::RNNRelu : CellKind::RNNTanh, s, gr, L, reverse);
          const int64_t T_ = L.T, R = L.total;
          Tensor x = contiguous(s[0]).detach(), h0 = contiguous(s[1]).detach();
          Tensor w_ih = contiguous(s[3]).detach(), w_hh = contiguous(s[4]).detach();
          const Tensor& out = s[8];
          const TensorOptions opts(x.dtype());
          Tensor g_out = contiguous(gr[0]);
          Tensor dh = owned_contiguous(gr[1]);  // running, updated in place
          Tensor d = empty({R, H}, opts);
          TensorList result(8);
          dispatch_dtype<kF32F64>(x.dtype(), "rnn_layer backward", [&](auto tag) {
            using T = typename decltype(tag)::type;
            T *dp = d.data<T>(), *dhp = dh.data<T>();
            const T* o = out.data<T>();
            for (int64_t k = T_ - 1; k >= 0; --k) {
              const int64_t t = reverse ? T_ - 1 - k : k, r = L.off[size_t(t)], b = L.bs[size_t(t)];
              const T* gt = g_out.data<T>() + r * H;
              parallel_for(0, b, row_grain(H), [&](int64_t n0, int64_t n1) {
                for (int64_t n = n0; n < n1; ++n)
                  elman_row_backward<T>(o + (r + n) * H, gt + n * H, dhp + n * H, dp + (r + n) * H,
                                        H, relu);
              });
              const int64_t rows_dh = ng.h0 ? b : L.carried(t, reverse);
              if (rows_dh > 0)
                gemm<T>(false, false, rows_dh, H, H, dp + r * H, H, w_hh.data<T>(), H, T(0), dhp,
                        H);
            }
            input_and_weight_grads<T>(ng, L, reverse, dp, dp, H, x, w_ih, o, h0.data<T>(), H, opts,
                                      result);
            if (ng.b_ih || ng.b_hh) {
              Tensor db = empty({H}, opts);
              column_sum<T>(dp, R, H, db.data<T>());
              bias_grads(ng, db, result);
            }
          });
          if (ng.h0) result[1] = dh;
          return result;
        });
  }
  return {out, h_n};
}

}  // namespace

bool rnn_layer_fusable(const TensorList& tensors) {
  const Tensor& x = tensors[0];
  if (x.dim() < 2 || x.dim() > 3 || x.size(0) == 0 || (x.dim() == 3 && x.size(1) == 0))
    return false;
  if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64) return false;
  for (const Tensor& t : tensors)
    if (t.defined() && (t.dtype() != x.dtype() || t.device() != x.device())) return false;
  return x.device().is_cpu();
}

std::tuple<Tensor, Tensor, Tensor> layer_fused(CellKind kind, const Tensor& input,
                                               const RowLayout& layout, const Tensor& h0,
                                               const Tensor& c0, const LayerWeights& w,
                                               bool reverse) {
  switch (kind) {
    case CellKind::LSTM:
      return lstm_fused(input, layout, h0, c0, w, reverse);
    case CellKind::GRU: {
      auto [o, h] = gru_fused(input, layout, h0, w, reverse);
      return {o, h, Tensor()};
    }
    default: {
      auto [o, h] = elman_fused(input, layout, h0, w, kind == CellKind::RNNRelu, reverse);
      return {o, h, Tensor()};
    }
  }
}

std::tuple<Tensor, Tensor, Tensor> lstm_layer_fused(const Tensor& input, const Tensor& h0,
                                                    const Tensor& c0, const Tensor& w_ih,
                                                    const Tensor& w_hh, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse) {
  return lstm_fused(input, RowLayout::padded(input.size(0), input.size(1)), h0, c0,
                    LayerWeights{w_ih, w_hh, b_ih, b_hh, Tensor()}, reverse);
}

std::pair<Tensor, Tensor> gru_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool reverse) {
  return gru_fused(input, RowLayout::padded(input.size(0), input.size(1)), h0,
                   LayerWeights{w_ih, w_hh, b_ih, b_hh, Tensor()}, reverse);
}

std::pair<Tensor, Tensor> rnn_layer_fused(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool relu, bool reverse) {
  return elman_fused(input, RowLayout::padded(input.size(0), input.size(1)), h0,
                     LayerWeights{w_ih, w_hh, b_ih, b_hh, Tensor()}, relu, reverse);
}

}  // namespace tc::nn::detail
