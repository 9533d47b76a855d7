#pragma once
// CPU kernels of the whole-layer recurrent nodes (rnn_layer.cpp): the BLAS calls and the
// per-row gate math, forward and backward, for LSTM, GRU and the Elman RNN. Internal header.
#include <cblas.h>

#include <algorithm>
#include <type_traits>

#include "tensorcore/core/parallel.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/kernels/cpu/vec_math.h"

namespace tc::nn::detail::kernels {

namespace vm = tc::vec_math;
constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// Row-major C = A' B' + beta C with A' = A or A^T (ta), B' likewise.
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  auto op = [](bool tr) { return tr ? CblasTrans : CblasNoTrans; };
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, op(ta), op(tb), int(m), int(n), int(k), 1.0f, a, int(lda), b,
                int(ldb), beta, c, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, op(ta), op(tb), int(m), int(n), int(k), 1.0, a, int(lda), b,
                int(ldb), beta, c, int(ldc));
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

inline int64_t row_grain(int64_t H) { return std::max<int64_t>(1, kGrainSize / (16 * H)); }

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
TC_RNN_ROW void lstm_row_backward(const T* __restrict s, const T* __restrict cp,
                                  const T* __restrict cn, const T* __restrict go,
                                  const T* __restrict dhn, T* __restrict dc, T* __restrict d,
                                  int64_t H) {
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
void lstm_step_forward(T* g, const T* bias, const T* c_prev, T* c_new, T* h_new, int64_t N,
                       int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      lstm_row_forward<T>(g + n * 4 * H, bias, c_prev + n * H, c_new + n * H, h_new + n * H, H);
  });
}

template <typename T>
void lstm_step_backward(const T* act, const T* c_prev, const T* c_new, const T* g_out,
                        const T* dh_next, T* dc, T* d_gates, int64_t N, int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      lstm_row_backward<T>(act + n * 4 * H, c_prev + n * H, c_new + n * H, g_out + n * H,
                           dh_next + n * H, dc + n * H, d_gates + n * 4 * H, H);
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
TC_RNN_ROW void gru_row_backward(const T* __restrict s, const T* __restrict hnn,
                                 const T* __restrict hp, const T* __restrict go, T* __restrict dh,
                                 T* __restrict di, T* __restrict dg, int64_t H) {
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
void gru_step_forward(T* g, const T* gh, const T* b_ih, const T* b_hh, const T* h_prev, T* ghn,
                      T* h_new, int64_t N, int64_t H) {
  parallel_for(0, N, row_grain(H), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      gru_row_forward<T>(g + n * 3 * H, gh + n * 3 * H, b_ih, b_hh, h_prev + n * H, ghn + n * H,
                         h_new + n * H, H);
  });
}

template <typename T>
void gru_step_backward(const T* act, const T* ghn, const T* h_prev, const T* g_out, T* dh, T* d_gi,
                       T* d_gh, int64_t N, int64_t H) {
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
TC_RNN_ROW void elman_row_backward(const T* __restrict h, const T* __restrict go,
                                   const T* __restrict dhn, T* __restrict d, int64_t H, bool relu) {
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
void hidden_weight_grad(const T* d, int64_t G, const T* out, const T* h0, int64_t T_, int64_t N,
                        int64_t H, bool reverse, T* dw) {
  const int64_t rows = (T_ - 1) * N;
  // Forward: steps 1..T-1 read out[0..T-2]; the first step reads h0. Reverse: steps T-2..0 read
  // out[1..T-1]; the first step processed (t = T-1) reads h0.
  const T* d_rest = reverse ? d : d + N * G;
  const T* h_rest = reverse ? out + N * H : out;
  const T* d_first = reverse ? d + (T_ - 1) * N * G : d;
  if (rows > 0) gemm<T>(true, false, G, H, rows, d_rest, G, h_rest, H, T(0), dw, H);
  gemm<T>(true, false, G, H, N, d_first, G, h0, H, rows > 0 ? T(1) : T(0), dw, H);
}

}  // namespace tc::nn::detail::kernels
