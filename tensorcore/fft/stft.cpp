// stft / istft over the FFT ops, plus the framing and overlap-add primitives they share (each is
// the other's adjoint, so gradients and double gradients come for free).
#include <cmath>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/fft/engine.h"
#include "tensorcore/fft/fft.h"
#include "tensorcore/fft/fft_kernels.h"
#include "tensorcore/fft/spectral.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/reduce_util.h"
#include "tensorcore/ops/shape.h"

namespace tc {

namespace fft {
KernelTable<FrameKernel> frame_signal_kernel("frame_signal");
KernelTable<OverlapAddKernel> overlap_add_kernel("overlap_add");
}  // namespace fft

namespace {

template <typename Fn>
void dispatch_fft_dtype(DType d, const char* op, Fn&& fn) {
  switch (d) {
    case DType::Float32:
      fn(float{});
      break;
    case DType::Float64:
      fn(double{});
      break;
    case DType::Complex64:
      fn(complex64{});
      break;
    case DType::Complex128:
      fn(complex128{});
      break;
    default:
      throw TypeError(detail::concat(op, ": unsupported dtype ", dtype_name(d)));
  }
}

Tensor pad_zeros(const Tensor& x, int64_t dim, int64_t left, int64_t right) {
  TensorList parts;
  Shape s = x.sizes();
  auto opts = TensorOptions(x.dtype()).device(x.device());
  if (left > 0) {
    s[dim] = left;
    parts.push_back(zeros(s, opts));
  }
  parts.push_back(x);
  if (right > 0) {
    s[dim] = right;
    parts.push_back(zeros(s, opts));
  }
  return parts.size() == 1 ? x : cat(parts, dim);
}

// Pads the last dim of [B, L] by p on both sides.
Tensor pad_signal(const Tensor& x, int64_t p, const std::string& mode) {
  if (p == 0) return x;
  if (mode == "constant") return pad_zeros(x, 1, p, p);
  const int64_t L = x.size(1);
  if (mode == "reflect") {  // mirrored edges without repeating the edge sample: one copy via cat
    TC_CHECK(p < L, "stft: reflect padding size (", p, ") should be less than the input length (",
             L, "); use a smaller n_fft or pad_mode='constant'");
    return cat({flip(slice(x, 1, 1, p + 1), {1}), x, flip(slice(x, 1, L - 1 - p, L - 1), {1})}, 1);
  }
  Tensor idx = empty({L + 2 * p}, TensorOptions(DType::Int64));
  int64_t* ip = idx.data<int64_t>();
  if (mode == "replicate") {
    for (int64_t i = -p; i < L + p; ++i) ip[i + p] = std::min(std::max<int64_t>(i, 0), L - 1);
  } else if (mode == "circular") {
    TC_CHECK(p <= L, "stft: circular padding size (", p, ") must not exceed the input length (", L,
             ")");
    for (int64_t i = -p; i < L + p; ++i) ip[i + p] = ((i % L) + L) % L;
  } else {
    throw ValueError(
        detail::concat("stft: pad_mode must be 'reflect', 'constant', 'replicate' or "
                       "'circular', got '",
                       mode, "'"));
  }
  return index_select(x, 1, to_device(idx, x.device()));
}

// The window zero-padded (centred) to n_fft; ones(win_length) when absent.
Tensor full_window(const Tensor& window, int64_t n_fft, int64_t win_length, DType real_dtype,
                   Device device, const char* op) {
  Tensor w = window;
  if (!w.defined()) {
    w = ones({win_length}, TensorOptions(real_dtype).device(device));
  } else {
    TC_CHECK(w.dim() == 1 && w.size(0) == win_length, op,
             ": expected a 1D window tensor of size "
             "equal to win_length=",
             win_length, ", but got window with size ", shape_str(w.sizes()));
  }
  const int64_t left = (n_fft - win_length) / 2;
  return pad_zeros(w, 0, left, n_fft - win_length - left);
}

void frame_signal_cpu(const Tensor& out, const Tensor& x, int64_t frame_length, int64_t hop) {
  const int64_t B = x.size(0), L = x.size(1), T = out.size(1);
  dispatch_fft_dtype(x.dtype(), "frame_signal", [&](auto tag) {
    using T_ = decltype(tag);
    const T_* src = static_cast<const T_*>(x.data_ptr());
    T_* dst = static_cast<T_*>(out.data_ptr());
    parallel_for(0, B * T, std::max<int64_t>(1, kGrainSize / frame_length),
                 [&](int64_t i0, int64_t i1) {
                   for (int64_t i = i0; i < i1; ++i) {
                     const T_* s = src + (i / T) * L + (i % T) * hop;
                     std::copy(s, s + frame_length, dst + i * frame_length);
                   }
                 });
  });
}

void overlap_add_cpu(const Tensor& out, const Tensor& f, int64_t hop) {
  const int64_t B = f.size(0), T = f.size(1), n = f.size(2), out_len = out.size(1);
  dispatch_fft_dtype(f.dtype(), "overlap_add", [&](auto tag) {
    using T_ = decltype(tag);
    const T_* src = static_cast<const T_*>(f.data_ptr());
    T_* dst = static_cast<T_*>(out.data_ptr());
    parallel_for(0, B, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, T * n)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t b = b0; b < b1; ++b)
                     for (int64_t t = 0; t < T; ++t) {
                       const T_* s = src + (b * T + t) * n;
                       T_* d = dst + b * out_len + t * hop;
                       for (int64_t j = 0; j < n; ++j) d[j] += s[j];
                     }
                 });
  });
}

TC_REGISTER_KERNEL(fft::frame_signal_kernel, CPU, frame_signal_cpu);
TC_REGISTER_KERNEL(fft::overlap_add_kernel, CPU, overlap_add_cpu);

}  // namespace

Tensor frame_signal(const Tensor& x_in, int64_t frame_length, int64_t hop) {
  TC_CHECK(x_in.dim() == 2, "frame_signal: expected [batch, time], got shape ",
           shape_str(x_in.sizes()));
  TC_CHECK(frame_length > 0 && hop > 0, "frame_signal: frame_length and hop must be positive");
  const int64_t B = x_in.size(0), L = x_in.size(1);
  TC_CHECK(L >= frame_length, "frame_signal: signal of length ", L, " is shorter than a frame (",
           frame_length, ")");
  const int64_t T = 1 + (L - frame_length) / hop;
  Tensor x = contiguous(x_in.detach());
  Tensor out = empty({B, T, frame_length}, TensorOptions(x.dtype()).device(x.device()));
  if (out.numel() > 0) fft::frame_signal_kernel.get(x.device().type)(out, x, frame_length, hop);
  if (autograd::needs_grad({x_in})) {
    autograd::record("FrameSignalBackward0", {x_in}, {out}, {},
                     [L, hop](const TensorList&, const TensorList& g) -> TensorList {
                       Tensor r = overlap_add(g[0], hop);
                       return {pad_zeros(r, 1, 0, L - r.size(1))};
                     });
  }
  return out;
}

Tensor overlap_add(const Tensor& frames_in, int64_t hop) {
  TC_CHECK(frames_in.dim() == 3, "overlap_add: expected [batch, frames, frame_length], got shape ",
           shape_str(frames_in.sizes()));
  TC_CHECK(hop > 0, "overlap_add: hop must be positive");
  const int64_t B = frames_in.size(0), T = frames_in.size(1), n = frames_in.size(2);
  const int64_t out_len = T > 0 ? n + hop * (T - 1) : 0;
  Tensor f = contiguous(frames_in.detach());
  Tensor out = zeros({B, out_len}, TensorOptions(f.dtype()).device(f.device()));
  if (f.numel() > 0) fft::overlap_add_kernel.get(f.device().type)(out, f, hop);
  if (autograd::needs_grad({frames_in})) {
    autograd::record("OverlapAddBackward0", {frames_in}, {out}, {},
                     [n, hop](const TensorList&, const TensorList& g) -> TensorList {
                       return {frame_signal(g[0], n, hop)};
                     });
  }
  return out;
}

Tensor stft(const Tensor& input, int64_t n_fft, std::optional<int64_t> hop_length,
            std::optional<int64_t> win_length, const Tensor& window, bool center,
            const std::string& pad_mode, bool normalized, std::optional<bool> onesided,
            std::optional<bool> return_complex) {
  TC_AUTOCAST("stft", stft, input, n_fft, hop_length, win_length, window, center, pad_mode,
              normalized, onesided, return_complex);
  TC_CHECK(input.defined() && (input.dim() == 1 || input.dim() == 2),
           "stft: expected a 1D or 2D tensor, got ", input.defined() ? input.dim() : 0, "D");
  const bool complex_in = input.is_complex() || (window.defined() && window.is_complex());
  TC_CHECK(return_complex.has_value() || !complex_in,
           "stft requires the return_complex parameter be given for complex inputs or windows");
  const int64_t hop = hop_length.value_or(n_fft / 4);
  const int64_t win = win_length.value_or(n_fft);
  TC_CHECK(n_fft > 0, "stft: expected n_fft > 0, got n_fft=", n_fft);
  TC_CHECK(hop > 0, "stft: expected hop_length > 0, but got hop_length=", hop);
  TC_CHECK(win > 0 && win <= n_fft,
           "stft: expected 0 < win_length <= n_fft, but got win_length=", win);
  Tensor x = input;
  if (!is_floating(x.dtype()) && !x.is_complex()) x = to_dtype(x, get_default_dtype());
  if (x.dim() == 1) x = unsqueeze(x, 0);
  if (center) x = pad_signal(x, n_fft / 2, pad_mode);
  TC_CHECK(n_fft <= x.size(1), "stft: expected 0 < n_fft <= ", x.size(1),
           ", but got n_fft=", n_fft);
  const bool one = onesided.value_or(!complex_in);
  TC_CHECK(!(one && complex_in), "stft: cannot have onesided output if window or input is complex");
  const DType real_dtype = is_complex(x.dtype()) ? to_real(x.dtype()) : x.dtype();
  Tensor w_full = full_window(window, n_fft, win, real_dtype, x.device(), "stft");
  if (one && !autograd::needs_grad({input, window}) && w_full.dtype() == x.dtype() && x.is_cpu()) {
    // Fast path: window and transform each frame straight from the padded signal.
    Tensor xc = contiguous(x.detach());
    Tensor wc = contiguous(w_full.detach());
    const int64_t B = xc.size(0), L = xc.size(1), frames = 1 + (L - n_fft) / hop,
                  bins = n_fft / 2 + 1;
    Tensor spec = empty({B, frames, bins}, TensorOptions(to_complex(x.dtype())).device(x.device()));
    const double scale = normalized ? 1.0 / std::sqrt(double(n_fft)) : 1.0;
    for (int64_t b = 0; b < B; ++b) {
      if (x.dtype() == DType::Float32)
        fft::r2c_frames<float>(xc.data<float>() + b * L, hop, wc.data<float>(),
                               spec.data<complex64>() + b * frames * bins, n_fft, frames,
                               float(scale));
      else
        fft::r2c_frames<double>(xc.data<double>() + b * L, hop, wc.data<double>(),
                                spec.data<complex128>() + b * frames * bins, n_fft, frames, scale);
    }
    Tensor out = transpose(spec, 1, 2);
    if (input.dim() == 1) out = squeeze(out, 0);
    if (!return_complex.value_or(false)) out = view_as_real(contiguous(out));
    return out;
  }
  Tensor frames = frame_signal(x, n_fft, hop);
  if (window.defined() || win < n_fft) frames = mul(frames, w_full);
  const std::optional<std::string> norm = normalized ? "ortho" : "backward";
  Tensor spec = one ? fft::rfft(frames, {}, -1, norm) : fft::fft(frames, {}, -1, norm);
  Tensor out = transpose(spec, 1, 2);
  if (input.dim() == 1) out = squeeze(out, 0);
  if (!return_complex.value_or(false)) out = view_as_real(contiguous(out));
  return out;
}

Tensor istft(const Tensor& input, int64_t n_fft, std::optional<int64_t> hop_length,
             std::optional<int64_t> win_length, const Tensor& window, bool center, bool normalized,
             std::optional<bool> onesided, std::optional<int64_t> length, bool return_complex) {
  TC_CHECK(input.defined(), "istft: expected a tensor");
  Tensor spec = input;
  if (!spec.is_complex()) {
    TC_CHECK_TYPE(spec.dim() >= 1 && spec.size(-1) == 2 && is_floating(spec.dtype()),
                  "istft requires a complex-valued input tensor (or a real one with a trailing dim "
                  "of 2), got ",
                  dtype_name(spec.dtype()), " of shape ", shape_str(spec.sizes()));
    spec = view_as_complex(contiguous(spec));
  }
  TC_CHECK(spec.dim() == 2 || spec.dim() == 3,
           "istft: expected a tensor with 2 or 3 dimensions of "
           "complex dtype, got shape ",
           shape_str(spec.sizes()));
  const bool batched = spec.dim() == 3;
  if (!batched) spec = unsqueeze(spec, 0);
  const int64_t hop = hop_length.value_or(n_fft / 4);
  const int64_t win = win_length.value_or(n_fft);
  TC_CHECK(n_fft > 0, "istft: expected n_fft > 0, got n_fft=", n_fft);
  TC_CHECK(hop > 0 && hop <= win,
           "istft: expected 0 < hop_length <= win_length, got hop_length=", hop);
  TC_CHECK(win > 0 && win <= n_fft,
           "istft: expected 0 < win_length <= n_fft, but got win_length=", win);
  const int64_t F = spec.size(1), T = spec.size(2);
  TC_CHECK(T > 0, "istft: input has no frames");
  const bool one = onesided.value_or(F != n_fft);
  if (one) {
    TC_CHECK(F == n_fft / 2 + 1,
             "istft: expected the frequency dimension (3rd to the last) of the "
             "input tensor to match n_fft / 2 + 1 when onesided=True, but got ",
             F);
  } else {
    TC_CHECK(F == n_fft,
             "istft: expected the frequency dimension (3rd to the last) of the input "
             "tensor to match n_fft when onesided=False, but got ",
             F);
  }
  TC_CHECK(!(one && return_complex), "istft: cannot have onesided input with return_complex=True");
  const std::optional<std::string> norm = normalized ? "ortho" : "backward";
  Tensor frames_spec = transpose(spec, 1, 2);  // [B, T, F]
  Tensor y =
      one ? fft::irfft(frames_spec, n_fft, -1, norm) : fft::ifft(frames_spec, n_fft, -1, norm);
  if (!one && !return_complex) y = real(y);
  Tensor w = full_window(window, n_fft, win, to_real(spec.dtype()), spec.device(), "istft");
  y = mul(y, w);
  Tensor signal = overlap_add(y, hop);
  const int64_t expected = n_fft + hop * (T - 1);
  Tensor envelope;
  {
    autograd::NoGradGuard guard;
    Tensor w2 = mul(w.detach(), w.detach());
    if (w2.is_complex()) w2 = real(mul(w.detach(), conj(w.detach())));
    envelope = overlap_add(expand(reshape(contiguous(w2), {1, 1, n_fft}), {1, T, n_fft}), hop);
  }
  const int64_t start = center ? n_fft / 2 : 0;
  int64_t end = length ? start + *length : (center ? expected - n_fft / 2 : expected);
  const int64_t stop = std::min(end, expected);
  signal = slice(signal, 1, start, stop);
  envelope = slice(envelope, 1, start, stop);
  if (envelope.numel() > 0) {
    double lowest = amin(abs(envelope)).item<double>();
    TC_CHECK(lowest >= 1e-11, "istft: window overlap add min: ", lowest,
             " (the window does not satisfy the NOLA condition for this hop_length)");
  }
  signal = div(signal, envelope);
  if (end > expected) signal = pad_zeros(signal, 1, 0, end - expected);
  if (!batched) signal = squeeze(signal, 0);
  return signal;
}

}  // namespace tc
