// Separable resampling. Each output row/column is a weighted sum over a contiguous window of
// input rows/columns; the windows and weights are computed once per axis. The vertical pass runs
// first (its inner loop runs along contiguous rows and vectorizes), then the horizontal pass.
// uint8 with antialias uses Pillow-SIMD's fixed-point scheme (16-bit weights, AVX2 multiply-adds,
// uint8 intermediate; resize_u8.*), so it never leaves 8-bit data; the other uint8 modes compute
// in float and round like torchvision.
// No FMA contraction: the interpolating (non-antialias) modes then round exactly like ATen's.
// CUDA images: the same host-computed windows and weights are uploaded and applied by the passes
// in vision/cuda/resize_cuda.cu, in the same order, so the results match the CPU's.
#include "vision/transforms/no_fp_contract.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/core/size_check.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/resize_u8.h"

namespace tc::vision::kernels {
namespace {

// Output i reads input [start[i], start[i] + ksize) with weights w[i * ksize + k].
struct AxisWeights {
  int64_t ksize = 0;
  std::vector<int64_t> start;
  std::vector<double> w;
};

double triangle(double x) {
  x = std::abs(x);
  return x < 1 ? 1 - x : 0;
}

double cubic(double x, double a) {
  x = std::abs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Pillow / ATen antialiased weights: the filter support grows with the downscale factor.
AxisWeights antialias_weights(int64_t in, int64_t out, Interpolation mode) {
  const double scale = double(in) / double(out);
  const double base = mode == Interpolation::Bicubic ? 2.0 : 1.0;
  const double fscale = std::max(scale, 1.0);
  const double support = base * fscale;
  AxisWeights a;
  a.ksize = int64_t(std::ceil(support)) * 2 + 1;
  a.start.resize(out);
  a.w.assign(size_t(out * a.ksize), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    double center = scale * (double(i) + 0.5);
    int64_t lo = std::max<int64_t>(int64_t(center - support + 0.5), 0);
    int64_t hi = std::min<int64_t>(int64_t(center + support + 0.5), in);
    int64_t n = std::min(hi - lo, a.ksize);
    double* w = &a.w[size_t(i * a.ksize)];
    double total = 0;
    for (int64_t k = 0; k < n; ++k) {
      double x = (double(k + lo) - center + 0.5) / fscale;
      w[k] = mode == Interpolation::Bicubic ? cubic(x, -0.5) : triangle(x);
      total += w[k];
    }
    if (total != 0)
      for (int64_t k = 0; k < n; ++k) w[k] /= total;
    a.start[i] = lo;
  }
  return a;
}

// ATen's interpolate(align_corners=False) weights: fixed 2 or 4 taps with clamped indices. As in
// ATen, the scale is a float and the source coordinate is computed from it in double.
AxisWeights interp_weights(int64_t in, int64_t out, Interpolation mode) {
  const double scale = double(float(in) / float(out));
  AxisWeights a;
  a.ksize = mode == Interpolation::Bicubic ? 4 : 2;
  a.start.resize(out);
  a.w.assign(size_t(out * a.ksize), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    double* w = &a.w[size_t(i * a.ksize)];
    double src = scale * (double(i) + 0.5) - 0.5;
    if (mode == Interpolation::Bilinear) {
      src = std::max(src, 0.0);
      int64_t i0 = int64_t(src);
      float l1 = float(src - double(i0));
      a.start[i] = std::min(i0, in - 1);
      if (i0 < in - 1) {
        w[0] = 1.0f - l1, w[1] = l1;
      } else {
        w[0] = 1.0;
      }
    } else {
      int64_t i0 = int64_t(std::floor(src));
      double t = src - double(i0);
      double tw[4] = {cubic(t + 1, -0.75), cubic(t, -0.75), cubic(1 - t, -0.75),
                      cubic(2 - t, -0.75)};
      int64_t first = std::clamp<int64_t>(i0 - 1, 0, in - 1);
      a.start[i] = first;
      for (int k = 0; k < 4; ++k) w[std::clamp<int64_t>(i0 - 1 + k, 0, in - 1) - first] += tw[k];
    }
  }
  return a;
}

AxisWeights axis_weights(int64_t in, int64_t out, Interpolation mode, bool antialias) {
  return antialias ? antialias_weights(in, out, mode) : interp_weights(in, out, mode);
}

// Windows never run past the input: shift the last ones back (their weights shift too).
void fit_windows(AxisWeights& a, int64_t in) {
  for (size_t i = 0; i < a.start.size(); ++i) {
    int64_t over = a.start[i] + a.ksize - in;
    if (over <= 0) continue;
    double* w = &a.w[i * size_t(a.ksize)];
    int64_t shift = std::min(over, a.start[i]);
    if (shift > 0) {
      for (int64_t k = a.ksize - 1; k >= shift; --k) w[k] = w[k - shift];
      for (int64_t k = 0; k < shift; ++k) w[k] = 0;
      a.start[i] -= shift;
    }
  }
}

// What both devices' separable passes need: each axis' weights (windows fitted to the input) and
// the pass order. Bicubic overshoots, so the uint8 intermediate clips; Pillow runs the horizontal
// pass first and we follow it there. ATen's interpolation (no antialias) also goes horizontal
// first, so with the same order its float results are reproduced. Otherwise the vertical pass
// goes first (it vectorizes; it is cheaper first when the image shrinks).
struct SeparablePlan {
  AxisWeights ah, aw;
  bool horizontal_first;
};

SeparablePlan separable_plan(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                             Interpolation mode, bool antialias) {
  SeparablePlan plan{axis_weights(in_h, out_h, mode, antialias),
                     axis_weights(in_w, out_w, mode, antialias),
                     mode == Interpolation::Bicubic || !antialias};
  fit_windows(plan.ah, in_h);
  fit_windows(plan.aw, in_w);
  return plan;
}

constexpr int kCudaPrecisionBits = 22;  // the CUDA passes' fixed shift (resize_cuda.cu)

detail::FixedAxis16 fixed_axis(const AxisWeights& a) {
  return detail::fixed_axis16(a.start, a.w, a.ksize);
}

// The uint8 intermediate between the passes, kept per thread: a fresh 1-2 MB buffer per call
// costs page faults and zeroing comparable to a pass (~0.3 ms for 1080p -> 224). Buffers above
// 64 MB are not kept.
uint8_t* scratch_u8(size_t n, std::unique_ptr<uint8_t[]>& owned) {
  constexpr size_t kKeep = size_t(64) << 20;
  thread_local std::unique_ptr<uint8_t[]> kept;
  thread_local size_t kept_size = 0;
  if (n > kKeep) {
    owned.reset(new uint8_t[n]);
    return owned.get();
  }
  if (kept_size < n) {
    kept.reset(new uint8_t[n]);
    kept_size = n;
  }
  return kept.get();
}

// uint8 antialias: the separable passes in 16-bit fixed point.
void separable_u8(const uint8_t* src, int64_t planes, int64_t in_h, int64_t in_w, uint8_t* dst,
                  int64_t out_h, int64_t out_w, const AxisWeights& ah, const AxisWeights& aw,
                  bool horizontal_first) {
  const detail::FixedAxis16 fh = fixed_axis(ah), fw = fixed_axis(aw);
  const bool do_v = in_h != out_h, do_h = in_w != out_w;
  if (do_v && do_h && horizontal_first) {
    std::unique_ptr<uint8_t[]> owned;
    uint8_t* tmp = scratch_u8(size_t(planes * in_h * out_w), owned);
    detail::horizontal_u8(src, planes * in_h, in_w, tmp, out_w, fw);
    detail::vertical_u8(tmp, planes, in_h, out_w, dst, out_h, fh);
  } else if (do_v && do_h) {
    std::unique_ptr<uint8_t[]> owned;
    uint8_t* tmp = scratch_u8(size_t(planes * out_h * in_w), owned);
    detail::vertical_u8(src, planes, in_h, in_w, tmp, out_h, fh);
    detail::horizontal_u8(tmp, planes * out_h, in_w, dst, out_w, fw);
  } else if (do_v) {
    detail::vertical_u8(src, planes, in_h, in_w, dst, out_h, fh);
  } else if (do_h) {
    detail::horizontal_u8(src, planes * in_h, in_w, dst, out_w, fw);
  } else {
    std::copy(src, src + planes * in_h * in_w, dst);
  }
}

// Rows of work per task: enough to amortize, small enough to balance.
int64_t row_grain(int64_t row_cost) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_cost));
}

template <typename T, typename W>
void vertical_pass(const T* src, int64_t planes, int64_t in_h, int64_t width, T* dst, int64_t out_h,
                   const AxisWeights& a, const std::vector<W>& wts) {
  const int64_t ks = std::min(a.ksize, in_h);
  parallel_for(0, planes * out_h, row_grain(width * ks), [&](int64_t r0, int64_t r1) {
    std::vector<W> acc(static_cast<size_t>(width));
    for (int64_t r = r0; r < r1; ++r) {
      int64_t p = r / out_h, y = r % out_h;
      const T* base = src + (p * in_h + a.start[y]) * width;
      const W* w = &wts[size_t(y * a.ksize)];
      W* ac = acc.data();
      std::fill(acc.begin(), acc.end(), W(0));
      for (int64_t k = 0; k < ks; ++k) {
        const W wk = w[k];
        if (wk == 0) continue;
        const T* row = base + k * width;
        for (int64_t x = 0; x < width; ++x) ac[x] += wk * W(row[x]);
      }
      T* out = dst + (p * out_h + y) * width;
      for (int64_t x = 0; x < width; ++x) out[x] = T(ac[x]);
    }
  });
}

template <typename T, typename W>
void horizontal_pass(const T* src, int64_t rows, int64_t in_w, T* dst, int64_t out_w,
                     const AxisWeights& a, const std::vector<W>& wts) {
  const int64_t ks = std::min(a.ksize, in_w);
  parallel_for(0, rows, row_grain(out_w * ks), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* row = src + r * in_w;
      T* out = dst + r * out_w;
      for (int64_t x = 0; x < out_w; ++x) {
        const T* in = row + a.start[x];
        const W* w = &wts[size_t(x * a.ksize)];
        W acc = 0;
        for (int64_t k = 0; k < ks; ++k) acc += w[k] * W(in[k]);
        out[x] = T(acc);
      }
    }
  });
}

template <typename T, typename W>
void separable(const T* src, int64_t planes, int64_t in_h, int64_t in_w, T* dst, int64_t out_h,
               int64_t out_w, const AxisWeights& ah, const AxisWeights& aw,
               const std::vector<W>& wh, const std::vector<W>& ww, bool horizontal_first) {
  bool do_v = in_h != out_h, do_h = in_w != out_w;
  if (do_v && do_h && horizontal_first) {
    std::vector<T> tmp(size_t(planes * in_h * out_w));
    horizontal_pass<T, W>(src, planes * in_h, in_w, tmp.data(), out_w, aw, ww);
    vertical_pass<T, W>(tmp.data(), planes, in_h, out_w, dst, out_h, ah, wh);
  } else if (do_v && do_h) {
    std::vector<T> tmp(size_t(planes * out_h * in_w));
    vertical_pass<T, W>(src, planes, in_h, in_w, tmp.data(), out_h, ah, wh);
    horizontal_pass<T, W>(tmp.data(), planes * out_h, in_w, dst, out_w, aw, ww);
  } else if (do_v) {
    vertical_pass<T, W>(src, planes, in_h, in_w, dst, out_h, ah, wh);
  } else if (do_h) {
    horizontal_pass<T, W>(src, planes * in_h, in_w, dst, out_w, aw, ww);
  } else {
    std::copy(src, src + planes * in_h * in_w, dst);
  }
}

template <typename T>
std::vector<T> cast_weights(const std::vector<double>& w) {
  return std::vector<T>(w.begin(), w.end());
}

// torchvision's nearest: src = min(floor(i * (in / out)), in - 1) computed in float.
std::vector<int64_t> nearest_index(int64_t in, int64_t out) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  float scale = float(in) / float(out);
  for (int64_t i = 0; i < out; ++i)
    idx[size_t(i)] = std::min<int64_t>(int64_t(std::floor(float(i) * scale)), in - 1);
  return idx;
}

template <typename T>
void nearest(const T* src, int64_t planes, int64_t in_h, int64_t in_w, T* dst, int64_t out_h,
             int64_t out_w) {
  auto iy = nearest_index(in_h, out_h), ix = nearest_index(in_w, out_w);
  parallel_for(0, planes * out_h, row_grain(out_w), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t p = r / out_h, y = r % out_h;
      const T* row = src + (p * in_h + iy[y]) * in_w;
      T* out = dst + r * out_w;
      for (int64_t x = 0; x < out_w; ++x) out[x] = row[ix[x]];
    }
  });
}

// ---- CUDA: host-computed windows and weights, device passes ----

template <typename V>
Tensor upload(const std::vector<V>& v, DType dt, Device device) {
  Tensor t = empty({int64_t(v.size())}, TensorOptions(dt));
  std::copy(v.begin(), v.end(), t.data<V>());
  return to_device(t, device);
}

template <typename W>
ResizeAxis device_axis(const AxisWeights& a, const std::vector<W>& w, DType wdt, Device device) {
  return {upload(a.start, DType::Int64, device), upload(w, wdt, device), a.ksize};
}

// The CPU's `separable` with the passes on the device.
[[maybe_unused]] Tensor separable_cuda(const Tensor& src, int64_t planes, int64_t in_h,
                                       int64_t in_w, int64_t out_h, int64_t out_w,
                                       const ResizeAxis& ah, const ResizeAxis& aw,
                                       bool horizontal_first, const Shape& out_shape) {
  const Device device = src.device();
  const TensorOptions opts = TensorOptions(src.dtype()).device(device);
  const bool do_v = in_h != out_h, do_h = in_w != out_w;
  if (!do_v && !do_h) return clone(src);
  Tensor dst = empty(out_shape, opts);
  if (do_v && do_h && horizontal_first) {
    Tensor tmp = empty({planes * in_h * out_w}, opts);
    resize_horizontal_kernel.get(device.type)(src, planes * in_h, in_w, tmp, out_w, aw);
    resize_vertical_kernel.get(device.type)(tmp, planes, in_h, out_w, dst, out_h, ah);
  } else if (do_v && do_h) {
    Tensor tmp = empty({planes * out_h * in_w}, opts);
    resize_vertical_kernel.get(device.type)(src, planes, in_h, in_w, tmp, out_h, ah);
    resize_horizontal_kernel.get(device.type)(tmp, planes * out_h, in_w, dst, out_w, aw);
  } else if (do_v) {
    resize_vertical_kernel.get(device.type)(src, planes, in_h, in_w, dst, out_h, ah);
  } else {
    resize_horizontal_kernel.get(device.type)(src, planes * in_h, in_w, dst, out_w, aw);
  }
  return dst;
}

// resize's CUDA kernel. src: contiguous CUDA image; the CPU path's modes, weights, pass order
// and rounding.
[[maybe_unused]] Tensor resize_cuda(const Tensor& src, int64_t planes, int64_t out_h, int64_t out_w,
                                    Interpolation mode, bool antialias, const Shape& out_shape) {
  const Device device = src.device();
  const DType dt = src.dtype();
  const int64_t in_h = src.size(-2), in_w = src.size(-1);
  if (mode == Interpolation::Nearest) {
    Tensor out = empty(out_shape, TensorOptions(dt).device(device));
    resize_nearest_kernel.get(device.type)(
        src, planes, in_h, in_w, out, out_h, out_w,
        upload(nearest_index(in_h, out_h), DType::Int64, device),
        upload(nearest_index(in_w, out_w), DType::Int64, device));
    return out;
  }
  const auto [ah, aw, horizontal_first] = separable_plan(in_h, in_w, out_h, out_w, mode, antialias);
  if (dt == DType::UInt8 && antialias) {
    // The CPU's 16-bit weights, widened to the CUDA passes' fixed 22-bit shift: same bytes.
    return separable_cuda(
        src, planes, in_h, in_w, out_h, out_w,
        device_axis(ah, detail::widened_weights(fixed_axis(ah), kCudaPrecisionBits), DType::Int32,
                    device),
        device_axis(aw, detail::widened_weights(fixed_axis(aw), kCudaPrecisionBits), DType::Int32,
                    device),
        horizontal_first, out_shape);
  }
  if (dt == DType::Float64)
    return separable_cuda(
        src, planes, in_h, in_w, out_h, out_w, device_axis(ah, ah.w, DType::Float64, device),
        device_axis(aw, aw.w, DType::Float64, device), horizontal_first, out_shape);
  Tensor fsrc = dt == DType::Float32 ? src : to_dtype(src, DType::Float32);
  Tensor fout = separable_cuda(fsrc, planes, in_h, in_w, out_h, out_w,
                               device_axis(ah, cast_weights<float>(ah.w), DType::Float32, device),
                               device_axis(aw, cast_weights<float>(aw.w), DType::Float32, device),
                               horizontal_first, out_shape);
  if (dt == DType::Float32) return fout;
  Tensor out = empty(out_shape, TensorOptions(DType::UInt8).device(device));
  round_to_uint8_kernel.get(device.type)(fout, out);
  return out;
}

}  // namespace

Tensor resize(const Tensor& img, int64_t out_h, int64_t out_w, Interpolation mode, bool antialias) {
  TC_CHECK(img.dim() >= 2, "resize: expected an image (..., H, W), got shape ",
           shape_str(img.sizes()));
  TC_CHECK(out_h > 0 && out_w > 0, "resize: output size must be positive, got (", out_h, ", ",
           out_w, ")");
  DType dt = img.dtype();
  TC_CHECK_TYPE(dt == DType::UInt8 || dt == DType::Float32 || dt == DType::Float64,
                "resize: expected a uint8, float32 or float64 image, got ", dtype_name(dt));
  const int64_t in_h = img.size(-2), in_w = img.size(-1);
  TC_CHECK(in_h > 0 && in_w > 0, "resize: input image is empty (", in_h, "x", in_w, ")");
  Shape out_shape = img.sizes();
  out_shape[out_shape.size() - 2] = out_h;
  out_shape[out_shape.size() - 1] = out_w;
  check_output_fits_in_memory(out_shape, dt, "resize");  // before the weight tables
  Tensor src = contiguous(img);
  const int64_t planes = in_h * in_w == 0 ? 0 : src.numel() / (in_h * in_w);
  return resize_kernel.get(src.device().type)(src, planes, out_h, out_w, mode, antialias,
                                              out_shape);
}

namespace {

// resize's CPU kernel.
Tensor resize_cpu(const Tensor& src, int64_t planes, int64_t out_h, int64_t out_w,
                  Interpolation mode, bool antialias, const Shape& out_shape) {
  const DType dt = src.dtype();
  const int64_t in_h = src.size(-2), in_w = src.size(-1);
  if (mode == Interpolation::Nearest) {
    Tensor out = empty(out_shape, TensorOptions(dt));
    dispatch_dtype<(1u << int(DType::UInt8)) | (1u << int(DType::Float32)) |
                   (1u << int(DType::Float64))>(dt, "resize", [&](auto tag) {
      using T = typename decltype(tag)::type;
      nearest<T>(src.data<T>(), planes, in_h, in_w, out.data<T>(), out_h, out_w);
    });
    return out;
  }
  const auto [ah, aw, horizontal_first] = separable_plan(in_h, in_w, out_h, out_w, mode, antialias);
  if (dt == DType::UInt8 && antialias) {
    Tensor out = empty(out_shape, TensorOptions(dt));
    separable_u8(src.data<uint8_t>(), planes, in_h, in_w, out.data<uint8_t>(), out_h, out_w, ah, aw,
                 horizontal_first);
    return out;
  }
  if (dt == DType::Float64) {
    Tensor out = empty(out_shape, TensorOptions(dt));
    separable<double, double>(src.data<double>(), planes, in_h, in_w, out.data<double>(), out_h,
                              out_w, ah, aw, ah.w, aw.w, horizontal_first);
    return out;
  }
  Tensor fsrc = dt == DType::Float32 ? src : to_dtype(src, DType::Float32);
  Tensor fout = empty(out_shape, TensorOptions(DType::Float32));
  separable<float, float>(fsrc.data<float>(), planes, in_h, in_w, fout.data<float>(), out_h, out_w,
                          ah, aw, cast_weights<float>(ah.w), cast_weights<float>(aw.w),
                          horizontal_first);
  if (dt == DType::Float32) return fout;
  // uint8 through float: round half to even and saturate, like torchvision.
  Tensor out = empty(out_shape, TensorOptions(DType::UInt8));
  const float* f = fout.data<float>();
  uint8_t* o = out.data<uint8_t>();
  parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = uint8_t(std::clamp(std::nearbyint(f[i]), 0.0f, 255.0f));
  });
  return out;
}

TC_REGISTER_KERNEL(resize_kernel, CPU, resize_cpu);
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(resize_kernel, CUDA, resize_cuda);
#endif

}  // namespace

}  // namespace tc::vision::kernels
