// interpolate: every mode torch offers for these ranks is separable, so each spatial dim is
// resampled in turn by one "weighted gather" op: y[.., o, ..] = sum_k w[o, k] * x[.., idx[o, k],
// ..]. The per-dim (idx, w) tables encode nearest / linear / cubic / antialiased filters with
// torch's coordinate conventions. The gather and its adjoint (a weighted scatter) are each other's
// vjp, so gradients of any order work.
#include <cmath>
#include <vector>

#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/core/size_check.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

using Taps = detail::ResampleTaps;
using TapsPtr = std::shared_ptr<const Taps>;

// torch's area_pixel_compute_scale.
double pixel_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  return scale > 0 ? 1.0 / scale : double(in) / double(out);
}

double cubic_weight(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

Taps make_taps(const std::string& mode, int64_t in, int64_t out, bool align_corners,
               double scale_opt, bool antialias) {
  Taps t;
  t.in = in;
  t.out = out;
  double scale = pixel_scale(in, out, align_corners, scale_opt);
  bool cubic = mode == "bicubic";
  if (mode == "nearest" || mode == "nearest-exact") {
    double s = scale_opt > 0 ? 1.0 / scale_opt : double(in) / double(out);
    t.k = 1;
    for (int64_t o = 0; o < out; ++o) {
      double src =
          mode == "nearest" ? std::floor(double(o) * s) : std::floor((double(o) + 0.5) * s);
      t.idx.push_back(std::min<int64_t>(int64_t(src), in - 1));
      t.w.push_back(1.0);
    }
    return t;
  }
  if (antialias && scale > 1.0) {
    // Downsampling with the filter stretched over the input footprint (PIL-style), as torch.
    double interp = cubic ? 4 : 2;
    double support = interp * 0.5 * scale;
    double invscale = 1.0 / scale;
    t.k = int64_t(std::ceil(support)) * 2 + 1;
    t.idx.assign(size_t(out * t.k), 0);
    t.w.assign(size_t(out * t.k), 0.0);
    for (int64_t o = 0; o < out; ++o) {
      double center = scale * (double(o) + 0.5);
      int64_t xmin = std::max<int64_t>(int64_t(center - support + 0.5), 0);
      int64_t xsize = std::min<int64_t>(int64_t(center + support + 0.5), in) - xmin;
      xsize = std::min(xsize, t.k);
      double total = 0;
      for (int64_t j = 0; j < xsize; ++j) {
        double x = (double(j + xmin) - center + 0.5) * invscale;
        double w = cubic ? cubic_weight(x, -0.5) : std::max(0.0, 1.0 - std::abs(x));
        t.idx[size_t(o * t.k + j)] = j + xmin;
        t.w[size_t(o * t.k + j)] = w;
        total += w;
      }
      if (total != 0)
        for (int64_t j = 0; j < xsize; ++j) t.w[size_t(o * t.k + j)] /= total;
    }
    return t;
  }
  if (cubic) {
    t.k = 4;
    for (int64_t o = 0; o < out; ++o) {
      double src = align_corners ? double(o) * scale : (double(o) + 0.5) * scale - 0.5;
      double f = std::floor(src);
      double x = src - f;
      for (int64_t j = 0; j < 4; ++j) {
        int64_t i = std::clamp<int64_t>(int64_t(f) - 1 + j, 0, in - 1);
        t.idx.push_back(i);
        t.w.push_back(cubic_weight(x - double(j - 1), -0.75));
      }
    }
    return t;
  }
  // linear
  t.k = 2;
  for (int64_t o = 0; o < out; ++o) {
    double src = align_corners ? double(o) * scale : std::max(0.0, (double(o) + 0.5) * scale - 0.5);
    int64_t i0 = std::min<int64_t>(int64_t(src), in - 1);
    int64_t i1 = std::min<int64_t>(i0 + 1, in - 1);
    double l = src - double(i0);
    t.idx.push_back(i0);
    t.idx.push_back(i1);
    t.w.push_back(1.0 - l);
    t.w.push_back(l);
  }
  return t;
}

// x viewed as [outer, in, inner] -> [outer, out, inner].
template <typename T>
void gather_kernel(const T* x, T* y, const Taps& t, int64_t outer, int64_t inner) {
  std::vector<T> w(t.w.begin(), t.w.end());
  parallel_for(0, outer,
               std::max<int64_t>(1, kGrainSize / std::max<int64_t>(t.out * t.k * inner, 1)),
               [&](int64_t a0, int64_t a1) {
                 for (int64_t a = a0; a < a1; ++a) {
                   const T* xa = x + a * t.in * inner;
                   T* ya = y + a * t.out * inner;
                   for (int64_t o = 0; o < t.out; ++o) {
                     T* yo = ya + o * inner;
                     std::fill(yo, yo + inner, T(0));
                     for (int64_t k = 0; k < t.k; ++k) {
                       T wk = w[size_t(o * t.k + k)];
                       if (wk == T(0)) continue;
                       const T* xi = xa + t.idx[size_t(o * t.k + k)] * inner;
                       for (int64_t i = 0; i < inner; ++i) yo[i] += wk * xi[i];
                     }
                   }
                 }
               });
}

template <typename T>
void scatter_kernel(const T* gy, T* gx, const Taps& t, int64_t outer, int64_t inner) {
  std::vector<T> w(t.w.begin(), t.w.end());
  parallel_for(0, outer,
               std::max<int64_t>(1, kGrainSize / std::max<int64_t>(t.out * t.k * inner, 1)),
               [&](int64_t a0, int64_t a1) {
                 for (int64_t a = a0; a < a1; ++a) {
                   T* xa = gx + a * t.in * inner;
                   const T* ya = gy + a * t.out * inner;
                   std::fill(xa, xa + t.in * inner, T(0));
                   for (int64_t o = 0; o < t.out; ++o) {
                     const T* yo = ya + o * inner;
                     for (int64_t k = 0; k < t.k; ++k) {
                       T wk = w[size_t(o * t.k + k)];
                       if (wk == T(0)) continue;
                       T* xi = xa + t.idx[size_t(o * t.k + k)] * inner;
                       for (int64_t i = 0; i < inner; ++i) xi[i] += wk * yo[i];
                     }
                   }
                 }
               });
}

Tensor resample_scatter(const Tensor& gy, const TapsPtr& t, int64_t dim);
Tensor resample_gather(const Tensor& x, const TapsPtr& t, int64_t dim);

// Resamples dim `dim` of x with the taps (the CPU kernel; its gradient is resample_scatter).
Tensor resample_gather_cpu(const Tensor& x_in, const TapsPtr& t, int64_t dim) {
  Tensor x = contiguous(x_in);
  Shape out_shape = x.sizes();
  out_shape[size_t(dim)] = t->out;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= x.size(i);
  for (int64_t i = dim + 1; i < x.dim(); ++i) inner *= x.size(i);
  Tensor y = empty(out_shape, TensorOptions(x.dtype()));
  dispatch_dtype<kF32F64>(x.dtype(), "interpolate", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_kernel<T>(x.data<T>(), y.data<T>(), *t, outer, inner);
  });
  if (autograd::needs_grad({x_in})) {
    autograd::record("UpsampleBackward0", {x_in}, {y}, {},
                     [t, dim](const TensorList&, const TensorList& g) -> TensorList {
                       return {resample_scatter(g[0], t, dim)};
                     });
  }
  return y;
}

TC_REGISTER_KERNEL(resample_kernel, CPU, resample_gather_cpu);

Tensor resample_gather(const Tensor& x, const TapsPtr& t, int64_t dim) {
  return resample_kernel.get(x.device().type)(x, t, dim);
}

// The adjoint of resample_gather, on CPU tensors only: a CUDA input's resampling is a
// composition of core ops whose own vjps give its gradient.
Tensor resample_scatter(const Tensor& gy_in, const TapsPtr& t, int64_t dim) {
  Tensor gy = contiguous(gy_in);
  Shape in_shape = gy.sizes();
  in_shape[size_t(dim)] = t->in;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= gy.size(i);
  for (int64_t i = dim + 1; i < gy.dim(); ++i) inner *= gy.size(i);
  Tensor gx = empty(in_shape, TensorOptions(gy.dtype()));
  dispatch_dtype<kF32F64>(gy.dtype(), "interpolate backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_kernel<T>(gy.data<T>(), gx.data<T>(), *t, outer, inner);
  });
  if (autograd::needs_grad({gy_in})) {
    autograd::record("UpsampleBackwardBackward0", {gy_in}, {gx}, {},
                     [t, dim](const TensorList&, const TensorList& g) -> TensorList {
                       return {resample_gather(g[0], t, dim)};
                     });
  }
  return gx;
}

}  // namespace

namespace functional {

Tensor interpolate_to_size(const Tensor& input, const IntList& size, const std::string& mode,
                           bool align_corners, const std::vector<double>& scales, bool antialias) {
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, interpolate_to_size, input, size, mode, align_corners, scales,
                               antialias);
  const char* op = "interpolate";
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  // CUDA inputs (core-op resampling) may also be float16/bfloat16.
  bool reduced_ok =
      input.is_cuda() && (input.dtype() == DType::Float16 || input.dtype() == DType::BFloat16);
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64 || reduced_ok,
                op, ": expected a float32 or float64 input",
                input.is_cuda() ? " (or float16/bfloat16 on CUDA)" : "", ", got ",
                dtype_name(input.dtype()));
  int64_t nd = input.dim() - 2;
  TC_CHECK(nd >= 1 && nd <= 3, op,
           ": expected a 3-d, 4-d or 5-d input (N, C, *spatial), got shape ",
           shape_str(input.sizes()));
  TC_CHECK(int64_t(size.size()) == nd, op, ": output size ", shape_str(size), " must have ", nd,
           " entries for input ", shape_str(input.sizes()));
  TC_CHECK(scales.empty() || int64_t(scales.size()) == nd, op, ": expected ", nd, " scales");
  static const char* modes[] = {"nearest",  "nearest-exact", "linear",
                                "bilinear", "bicubic",       "trilinear"};
  bool known = false;
  for (const char* m : modes) known |= mode == m;
  TC_CHECK(known, op, ": unsupported mode '", mode,
           "' (expected nearest, nearest-exact, linear, bilinear, bicubic, trilinear or area)");
  int64_t want_nd = mode == "linear"                          ? 1
                    : mode == "bilinear" || mode == "bicubic" ? 2
                    : mode == "trilinear"                     ? 3
                                                              : nd;
  TC_CHECK(want_nd == nd, op, ": mode '", mode, "' expects a ", want_nd + 2, "-d input, got shape ",
           shape_str(input.sizes()));
  TC_CHECK(!antialias || mode == "bilinear" || mode == "bicubic", op,
           ": antialias is only supported for bilinear and bicubic modes");
  TC_CHECK(!(align_corners && (mode == "nearest" || mode == "nearest-exact")), op,
           ": align_corners option can only be set with the interpolating modes: linear | bilinear "
           "| bicubic | trilinear");
  for (int64_t i = 0; i < nd; ++i) {
    TC_CHECK(size[size_t(i)] > 0, op, ": output size must be positive, got ", shape_str(size));
    TC_CHECK(input.size(2 + i) > 0, op, ": input ", shape_str(input.sizes()),
             " has an empty spatial dim");
  }
  Shape out_shape = input.sizes();
  for (int64_t i = 0; i < nd; ++i) out_shape[size_t(2 + i)] = size[size_t(i)];
  check_output_fits_in_memory(out_shape, input.dtype(), op);  // before the tap tables
  Tensor y = input;
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t in = input.size(2 + i), out = size[size_t(i)];
    double s = scales.empty() ? -1.0 : scales[size_t(i)];
    if (in == out && (s <= 0 || s == 1.0)) continue;  // every mode maps onto the same grid
    auto taps = std::make_shared<Taps>(make_taps(mode, in, out, align_corners, s, antialias));
    y = resample_gather(y, taps, 2 + i);
  }
  return y.is_same(input) ? clone(input) : y;
}

}  // namespace functional
}  // namespace tc::nn

namespace tc::nn::functional {

Tensor interpolate(const Tensor& x, const IntList& size, const std::vector<double>& scale_factor,
                   const std::string& mode, std::optional<bool> align_corners,
                   bool recompute_scale_factor, bool antialias) {
  const bool linear =
      mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  TC_CHECK(linear || mode == "nearest" || mode == "nearest-exact" || mode == "area",
           "interpolate: unsupported mode '", mode, "'");
  TC_CHECK(linear || !align_corners,
           "interpolate: align_corners option can only be set with the interpolating modes: "
           "linear | bilinear | bicubic | trilinear");
  const int64_t dim = x.dim() - 2;
  TC_CHECK(dim >= 1 && dim <= 3,
           "interpolate: expected a 3-d, 4-d or 5-d input, got input of size ",
           shape_str(x.sizes()));
  TC_CHECK(size.empty() || scale_factor.empty(),
           "interpolate: only one of size or scale_factor should be defined");
  TC_CHECK(!size.empty() || !scale_factor.empty(),
           "interpolate: either size or scale_factor should be defined");
  for (double f : scale_factor)
    TC_CHECK(std::isfinite(f) && f > 0,
             "interpolate: scale_factor must be positive and finite, got ", f);
  TC_CHECK(!recompute_scale_factor || size.empty(),
           "interpolate: recompute_scale_factor is not meaningful with an explicit size");
  IntList out = size;
  std::vector<double> scales;
  if (!size.empty()) {
    if (out.size() == 1) out.assign(size_t(dim), size[0]);
    TC_CHECK(int64_t(out.size()) == dim, "interpolate: size must have ", dim, " entries for a ",
             x.dim(), "-d input, got ", size.size());
  } else {
    scales =
        scale_factor.size() == 1 ? std::vector<double>(size_t(dim), scale_factor[0]) : scale_factor;
    TC_CHECK(int64_t(scales.size()) == dim, "interpolate: scale_factor must have ", dim,
             " entries for a ", x.dim(), "-d input, got ", scale_factor.size());
    for (int64_t i = 0; i < dim; ++i)
      out.push_back(int64_t(std::floor(double(x.size(2 + i)) * scales[size_t(i)])));
    if (recompute_scale_factor || mode == "area") scales.clear();
  }
  TC_CHECK(!antialias || ((mode == "bilinear" || mode == "bicubic") && x.dim() == 4),
           "interpolate: anti-alias is only supported for bilinear and bicubic modes on 4-d input");
  if (mode == "area") {
    if (dim == 1) return adaptive_avg_pool1d(x, out);
    if (dim == 2) return adaptive_avg_pool2d(x, out);
    return adaptive_avg_pool3d(x, out);
  }
  return interpolate_to_size(x, out, mode, align_corners.value_or(false), scales, antialias);
}

}  // namespace tc::nn::functional

namespace tc::nn::functional {

Tensor interpolate_like(const Tensor& input, const Tensor& ref, const std::string& mode,
                        bool align_corners) {
  const int64_t dims = input.dim() - 2;
  TC_CHECK(dims >= 1 && ref.dim() >= dims,
           "interpolate_like: expected a 3-d, 4-d or 5-d input and "
           "a reference with at least ",
           dims, " dims, got shapes ", shape_str(input.sizes()), " and ", shape_str(ref.sizes()));
  IntList size(ref.sizes().end() - dims, ref.sizes().end());
  return interpolate_to_size(input, size, mode, align_corners);
}

}  // namespace tc::nn::functional
