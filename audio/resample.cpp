// Polyphase windowed-sinc resampler. After dividing both rates by their gcd (orig, new), output
// sample i * new + j is a dot product of phase j's filter with the input starting at i * orig.
// Only the taps inside the filter's support (|t| < lowpass_filter_width) are kept: for
// 44.1k -> 16k that is ~34 of torchaudio's 475 taps per phase (the rest are < 1e-30).
// The input is split into its `orig` polyphase components so that 32 consecutive outputs of a
// phase read contiguous memory and vectorize with one broadcast coefficient per tap.
#include "audio/resample.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::audio {
namespace {

constexpr int64_t kBlock = 32;  // outputs per phase computed together (4 AVX registers)

struct Tap {
  int64_t component;  // which polyphase component of the padded input
  int64_t offset;     // index into that component relative to the output index i
  double weight;
};

struct Plan {
  int64_t orig = 1, new_ = 1, width = 0, max_offset = 0;
  std::vector<std::vector<Tap>> phases;  // per output phase j
};

double bessel_i0(double x) {
  // Power series; converges quickly for the arguments used here (|x| <= ~50).
  double sum = 1, term = 1;
  const double q = x * x / 4;
  for (int k = 1; k < 500; ++k) {
    term *= q / (double(k) * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

// Filter taps computed in R with torchaudio's order of operations: it builds the kernel in the
// waveform's dtype, so a float32 waveform gets float32 taps; matching that rounding keeps the
// outputs within ~1e-6 of torchaudio's rather than ~1e-5.
template <typename R>
Plan make_plan(int64_t orig_freq, int64_t new_freq, int64_t lpw, double rolloff, bool kaiser,
               double beta) {
  Plan p;
  const int64_t g = std::gcd(orig_freq, new_freq);
  p.orig = orig_freq / g;
  p.new_ = new_freq / g;
  const double base_d = double(std::min(p.orig, p.new_)) * rolloff;
  p.width = int64_t(std::ceil(double(lpw) * double(p.orig) / base_d));
  const R base = R(base_d), scale = R(base_d / double(p.orig)), pi = R(M_PI), lpw_r = R(lpw);
  // torchaudio keeps beta and i0(beta) as float32 tensors whatever the waveform's dtype.
  const float beta_f = float(beta);
  const R beta_r = R(beta_f);
  const R i0_beta = kaiser ? R(float(bessel_i0(double(beta_f)))) : R(1);
  const int64_t taps = 2 * p.width + p.orig;
  // Every (phase, tap) pair is evaluated below: rates whose reduced ratio is absurd (2 -> 2**31)
  // would run for minutes or exhaust memory, so they are refused up front.
  TC_CHECK(double(p.new_) * double(taps) <= double(int64_t{1} << 31), "resample: orig_freq ",
           orig_freq, " and new_freq ", new_freq, " reduce to ", p.orig, ":", p.new_,
           ", whose polyphase kernel would have ", double(p.new_) * double(taps),
           " taps (at most 2^31 are supported); pick rates with a larger common divisor");
  p.phases.resize(size_t(p.new_));
  for (int64_t j = 0; j < p.new_; ++j) {
    for (int64_t k = 0; k < taps; ++k) {
      const R idx = R(k - p.width) / R(p.orig);
      R t = (R(-j) / R(p.new_) + idx) * base;
      if (!(std::abs(t) < lpw_r)) continue;  // clamped taps are ~1e-33 in torchaudio
      R window;
      if (kaiser) {
        const R r = t / lpw_r;
        window = R(bessel_i0(double(beta_r * std::sqrt(R(1) - r * r)))) / i0_beta;
      } else {
        const R c = std::cos(t * pi / lpw_r / R(2));
        window = c * c;
      }
      const R tp = t * pi;
      const R sinc = tp == R(0) ? R(1) : std::sin(tp) / tp;
      p.phases[size_t(j)].push_back({k % p.orig, k / p.orig, double(sinc * (window * scale))});
      p.max_offset = std::max(p.max_offset, k / p.orig);
    }
  }
  return p;
}

int64_t output_length(const Plan& p, int64_t length) {
  return (p.new_ * length + p.orig - 1) / p.orig;
}

// Computes outputs i in [i_begin, i_end) of every phase for one channel. `x` is the channel,
// `comp` scratch of orig * comp_len values.
template <typename T>
void resample_chunk(const Plan& p, const T* x, int64_t length, T* out, int64_t out_len,
                    int64_t i_begin, int64_t i_end, std::vector<T>& comp, std::vector<T>& block) {
  const int64_t n_i = i_end - i_begin;
  const int64_t n_blocks = (n_i + kBlock - 1) / kBlock;
  const int64_t comp_len = n_blocks * kBlock + p.max_offset + 1;
  comp.assign(size_t(p.orig * comp_len), T(0));
  // comp[r][m] = xpad[(i_begin + m) * orig + r], xpad = width zeros, x, zeros.
  for (int64_t m = 0; m < comp_len; ++m) {
    const int64_t base = (i_begin + m) * p.orig - p.width;
    if (base >= length) break;
    for (int64_t r = 0; r < p.orig; ++r) {
      const int64_t src = base + r;
      if (src >= 0 && src < length) comp[size_t(r * comp_len + m)] = x[src];
    }
  }
  block.resize(size_t(p.new_ * kBlock));
  for (int64_t b = 0; b < n_blocks; ++b) {
    const int64_t m0 = b * kBlock;
    for (int64_t j = 0; j < p.new_; ++j) {
      T* acc = block.data() + j * kBlock;
      const auto& taps = p.phases[size_t(j)];
      if constexpr (std::is_same_v<T, float>) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (const Tap& t : taps) {
          const float* s = comp.data() + t.component * comp_len + m0 + t.offset;
          const __m256 w = _mm256_set1_ps(float(t.weight));
          a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(s), a0);
          a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(s + 8), a1);
          a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(s + 16), a2);
          a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(s + 24), a3);
        }
        _mm256_storeu_ps(acc, a0);
        _mm256_storeu_ps(acc + 8, a1);
        _mm256_storeu_ps(acc + 16, a2);
        _mm256_storeu_ps(acc + 24, a3);
      } else {
        std::fill(acc, acc + kBlock, T(0));
        for (const Tap& t : taps) {
          const T* s = comp.data() + t.component * comp_len + m0 + t.offset;
          const T w = T(t.weight);
          for (int64_t q = 0; q < kBlock; ++q) acc[q] += w * s[q];
        }
      }
    }
    // Interleave phases: output (i, j) lands at i * new + j.
    const int64_t i_first = i_begin + m0;
    const int64_t rows = std::min<int64_t>(kBlock, i_end - i_first);
    for (int64_t q = 0; q < rows; ++q) {
      const int64_t o = (i_first + q) * p.new_;
      const int64_t cols = std::min<int64_t>(p.new_, out_len - o);
      for (int64_t j = 0; j < cols; ++j) out[o + j] = block[size_t(j * kBlock + q)];
    }
  }
}

template <typename T>
void resample_all(const Plan& p, const T* in, int64_t channels, int64_t length, T* out,
                  int64_t out_len) {
  const int64_t n_i = (out_len + p.new_ - 1) / p.new_;
  // Each task covers ~64K input samples of one channel.
  int64_t chunk = std::max<int64_t>(kBlock, (65536 / p.orig) / kBlock * kBlock);
  const int64_t chunks = (n_i + chunk - 1) / chunk;
  parallel_for(0, channels * chunks, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> comp, block;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t c = task / chunks, k = task % chunks;
      const int64_t i_begin = k * chunk, i_end = std::min(n_i, i_begin + chunk);
      resample_chunk(p, in + c * length, length, out + c * out_len, out_len, i_begin, i_end, comp,
                     block);
    }
  });
}

// The adjoint (transpose) of resample_all: scatters each output's gradient back along its taps.
template <typename T>
void resample_adjoint(const Plan& p, const T* g, int64_t channels, int64_t length, T* gx,
                      int64_t out_len) {
  parallel_for(0, channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const T* gc = g + c * out_len;
      T* xc = gx + c * length;
      std::fill(xc, xc + length, T(0));
      for (int64_t o = 0; o < out_len; ++o) {
        const int64_t i = o / p.new_, j = o % p.new_;
        const T go = gc[o];
        for (const Tap& t : p.phases[size_t(j)]) {
          const int64_t src = (i + t.offset) * p.orig + t.component - p.width;
          if (src >= 0 && src < length) xc[src] += T(t.weight) * go;
        }
      }
    }
  });
}

Tensor run(const Plan& p, const Tensor& x2d, int64_t out_len, bool adjoint, int64_t length) {
  // x2d: (channels, in_len) contiguous. Forward: in_len = length. Adjoint: in_len = out_len.
  const int64_t channels = x2d.size(0);
  Tensor out = empty({channels, adjoint ? length : out_len}, TensorOptions(x2d.dtype()));
  if (x2d.dtype() == DType::Float32) {
    if (adjoint)
      resample_adjoint(p, x2d.data<float>(), channels, length, out.data<float>(), out_len);
    else
      resample_all(p, x2d.data<float>(), channels, length, out.data<float>(), out_len);
  } else {
    if (adjoint)
      resample_adjoint(p, x2d.data<double>(), channels, length, out.data<double>(), out_len);
    else
      resample_all(p, x2d.data<double>(), channels, length, out.data<double>(), out_len);
  }
  return out;
}

Tensor apply(std::shared_ptr<const Plan> plan, const Tensor& x, int64_t length, bool adjoint);

// Records forward/adjoint as each other's vjp, so gradients of any order flow.
Tensor apply(std::shared_ptr<const Plan> plan, const Tensor& x, int64_t length, bool adjoint) {
  Shape batch(x.sizes().begin(), x.sizes().end() - 1);
  const int64_t in_len = x.size(-1);
  const int64_t out_len = adjoint ? length : output_length(*plan, length);
  Tensor x2d = contiguous(reshape(x.detach(), {-1, in_len}));
  Tensor y2d = run(*plan, x2d, adjoint ? in_len : out_len, adjoint, length);
  Shape out_shape = batch;
  out_shape.push_back(adjoint ? length : out_len);
  Tensor y = reshape(y2d, out_shape);
  if (autograd::needs_grad({x})) {
    autograd::record(adjoint ? "ResampleAdjointBackward0" : "ResampleBackward0", {x}, {y}, {},
                     [plan, length, adjoint](const TensorList&, const TensorList& g) -> TensorList {
                       return {apply(plan, g[0], length, !adjoint)};
                     });
  }
  return y;
}

}  // namespace

Tensor resample(const Tensor& waveform, int64_t orig_freq, int64_t new_freq,
                int64_t lowpass_filter_width, double rolloff, const std::string& method,
                std::optional<double> beta) {
  const char* op = "resample";
  TC_CHECK(orig_freq > 0 && new_freq > 0, op, ": orig_freq and new_freq must be positive, got ",
           orig_freq, " and ", new_freq);
  TC_CHECK(lowpass_filter_width > 0, op, ": lowpass_filter_width must be positive, got ",
           lowpass_filter_width);
  TC_CHECK(rolloff > 0 && rolloff <= 1, op, ": rolloff must be in (0, 1], got ", rolloff);
  TC_CHECK(method == "sinc_interpolation" || method == "kaiser_window" ||
               method == "sinc_interp_hann" || method == "sinc_interp_kaiser",
           op, ": resampling_method must be 'sinc_interpolation' or 'kaiser_window', got '", method,
           "'");
  TC_CHECK_TYPE(waveform.dtype() == DType::Float32 || waveform.dtype() == DType::Float64, op,
                ": expected a float32 or float64 waveform, got ", dtype_name(waveform.dtype()));
  TC_CHECK(waveform.dim() >= 1, op, ": expected a waveform of shape (..., time), got a 0-d tensor");
  TC_CHECK_AS(NotImplementedError, waveform.is_cpu(), op,
              ": has a CPU kernel only, got a tensor on ", waveform.device().str(),
              " (move it with .cpu())");
  if (orig_freq == new_freq) return waveform;
  const bool kaiser = method == "kaiser_window" || method == "sinc_interp_kaiser";
  const double beta_v = beta.value_or(14.769656459379492);
  auto plan = std::make_shared<const Plan>(
      waveform.dtype() == DType::Float32
          ? make_plan<float>(orig_freq, new_freq, lowpass_filter_width, rolloff, kaiser, beta_v)
          : make_plan<double>(orig_freq, new_freq, lowpass_filter_width, rolloff, kaiser, beta_v));
  return apply(plan, waveform, waveform.size(-1), false);
}

}  // namespace tc::audio
