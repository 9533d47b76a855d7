// One pass from waveform to cepstral features. Per signal: frames are windowed eight at a time
// into a block the FFT transforms together (SIMD across frames), |X|^2 and the filter bank's
// triangles (only their nonzero bins) are applied to the eight frames side by side; the dB (or
// log) step then runs over all energies, and the DCT over blocks of frames.
#include "audio/features.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/fft/engine.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::audio {
namespace {

constexpr int64_t kLanes = 8;  // frames per FFT call: the engine's SIMD runs across them
typedef float V8 __attribute__((vector_size(32)));  // one value of each of the eight frames
static_assert(sizeof(V8) == kLanes * sizeof(float));
inline V8 load(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, V8 v) { std::memcpy(p, &v, sizeof v); }
constexpr int64_t kPad = 272;  // floats between scratch arrays (cache-set aliasing, as fft does)

// A filter bank column's nonzero run: filter f weighs bins [lo, lo + weights.size()).
struct Band {
  int64_t lo = 0;
  std::vector<float> weights;
};

std::vector<Band> bands_of(const Tensor& bank) {
  Tensor fb = contiguous(bank);
  const int64_t bins = fb.size(0), filters = fb.size(1);
  const float* w = fb.data<float>();
  std::vector<Band> bands(static_cast<size_t>(filters));
  for (int64_t f = 0; f < filters; ++f) {
    int64_t lo = 0, hi = 0;
    for (int64_t k = 0; k < bins; ++k)
      if (w[k * filters + f] != 0.0f) {
        if (hi == 0) lo = k;
        hi = k + 1;
      }
    bands[size_t(f)].lo = lo;
    for (int64_t k = lo; k < hi; ++k) bands[size_t(f)].weights.push_back(w[k * filters + f]);
  }
  return bands;
}

// Filter-bank energies of every frame of one signal: out[f * frames + t] = sum_k fb[k, f] *
// |X_t[k]|^2. The real FFT of length n runs as a complex one of length n/2 over eight frames at
// once (even samples real, odd imaginary), split into the spectrum by symmetry as
// fft::RealPlan does, so |X|^2 comes out with the eight frames side by side for the filters.
void filter_energies(const float* x, int64_t length, const CepstralOptions& o, const float* window,
                     const std::vector<float>& tw_re, const std::vector<float>& tw_im,
                     const fft::ComplexPlan<float>& plan, const std::vector<Band>& bands,
                     float* out, int64_t frames) {
  const int64_t n = o.n_fft, h = n / 2, pad = n / 2, hop = o.hop_length;
  // The centred, reflect-padded signal (mirrored without repeating the edge sample).
  std::unique_ptr<float[]> padded(new float[size_t(length + 2 * pad)]);
  float* p = padded.get();
  for (int64_t i = 0; i < pad; ++i) p[i] = x[pad - i];
  std::copy(x, x + length, p + pad);
  for (int64_t i = 0; i < pad; ++i) p[pad + length + i] = x[length - 2 - i];
  parallel_for(0, (frames + kLanes - 1) / kLanes, 1, [&](int64_t b0, int64_t b1) {
    const int64_t arr = h * kLanes + kPad;
    std::unique_ptr<float[]> buf(
        new float[size_t(2 * arr + (h + 1) * kLanes + kPad) + size_t(plan.scratch_size(kLanes))]);
    float* __restrict zr = buf.get();
    float* __restrict zi = zr + arr;
    float* __restrict pw = zi + arr;  // |X[k]|^2 of lane v at k * kLanes + v
    float* scratch = pw + (h + 1) * kLanes + kPad;
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t t0 = blk * kLanes, lanes = std::min(kLanes, frames - t0);
      const float* f[kLanes];
      for (int64_t v = 0; v < kLanes; ++v)  // a short last block repeats its last frame
        f[v] = p + (t0 + std::min(v, lanes - 1)) * hop;
      for (int64_t k = 0; k < h; ++k) {
        const int64_t e = 2 * k, o = 2 * k + 1;
        const V8 re = {f[0][e], f[1][e], f[2][e], f[3][e], f[4][e], f[5][e], f[6][e], f[7][e]};
        const V8 im = {f[0][o], f[1][o], f[2][o], f[3][o], f[4][o], f[5][o], f[6][o], f[7][o]};
        store(zr + k * kLanes, re * window[e]);
        store(zi + k * kLanes, im * window[o]);
      }
      plan.execute(zr, zi, scratch, kLanes);
      {
        const V8 r0 = load(zr), i0 = load(zi);
        const V8 dc = r0 + i0, nyquist = r0 - i0;  // from Z[0] alone
        store(pw, dc * dc);
        store(pw + h * kLanes, nyquist * nyquist);
      }
      for (int64_t k = 1; k < h; ++k) {
        const float wr = tw_re[size_t(k)], wi = tw_im[size_t(k)];
        const V8 ar = load(zr + k * kLanes), ai = load(zi + k * kLanes);
        const V8 br = load(zr + (h - k) * kLanes), bi = -load(zi + (h - k) * kLanes);
        const V8 er = ar + br, ei = ai + bi;  // 2E
        const V8 dr = ar - br, di = ai - bi;  // 2i*O
        const V8 re = 0.5f * (er + wr * di + wi * dr);
        const V8 im = 0.5f * (ei - wr * dr + wi * di);
        store(pw + k * kLanes, re * re + im * im);
      }
      for (size_t b = 0; b < bands.size(); ++b) {
        V8 acc = {};
        const float* wts = bands[b].weights.data();
        const float* src = pw + bands[b].lo * kLanes;
        for (size_t j = 0; j < bands[b].weights.size(); ++j)
          acc += wts[j] * load(src + int64_t(j) * kLanes);
        float* dst = out + int64_t(b) * frames + t0;
        if (lanes == kLanes) {
          store(dst, acc);
        } else {
          for (int64_t v = 0; v < lanes; ++v) dst[v] = acc[v];
        }
      }
    }
  });
}

}  // namespace

bool cepstral_features_apply(const Tensor& w, const CepstralOptions& o) {
  return w.defined() && w.is_cpu() && w.dtype() == DType::Float32 && w.dim() >= 1 &&
         w.numel() > 0 && !autograd::needs_grad({w}) && o.n_fft >= 2 && o.n_fft % 2 == 0 &&
         o.hop_length > 0 && w.size(-1) > o.n_fft / 2 && o.window.defined() && o.window.is_cpu() &&
         o.window.dim() == 1 && o.window.size(0) == o.n_fft && o.filterbank.defined() &&
         o.filterbank.is_cpu() && o.filterbank.dim() == 2 &&
         o.filterbank.size(0) == o.n_fft / 2 + 1 && o.dct.defined() && o.dct.is_cpu() &&
         o.dct.dim() == 2 && o.dct.size(0) == o.filterbank.size(1);
}

Tensor cepstral_features(const Tensor& waveform, const CepstralOptions& o) {
  TC_CHECK(cepstral_features_apply(waveform, o),
           "cepstral_features: expected a float32 CPU waveform (..., time) longer than n_fft / 2, "
           "an even n_fft and a window [n_fft], filter bank [n_fft / 2 + 1, n] and DCT matrix "
           "[n, m], got a waveform of shape ",
           shape_str(waveform.sizes()), " and n_fft ", o.n_fft);
  const Shape shape = waveform.sizes();
  const int64_t length = shape.back(), rows = waveform.numel() / length;
  const int64_t n = o.n_fft, h = n / 2;
  const int64_t frames = 1 + (length + 2 * (n / 2) - n) / o.hop_length;
  Tensor x = contiguous(waveform.detach());
  Tensor window = contiguous(to_dtype(o.window.detach(), DType::Float32));
  const std::vector<Band> bands = bands_of(to_dtype(o.filterbank.detach(), DType::Float32));
  const int64_t filters = int64_t(bands.size());
  std::vector<float> tw_re(size_t(h + 1)), tw_im(size_t(h + 1));  // e^{-2 pi i k / n}
  for (int64_t k = 0; k <= h; ++k) {
    const double a = 2.0 * M_PI * double(k) / double(n);
    tw_re[size_t(k)] = float(std::cos(a));
    tw_im[size_t(k)] = float(-std::sin(a));
  }
  auto plan = fft::complex_plan<float>(h);
  Tensor energies = empty({rows, filters, frames}, TensorOptions(DType::Float32));
  for (int64_t r = 0; r < rows; ++r)
    filter_energies(x.data<float>() + r * length, length, o, window.data<float>(), tw_re, tw_im,
                    *plan, bands, energies.data<float>() + r * filters * frames, frames);
  Tensor db;
  if (o.use_log) {
    db = log(add(energies, Scalar(o.log_offset)));
  } else {
    db = mul(log10(clamp(energies, Scalar(o.amin), std::nullopt)), Scalar(o.multiplier));
    db = sub(db, Scalar(o.multiplier * o.db_multiplier));
    if (o.top_db) {
      // AmplitudeToDB's floor is per spectrogram over its last three dims: the signals of one
      // (..., channel) group share it; a single (time) signal is one group.
      const int64_t per_group = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
      Tensor grouped = reshape(db, {rows / per_group, per_group * filters * frames});
      Tensor floor = unsqueeze(sub(amax(grouped, {1}), Scalar(*o.top_db)), 1);
      db = reshape(maximum(grouped, floor), {rows, filters, frames});
    }
  }
  // out[r, c, t] = sum_f dct[f, c] * db[r, f, t], frames side by side in blocks that stay in
  // cache. Not a BLAS call: OpenBLAS would start its own threads inside DataLoader workers that
  // were told to use one.
  db = contiguous(db);
  Tensor dct = contiguous(to_dtype(o.dct.detach(), DType::Float32));
  const int64_t coeffs = dct.size(1);
  Tensor out = empty({rows, coeffs, frames}, TensorOptions(DType::Float32));
  constexpr int64_t kBlock = 8 * kLanes;  // frames per block: eight vectors of sums in registers
  const int64_t blocks = (frames + kBlock - 1) / kBlock;
  const float* dp = dct.data<float>();
  const float* db_p = db.data<float>();
  float* out_p = out.data<float>();
  parallel_for(0, rows * blocks, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t r = i / blocks, t0 = (i % blocks) * kBlock, len = std::min(kBlock, frames - t0);
      const float* src = db_p + r * filters * frames + t0;
      float* dst = out_p + r * coeffs * frames + t0;
      for (int64_t c = 0; c < coeffs; ++c) {
        if (len == kBlock) {
          V8 acc[8] = {};
          for (int64_t f = 0; f < filters; ++f) {
            const float w = dp[f * coeffs + c];
            const float* row = src + f * frames;
            for (int j = 0; j < 8; ++j) acc[j] += w * load(row + j * kLanes);
          }
          for (int j = 0; j < 8; ++j) store(dst + c * frames + j * kLanes, acc[j]);
        } else {
          float acc[kBlock] = {};
          for (int64_t f = 0; f < filters; ++f) {
            const float w = dp[f * coeffs + c];
            const float* row = src + f * frames;
            for (int64_t t = 0; t < len; ++t) acc[t] += w * row[t];
          }
          std::copy(acc, acc + len, dst + c * frames);
        }
      }
    }
  });
  Shape out_shape(shape.begin(), shape.end() - 1);
  out_shape.push_back(coeffs);
  out_shape.push_back(frames);
  return reshape(out, out_shape);
}

}  // namespace tc::audio
