// WaveRNN sampling loop. Per step and utterance torchaudio runs
//   x1 = fc([x, m_t, a1_t]); h1 = GRU1(x1, h1); x2 = x1 + h1; h2 = GRU2([x2, a2_t], h2);
//   x3 = x2 + h2; y1 = relu(fc1([x3, a3_t])); y2 = relu(fc2([y1, a4_t])); x ~ softmax(fc3(y2)).
// Everything that does not depend on the sampled x (the conditioning parts of fc, of GRU1's
// input product, and of the a2..a4 products) is computed ahead for a block of steps as GEMMs;
// x enters fc linearly, so x1 = P_t + w0 * x and GRU1's input gates are G_t + (W_ih1 w0) * x.
// What is left per step is W_hh1 h1, W_ih2 x2, W_hh2 h2, fc1, fc2, fc3: reading those weights
// once per step (for up to four utterances at a time) bounds the loop.
#include "models/audio/wavernn_infer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "models/audio/small_batch_products.h"
#include "tensorcore/core/error.h"
#include "tensorcore/kernels/cpu/vec_math.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"

namespace tc::models::audio {
namespace {

namespace vm = tc::vec_math;
using detail::small_batch_products;

// One generated row: a stretch [start, start + length) of utterance `source`.
struct RowSpan {
  int64_t source = 0, start = 0, length = 0;
};

struct Dims {
  int64_t n_freq, n_aux, n_rnn, n_fc, n_classes, time;
};

void check_weight(const Tensor& t, const char* name, DType dtype,
                  std::initializer_list<int64_t> shape) {
  TC_CHECK(t.defined(), "wavernn_infer: weight ", name, " is missing");
  TC_CHECK_TYPE(t.dtype() == dtype, "wavernn_infer: ", name, " has dtype ", dtype_name(t.dtype()),
                " but specgram has ", dtype_name(dtype));
  TC_CHECK(t.is_cpu(), "wavernn_infer: ", name, " must be a CPU tensor");
  TC_CHECK(t.sizes() == Shape(shape), "wavernn_infer: ", name, " has shape ", shape_str(t.sizes()),
           ", expected ", shape_str(Shape(shape)));
}

Dims check_inputs(const WaveRNNWeights& w, const Tensor& specgram, const Tensor& aux) {
  TC_CHECK(specgram.dim() == 3, "wavernn_infer: specgram must be (batch, n_freq, time), got ",
           specgram.dim(), " dims");
  TC_CHECK(aux.dim() == 3, "wavernn_infer: aux must be (batch, n_output, time), got ", aux.dim(),
           " dims");
  TC_CHECK_TYPE(specgram.dtype() == DType::Float32 || specgram.dtype() == DType::Float64,
                "wavernn_infer: specgram must be float32 or float64, got ",
                dtype_name(specgram.dtype()));
  TC_CHECK(specgram.is_cpu() && aux.is_cpu(),
           "wavernn_infer: specgram and aux must be CPU tensors");
  TC_CHECK_TYPE(aux.dtype() == specgram.dtype(), "wavernn_infer: aux has dtype ",
                dtype_name(aux.dtype()), " but specgram has ", dtype_name(specgram.dtype()));
  TC_CHECK(aux.size(0) == specgram.size(0) && aux.size(2) == specgram.size(2),
           "wavernn_infer: aux ", shape_str(aux.sizes()), " does not match specgram ",
           shape_str(specgram.sizes()), " in batch and time");
  TC_CHECK(w.fc_weight.defined() && w.fc_weight.dim() == 2 && w.rnn1_weight_hh.defined() &&
               w.rnn1_weight_hh.dim() == 2 && w.fc1_weight.defined() && w.fc1_weight.dim() == 2 &&
               w.fc3_weight.defined() && w.fc3_weight.dim() == 2,
           "wavernn_infer: fc, rnn1, fc1 and fc3 weights must be 2-d tensors");
  Dims d;
  d.n_freq = specgram.size(1);
  d.n_rnn = w.rnn1_weight_hh.size(1);
  d.n_aux = w.fc_weight.size(1) - 1 - d.n_freq;
  d.n_fc = w.fc1_weight.size(0);
  d.n_classes = w.fc3_weight.size(0);
  d.time = specgram.size(2);
  TC_CHECK(d.n_aux >= 0, "wavernn_infer: fc.weight has ", w.fc_weight.size(1),
           " input features, fewer than 1 + n_freq (", 1 + d.n_freq, ")");
  TC_CHECK(aux.size(1) >= 4 * d.n_aux, "wavernn_infer: aux has ", aux.size(1),
           " channels, expected at least 4 * n_aux = ", 4 * d.n_aux);
  TC_CHECK(d.n_freq > 0 && d.n_rnn > 0 && d.n_fc > 0 && d.n_classes > 0,
           "wavernn_infer: n_freq, n_rnn, n_fc and n_classes must be positive");
  const DType dt = specgram.dtype();
  const int64_t R = d.n_rnn, A = d.n_aux, Fc = d.n_fc;
  check_weight(w.fc_weight, "fc.weight", dt, {R, 1 + d.n_freq + A});
  check_weight(w.fc_bias, "fc.bias", dt, {R});
  check_weight(w.rnn1_weight_ih, "rnn1.weight_ih_l0", dt, {3 * R, R});
  check_weight(w.rnn1_weight_hh, "rnn1.weight_hh_l0", dt, {3 * R, R});
  check_weight(w.rnn1_bias_ih, "rnn1.bias_ih_l0", dt, {3 * R});
  check_weight(w.rnn1_bias_hh, "rnn1.bias_hh_l0", dt, {3 * R});
  check_weight(w.rnn2_weight_ih, "rnn2.weight_ih_l0", dt, {3 * R, R + A});
  check_weight(w.rnn2_weight_hh, "rnn2.weight_hh_l0", dt, {3 * R, R});
  check_weight(w.rnn2_bias_ih, "rnn2.bias_ih_l0", dt, {3 * R});
  check_weight(w.rnn2_bias_hh, "rnn2.bias_hh_l0", dt, {3 * R});
  check_weight(w.fc1_weight, "fc1.weight", dt, {Fc, R + A});
  check_weight(w.fc1_bias, "fc1.bias", dt, {Fc});
  check_weight(w.fc2_weight, "fc2.weight", dt, {Fc, Fc + A});
  check_weight(w.fc2_bias, "fc2.bias", dt, {Fc});
  check_weight(w.fc3_weight, "fc3.weight", dt, {d.n_classes, Fc});
  check_weight(w.fc3_bias, "fc3.bias", dt, {d.n_classes});
  return d;
}

// torchaudio maps label l to float32(2 * l / (2^n_bits - 1) - 1), rounding each float32 op.
float label_to_linear(int64_t label, int n_bits) {
  const float denom = float(std::ldexp(1.0, n_bits) - 1.0);
  return float(float(2.0f * float(label)) / denom) - 1.0f;
}

// torchaudio.functional.mu_law_decoding of a label, with mu = n_classes - 1.
float label_to_mulaw(int64_t label, int64_t n_classes) {
  const double mu = double(n_classes - 1);
  const double x = double(label) / mu * 2.0 - 1.0;
  const double s = (x > 0) - (x < 0);
  return float(s * std::expm1(std::abs(x) * std::log1p(mu)) / mu);
}

// The categorical draw. Both streams use the exponential race (argmax p_j / E_j), which is
// how torch.multinomial and tc::multinomial draw one sample without replacement.
class Sampler {
 public:
  Sampler(const WaveRNNInferOptions& o, int64_t n_classes, int64_t steps)
      : n_classes_(n_classes), torch_stream_(o.torch_seed.has_value()) {
    if (torch_stream_) {
      mt_.seed(uint32_t(*o.torch_seed));  // torch's mt19937 keeps the low 32 bits
    } else {
      Generator& g = get_generator(o.generator);
      philox_ = g.next(uint64_t(std::max<int64_t>(steps, 1)));
    }
  }

  // Torch's stream draws for every row of the batch at every step, live or not.
  void skip_row() {
    if (torch_stream_) mt_.discard(2 * uint64_t(n_classes_));
  }

  // p: the row's probabilities; `row` is its index in the batch (the Philox block).
  template <typename T>
  int64_t draw(const T* p, int64_t step, int64_t row) {
    int64_t best = 0;
    if (torch_stream_) {
      // torch: q = float(-log(1 - u53)) from random64(), key = p / q in the tensor's dtype.
      T best_key = -std::numeric_limits<T>::infinity();
      for (int64_t j = 0; j < n_classes_; ++j) {
        const uint64_t hi = mt_(), lo = mt_();
        const uint64_t r = (hi << 32) | lo;
        const double u = double(r & ((uint64_t(1) << 53) - 1)) * 0x1.0p-53;
        const T q = T(-1.0 * std::log(1.0 - u));
        const T key = p[j] / q;
        if (key > best_key || j == 0) {
          best_key = key;
          best = j;
        }
      }
      return best;
    }
    // tc::multinomial: Philox block row * n_classes + j of the step's subsequence,
    // key = E / p in double, smallest wins.
    PhiloxState st{philox_.seed, philox_.offset + uint64_t(step)};
    double best_key = std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < n_classes_; ++j) {
      auto w = st.block(uint64_t(row * n_classes_ + j));
      const double u = double((uint64_t(w[0]) << 21) ^ (w[1] >> 11)) * 0x1.0p-53;
      const double pj = double(p[j]);
      const double key = pj > 0 ? -std::log1p(-u) / pj : std::numeric_limits<double>::infinity();
      if (key < best_key) {
        best_key = key;
        best = j;
      }
    }
    return best;
  }

 private:
  int64_t n_classes_;
  bool torch_stream_;
  std::mt19937 mt_;
  PhiloxState philox_;
};

template <typename T>
void softmax_row(T* v, int64_t n) {
  T mx = v[0];
  for (int64_t j = 1; j < n; ++j) mx = std::max(mx, v[j]);
  T sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    v[j] = vm::exp(v[j] - mx);
    sum += v[j];
  }
  const T inv = T(1) / sum;
  for (int64_t j = 0; j < n; ++j) v[j] *= inv;
}

// gi: input-side pre-activations (biases included), gh: W_hh h (bias not yet added).
template <typename T>
void gru_row(const T* __restrict gi, const T* __restrict gh, const T* __restrict bhh,
             T* __restrict h, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const T r = vm::sigmoid(gi[j] + gh[j] + bhh[j]);
    const T z = vm::sigmoid(gi[H + j] + gh[H + j] + bhh[H + j]);
    const T n = vm::tanh(gi[2 * H + j] + r * (gh[2 * H + j] + bhh[2 * H + j]));
    h[j] = (T(1) - z) * n + z * h[j];
  }
}

template <typename T>
void add_bias_relu(T* __restrict y, const T* __restrict pre, int64_t n) {
  for (int64_t j = 0; j < n; ++j) y[j] = std::max(y[j] + pre[j], T(0));
}

// Runs the loop over `rows` (sorted by decreasing length); writes rows' outputs (float32) into
// out[i * out_stride + t] for t < rows[i].length. `batch_index[i]` is row i's place in the
// batch the random streams see.
template <typename T>
void run_rows(const WaveRNNWeights& wt, const Dims& d, const Tensor& specgram, const Tensor& aux,
              const std::vector<RowSpan>& rows, const std::vector<int64_t>& batch_index,
              const WaveRNNInferOptions& opts, float* out, int64_t out_stride) {
  const int64_t N = int64_t(rows.size());
  if (N == 0 || rows[0].length == 0) return;
  const int64_t F = d.n_freq, A = d.n_aux, R = d.n_rnn, Fc = d.n_fc, C = d.n_classes;
  const int64_t steps = rows[0].length, src_time = d.time;
  const int n_bits = int(std::log2(double(C)));
  const int64_t fc_in = 1 + F + A;

  Tensor spec_c = contiguous(specgram), aux_c = contiguous(aux);
  const T* spec = spec_c.data<T>();
  const T* auxp = aux_c.data<T>();
  const int64_t aux_ch = aux_c.size(1);
  auto cw = [](const Tensor& t) { return contiguous(t); };
  Tensor fc_w = cw(wt.fc_weight), fc_b = cw(wt.fc_bias), ih1 = cw(wt.rnn1_weight_ih),
         hh1 = cw(wt.rnn1_weight_hh), bih1 = cw(wt.rnn1_bias_ih), bhh1 = cw(wt.rnn1_bias_hh),
         ih2 = cw(wt.rnn2_weight_ih), hh2 = cw(wt.rnn2_weight_hh), bih2 = cw(wt.rnn2_bias_ih),
         bhh2 = cw(wt.rnn2_bias_hh), fc1_w = cw(wt.fc1_weight), fc1_b = cw(wt.fc1_bias),
         fc2_w = cw(wt.fc2_weight), fc2_b = cw(wt.fc2_bias), fc3_w = cw(wt.fc3_weight),
         fc3_b = cw(wt.fc3_bias);
  const T *Wfc = fc_w.data<T>(), *Bfc = fc_b.data<T>(), *Wih1 = ih1.data<T>(),
          *Whh1 = hh1.data<T>(), *Bih1 = bih1.data<T>(), *Bhh1 = bhh1.data<T>(),
          *Wih2 = ih2.data<T>(), *Whh2 = hh2.data<T>(), *Bih2 = bih2.data<T>(),
          *Bhh2 = bhh2.data<T>(), *W1 = fc1_w.data<T>(), *B1 = fc1_b.data<T>(),
          *W2 = fc2_w.data<T>(), *B2 = fc2_b.data<T>(), *W3 = fc3_w.data<T>(),
          *B3 = fc3_b.data<T>();

  // w0 = fc's column for x; g1w = W_ih1 w0 (how x moves GRU1's input gates).
  std::vector<T> w0(static_cast<size_t>(R)), g1w(static_cast<size_t>(3 * R), T(0));
  for (int64_t r = 0; r < R; ++r) w0[size_t(r)] = Wfc[r * fc_in];
  small_batch_products<T>(Wih1, 3 * R, R, R, w0.data(), 1, R, g1w.data(), 3 * R);

  // Precomputed per (step in block, row): P (fc without x), G1 (GRU1 input gates without x,
  // b_ih1 included), A2/A3/A4 (the a2/a3/a4 products with b_ih2/b_fc1/b_fc2).
  const int64_t per_step = R + 3 * R + 3 * R + Fc + Fc;
  const int64_t block =
      std::clamp<int64_t>((int64_t(1) << 22) / std::max<int64_t>(1, N * per_step), 1, 256);
  std::vector<T> P(static_cast<size_t>(block * N * R)), G1(static_cast<size_t>(block * N * 3 * R)),
      A2(static_cast<size_t>(block * N * 3 * R)), A3(static_cast<size_t>(block * N * Fc)),
      A4(static_cast<size_t>(block * N * Fc));
  auto add_bias = [](T* c, int64_t ldc, int64_t m, const T* bias, int64_t n) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] += bias[j];
  };
  // One row's conditioning for the block, time-major: [m_t (F), a1..a4 (4A)].
  const int64_t cond_w = F + 4 * A;
  std::vector<T> cond(static_cast<size_t>(block * cond_w));
  auto precompute = [&](int64_t t0, int64_t live) {
    for (int64_t i = 0; i < live; ++i) {
      const RowSpan& rs = rows[size_t(i)];
      const int64_t cnt = std::min(block, rs.length - t0);
      const T* m_src = spec + rs.source * F * src_time + rs.start + t0;
      const T* a_src = auxp + rs.source * aux_ch * src_time + rs.start + t0;
      for (int64_t c = 0; c < F; ++c)
        for (int64_t k = 0; k < cnt; ++k) cond[size_t(k * cond_w + c)] = m_src[c * src_time + k];
      for (int64_t c = 0; c < 4 * A; ++c)
        for (int64_t k = 0; k < cnt; ++k)
          cond[size_t(k * cond_w + F + c)] = a_src[c * src_time + k];
      T* p = P.data() + i * R;
      T* g1 = G1.data() + i * 3 * R;
      T* a2 = A2.data() + i * 3 * R;
      T* a3 = A3.data() + i * Fc;
      T* a4 = A4.data() + i * Fc;
      const T* x = cond.data();
      small_batch_products<T>(Wfc + 1, R, F + A, fc_in, x, cnt, cond_w, p, N * R);
      add_bias(p, N * R, cnt, Bfc, R);
      small_batch_products<T>(Wih1, 3 * R, R, R, p, cnt, N * R, g1, N * 3 * R);
      add_bias(g1, N * 3 * R, cnt, Bih1, 3 * R);
      small_batch_products<T>(Wih2 + R, 3 * R, A, R + A, x + F + A, cnt, cond_w, a2, N * 3 * R);
      add_bias(a2, N * 3 * R, cnt, Bih2, 3 * R);
      small_batch_products<T>(W1 + R, Fc, A, R + A, x + F + 2 * A, cnt, cond_w, a3, N * Fc);
      add_bias(a3, N * Fc, cnt, B1, Fc);
      small_batch_products<T>(W2 + Fc, Fc, A, Fc + A, x + F + 3 * A, cnt, cond_w, a4, N * Fc);
      add_bias(a4, N * Fc, cnt, B2, Fc);
    }
  };

  std::vector<T> x(static_cast<size_t>(N), T(0)), h1(static_cast<size_t>(N * R), T(0)),
      h2(static_cast<size_t>(N * R), T(0)), gi1(static_cast<size_t>(N * 3 * R)),
      gh(static_cast<size_t>(N * 3 * R)), x2(static_cast<size_t>(N * R)),
      x3(static_cast<size_t>(N * R)), gi2(static_cast<size_t>(N * 3 * R)),
      y1(static_cast<size_t>(N * Fc)), y2(static_cast<size_t>(N * Fc)),
      logits(static_cast<size_t>(N * C));
  // Rows in the order the random streams see them.
  std::vector<int64_t> stream_order(static_cast<size_t>(N));
  std::iota(stream_order.begin(), stream_order.end(), 0);
  std::sort(stream_order.begin(), stream_order.end(),
            [&](int64_t a, int64_t b) { return batch_index[size_t(a)] < batch_index[size_t(b)]; });
  Sampler sampler(opts, C, steps);

  int64_t live = N;
  for (int64_t t = 0; t < steps; ++t) {
    while (live > 0 && rows[size_t(live - 1)].length <= t) --live;
    const int64_t tb = t % block;
    if (tb == 0) precompute(t, live);
    const T* p_t = P.data() + tb * N * R;
    const T* g1_t = G1.data() + tb * N * 3 * R;
    const T* a2_t = A2.data() + tb * N * 3 * R;
    const T* a3_t = A3.data() + tb * N * Fc;
    const T* a4_t = A4.data() + tb * N * Fc;

    // GRU1: input gates from the precomputed part plus x's share.
    small_batch_products<T>(Whh1, 3 * R, R, R, h1.data(), live, R, gh.data(), 3 * R);
    for (int64_t i = 0; i < live; ++i) {
      T* g = gi1.data() + i * 3 * R;
      const T xi = x[size_t(i)];
      for (int64_t j = 0; j < 3 * R; ++j) g[j] = g1_t[i * 3 * R + j] + g1w[size_t(j)] * xi;
      gru_row(g, gh.data() + i * 3 * R, Bhh1, h1.data() + i * R, R);
      T* x2i = x2.data() + i * R;
      const T* hi = h1.data() + i * R;
      for (int64_t j = 0; j < R; ++j) x2i[j] = (p_t[i * R + j] + w0[size_t(j)] * xi) + hi[j];
    }
    // GRU2 on [x2, a2].
    small_batch_products<T>(Wih2, 3 * R, R, R + A, x2.data(), live, R, gi2.data(), 3 * R);
    small_batch_products<T>(Whh2, 3 * R, R, R, h2.data(), live, R, gh.data(), 3 * R);
    for (int64_t i = 0; i < live; ++i) {
      T* g = gi2.data() + i * 3 * R;
      for (int64_t j = 0; j < 3 * R; ++j) g[j] += a2_t[i * 3 * R + j];
      gru_row(g, gh.data() + i * 3 * R, Bhh2, h2.data() + i * R, R);
      T* x3i = x3.data() + i * R;
      const T *x2i = x2.data() + i * R, *hi = h2.data() + i * R;
      for (int64_t j = 0; j < R; ++j) x3i[j] = x2i[j] + hi[j];
    }
    // The head.
    small_batch_products<T>(W1, Fc, R, R + A, x3.data(), live, R, y1.data(), Fc);
    for (int64_t i = 0; i < live; ++i) add_bias_relu(y1.data() + i * Fc, a3_t + i * Fc, Fc);
    small_batch_products<T>(W2, Fc, Fc, Fc + A, y1.data(), live, Fc, y2.data(), Fc);
    for (int64_t i = 0; i < live; ++i) add_bias_relu(y2.data() + i * Fc, a4_t + i * Fc, Fc);
    small_batch_products<T>(W3, C, Fc, Fc, y2.data(), live, Fc, logits.data(), C);
    for (int64_t i = 0; i < live; ++i) {
      T* l = logits.data() + i * C;
      for (int64_t j = 0; j < C; ++j) l[j] += B3[j];
      softmax_row(l, C);
    }
    // Draws in stream order; rows past their length still advance torch's stream.
    for (int64_t k = 0; k < N; ++k) {
      const int64_t i = stream_order[size_t(k)];
      if (i >= live) {
        sampler.skip_row();
        continue;
      }
      const int64_t label = sampler.draw(logits.data() + i * C, t, batch_index[size_t(i)]);
      const float lin = label_to_linear(label, n_bits);
      x[size_t(i)] = T(lin);
      out[i * out_stride + t] = opts.mulaw ? label_to_mulaw(label, C) : lin;
    }
  }
}

// Fold plan: segment k of an utterance of length L owns [k * target, min(L, (k + 1) * target))
// and starts `overlap` samples before it (k > 0).
std::vector<RowSpan> fold_rows(const std::vector<int64_t>& lengths, int64_t target,
                               int64_t overlap) {
  std::vector<RowSpan> rows;
  for (size_t b = 0; b < lengths.size(); ++b) {
    const int64_t L = lengths[b];
    for (int64_t s = 0; s < L; s += target) {
      const int64_t start = s == 0 ? 0 : s - overlap;
      rows.push_back({int64_t(b), start, std::min(L, s + target) - start});
    }
  }
  return rows;
}

// Weight of a segment's sample at offset j into its overlap with the previous segment: the
// first half warms the recurrent state up (weight 0), the second half ramps up linearly; the
// previous segment gets the rest, so the weights sum to 1.
float fade_in_weight(int64_t j, int64_t overlap) {
  const int64_t silence = overlap / 2, fade = overlap - silence;
  if (j < silence) return 0.0f;
  return float(double(j - silence + 1) / double(fade + 1));
}

}  // namespace

Tensor wavernn_infer(const WaveRNNWeights& weights, const Tensor& specgram, const Tensor& aux,
                     const std::vector<int64_t>& lengths, const WaveRNNInferOptions& options) {
  const Dims d = check_inputs(weights, specgram, aux);
  const int64_t B = specgram.size(0), T_len = d.time;
  TC_CHECK(d.n_classes >= 2 && (d.n_classes & (d.n_classes - 1)) == 0,
           "wavernn_infer: n_classes must be a power of two (torchaudio's n_bits), got ",
           d.n_classes);
  std::vector<int64_t> lens = lengths;
  if (lens.empty()) lens.assign(static_cast<size_t>(B), T_len);
  TC_CHECK(int64_t(lens.size()) == B, "wavernn_infer: lengths has ", lens.size(),
           " entries for a batch of ", B);
  for (int64_t L : lens)
    TC_CHECK(L >= 0 && L <= T_len, "wavernn_infer: lengths must be in [0, ", T_len, "], got ", L);
  const bool fold = options.fold_target > 0;
  TC_CHECK(options.fold_target >= 0, "wavernn_infer: fold_target must be >= 0, got ",
           options.fold_target);
  if (fold)
    TC_CHECK(options.fold_overlap >= 0 && options.fold_overlap <= options.fold_target,
             "wavernn_infer: fold_overlap must be in [0, fold_target = ", options.fold_target,
             "], got ", options.fold_overlap);

  std::vector<RowSpan> rows;
  if (fold) {
    rows = fold_rows(lens, options.fold_target, options.fold_overlap);
  } else {
    for (int64_t b = 0; b < B; ++b) rows.push_back({b, 0, lens[size_t(b)]});
  }
  const int64_t N = int64_t(rows.size());
  // Longest first, so the live rows of a step are a prefix; the streams keep batch order.
  std::vector<int64_t> order(static_cast<size_t>(N));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return rows[size_t(a)].length > rows[size_t(b)].length;
  });
  std::vector<RowSpan> sorted(static_cast<size_t>(N));
  for (int64_t i = 0; i < N; ++i) sorted[size_t(i)] = rows[size_t(order[size_t(i)])];
  const int64_t row_len = N > 0 ? sorted[0].length : 0;

  Tensor out = zeros({B, 1, T_len}, TensorOptions(DType::Float32));
  float* o = out.data<float>();
  if (N == 0 || row_len == 0) return out;
  // Unfolded rows write straight into the output (row i -> utterance order[i]); folded rows go
  // to a scratch buffer first.
  Tensor seg = fold ? zeros({N, row_len}, TensorOptions(DType::Float32)) : Tensor();
  std::vector<float> direct;
  float* dst = nullptr;
  int64_t dst_stride = 0;
  if (fold) {
    dst = seg.data<float>();
    dst_stride = row_len;
  } else {
    direct.assign(static_cast<size_t>(N * T_len), 0.0f);
    dst = direct.data();
    dst_stride = T_len;
  }
  if (specgram.dtype() == DType::Float32)
    run_rows<float>(weights, d, specgram, aux, sorted, order, options, dst, dst_stride);
  else
    run_rows<double>(weights, d, specgram, aux, sorted, order, options, dst, dst_stride);

  if (!fold) {
    for (int64_t i = 0; i < N; ++i) {
      const RowSpan& rs = sorted[size_t(i)];
      std::copy(dst + i * T_len, dst + i * T_len + rs.length, o + rs.source * T_len);
    }
    return out;
  }
  const int64_t ov = options.fold_overlap;
  // Segments of one utterance are consecutive in `rows` and in time order.
  std::vector<int64_t> pos(static_cast<size_t>(N));
  for (int64_t i = 0; i < N; ++i) pos[size_t(order[size_t(i)])] = i;
  for (int64_t r = 0; r < N; ++r) {
    const RowSpan& rs = rows[size_t(r)];
    const float* s = dst + pos[size_t(r)] * dst_stride;
    float* u = o + rs.source * T_len + rs.start;
    const bool first = rs.start == 0;
    for (int64_t j = 0; j < rs.length; ++j) {
      if (!first && j < ov) {
        const float w = fade_in_weight(j, ov);
        u[j] = (1.0f - w) * u[j] + w * s[j];
      } else {
        u[j] = s[j];
      }
    }
  }
  return out;
}

Tensor small_batch_linear(const Tensor& x, const Tensor& weight) {
  TC_CHECK(x.dim() == 2 && weight.dim() == 2, "small_batch_linear: x and weight must be 2-d, got ",
           x.dim(), " and ", weight.dim(), " dims");
  TC_CHECK_TYPE(
      x.dtype() == weight.dtype() && (x.dtype() == DType::Float32 || x.dtype() == DType::Float64),
      "small_batch_linear: x and weight must both be float32 or float64, got ",
      dtype_name(x.dtype()), " and ", dtype_name(weight.dtype()));
  TC_CHECK(x.is_cpu() && weight.is_cpu(), "small_batch_linear: CPU tensors only");
  TC_CHECK(x.size(1) == weight.size(1), "small_batch_linear: x has ", x.size(1),
           " features but weight has ", weight.size(1));
  Tensor xc = contiguous(x), wc = contiguous(weight);
  const int64_t M = x.size(0), R = weight.size(0), K = x.size(1);
  Tensor y = empty({M, R}, TensorOptions(x.dtype()));
  if (x.dtype() == DType::Float32)
    small_batch_products<float>(wc.data<float>(), R, K, K, xc.data<float>(), M, K, y.data<float>(),
                                R);
  else
    small_batch_products<double>(wc.data<double>(), R, K, K, xc.data<double>(), M, K,
                                 y.data<double>(), R);
  return y;
}

}  // namespace tc::models::audio
