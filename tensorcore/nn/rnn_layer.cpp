// Whole-layer LSTM/GRU on the CPU: one autograd node per layer and direction.
//
// The per-step path (rnn_cells.cpp) records a hidden GEMM, a gate node and a slice per time step,
// and its backward accumulates a weight gradient per step. Here the forward writes every step
// into preallocated (T, N, ·) buffers: the input projections of all steps are one GEMM, each step
// adds its hidden GEMM into its slice of that buffer (beta = 1) and one fused kernel turns it
// into activated gates, the new cell state and h. Backward is back-propagation through time
// written out: per step the fused gate backward and one GEMM for dh_{t-1}; then the weight
// gradients of all steps are single GEMMs over T*N rows and the bias gradients column sums.
// Under create_graph the vjp re-runs the per-step path and differentiates it, so double backward
// works (at the per-step path's speed).
#include <cblas.h>

#include <optional>
#include <type_traits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/nn/rnn_internal.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {
namespace {

namespace vm = tc::vec_math;
constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// Row-major C = A' B' + beta C with A' = A or A^T (ta), B' likewise.
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  auto op = [](bool tr) { return tr ? CblasTrans : CblasNoTrans; };
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, op(ta), op(tb), int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c,
                int(ldc));
  else
    cblas_dgemm(CblasRowMajor, op(ta), op(tb), int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c,
                int(ldc));
}

// out[c] = sum over rows of m[r, c] (m is rows x cols, contiguous).
template <typename T>
void column_sum(const T* m, int64_t rows, int64_t cols, T* out) {
  for (int64_t c = 0; c < cols; ++c) out[c] = T(0);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = m + r * cols;
    for (int64_t c = 0; c < cols; ++c) out[c] += row[c];
  }
}

int64_t row_grain(int64_t H) { return std::max<int64_t>(1, kGrainSize / (16 * H)); }

// The gate kernels work on one batch row at a time. Each row function is kept out of line: inlined
// into the loop over rows, GCC does not vectorize the loops over j (it gives up on the nest), and
// with them vectorized the gate math (vec_math's sigmoid/tanh) costs little next to the GEMMs.
#define TC_RNN_ROW __attribute__((noinline))

// ---- LSTM (gate order i, f, g, o as torch) ----

// a: pre-activations of one row [4H] (input + hidden projections, biases not yet added),
// overwritten with the activated gates; writes c_t and h_t.
template <typename T>
TC_RNN_ROW void lstm_row_forward(T* __restrict a, const T* __restrict bias, const T* __restrict cp,
                                 T* __restrict cn, T* __restrict hn, int64_t H) {
  for (int64_t j = 0; j < 2 * H; ++j) a[j] = vm::sigmoid(a[j] + bias[j]);
  for (int64_t j = 2 * H; j < 3 * H; ++j) a[j] = vm::tanh(a[j] + bias[j]);
  for (int64_t j = 3 * H; j < 4 * H; ++j) a[j] = vm::sigmoid(a[j] + bias[j]);
  for (int64_t j = 0; j < H; ++j) {
    T c = a[H + j] * cp[j] + a[j] * a[2 * H + j];
    cn[j] = c;
    hn[j] = a[3 * H + j] * vm::tanh(c);
  }
}

// One step back for one row: dh = dh_next (from step t+1) + go (this step's output gradient);
// dc is the running cell gradient, updated in place to dc_{t-1}. Writes the pre-activation
// gradients d [4H].
template <typename T>
TC_RNN_ROW void lstm_row_backward(const T* __restrict s, const T* __restrict cp, const T* __restrict cn,
                                  const T* __restrict go, const T* __restrict dhn, T* __restrict dc,
                                  T* __restrict d, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T i = s[j], f = s[H + j], g = s[2 * H + j], o = s[3 * H + j];
    T tcn = vm::tanh(cn[j]);
    T dh = dhn[j] + go[j];
    T dct = dc[j] + dh * o * (T(1) - tcn * tcn);
    d[j] = dct * g * i * (T(1) - i);
    d[H + j] = dct * cp[j] * f * (T(1) - f);
    d[2 * H + j] = dct * i * (T(1) - g * g);
    d[3 * H + j] = dh * tcn * o * (T(1) - o);
    dc[j] = dct * f;
  }
}

template <typename T>
void lstm_step_forward(T* g, const T* bias, const T* c_prev, T* c_new, T* h_new, int64_t N, int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      lstm_row_forward<T>(g + n * 4 * H, bias, c_prev + n * H, c_new + n * H, h_new + n * H, H);
  });
}

template <typename T>
void lstm_step_backward(const T* act, const T* c_prev, const T* c_new, const T* g_out, const T* dh_next, T* dc,
                        T* d_gates, int64_t N, int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      lstm_row_backward<T>(act + n * 4 * H, c_prev + n * H, c_new + n * H, g_out + n * H, dh_next + n * H,
                           dc + n * H, d_gates + n * 4 * H, H);
  });
}

// ---- GRU (gate order r, z, n as torch) ----

// a: input projections of one row [3H] (no bias), overwritten with activated r, z, n; b: hidden
// projections [3H] (no bias). Saves gh_n + b_hn (needed for dr) in sn.
template <typename T>
TC_RNN_ROW void gru_row_forward(T* __restrict a, const T* __restrict b, const T* __restrict b_ih,
                                const T* __restrict b_hh, const T* __restrict hp, T* __restrict sn,
                                T* __restrict hn, int64_t H) {
  for (int64_t j = 0; j < 2 * H; ++j) a[j] = vm::sigmoid(a[j] + b_ih[j] + b[j] + b_hh[j]);
  for (int64_t j = 0; j < H; ++j) {
    T hnj = b[2 * H + j] + b_hh[2 * H + j];
    T nn = vm::tanh(a[2 * H + j] + b_ih[2 * H + j] + a[j] * hnj);
    T z = a[H + j];
    sn[j] = hnj;
    a[2 * H + j] = nn;
    hn[j] = (T(1) - z) * nn + z * hp[j];
  }
}

// dh: on entry the gradient from step t+1, on exit go * z (the direct part of dh_{t-1}; the
// caller adds d_gh @ W_hh).
template <typename T>
TC_RNN_ROW void gru_row_backward(const T* __restrict s, const T* __restrict hnn, const T* __restrict hp,
                                 const T* __restrict go, T* __restrict dh, T* __restrict di, T* __restrict dg,
                                 int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T r = s[j], z = s[H + j], nn = s[2 * H + j];
    T g = dh[j] + go[j];
    T dn = g * (T(1) - z) * (T(1) - nn * nn);
    T dz = g * (hp[j] - nn) * z * (T(1) - z);
    T dr = dn * hnn[j] * r * (T(1) - r);
    di[j] = dr;
    di[H + j] = dz;
    di[2 * H + j] = dn;
    dg[j] = dr;
    dg[H + j] = dz;
    dg[2 * H + j] = dn * r;
    dh[j] = g * z;
  }
}

template <typename T>
void gru_step_forward(T* g, const T* gh, const T* b_ih, const T* b_hh, const T* h_prev, T* ghn, T* h_new,
                      int64_t N, int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      gru_row_forward<T>(g + n * 3 * H, gh + n * 3 * H, b_ih, b_hh, h_prev + n * H, ghn + n * H, h_new + n * H, H);
  });
}

template <typename T>
void gru_step_backward(const T* act, const T* ghn, const T* h_prev, const T* g_out, T* dh, T* d_gi, T* d_gh,
                       int64_t N, int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      gru_row_backward<T>(act + n * 3 * H, ghn + n * H, h_prev + n * H, g_out + n * H, dh + n * H,
                          d_gi + n * 3 * H, d_gh + n * 3 * H, H);
  });
}

// ---- Elman RNN (tanh or relu) ----

// p: pre-activation row [H] without biases, overwritten with h = act(p + b_ih + b_hh).
template <typename T>
TC_RNN_ROW void elman_row_forward(T* __restrict p, const T* __restrict bias, int64_t H, bool relu) {
  if (relu) {
    for (int64_t j = 0; j < H; ++j) {
      T v = p[j] + bias[j];
      p[j] = v > T(0) ? v : T(0);
    }
  } else {
    for (int64_t j = 0; j < H; ++j) p[j] = vm::tanh(p[j] + bias[j]);
  }
}

// d = (dh_next + go) * act'(h), with act' from the output: 1 - h^2 (tanh), h > 0 (relu).
template <typename T>
TC_RNN_ROW void elman_row_backward(const T* __restrict h, const T* __restrict go, const T* __restrict dhn,
                                   T* __restrict d, int64_t H, bool relu) {
  if (relu) {
    for (int64_t j = 0; j < H; ++j) d[j] = h[j] > T(0) ? dhn[j] + go[j] : T(0);
  } else {
    for (int64_t j = 0; j < H; ++j) d[j] = (dhn[j] + go[j]) * (T(1) - h[j] * h[j]);
  }
}

// Shared backward tail: given the pre-activation gradients of all steps, the weight gradient
// of the hidden projection is sum_t d_t^T h_{t-1}, where h_{t-1} is the previous step's output
// row block (or h0 for the first step): two GEMMs, no gathering.
template <typename T>
void hidden_weight_grad(const T* d, int64_t G, const T* out, const T* h0, int64_t T_, int64_t N, int64_t H,
                        bool reverse, T* dw) {
  const int64_t rows = (T_ - 1) * N;
  // Forward: steps 1..T-1 read out[0..T-2]; the first step reads h0. Reverse: steps T-2..0 read
  // out[1..T-1]; the first step processed (t = T-1) reads h0.
  const T* d_rest = reverse ? d : d + N * G;
  const T* h_rest = reverse ? out + N * H : out;
  const T* d_first = reverse ? d + (T_ - 1) * N * G : d;
  if (rows > 0) gemm<T>(true, false, G, H, rows, d_rest, G, h_rest, H, T(0), dw, H);
  gemm<T>(true, false, G, H, N, d_first, G, h0, H, rows > 0 ? T(1) : T(0), dw, H);
}

// Which inputs need a gradient, taken at record time.
struct NeedGrad {
  bool x, h0, c0, w_ih, w_hh, b_ih, b_hh;
};

bool req(const Tensor& t) { return t.defined() && t.requires_grad(); }

// A contiguous copy of g that the backward may update in place (g can be a transposed or
// expanded view, or a tensor someone else holds).
Tensor owned_contiguous(const Tensor& g) {
  Tensor c = contiguous(g);
  return (c.is_same(g) ? clone(g) : c).detach();
}

// Gradients of the per-step path, differentiable (create_graph). Each input that needs a gradient
// goes in through a fresh clone node so the gradients stop exactly at this layer's inputs.
TensorList steps_vjp(bool lstm, const TensorList& in, const TensorList& grads, bool reverse) {
  TensorList alias(in.size()), wrt;
  std::vector<size_t> slots;
  for (size_t i = 0; i < in.size(); ++i) {
    alias[i] = in[i];
    if (req(in[i])) {
      alias[i] = clone(in[i]);
      wrt.push_back(alias[i]);
      slots.push_back(i);
    }
  }
  TensorList outs;
  if (lstm) {
    auto [o, h, c] = lstm_layer_steps(alias[0], alias[1], alias[2], alias[3], alias[4], alias[5], alias[6], reverse);
    outs = {o, h, c};
  } else {
    auto [o, h] = gru_layer_steps(alias[0], alias[1], alias[2], alias[3], alias[4], alias[5], reverse);
    outs = {o, h};
  }
  TensorList g = autograd::grad(outs, wrt, grads, true, true, true);
  TensorList result(in.size());
  for (size_t k = 0; k < slots.size(); ++k) result[slots[k]] = g[k];
  return result;
}

}  // namespace

bool rnn_layer_fusable(const TensorList& tensors) {
  const Tensor& x = tensors[0];
  if (x.dim() != 3 || x.size(0) == 0 || x.size(1) == 0 || amp::hook_armed()) return false;
  if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64) return false;
  for (const Tensor& t : tensors)
    if (t.defined() && (t.is_cuda() || t.dtype() != x.dtype() || t.device() != x.device())) return false;
  return x.device().is_cpu();
}

std::tuple<Tensor, Tensor, Tensor> lstm_layer_fused(const Tensor& input, const Tensor& h0_in, const Tensor& c0_in,
                                                    const Tensor& w_ih_in, const Tensor& w_hh_in, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse) {
  const int64_t T_ = input.size(0), N = input.size(1), I = input.size(2), H = w_hh_in.size(1), G = 4 * H;
  const TensorOptions opts(input.dtype());
  std::optional<autograd::NoGradGuard> no_grad(std::in_place);  // only the layer node is recorded
  Tensor x = contiguous(input), h0 = contiguous(h0_in), c0 = contiguous(c0_in);
  Tensor w_ih = contiguous(w_ih_in), w_hh = contiguous(w_hh_in);
  Tensor bias = b_ih.defined() ? (b_hh.defined() ? add(b_ih, b_hh) : contiguous(b_ih))
                               : (b_hh.defined() ? contiguous(b_hh) : zeros({G}, opts));
  Tensor act = empty({T_, N, G}, opts), cs = empty({T_, N, H}, opts), out = empty({T_, N, H}, opts);
  dispatch_dtype<kF32F64>(input.dtype(), "lstm_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* g = act.data<T>();
    gemm<T>(false, true, T_ * N, G, I, x.data<T>(), I, w_ih.data<T>(), I, T(0), g, G);
    const T* h_prev = h0.data<T>();
    const T* c_prev = c0.data<T>();
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s;
      T* gt = g + t * N * G;
      gemm<T>(false, true, N, G, H, h_prev, H, w_hh.data<T>(), H, T(1), gt, G);
      T* ct = cs.data<T>() + t * N * H;
      T* ht = out.data<T>() + t * N * H;
      lstm_step_forward<T>(gt, bias.data<T>(), c_prev, ct, ht, N, H);
      h_prev = ht;
      c_prev = ct;
    }
  });
  const int64_t last = reverse ? 0 : T_ - 1;
  Tensor h_n = clone(select(out, 0, last)), c_n = clone(select(cs, 0, last));
  no_grad.reset();
  TensorList inputs{input, h0_in, c0_in, w_ih_in, w_hh_in, b_ih, b_hh};
  if (autograd::needs_grad(inputs)) {
    NeedGrad ng{req(input), req(h0_in), req(c0_in), req(w_ih_in), req(w_hh_in), req(b_ih), req(b_hh)};
    TensorList saved = inputs;
    saved.insert(saved.end(), {act, cs, out});
    autograd::record("LstmLayerBackward0", inputs, {out, h_n, c_n}, saved,
                     [ng, reverse, T_, N, I, H, G](const TensorList& s, const TensorList& gr) -> TensorList {
      if (autograd::grad_enabled())
        return steps_vjp(true, TensorList(s.begin(), s.begin() + 7), gr, reverse);
      Tensor x = contiguous(s[0]).detach(), h0 = contiguous(s[1]).detach(), c0 = contiguous(s[2]).detach();
      Tensor w_ih = contiguous(s[3]).detach(), w_hh = contiguous(s[4]).detach();
      const Tensor &act = s[7], &cs = s[8], &out = s[9];
      const TensorOptions opts(x.dtype());
      Tensor g_out = contiguous(gr[0]);
      Tensor dh = owned_contiguous(gr[1]), dc = owned_contiguous(gr[2]);  // running, updated in place
      Tensor d = empty({T_, N, G}, opts);
      Tensor dx, dw_ih, dw_hh, db;
      dispatch_dtype<kF32F64>(x.dtype(), "lstm_layer backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* dp = d.data<T>();
        for (int64_t k = T_ - 1; k >= 0; --k) {  // k: processing order, t: time index
          const int64_t t = reverse ? T_ - 1 - k : k;
          const int64_t tp = reverse ? t + 1 : t - 1;  // the step processed before t
          const T* c_prev = k == 0 ? c0.data<T>() : cs.data<T>() + tp * N * H;
          T* dt = dp + t * N * G;
          lstm_step_backward<T>(act.data<T>() + t * N * G, c_prev, cs.data<T>() + t * N * H,
                                g_out.data<T>() + t * N * H, dh.data<T>(), dc.data<T>(), dt, N, H);
          // The kernel has read dh_t; the GEMM overwrites it with dh_{t-1} (no aliasing).
          if (k > 0 || ng.h0) gemm<T>(false, false, N, H, G, dt, G, w_hh.data<T>(), H, T(0), dh.data<T>(), H);
        }
        if (ng.x) {
          dx = empty({T_, N, I}, opts);
          gemm<T>(false, false, T_ * N, I, G, dp, G, w_ih.data<T>(), I, T(0), dx.data<T>(), I);
        }
        if (ng.w_ih) {
          dw_ih = empty({G, I}, opts);
          gemm<T>(true, false, G, I, T_ * N, dp, G, x.data<T>(), I, T(0), dw_ih.data<T>(), I);
        }
        if (ng.w_hh) {
          dw_hh = empty({G, H}, opts);
          hidden_weight_grad<T>(dp, G, out.data<T>(), h0.data<T>(), T_, N, H, reverse, dw_hh.data<T>());
        }
        if (ng.b_ih || ng.b_hh) {
          db = empty({G}, opts);
          column_sum<T>(dp, T_ * N, G, db.data<T>());
        }
      });
      return {dx, ng.h0 ? dh : Tensor(), ng.c0 ? dc : Tensor(), dw_ih, dw_hh, ng.b_ih ? db : Tensor(),
              ng.b_hh ? (ng.b_ih ? clone(db) : db) : Tensor()};
    });
  }
  return {out, h_n, c_n};
}

std::pair<Tensor, Tensor> gru_layer_fused(const Tensor& input, const Tensor& h0_in, const Tensor& w_ih_in,
                                          const Tensor& w_hh_in, const Tensor& b_ih_in, const Tensor& b_hh_in,
                                          bool reverse) {
  const int64_t T_ = input.size(0), N = input.size(1), I = input.size(2), H = w_hh_in.size(1), G = 3 * H;
  const TensorOptions opts(input.dtype());
  std::optional<autograd::NoGradGuard> no_grad(std::in_place);
  Tensor x = contiguous(input), h0 = contiguous(h0_in);
  Tensor w_ih = contiguous(w_ih_in), w_hh = contiguous(w_hh_in);
  Tensor b_ih = b_ih_in.defined() ? contiguous(b_ih_in).detach() : zeros({G}, opts);
  Tensor b_hh = b_hh_in.defined() ? contiguous(b_hh_in).detach() : zeros({G}, opts);
  Tensor act = empty({T_, N, G}, opts), ghn = empty({T_, N, H}, opts), out = empty({T_, N, H}, opts);
  Tensor gh = empty({N, G}, opts);
  dispatch_dtype<kF32F64>(input.dtype(), "gru_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* g = act.data<T>();
    gemm<T>(false, true, T_ * N, G, I, x.data<T>(), I, w_ih.data<T>(), I, T(0), g, G);
    const T* h_prev = h0.data<T>();
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s;
      gemm<T>(false, true, N, G, H, h_prev, H, w_hh.data<T>(), H, T(0), gh.data<T>(), G);
      T* ht = out.data<T>() + t * N * H;
      gru_step_forward<T>(g + t * N * G, gh.data<T>(), b_ih.data<T>(), b_hh.data<T>(), h_prev,
                          ghn.data<T>() + t * N * H, ht, N, H);
      h_prev = ht;
    }
  });
  Tensor h_n = clone(select(out, 0, reverse ? 0 : T_ - 1));
  no_grad.reset();
  TensorList inputs{input, h0_in, w_ih_in, w_hh_in, b_ih_in, b_hh_in};
  if (autograd::needs_grad(inputs)) {
    NeedGrad ng{req(input), req(h0_in), false, req(w_ih_in), req(w_hh_in), req(b_ih_in), req(b_hh_in)};
    TensorList saved = inputs;
    saved.insert(saved.end(), {act, ghn, out});
    autograd::record("GruLayerBackward0", inputs, {out, h_n}, saved,
                     [ng, reverse, T_, N, I, H, G](const TensorList& s, const TensorList& gr) -> TensorList {
      if (autograd::grad_enabled()) return steps_vjp(false, TensorList(s.begin(), s.begin() + 6), gr, reverse);
      Tensor x = contiguous(s[0]).detach(), h0 = contiguous(s[1]).detach();
      Tensor w_ih = contiguous(s[2]).detach(), w_hh = contiguous(s[3]).detach();
      const Tensor &act = s[6], &ghn = s[7], &out = s[8];
      const TensorOptions opts(x.dtype());
      Tensor g_out = contiguous(gr[0]);
      Tensor dh = owned_contiguous(gr[1]);  // running dh, updated in place
      Tensor d_gi = empty({T_, N, G}, opts), d_gh = empty({T_, N, G}, opts);
      Tensor dx, dw_ih, dw_hh, db_ih, db_hh;
      dispatch_dtype<kF32F64>(x.dtype(), "gru_layer backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (int64_t k = T_ - 1; k >= 0; --k) {
          const int64_t t = reverse ? T_ - 1 - k : k;
          const int64_t tp = reverse ? t + 1 : t - 1;
          const T* h_prev = k == 0 ? h0.data<T>() : out.data<T>() + tp * N * H;
          T* dgh = d_gh.data<T>() + t * N * G;
          gru_step_backward<T>(act.data<T>() + t * N * G, ghn.data<T>() + t * N * H, h_prev,
                               g_out.data<T>() + t * N * H, dh.data<T>(), d_gi.data<T>() + t * N * G, dgh, N, H);
          if (k > 0 || ng.h0) gemm<T>(false, false, N, H, G, dgh, G, w_hh.data<T>(), H, T(1), dh.data<T>(), H);
        }
        const T* dgi = d_gi.data<T>();
        if (ng.x) {
          dx = empty({T_, N, I}, opts);
          gemm<T>(false, false, T_ * N, I, G, dgi, G, w_ih.data<T>(), I, T(0), dx.data<T>(), I);
        }
        if (ng.w_ih) {
          dw_ih = empty({G, I}, opts);
          gemm<T>(true, false, G, I, T_ * N, dgi, G, x.data<T>(), I, T(0), dw_ih.data<T>(), I);
        }
        if (ng.w_hh) {
          dw_hh = empty({G, H}, opts);
          hidden_weight_grad<T>(d_gh.data<T>(), G, out.data<T>(), h0.data<T>(), T_, N, H, reverse, dw_hh.data<T>());
        }
        if (ng.b_ih) {
          db_ih = empty({G}, opts);
          column_sum<T>(dgi, T_ * N, G, db_ih.data<T>());
        }
        if (ng.b_hh) {
          db_hh = empty({G}, opts);
          column_sum<T>(d_gh.data<T>(), T_ * N, G, db_hh.data<T>());
        }
      });
      return {dx, ng.h0 ? dh : Tensor(), dw_ih, dw_hh, db_ih, db_hh};
    });
  }
  return {out, h_n};
}

std::pair<Tensor, Tensor> rnn_layer_fused(const Tensor& input, const Tensor& h0_in, const Tensor& w_ih_in,
                                          const Tensor& w_hh_in, const Tensor& b_ih, const Tensor& b_hh, bool relu,
                                          bool reverse) {
  const int64_t T_ = input.size(0), N = input.size(1), I = input.size(2), H = w_hh_in.size(1);
  const TensorOptions opts(input.dtype());
  std::optional<autograd::NoGradGuard> no_grad(std::in_place);
  Tensor x = contiguous(input), h0 = contiguous(h0_in);
  Tensor w_ih = contiguous(w_ih_in), w_hh = contiguous(w_hh_in);
  Tensor bias = b_ih.defined() ? (b_hh.defined() ? add(b_ih, b_hh) : contiguous(b_ih))
                               : (b_hh.defined() ? contiguous(b_hh) : zeros({H}, opts));
  // The input projections go straight into the output buffer; each step adds its hidden GEMM
  // and applies the nonlinearity in place.
  Tensor out = empty({T_, N, H}, opts);
  dispatch_dtype<kF32F64>(input.dtype(), "rnn_layer", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    gemm<T>(false, true, T_ * N, H, I, x.data<T>(), I, w_ih.data<T>(), I, T(0), o, H);
    const T* h_prev = h0.data<T>();
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s;
      T* ht = o + t * N * H;
      gemm<T>(false, true, N, H, H, h_prev, H, w_hh.data<T>(), H, T(1), ht, H);
      parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
        for (int64_t n = n0; n < n1; ++n) elman_row_forward<T>(ht + n * H, bias.data<T>(), H, relu);
      });
      h_prev = ht;
    }
  });
  Tensor h_n = clone(select(out, 0, reverse ? 0 : T_ - 1));
  no_grad.reset();
  TensorList inputs{input, h0_in, w_ih_in, w_hh_in, b_ih, b_hh};
  if (autograd::needs_grad(inputs)) {
    NeedGrad ng{req(input), req(h0_in), false, req(w_ih_in), req(w_hh_in), req(b_ih), req(b_hh)};
    TensorList saved = inputs;
    saved.push_back(out);
    autograd::record("RnnLayerBackward0", inputs, {out, h_n}, saved,
                     [ng, relu, reverse, T_, N, I, H](const TensorList& s, const TensorList& gr) -> TensorList {
      if (autograd::grad_enabled()) {
        // Double backward: differentiate the per-step cells (see steps_vjp).
        TensorList alias(6), wrt;
        std::vector<size_t> slots;
        for (size_t i = 0; i < 6; ++i) {
          alias[i] = req(s[i]) ? clone(s[i]) : s[i];
          if (req(s[i])) {
            wrt.push_back(alias[i]);
            slots.push_back(i);
          }
        }
        auto [o, h] = rnn_layer_cells(alias[0], alias[1], alias[2], alias[3], alias[4], alias[5], relu, reverse);
        TensorList g = autograd::grad({o, h}, wrt, gr, true, true, true);
        TensorList result(6);
        for (size_t k = 0; k < slots.size(); ++k) result[slots[k]] = g[k];
        return result;
      }
      Tensor x = contiguous(s[0]).detach(), h0 = contiguous(s[1]).detach();
      Tensor w_ih = contiguous(s[2]).detach(), w_hh = contiguous(s[3]).detach();
      const Tensor& out = s[6];
      const TensorOptions opts(x.dtype());
      Tensor g_out = contiguous(gr[0]);
      Tensor dh = owned_contiguous(gr[1]);  // running, updated in place
      Tensor d = empty({T_, N, H}, opts);
      Tensor dx, dw_ih, dw_hh, db;
      dispatch_dtype<kF32F64>(x.dtype(), "rnn_layer backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* dp = d.data<T>();
        for (int64_t k = T_ - 1; k >= 0; --k) {
          const int64_t t = reverse ? T_ - 1 - k : k;
          T* dt = dp + t * N * H;
          const T* ht = out.data<T>() + t * N * H;
          const T* gt = g_out.data<T>() + t * N * H;
          T* dhp = dh.data<T>();
          parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
            for (int64_t n = n0; n < n1; ++n)
              elman_row_backward<T>(ht + n * H, gt + n * H, dhp + n * H, dt + n * H, H, relu);
          });
          if (k > 0 || ng.h0) gemm<T>(false, false, N, H, H, dt, H, w_hh.data<T>(), H, T(0), dhp, H);
        }
        if (ng.x) {
          dx = empty({T_, N, I}, opts);
          gemm<T>(false, false, T_ * N, I, H, dp, H, w_ih.data<T>(), I, T(0), dx.data<T>(), I);
        }
        if (ng.w_ih) {
          dw_ih = empty({H, I}, opts);
          gemm<T>(true, false, H, I, T_ * N, dp, H, x.data<T>(), I, T(0), dw_ih.data<T>(), I);
        }
        if (ng.w_hh) {
          dw_hh = empty({H, H}, opts);
          hidden_weight_grad<T>(dp, H, out.data<T>(), h0.data<T>(), T_, N, H, reverse, dw_hh.data<T>());
        }
        if (ng.b_ih || ng.b_hh) {
          db = empty({H}, opts);
          column_sum<T>(dp, T_ * N, H, db.data<T>());
        }
      });
      return {dx, ng.h0 ? dh : Tensor(), dw_ih, dw_hh, ng.b_ih ? db : Tensor(),
              ng.b_hh ? (ng.b_ih ? clone(db) : db) : Tensor()};
    });
  }
  return {out, h_n};
}

}  // namespace tc::nn::detail
