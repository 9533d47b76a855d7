// Pooling over 1-d and 2-d windows (1-d runs as 2-d with height 1). Forward kernels are direct
// loops parallel over (N*C) planes. Max-pool gradients route through the saved indices with the
// core's scatter_add/gather (so double backward works); average pooling's forward and backward
// kernels are each other's adjoints, so each is the other's vjp.
#include <cmath>
#include <limits>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// Window bounds per output position along one dim. Regular pooling: start = o*s - p; adaptive:
// [floor(o*in/out), ceil((o+1)*in/out)).
struct Axis {
  int64_t in = 1, out = 1, k = 1, s = 1, p = 0, d = 1;
  bool adaptive = false;
  int64_t start(int64_t o) const { return adaptive ? (o * in) / out : o * s - p; }
  int64_t end_adaptive(int64_t o) const { return ((o + 1) * in + out - 1) / out; }
};

struct Pool2d {
  int64_t planes = 0;
  Axis h, w;
  // avg only
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - (d * (k - 1) + 1);
  if (num < 0) return 0;
  int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;  // the last window must start inside
  return out;
}

// First index >= 0 reachable from `start` in steps of `step`, and the end bound clamped to `n`.
inline void clamp_window(int64_t start, int64_t end, int64_t step, int64_t n, int64_t& lo, int64_t& hi) {
  lo = start < 0 ? start + ((-start + step - 1) / step) * step : start;
  hi = std::min(end, n);
}

template <typename T>
void max_pool_kernel(const T* x, T* y, int64_t* idx, const Pool2d& g) {
  const int64_t in_plane = g.h.in * g.w.in, out_plane = g.h.out * g.w.out;
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane * g.h.k * g.w.k, 1)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* xp = x + pl * in_plane;
      T* yp = y + pl * out_plane;
      int64_t* ip = idx + pl * out_plane;
      const int64_t hs = g.h.adaptive ? 1 : g.h.d, ws = g.w.adaptive ? 1 : g.w.d;
      for (int64_t oh = 0; oh < g.h.out; ++oh) {
        int64_t h0 = g.h.start(oh), h1 = g.h.adaptive ? g.h.end_adaptive(oh) : h0 + (g.h.k - 1) * g.h.d + 1;
        int64_t hl, hh;
        clamp_window(h0, h1, hs, g.h.in, hl, hh);
        for (int64_t ow = 0; ow < g.w.out; ++ow) {
          int64_t w0 = g.w.start(ow), w1 = g.w.adaptive ? g.w.end_adaptive(ow) : w0 + (g.w.k - 1) * g.w.d + 1;
          int64_t wl, wh;
          clamp_window(w0, w1, ws, g.w.in, wl, wh);
          T best = -std::numeric_limits<T>::infinity();
          int64_t best_i = hl * g.w.in + wl;
          for (int64_t ih = hl; ih < hh; ih += hs) {
            const T* row = xp + ih * g.w.in;
            for (int64_t iw = wl; iw < wh; iw += ws) {
              T v = row[iw];
              // NaN propagates, as in torch.
              if (v > best || v != v) {
                best = v;
                best_i = ih * g.w.in + iw;
              }
            }
          }
          yp[oh * g.w.out + ow] = best;
          ip[oh * g.w.out + ow] = best_i;
        }
      }
    }
  });
}

// gx[plane][idx] += gy[plane][o]; parallel over planes so writes never collide.
template <typename T>
void max_pool_backward_kernel(const T* gy, const int64_t* idx, T* gx, int64_t planes, int64_t out_plane,
                              int64_t in_plane) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      T* xp = gx + pl * in_plane;
      std::fill(xp, xp + in_plane, T(0));
      const T* yp = gy + pl * out_plane;
      const int64_t* ip = idx + pl * out_plane;
      for (int64_t o = 0; o < out_plane; ++o) xp[ip[o]] += yp[o];
    }
  });
}

// Averaging window geometry shared by the forward and backward kernels.
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double scale;
};

AvgWindow avg_window(const Pool2d& g, int64_t oh, int64_t ow) {
  AvgWindow a;
  if (g.h.adaptive) {
    a.h0 = g.h.start(oh);
    a.h1 = g.h.end_adaptive(oh);
    a.w0 = g.w.start(ow);
    a.w1 = g.w.end_adaptive(ow);
    a.scale = 1.0 / double((a.h1 - a.h0) * (a.w1 - a.w0));
    return a;
  }
  int64_t h0 = g.h.start(oh), w0 = g.w.start(ow);
  int64_t h1 = std::min(h0 + g.h.k, g.h.in + g.h.p), w1 = std::min(w0 + g.w.k, g.w.in + g.w.p);
  int64_t padded_count = (h1 - h0) * (w1 - w0);
  a.h0 = std::max<int64_t>(h0, 0);
  a.w0 = std::max<int64_t>(w0, 0);
  a.h1 = std::min(h1, g.h.in);
  a.w1 = std::min(w1, g.w.in);
  int64_t divisor = g.divisor_override ? g.divisor_override
                    : g.count_include_pad ? padded_count
                                          : (a.h1 - a.h0) * (a.w1 - a.w0);
  a.scale = divisor > 0 ? 1.0 / double(divisor) : 0.0;
  return a;
}

template <typename T>
void avg_pool_kernel(const T* x, T* y, const Pool2d& g) {
  const int64_t in_plane = g.h.in * g.w.in, out_plane = g.h.out * g.w.out;
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* xp = x + pl * in_plane;
      T* yp = y + pl * out_plane;
      for (int64_t oh = 0; oh < g.h.out; ++oh)
        for (int64_t ow = 0; ow < g.w.out; ++ow) {
          AvgWindow a = avg_window(g, oh, ow);
          T acc = 0;
          for (int64_t ih = a.h0; ih < a.h1; ++ih)
            for (int64_t iw = a.w0; iw < a.w1; ++iw) acc += xp[ih * g.w.in + iw];
          yp[oh * g.w.out + ow] = T(acc * T(a.scale));
        }
    }
  });
}

template <typename T>
void avg_pool_backward_kernel(const T* gy, T* gx, const Pool2d& g) {
  const int64_t in_plane = g.h.in * g.w.in, out_plane = g.h.out * g.w.out;
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      T* xp = gx + pl * in_plane;
      const T* yp = gy + pl * out_plane;
      std::fill(xp, xp + in_plane, T(0));
      for (int64_t oh = 0; oh < g.h.out; ++oh)
        for (int64_t ow = 0; ow < g.w.out; ++ow) {
          AvgWindow a = avg_window(g, oh, ow);
          T v = yp[oh * g.w.out + ow] * T(a.scale);
          for (int64_t ih = a.h0; ih < a.h1; ++ih)
            for (int64_t iw = a.w0; iw < a.w1; ++iw) xp[ih * g.w.in + iw] += v;
        }
    }
  });
}

// Input viewed as [planes, H, W]: the caller passes the batch/channel shape to restore.
Tensor avg_backward_op(const Tensor& gy, const Pool2d& g, const Shape& in_shape);

Tensor avg_forward_op(const Tensor& x_in, const Pool2d& g, const Shape& out_shape) {
  Tensor x = contiguous(x_in);
  Tensor y = empty(out_shape, TensorOptions(x.dtype()));
  dispatch_dtype<kF32F64>(x.dtype(), "avg_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_kernel<T>(x.data<T>(), y.data<T>(), g);
  });
  if (autograd::needs_grad({x_in})) {
    Shape in_shape = x_in.sizes();
    autograd::record("AvgPoolBackward0", {x_in}, {y}, {}, [g, in_shape](const TensorList&, const TensorList& gr) -> TensorList {
      return {avg_backward_op(gr[0], g, in_shape)};
    });
  }
  return y;
}

Tensor avg_backward_op(const Tensor& gy_in, const Pool2d& g, const Shape& in_shape) {
  Tensor gy = contiguous(gy_in);
  Tensor gx = empty(in_shape, TensorOptions(gy.dtype()));
  dispatch_dtype<kF32F64>(gy.dtype(), "avg_pool backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_backward_kernel<T>(gy.data<T>(), gx.data<T>(), g);
  });
  if (autograd::needs_grad({gy_in})) {
    Shape out_shape = gy_in.sizes();
    autograd::record("AvgPoolBackwardBackward0", {gy_in}, {gx}, {}, [g, out_shape](const TensorList&, const TensorList& gr) -> TensorList {
      return {avg_forward_op(gr[0], g, out_shape)};
    });
  }
  return gx;
}

// The max-pool gradient: scatter-add through the indices. Its own vjp is a gather.
Tensor max_backward_op(const Tensor& gy_in, const Tensor& idx, const Pool2d& g, const Shape& in_shape) {
  Tensor gy = contiguous(gy_in);
  Tensor gx = empty(in_shape, TensorOptions(gy.dtype()));
  const int64_t in_plane = g.h.in * g.w.in, out_plane = g.h.out * g.w.out;
  dispatch_dtype<kF32F64>(gy.dtype(), "max_pool backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_backward_kernel<T>(gy.data<T>(), idx.data<int64_t>(), gx.data<T>(), g.planes, out_plane, in_plane);
  });
  if (autograd::needs_grad({gy_in})) {
    Shape out_shape = gy_in.sizes();
    int64_t planes = g.planes;
    autograd::record("MaxPoolBackwardBackward0", {gy_in}, {gx}, {idx},
                     [out_shape, planes](const TensorList& s, const TensorList& gr) -> TensorList {
      Tensor flat = reshape(gr[0], {planes, -1});
      return {reshape(gather(flat, 1, reshape(s[0], {planes, -1})), out_shape)};
    });
  }
  return gx;
}

// Max pooling: values and flat per-plane indices; the gradient scatters through the indices.
std::pair<Tensor, Tensor> max_forward_op(const Tensor& x_in, const Pool2d& g, const Shape& out_shape) {
  Tensor x = contiguous(x_in);
  Tensor y = empty(out_shape, TensorOptions(x.dtype()));
  Tensor idx = empty(out_shape, TensorOptions(DType::Int64));
  dispatch_dtype<kF32F64>(x.dtype(), "max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_kernel<T>(x.data<T>(), y.data<T>(), idx.data<int64_t>(), g);
  });
  if (autograd::needs_grad({x_in})) {
    Shape in_shape = x_in.sizes();
    autograd::record("MaxPoolBackward0", {x_in}, {y}, {idx},
                     [in_shape, g](const TensorList& s, const TensorList& gr) -> TensorList {
      return {max_backward_op(gr[0], s[0], g, in_shape)};
    });
  }
  return {y, idx};
}

// ---- argument handling ----

Shape param(const functional::IntList& v, int nd, const char* op, const char* what) {
  if (int64_t(v.size()) == nd) return v;
  TC_CHECK(v.size() == 1, op, ": ", what, " must be one int or ", nd, " ints, got ", v.size(), " values");
  return Shape(size_t(nd), v[0]);
}

struct PoolInput {
  Tensor x;           // [planes..., H, W] view of the input
  Shape batch_shape;  // leading dims to restore
  int64_t planes = 1;
};

PoolInput pool_input(const char* op, int nd, const Tensor& input) {
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  TC_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, op, ": expected a ", nd + 1, "-d or ",
           nd + 2, "-d input, got shape ", shape_str(input.sizes()));
  PoolInput p;
  p.batch_shape.assign(input.sizes().begin(), input.sizes().end() - nd);
  p.planes = shape_numel(p.batch_shape);
  for (int i = 0; i < nd; ++i)
    TC_CHECK(input.size(input.dim() - nd + i) > 0, op, ": input ", shape_str(input.sizes()),
             " has an empty spatial dim");
  p.x = input;
  return p;
}

Pool2d window_geometry(const char* op, int nd, const Tensor& input, const functional::IntList& kernel_size,
                       const functional::IntList& stride_in, const functional::IntList& padding_in,
                       const functional::IntList& dilation_in, bool ceil_mode) {
  Shape k = param(kernel_size, nd, op, "kernel_size");
  Shape s = stride_in.empty() ? k : param(stride_in, nd, op, "stride");
  Shape p = param(padding_in, nd, op, "padding");
  Shape d = param(dilation_in, nd, op, "dilation");
  Pool2d g;
  Axis* axes[2] = {&g.h, &g.w};
  for (int i = 0; i < nd; ++i) {
    Axis& a = *axes[2 - nd + i];
    a.in = input.size(input.dim() - nd + i);
    a.k = k[i];
    a.s = s[i];
    a.p = p[i];
    a.d = d[i];
    TC_CHECK(a.k > 0 && a.s > 0 && a.d > 0, op, ": kernel_size, stride and dilation must be positive, got kernel_size ",
             shape_str(k), " stride ", shape_str(s), " dilation ", shape_str(d));
    TC_CHECK(a.p >= 0 && 2 * a.p <= a.k, op, ": padding should be at most half of kernel size, got padding ",
             shape_str(p), " and kernel_size ", shape_str(k));
    a.out = pooled_size(a.in, a.k, a.s, a.p, a.d, ceil_mode);
    TC_CHECK(a.out > 0, op, ": output size is too small for input ", shape_str(input.sizes()),
             " with kernel_size ", shape_str(k), " (computed output size ", a.out, ")");
  }
  return g;
}

Shape out_shape_of(const PoolInput& p, int nd, const Pool2d& g) {
  Shape s = p.batch_shape;
  if (nd == 2) s.push_back(g.h.out);
  s.push_back(g.w.out);
  return s;
}

std::pair<Tensor, Tensor> max_pool(const char* op, int nd, const Tensor& input,
                                   const functional::IntList& kernel_size, const functional::IntList& stride,
                                   const functional::IntList& padding, const functional::IntList& dilation,
                                   bool ceil_mode) {
  PoolInput p = pool_input(op, nd, input);
  Pool2d g = window_geometry(op, nd, input, kernel_size, stride, padding, dilation, ceil_mode);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, nd, g));
}

Tensor avg_pool(const char* op, int nd, const Tensor& input, const functional::IntList& kernel_size,
                const functional::IntList& stride, const functional::IntList& padding, bool ceil_mode,
                bool count_include_pad, std::optional<int64_t> divisor_override) {
  PoolInput p = pool_input(op, nd, input);
  Pool2d g = window_geometry(op, nd, input, kernel_size, stride, padding, {1}, ceil_mode);
  g.planes = p.planes;
  g.count_include_pad = count_include_pad;
  if (divisor_override) {
    TC_CHECK(*divisor_override != 0, op, ": divisor must be not zero");
    g.divisor_override = *divisor_override;
  }
  return avg_forward_op(input, g, out_shape_of(p, nd, g));
}

Pool2d adaptive_geometry(const char* op, int nd, const Tensor& input, const functional::IntList& output_size) {
  Shape o = param(output_size, nd, op, "output_size");
  Pool2d g;
  g.h.adaptive = g.w.adaptive = true;  // an unused leading axis (1-d) is a 1 -> 1 identity
  Axis* axes[2] = {&g.h, &g.w};
  for (int i = 0; i < nd; ++i) {
    Axis& a = *axes[2 - nd + i];
    a.in = input.size(input.dim() - nd + i);
    a.out = o[i] < 0 ? a.in : o[i];  // torch: None keeps the input size (passed as -1)
    TC_CHECK(a.out > 0, op, ": output_size must be positive, got ", shape_str(o));
  }
  return g;
}

}  // namespace

namespace functional {

std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                  const IntList& stride, const IntList& padding,
                                                  const IntList& dilation, bool ceil_mode) {
  return max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                  const IntList& stride, const IntList& padding,
                                                  const IntList& dilation, bool ceil_mode) {
  return max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor max_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, const IntList& dilation, bool ceil_mode) {
  return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
Tensor max_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, const IntList& dilation, bool ceil_mode) {
  return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode).first;
}

Tensor avg_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, bool ceil_mode, bool count_include_pad) {
  return avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, {});
}
Tensor avg_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const IntList& output_size) {
  PoolInput p = pool_input("adaptive_avg_pool1d", 1, input);
  Pool2d g = adaptive_geometry("adaptive_avg_pool1d", 1, input, output_size);
  g.planes = p.planes;
  return avg_forward_op(input, g, out_shape_of(p, 1, g));
}
Tensor adaptive_avg_pool2d(const Tensor& input, const IntList& output_size) {
  PoolInput p = pool_input("adaptive_avg_pool2d", 2, input);
  Pool2d g = adaptive_geometry("adaptive_avg_pool2d", 2, input, output_size);
  g.planes = p.planes;
  return avg_forward_op(input, g, out_shape_of(p, 2, g));
}
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, const IntList& output_size) {
  PoolInput p = pool_input("adaptive_max_pool1d", 1, input);
  Pool2d g = adaptive_geometry("adaptive_max_pool1d", 1, input, output_size);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, 1, g));
}
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, const IntList& output_size) {
  PoolInput p = pool_input("adaptive_max_pool2d", 2, input);
  Pool2d g = adaptive_geometry("adaptive_max_pool2d", 2, input, output_size);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, 2, g));
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride, const IntList& padding, const IntList& output_size) {
  const char* op = "max_unpool2d";
  TC_CHECK(input.dim() == 3 || input.dim() == 4, op, ": expected a 3-d or 4-d input, got shape ",
           shape_str(input.sizes()));
  TC_CHECK(indices.sizes() == input.sizes(), op, ": indices shape ", shape_str(indices.sizes()),
           " must match input shape ", shape_str(input.sizes()));
  TC_CHECK_TYPE(indices.dtype() == DType::Int64, op, ": indices must be int64, got ", dtype_name(indices.dtype()));
  Shape k = param(kernel_size, 2, op, "kernel_size");
  Shape s = stride.empty() ? k : param(stride, 2, op, "stride");
  Shape p = param(padding, 2, op, "padding");
  int64_t H = input.size(-2), W = input.size(-1);
  int64_t oh = (H - 1) * s[0] - 2 * p[0] + k[0], ow = (W - 1) * s[1] - 2 * p[1] + k[1];
  if (!output_size.empty()) {
    Shape o(output_size.end() - 2, output_size.end());
    TC_CHECK(output_size.size() >= 2, op, ": output_size must have at least 2 entries");
    TC_CHECK(std::abs(o[0] - oh) < s[0] && std::abs(o[1] - ow) < s[1], op, ": output_size ",
             shape_str(o), " is not within one stride of the default output size [", oh, ", ", ow, "]");
    oh = o[0];
    ow = o[1];
  }
  Shape lead(input.sizes().begin(), input.sizes().end() - 2);
  int64_t planes = shape_numel(lead);
  Tensor flat_idx = reshape(indices, {planes, H * W});
  if (flat_idx.numel() > 0) {
    int64_t mx = max(flat_idx).item<int64_t>(), mn = min(flat_idx).item<int64_t>();
    TC_CHECK_INDEX(mn >= 0 && mx < oh * ow, op, ": found an invalid max index ", mn < 0 ? mn : mx,
                   " (output plane has ", oh * ow, " elements)");
  }
  Tensor out = scatter(zeros({planes, oh * ow}, TensorOptions(input.dtype())), 1, flat_idx,
                       reshape(input, {planes, H * W}));
  Shape out_shape = lead;
  out_shape.push_back(oh);
  out_shape.push_back(ow);
  return reshape(out, out_shape);
}

}  // namespace functional
}  // namespace tc::nn
