// Recurrent cells: the input and hidden projections are GEMMs through the core's matmul (with
// autograd); the gate arithmetic is one fused kernel forward and one backward. Under create_graph
// the gate vjp is the same formula in tensor ops, so double backward works.
#include <algorithm>
#include <cmath>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/rnn_internal.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

namespace vm = tc::vec_math;

// The gate math runs per batch row in out-of-line functions: inlined into the loop over rows GCC
// does not vectorize the loops over j; vec_math's sigmoid/tanh vectorize (libm calls do not).
#define TC_CELL_ROW __attribute__((noinline))

// gates = gi + gh, [4H] per row in torch's order (input, forget, cell, output); s gets the
// activated gates.
template <typename T>
TC_CELL_ROW void lstm_cell_row(const T* __restrict a, const T* __restrict b, const T* __restrict c,
                               T* __restrict h_out, T* __restrict c_out, T* __restrict s,
                               int64_t H) {
  for (int64_t j = 0; j < 2 * H; ++j) s[j] = vm::sigmoid(a[j] + b[j]);
  for (int64_t j = 2 * H; j < 3 * H; ++j) s[j] = vm::tanh(a[j] + b[j]);
  for (int64_t j = 3 * H; j < 4 * H; ++j) s[j] = vm::sigmoid(a[j] + b[j]);
  for (int64_t j = 0; j < H; ++j) {
    T cn = s[H + j] * c[j] + s[j] * s[2 * H + j];
    c_out[j] = cn;
    h_out[j] = s[3 * H + j] * vm::tanh(cn);
  }
}

template <typename T>
void lstm_forward_kernel(const T* gi, const T* gh, const T* c, T* h_out, T* c_out, T* act,
                         int64_t N, int64_t H) {
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / (16 * H)), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      lstm_cell_row<T>(gi + n * 4 * H, gh + n * 4 * H, c + n * H, h_out + n * H, c_out + n * H,
                       act + n * 4 * H, H);
  });
}

template <typename T>
TC_CELL_ROW void lstm_cell_backward_row(const T* __restrict s, const T* __restrict c,
                                        const T* __restrict c_new, const T* __restrict gh_out,
                                        const T* __restrict gc_out, T* __restrict d,
                                        T* __restrict g_c, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T i = s[j], f = s[H + j], g = s[2 * H + j], o = s[3 * H + j];
    T tc = vm::tanh(c_new[j]);
    T dh = gh_out[j];
    T dc = gc_out[j] + dh * o * (T(1) - tc * tc);
    d[j] = dc * g * i * (T(1) - i);
    d[H + j] = dc * c[j] * f * (T(1) - f);
    d[2 * H + j] = dc * i * (T(1) - g * g);
    d[3 * H + j] = dh * tc * o * (T(1) - o);
    g_c[j] = dc * f;
  }
}

template <typename T>
void lstm_backward_kernel(const T* act, const T* c, const T* c_new, const T* gh_out,
                          const T* gc_out, T* g_gates, T* g_c, int64_t N, int64_t H) {
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / (16 * H)), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      lstm_cell_backward_row<T>(act + n * 4 * H, c + n * H, c_new + n * H, gh_out + n * H,
                                gc_out + n * H, g_gates + n * 4 * H, g_c + n * H, H);
  });
}

// GRU: r, z, n with n = tanh(gi_n + r * gh_n); h' = (1 - z) * n + z * h.
template <typename T>
TC_CELL_ROW void gru_cell_row(const T* __restrict a, const T* __restrict b, const T* __restrict h,
                              T* __restrict h_out, T* __restrict s, int64_t H) {
  for (int64_t j = 0; j < 2 * H; ++j) s[j] = vm::sigmoid(a[j] + b[j]);
  for (int64_t j = 0; j < H; ++j) {
    T z = s[H + j];
    T nn = vm::tanh(a[2 * H + j] + s[j] * b[2 * H + j]);
    s[2 * H + j] = nn;
    h_out[j] = (T(1) - z) * nn + z * h[j];
  }
}

template <typename T>
void gru_forward_kernel(const T* gi, const T* gh, const T* h, T* h_out, T* act, int64_t N,
                        int64_t H) {
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / (12 * H)), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      gru_cell_row<T>(gi + n * 3 * H, gh + n * 3 * H, h + n * H, h_out + n * H, act + n * 3 * H, H);
  });
}

template <typename T>
TC_CELL_ROW void gru_cell_backward_row(const T* __restrict s, const T* __restrict b,
                                       const T* __restrict h, const T* __restrict g_out,
                                       T* __restrict di, T* __restrict dh, T* __restrict g_h,
                                       int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T r = s[j], z = s[H + j], nn = s[2 * H + j], go = g_out[j];
    T dn = go * (T(1) - z) * (T(1) - nn * nn);
    T dz = go * (h[j] - nn) * z * (T(1) - z);
    T dr = dn * b[2 * H + j] * r * (T(1) - r);
    di[j] = dr;
    di[H + j] = dz;
    di[2 * H + j] = dn;
    dh[j] = dr;
    dh[H + j] = dz;
    dh[2 * H + j] = dn * r;
    g_h[j] = go * z;
  }
}

template <typename T>
void gru_backward_kernel(const T* act, const T* gh, const T* h, const T* g_out, T* g_gi, T* g_gh,
                         T* g_h, int64_t N, int64_t H) {
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / (12 * H)), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      gru_cell_backward_row<T>(act + n * 3 * H, gh + n * 3 * H, h + n * H, g_out + n * H,
                               g_gi + n * 3 * H, g_gh + n * 3 * H, g_h + n * H, H);
  });
}

Tensor gates_of(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? addmm(b, x, t(w)) : mm(x, t(w));
}

// LSTM gate op: (gi, gh, c) -> (h', c').
std::pair<Tensor, Tensor> lstm_gates_cpu(const Tensor& gi_in, const Tensor& gh_in,
                                         const Tensor& c_in) {
  Tensor gi = contiguous(gi_in), gh = contiguous(gh_in), c = contiguous(c_in);
  const int64_t N = c.size(0), H = c.size(1);
  Tensor h_new = empty({N, H}, TensorOptions(c.dtype())),
         c_new = empty({N, H}, TensorOptions(c.dtype()));
  Tensor act = empty({N, 4 * H}, TensorOptions(c.dtype()));
  dispatch_dtype<kF32F64>(c.dtype(), "lstm_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_forward_kernel<T>(gi.data<T>(), gh.data<T>(), c.data<T>(), h_new.data<T>(),
                           c_new.data<T>(), act.data<T>(), N, H);
  });
  if (autograd::needs_grad({gi_in, gh_in, c_in})) {
    autograd::record(
        "LstmCellBackward0", {gi_in, gh_in, c_in}, {h_new, c_new}, {gi_in, gh_in, c_in, act, c_new},
        [N, H](const TensorList& s, const TensorList& gr) -> TensorList {
          if (autograd::grad_enabled()) {
            Tensor pre = add(s[0], s[1]);
            TensorList p = chunk(pre, 4, 1);
            Tensor i = sigmoid(p[0]), f = sigmoid(p[1]), g = tanh(p[2]), o = sigmoid(p[3]);
            Tensor cn = add(mul(f, s[2]), mul(i, g));
            Tensor tcn = tanh(cn);
            Tensor dh = gr[0].defined() ? gr[0] : zeros_like(cn);
            Tensor dc = mul(mul(dh, o), rsub(mul(tcn, tcn), Scalar(1)));
            if (gr[1].defined()) dc = add(dc, gr[1]);
            Tensor d = cat({mul(mul(dc, g), mul(i, rsub(i, Scalar(1)))),
                            mul(mul(dc, s[2]), mul(f, rsub(f, Scalar(1)))),
                            mul(mul(dc, i), rsub(mul(g, g), Scalar(1))),
                            mul(mul(dh, tcn), mul(o, rsub(o, Scalar(1))))},
                           1);
            return {d, d, mul(dc, f)};
          }
          // FunctionNode::apply passes zeros for outputs without a gradient, so both are defined.
          Tensor gh_out = contiguous(gr[0]);
          Tensor gc_out = contiguous(gr[1]);
          Tensor c0 = contiguous(s[2]).detach();
          Tensor d = empty({N, 4 * H}, TensorOptions(c0.dtype())),
                 dc = empty({N, H}, TensorOptions(c0.dtype()));
          dispatch_dtype<kF32F64>(c0.dtype(), "lstm_cell backward", [&](auto tag) {
            using T = typename decltype(tag)::type;
            lstm_backward_kernel<T>(s[3].data<T>(), c0.data<T>(), s[4].data<T>(), gh_out.data<T>(),
                                    gc_out.data<T>(), d.data<T>(), dc.data<T>(), N, H);
          });
          return {d, d, dc};
        });
  }
  return {h_new, c_new};
}

Tensor gru_gates_cpu(const Tensor& gi_in, const Tensor& gh_in, const Tensor& h_in) {
  Tensor gi = contiguous(gi_in), gh = contiguous(gh_in), h = contiguous(h_in);
  const int64_t N = h.size(0), H = h.size(1);
  Tensor h_new = empty({N, H}, TensorOptions(h.dtype())),
         act = empty({N, 3 * H}, TensorOptions(h.dtype()));
  dispatch_dtype<kF32F64>(h.dtype(), "gru_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_forward_kernel<T>(gi.data<T>(), gh.data<T>(), h.data<T>(), h_new.data<T>(), act.data<T>(),
                          N, H);
  });
  if (autograd::needs_grad({gi_in, gh_in, h_in})) {
    autograd::record("GruCellBackward0", {gi_in, gh_in, h_in}, {h_new}, {gi_in, gh_in, h_in, act},
                     [N, H](const TensorList& s, const TensorList& gr) -> TensorList {
                       if (autograd::grad_enabled()) {
                         TensorList a = chunk(s[0], 3, 1), b = chunk(s[1], 3, 1);
                         Tensor r = sigmoid(add(a[0], b[0])), z = sigmoid(add(a[1], b[1]));
                         Tensor nn = tanh(add(a[2], mul(r, b[2])));
                         Tensor go = gr[0];
                         Tensor dn = mul(mul(go, rsub(z, Scalar(1))), rsub(mul(nn, nn), Scalar(1)));
                         Tensor dz = mul(mul(go, sub(s[2], nn)), mul(z, rsub(z, Scalar(1))));
                         Tensor dr = mul(mul(dn, b[2]), mul(r, rsub(r, Scalar(1))));
                         return {cat({dr, dz, dn}, 1), cat({dr, dz, mul(dn, r)}, 1), mul(go, z)};
                       }
                       Tensor go = contiguous(gr[0]);
                       Tensor ghs = contiguous(s[1]).detach(), hs = contiguous(s[2]).detach();
                       Tensor dgi = empty({N, 3 * H}, TensorOptions(hs.dtype())),
                              dgh = empty({N, 3 * H}, TensorOptions(hs.dtype()));
                       Tensor dh = empty({N, H}, TensorOptions(hs.dtype()));
                       dispatch_dtype<kF32F64>(hs.dtype(), "gru_cell backward", [&](auto tag) {
                         using T = typename decltype(tag)::type;
                         gru_backward_kernel<T>(s[3].data<T>(), ghs.data<T>(), hs.data<T>(),
                                                go.data<T>(), dgi.data<T>(), dgh.data<T>(),
                                                dh.data<T>(), N, H);
                       });
                       return {dgi, dgh, dh};
                     });
  }
  return h_new;
}

TC_REGISTER_KERNEL(lstm_gates_kernel, CPU, lstm_gates_cpu);
TC_REGISTER_KERNEL(gru_gates_kernel, CPU, gru_gates_cpu);

std::pair<Tensor, Tensor> lstm_gates(const Tensor& gi, const Tensor& gh, const Tensor& c) {
  return lstm_gates_kernel.get(c.device().type)(gi, gh, c);
}

Tensor gru_gates(const Tensor& gi, const Tensor& gh, const Tensor& h) {
  return gru_gates_kernel.get(h.device().type)(gi, gh, h);
}

struct CellArgs {
  Tensor x, h;
  bool unbatched = false;
};

// Checks shapes: input [N, I] (or [I]), hidden [N, H], w_ih [G*H, I], w_hh [G*H, H].
CellArgs check_cell(const char* op, int64_t gates, const Tensor& input, const Tensor& hx,
                    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                    const Tensor& b_hh) {
  TC_CHECK(input.defined() && w_ih.defined() && w_hh.defined(), op,
           ": input and weights must be tensors");
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  TC_CHECK(input.dim() == 1 || input.dim() == 2, op,
           ": expected input of shape (N, input_size) or (input_size), got ",
           shape_str(input.sizes()));
  CellArgs a{input.dim() == 1 ? unsqueeze(input, 0) : input, hx, input.dim() == 1};
  TC_CHECK(w_hh.dim() == 2 && w_hh.size(0) % gates == 0, op, ": expected weight_hh of shape (",
           gates, "*hidden_size, hidden_size), got ", shape_str(w_hh.sizes()));
  int64_t H = w_hh.size(0) / gates, I = a.x.size(1), N = a.x.size(0);
  TC_CHECK(w_hh.size(1) == H, op, ": expected weight_hh of shape [", gates * H, ", ", H, "], got ",
           shape_str(w_hh.sizes()));
  TC_CHECK(w_ih.dim() == 2 && w_ih.size(0) == gates * H && w_ih.size(1) == I, op,
           ": expected weight_ih of shape [", gates * H, ", ", I, "], got ",
           shape_str(w_ih.sizes()));
  for (const Tensor* b : {&b_ih, &b_hh})
    if (b->defined())
      TC_CHECK(b->dim() == 1 && b->size(0) == gates * H, op, ": expected biases of shape [",
               gates * H, "], got ", shape_str(b->sizes()));
  if (!a.h.defined()) {
    a.h = zeros({N, H}, TensorOptions(input.dtype()).device(input.device()));
  } else {
    if (a.unbatched && a.h.dim() == 1) a.h = unsqueeze(a.h, 0);
    TC_CHECK(a.h.dim() == 2 && a.h.size(0) == N && a.h.size(1) == H, op,
             ": expected hidden state of shape [", N, ", ", H, "], got ", shape_str(hx.sizes()));
  }
  return a;
}

}  // namespace

namespace functional {

std::pair<Tensor, Tensor> lstm_cell(const Tensor& input, const Tensor& h, const Tensor& c,
                                    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                                    const Tensor& b_hh) {
  TC_AUTOCAST_NATIVE("lstm_cell", lstm_cell, input, h, c, w_ih, w_hh, b_ih, b_hh);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, lstm_cell, input, h, c, w_ih, w_hh, b_ih, b_hh);
  CellArgs a = check_cell("lstm_cell", 4, input, h, w_ih, w_hh, b_ih, b_hh);
  Tensor cc = c.defined() ? (a.unbatched && c.dim() == 1 ? unsqueeze(c, 0) : c) : zeros_like(a.h);
  TC_CHECK(cc.sizes() == a.h.sizes(), "lstm_cell: expected cell state of shape ",
           shape_str(a.h.sizes()), ", got ", shape_str(c.sizes()));
  auto r = lstm_gates(gates_of(a.x, w_ih, b_ih), gates_of(a.h, w_hh, b_hh), cc);
  if (a.unbatched) return {squeeze(r.first, 0), squeeze(r.second, 0)};
  return r;
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih, const Tensor& b_hh) {
  TC_AUTOCAST_NATIVE("gru_cell", gru_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, gru_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
  CellArgs a = check_cell("gru_cell", 3, input, hx, w_ih, w_hh, b_ih, b_hh);
  Tensor h = gru_gates(gates_of(a.x, w_ih, b_ih), gates_of(a.h, w_hh, b_hh), a.h);
  return a.unbatched ? squeeze(h, 0) : h;
}

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  TC_AUTOCAST_NATIVE("rnn_tanh_cell", rnn_tanh_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, rnn_tanh_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
  CellArgs a = check_cell("rnn_tanh_cell", 1, input, hx, w_ih, w_hh, b_ih, b_hh);
  Tensor h = tanh(add(gates_of(a.x, w_ih, b_ih), gates_of(a.h, w_hh, b_hh)));
  return a.unbatched ? squeeze(h, 0) : h;
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  TC_AUTOCAST_NATIVE("rnn_relu_cell", rnn_relu_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, rnn_relu_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
  CellArgs a = check_cell("rnn_relu_cell", 1, input, hx, w_ih, w_hh, b_ih, b_hh);
  Tensor h = tc::relu(add(gates_of(a.x, w_ih, b_ih), gates_of(a.h, w_hh, b_hh)));
  return a.unbatched ? squeeze(h, 0) : h;
}

}  // namespace functional
}  // namespace tc::nn

namespace tc::nn {
namespace {

// Splits [T, ...] into its T steps under one autograd node whose vjp stacks the step gradients
// once (the core's unbind is T separate selects, whose backward would materialize T full-size
// zero tensors).
TensorList unbind_steps(const Tensor& a) {
  const int64_t T = a.size(0);
  Tensor base = a.detach();
  TensorList steps;
  steps.reserve(size_t(T));
  for (int64_t t = 0; t < T; ++t) steps.push_back(select(base, 0, t));
  if (autograd::needs_grad({a})) {
    Shape step_shape(a.sizes().begin() + 1, a.sizes().end());
    DType dt = a.dtype();
    Device dev = a.device();
    autograd::record(
        "UnbindBackward0", {a}, steps, {},
        [step_shape, dt, dev](const TensorList&, const TensorList& g) -> TensorList {
          TensorList parts;
          parts.reserve(g.size());
          for (const Tensor& gt : g)
            parts.push_back(gt.defined() ? gt : zeros(step_shape, TensorOptions(dt).device(dev)));
          return {stack(parts, 0)};
        });
  }
  return steps;
}

}  // namespace
}  // namespace tc::nn

namespace tc::nn::detail {

// One LSTM/GRU layer over a whole sequence, step by step: the input projection of every step is
// one GEMM up front, then each step runs the hidden GEMM and the fused gate kernel as their own
// autograd nodes. The CPU fast path (rnn_layer.cpp) falls back to this for double backward.
std::tuple<Tensor, Tensor, Tensor> lstm_layer_steps(const Tensor& input, const Tensor& h0,
                                                    const Tensor& c0, const Tensor& w_ih,
                                                    const Tensor& w_hh, const Tensor& b_ih,
                                                    const Tensor& b_hh, bool reverse) {
  const int64_t T = input.size(0), N = input.size(1), I = input.size(2), H = w_hh.size(1);
  Tensor h = h0, c = c0;
  Tensor gi_all = reshape(gates_of(reshape(input, {T * N, I}), w_ih, b_ih), {T, N, 4 * H});
  TensorList gi = T > 0 ? unbind_steps(gi_all) : TensorList{};
  TensorList outs(static_cast<size_t>(T));
  for (int64_t s = 0; s < T; ++s) {
    int64_t t = reverse ? T - 1 - s : s;
    auto hc = lstm_gates(gi[size_t(t)], gates_of(h, w_hh, b_hh), c);
    h = hc.first;
    c = hc.second;
    outs[size_t(t)] = h;
  }
  Tensor out = T > 0 ? stack(outs, 0)
                     : zeros({0, N, H}, TensorOptions(input.dtype()).device(input.device()));
  return {out, h, c};
}

std::pair<Tensor, Tensor> gru_layer_steps(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool reverse) {
  const int64_t T = input.size(0), N = input.size(1), I = input.size(2), H = w_hh.size(1);
  Tensor h = h0;
  Tensor gi_all = reshape(gates_of(reshape(input, {T * N, I}), w_ih, b_ih), {T, N, 3 * H});
  TensorList gi = T > 0 ? unbind_steps(gi_all) : TensorList{};
  TensorList outs(static_cast<size_t>(T));
  for (int64_t s = 0; s < T; ++s) {
    int64_t t = reverse ? T - 1 - s : s;
    h = gru_gates(gi[size_t(t)], gates_of(h, w_hh, b_hh), h);
    outs[size_t(t)] = h;
  }
  Tensor out = T > 0 ? stack(outs, 0)
                     : zeros({0, N, H}, TensorOptions(input.dtype()).device(input.device()));
  return {out, h};
}

namespace {

// Splits the rows of a [rows, F] tensor into the layout's step blocks under one autograd node
// whose vjp concatenates the block gradients once (as unbind_steps).
TensorList split_steps(const Tensor& a, const RowLayout& L) {
  Tensor base = a.detach();
  TensorList steps;
  steps.reserve(size_t(L.T));
  for (int64_t t = 0; t < L.T; ++t)
    steps.push_back(narrow(base, 0, L.off[size_t(t)], L.bs[size_t(t)]));
  if (autograd::needs_grad({a})) {
    const int64_t F = a.size(1);
    const TensorOptions opts = TensorOptions(a.dtype()).device(a.device());
    autograd::record("SplitStepsBackward0", {a}, steps, {},
                     [F, opts, bs = L.bs](const TensorList&, const TensorList& g) -> TensorList {
                       TensorList parts;
                       parts.reserve(g.size());
                       for (size_t t = 0; t < g.size(); ++t)
                         parts.push_back(g[t].defined() ? g[t] : zeros({bs[t], F}, opts));
                       return {cat(parts, 0)};
                     });
  }
  return steps;
}

}  // namespace

// The per-step path over any layout. Forward over a packed batch the active batch shrinks: the
// rows of sequences that end are set aside (their final state) and the rest continue; in reverse
// it grows, sequences joining with their rows of h0/c0.
std::tuple<Tensor, Tensor, Tensor> layer_steps(CellKind kind, const Tensor& input,
                                               const RowLayout& L, const Tensor& h0,
                                               const Tensor& c0, const LayerWeights& w,
                                               bool reverse) {
  const bool lstm = kind == CellKind::LSTM;
  const int64_t I = input.size(-1), P = w.w_hr.defined() ? w.w_hr.size(0) : w.w_hh.size(1);
  TensorList gi = split_steps(gates_of(reshape(input, {L.total, I}), w.w_ih, w.b_ih), L);
  auto step = [&](const Tensor& g, Tensor& h, Tensor& c) {
    Tensor gh = gates_of(h, w.w_hh, w.b_hh);
    if (lstm) {
      auto hc = lstm_gates(g, gh, c);
      h = w.w_hr.defined() ? mm(hc.first, t(w.w_hr)) : hc.first;
      c = hc.second;
    } else if (kind == CellKind::GRU) {
      h = gru_gates(g, gh, h);
    } else {
      Tensor pre = add(g, gh);
      h = kind == CellKind::RNNRelu ? relu(pre) : tanh(pre);
    }
  };
  TensorList outs(size_t(L.T));
  Tensor h, c;
  if (!reverse) {
    h = h0;
    c = c0;
    TensorList h_done, c_done;  // rows of finished sequences, the latest-finishing first
    int64_t active = L.N;
    for (int64_t t = 0; t < L.T; ++t) {
      const int64_t b = L.bs[size_t(t)];
      if (b < active) {
        h_done.push_back(narrow(h, 0, b, active - b));
        h = narrow(h, 0, 0, b);
        if (lstm) {
          c_done.push_back(narrow(c, 0, b, active - b));
          c = narrow(c, 0, 0, b);
        }
        active = b;
      }
      step(gi[size_t(t)], h, c);
      outs[size_t(t)] = h;
    }
    auto finish = [](TensorList& done, const Tensor& last) {
      done.push_back(last);
      std::reverse(done.begin(), done.end());
      return done.size() == 1 ? done[0] : cat(done, 0);
    };
    h = finish(h_done, h);
    if (lstm) c = finish(c_done, c);
  } else {
    int64_t active = 0;
    for (int64_t t = L.T - 1; t >= 0; --t) {
      const int64_t b = L.bs[size_t(t)];
      if (b > active) {
        Tensor h_new = narrow(h0, 0, active, b - active);
        h = active == 0 ? h_new : cat({h, h_new}, 0);
        if (lstm) {
          Tensor c_new = narrow(c0, 0, active, b - active);
          c = active == 0 ? c_new : cat({c, c_new}, 0);
        }
        active = b;
      }
      step(gi[size_t(t)], h, c);
      outs[size_t(t)] = h;
    }
  }
  Shape out_shape = input.sizes();
  out_shape.back() = P;
  return {reshape(cat(outs, 0), out_shape), h, lstm ? c : Tensor()};
}

// Under autocast or with float16/bfloat16 input: the public cell ops per step, so each step gets
// their autocast policy and float32 compute (as a loop over lstm_cell/gru_cell would).
std::tuple<Tensor, Tensor, Tensor> layer_cells(bool lstm, const Tensor& input, const Tensor& h0,
                                               const Tensor& c0, const Tensor& w_ih,
                                               const Tensor& w_hh, const Tensor& b_ih,
                                               const Tensor& b_hh, bool reverse) {
  const int64_t T = input.size(0);
  Tensor h = h0, c = c0;
  TensorList outs(static_cast<size_t>(T));
  for (int64_t s = 0; s < T; ++s) {
    int64_t t = reverse ? T - 1 - s : s;
    if (lstm)
      std::tie(h, c) = functional::lstm_cell(select(input, 0, t), h, c, w_ih, w_hh, b_ih, b_hh);
    else
      h = functional::gru_cell(select(input, 0, t), h, w_ih, w_hh, b_ih, b_hh);
    outs[size_t(t)] = h;
  }
  return {stack(outs, 0), h, c};
}

std::pair<Tensor, Tensor> rnn_layer_cells(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih,
                                          const Tensor& b_hh, bool relu, bool reverse) {
  const int64_t T = input.size(0);
  Tensor h = h0;
  TensorList outs(static_cast<size_t>(T));
  for (int64_t s = 0; s < T; ++s) {
    int64_t t = reverse ? T - 1 - s : s;
    h = relu ? functional::rnn_relu_cell(select(input, 0, t), h, w_ih, w_hh, b_ih, b_hh)
             : functional::rnn_tanh_cell(select(input, 0, t), h, w_ih, w_hh, b_ih, b_hh);
    outs[size_t(t)] = h;
  }
  return {stack(outs, 0), h};
}

bool use_cells(const Tensor& input, const Tensor& w_ih) {
  if (input.size(0) == 0) return false;
  if (amp::is_reduced_float(input)) return true;
  // CUDA autocast lists the cells; CPU autocast does not, so there they compute in float32 like
  // the whole-layer node (unless the weights are of another dtype, which only the cells cast).
  return amp::hook_armed() &&
         (!input.is_cpu() || (w_ih.defined() && w_ih.dtype() != input.dtype()));
}

// CPU autocast lists no RNN cell (torch 1.13's does not either), so under it a CPU layer computes
// in float32. A bfloat16 input there (an autocast linear's output, as WaveRNN feeds its GRUs) is
// widened once, so the layer runs as one float32 node instead of a cell call per time step that
// rounds the hidden state back to bfloat16 after every step (WaveRNN's training step ran 3.5x
// slower under autocast than without).
LayerStart widen_under_cpu_autocast(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                    const Tensor& w_ih) {
  // Undefined tensors pass through to the callers' argument checks.
  const bool widen = input.defined() && input.is_cpu() &&
                     amp::is_autocast_enabled(DeviceType::CPU) && amp::is_reduced_float(input) &&
                     w_ih.defined() && w_ih.dtype() == DType::Float32;
  if (!widen) return {input, h0, c0};
  auto wide = [](const Tensor& t) {
    return amp::is_reduced_float(t) ? to_dtype(t, DType::Float32) : t;
  };
  return {wide(input), wide(h0), wide(c0)};
}

}  // namespace tc::nn::detail

namespace tc::nn::functional {

// One LSTM/GRU layer over a whole sequence: the whole-layer CPU node where it applies, else the
// per-step path.
std::tuple<Tensor, Tensor, Tensor> lstm_layer(const Tensor& input_in, const Tensor& h0_in,
                                              const Tensor& c0_in, const Tensor& w_ih,
                                              const Tensor& w_hh, const Tensor& b_ih,
                                              const Tensor& b_hh, bool reverse,
                                              const Tensor& w_hr) {
  const char* op = "lstm_layer";
  TC_CHECK(input_in.defined() && input_in.dim() == 3, op,
           ": expected input of shape (T, N, input_size), got ",
           input_in.defined() ? shape_str(input_in.sizes()) : "None");
  const auto [input, h0, c0] = detail::widen_under_cpu_autocast(input_in, h0_in, c0_in, w_ih);
  if (w_hr.defined())
    return detail::lstm_layer_proj(input, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse, w_hr);
  if (detail::use_cells(input, w_ih))
    return detail::layer_cells(true, input, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse);
  const int64_t T = input.size(0), N = input.size(1), I = input.size(2);
  CellArgs a =
      check_cell(op, 4,
                 T > 0 ? select(input, 0, 0)
                       : zeros({N, I}, TensorOptions(input.dtype()).device(input.device())),
                 h0, w_ih, w_hh, b_ih, b_hh);
  Tensor h = a.h;
  Tensor c = c0.defined() ? c0 : zeros_like(h);
  TC_CHECK(c.sizes() == h.sizes(), op, ": expected cell state of shape ", shape_str(h.sizes()),
           ", got ", shape_str(c.sizes()));
  if (detail::rnn_layer_fusable({input, h, c, w_ih, w_hh, b_ih, b_hh}))
    return detail::lstm_layer_fused(input, h, c, w_ih, w_hh, b_ih, b_hh, reverse);
  return detail::lstm_layer_steps(input, h, c, w_ih, w_hh, b_ih, b_hh, reverse);
}

std::pair<Tensor, Tensor> gru_layer(const Tensor& input_in, const Tensor& h0_in, const Tensor& w_ih,
                                    const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                                    bool reverse) {
  const char* op = "gru_layer";
  TC_CHECK(input_in.defined() && input_in.dim() == 3, op,
           ": expected input of shape (T, N, input_size), got ",
           input_in.defined() ? shape_str(input_in.sizes()) : "None");
  const auto [input, h0, unused_c0] =
      detail::widen_under_cpu_autocast(input_in, h0_in, Tensor(), w_ih);
  if (detail::use_cells(input, w_ih)) {
    auto r = detail::layer_cells(false, input, h0, Tensor(), w_ih, w_hh, b_ih, b_hh, reverse);
    return {std::get<0>(r), std::get<1>(r)};
  }
  const int64_t T = input.size(0), N = input.size(1), I = input.size(2);
  CellArgs a =
      check_cell(op, 3,
                 T > 0 ? select(input, 0, 0)
                       : zeros({N, I}, TensorOptions(input.dtype()).device(input.device())),
                 h0, w_ih, w_hh, b_ih, b_hh);
  if (detail::rnn_layer_fusable({input, a.h, w_ih, w_hh, b_ih, b_hh}))
    return detail::gru_layer_fused(input, a.h, w_ih, w_hh, b_ih, b_hh, reverse);
  return detail::gru_layer_steps(input, a.h, w_ih, w_hh, b_ih, b_hh, reverse);
}

std::pair<Tensor, Tensor> rnn_layer(const Tensor& input_in, const Tensor& h0_in, const Tensor& w_ih,
                                    const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                                    const std::string& nonlinearity, bool reverse) {
  const char* op = "rnn_layer";
  TC_CHECK(nonlinearity == "tanh" || nonlinearity == "relu", op, ": unknown nonlinearity '",
           nonlinearity, "', expected 'tanh' or 'relu'");
  const bool relu = nonlinearity == "relu";
  TC_CHECK(input_in.defined() && input_in.dim() == 3, op,
           ": expected input of shape (T, N, input_size), got ",
           input_in.defined() ? shape_str(input_in.sizes()) : "None");
  const auto [input, h0, unused_c0] =
      detail::widen_under_cpu_autocast(input_in, h0_in, Tensor(), w_ih);
  if (detail::use_cells(input, w_ih))
    return detail::rnn_layer_cells(input, h0, w_ih, w_hh, b_ih, b_hh, relu, reverse);
  const int64_t T = input.size(0), N = input.size(1), I = input.size(2);
  CellArgs a =
      check_cell(op, 1,
                 T > 0 ? select(input, 0, 0)
                       : zeros({N, I}, TensorOptions(input.dtype()).device(input.device())),
                 h0, w_ih, w_hh, b_ih, b_hh);
  if (T == 0)
    return {zeros({0, N, w_hh.size(1)}, TensorOptions(input.dtype()).device(input.device())), a.h};
  if (detail::rnn_layer_fusable({input, a.h, w_ih, w_hh, b_ih, b_hh}))
    return detail::rnn_layer_fused(input, a.h, w_ih, w_hh, b_ih, b_hh, relu, reverse);
  return detail::rnn_layer_cells(input, a.h, w_ih, w_hh, b_ih, b_hh, relu, reverse);
}

}  // namespace tc::nn::functional
