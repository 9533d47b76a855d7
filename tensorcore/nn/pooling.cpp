// Pooling over 1-d, 2-d and 3-d windows (lower ranks run as 3-d with size-1 leading axes). Forward
// kernels are direct loops parallel over (N*C) planes. Max-pool gradients route through the saved
// indices with the core's scatter_add/gather (so double backward works); average pooling's forward
// and backward kernels are each other's adjoints, so each is the other's vjp.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/half_span.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace {

// float32/float64, and float16/bfloat16 natively: values are compared and summed in float (one
// rounding per output element), gradients accumulate per plane in float.
constexpr uint32_t kPoolTypes = kFloating;

using detail::compute_t;
using detail::from_compute;
using detail::is_half_v;
using detail::to_compute;

// A per-thread float plane that gradients of a float16/bfloat16 plane accumulate into before one
// rounding; float/double planes accumulate in place.
template <typename T>
struct GradPlane {
  std::vector<compute_t<T>> acc;
  explicit GradPlane(int64_t n) {
    if constexpr (is_half_v<T>) acc.resize(size_t(n));
  }
  compute_t<T>* begin(T* gx_plane, int64_t n) {
    compute_t<T>* p;
    if constexpr (is_half_v<T>)
      p = acc.data();
    else
      p = gx_plane;
    std::fill(p, p + n, compute_t<T>(0));
    return p;
  }
  void finish(T* gx_plane, int64_t n) {
    if constexpr (is_half_v<T>)
      detail::narrow(acc.data(), gx_plane, n);
    else
      (void)gx_plane, (void)n;
  }
};

// Window bounds per output position along one dim. Regular pooling: start = o*s - p; adaptive:
// [floor(o*in/out), ceil((o+1)*in/out)).
struct Axis {
  int64_t in = 1, out = 1, k = 1, s = 1, p = 0, d = 1;
  bool adaptive = false;
  int64_t start(int64_t o) const { return adaptive ? (o * in) / out : o * s - p; }
  int64_t end_adaptive(int64_t o) const { return ((o + 1) * in + out - 1) / out; }
};

// Pooling geometry over up to three spatial axes (unused leading axes are 1 -> 1 identities).
struct Pool2d {
  int64_t planes = 0;
  Axis d, h, w;
  // avg only
  bool count_include_pad = true;
  int64_t divisor_override = 0;
  int64_t in_plane() const { return d.in * h.in * w.in; }
  int64_t out_plane() const { return d.out * h.out * w.out; }
  int64_t window() const { return d.k * h.k * w.k; }
};

// The same geometry as the kernel tables take it (device_kernels.h), and back.
PoolParams kernel_params(const Pool2d& g) {
  PoolParams p;
  p.planes = g.planes;
  const Axis* axes[3] = {&g.d, &g.h, &g.w};
  for (int i = 0; i < 3; ++i)
    p.axis[i] = {axes[i]->in, axes[i]->out, axes[i]->k, axes[i]->s, axes[i]->p, axes[i]->d};
  p.adaptive = g.w.adaptive;
  p.count_include_pad = g.count_include_pad;
  p.divisor_override = g.divisor_override;
  return p;
}

Pool2d pool2d_of(const PoolParams& p) {
  Pool2d g;
  g.planes = p.planes;
  Axis* axes[3] = {&g.d, &g.h, &g.w};
  for (int i = 0; i < 3; ++i) {
    const PoolAxisParams& a = p.axis[i];
    *axes[i] = Axis{a.in, a.out, a.k, a.s, a.p, a.d, p.adaptive};
  }
  g.count_include_pad = p.count_include_pad;
  g.divisor_override = p.divisor_override;
  return g;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - (d * (k - 1) + 1);
  if (num < 0) return 0;
  int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;  // the last window must start inside
  return out;
}

// First index >= 0 reachable from `start` in steps of `step`, and the end bound clamped to `n`.
inline void clamp_window(int64_t start, int64_t end, int64_t step, int64_t n, int64_t& lo,
                         int64_t& hi) {
  lo = start < 0 ? start + ((-start + step - 1) / step) * step : start;
  hi = std::min(end, n);
}

// The (clamped) max-pool window of output o along one axis.
inline void max_window(const Axis& a, int64_t o, int64_t& lo, int64_t& hi, int64_t& step) {
  int64_t s0 = a.start(o), s1 = a.adaptive ? a.end_adaptive(o) : s0 + (a.k - 1) * a.d + 1;
  step = a.adaptive ? 1 : a.d;
  clamp_window(s0, s1, step, a.in, lo, hi);
}

// Interior outputs along w for regular (non-adaptive) windows: [lo, hi) with the whole window
// inside the row (dilation d). Empty for adaptive axes.
inline void interior_range(const Axis& a, int64_t d, int64_t& lo, int64_t& hi) {
  lo = hi = 0;
  if (a.adaptive) return;
  lo = std::min(a.out, (a.p + a.s - 1) / a.s);
  int64_t last_start = a.in - 1 - (a.k - 1) * d + a.p;  // largest o*s with the window inside
  hi = last_start < 0 ? 0 : std::min(a.out, last_start / a.s + 1);
  if (hi < lo) hi = lo;
}

// One max-pool output (any window, clamped at the borders).
template <typename T>
inline void max_pool_one(const T* xp, const Pool2d& g, int64_t dl, int64_t dh, int64_t ds,
                         int64_t hl, int64_t hh, int64_t hs, int64_t wl, int64_t wh, int64_t ws,
                         T* y, int64_t* idx) {
  using C = compute_t<T>;
  C best = -std::numeric_limits<C>::infinity();
  int64_t best_i = (dl * g.h.in + hl) * g.w.in + wl;
  for (int64_t id = dl; id < dh; id += ds)
    for (int64_t ih = hl; ih < hh; ih += hs) {
      const int64_t row0 = (id * g.h.in + ih) * g.w.in;
      for (int64_t iw = wl; iw < wh; iw += ws) {
        C v = to_compute(xp[row0 + iw]);
        if (v > best || v != v) {  // NaN propagates, as in torch
          best = v;
          best_i = row0 + iw;
        }
      }
    }
  *y = from_compute<T>(best);  // exact: best is an input value
  *idx = best_i;
}

// Max pooling. Outputs whose window lies inside the row along w are computed a whole output row
// at a time, window element by window element: the running maxima of neighbouring outputs are
// independent, so the loop over outputs vectorizes (a per-output loop is one long dependent
// chain of compare-selects). Window elements are visited in the same order either way, so ties
// and NaNs resolve identically (first maximum; last NaN).
template <typename T>
void max_pool_kernel(const T* x, T* y, int64_t* idx, const Pool2d& g) {
  using C = compute_t<T>;
  const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
  const Axis& aw = g.w;
  std::vector<int64_t> w_lo(size_t(aw.out)), w_hi(size_t(aw.out));
  int64_t ws = 1;
  for (int64_t ow = 0; ow < aw.out; ++ow)
    max_window(aw, ow, w_lo[size_t(ow)], w_hi[size_t(ow)], ws);
  // Interior outputs along w: [ow_lo, ow_hi), full windows in bounds.
  int64_t ow_lo = 0, ow_hi = 0;
  if (in_plane < (int64_t(1) << 31)) interior_range(aw, aw.d, ow_lo, ow_hi);  // int32 row indices
  parallel_for(0, g.planes,
               std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane * g.window(), 1)),
               [&](int64_t p0, int64_t p1) {
                 std::vector<C> best(size_t(std::max<int64_t>(ow_hi - ow_lo, 1)));
                 std::vector<int32_t> best_idx(best.size());
                 std::vector<float> row_buf(std::is_same_v<T, Half> ? size_t(aw.in) : 0);
                 for (int64_t pl = p0; pl < p1; ++pl) {
                   const T* xp = x + pl * in_plane;
                   T* yp = y + pl * out_plane;
                   int64_t* ip = idx + pl * out_plane;
                   int64_t o = 0;
                   for (int64_t od = 0; od < g.d.out; ++od) {
                     int64_t dl, dh, ds;
                     max_window(g.d, od, dl, dh, ds);
                     for (int64_t oh = 0; oh < g.h.out; ++oh, o += aw.out) {
                       int64_t hl, hh, hs;
                       max_window(g.h, oh, hl, hh, hs);
                       for (int64_t ow = 0; ow < aw.out; ++ow) {
                         if (ow == ow_lo) ow = ow_hi;  // interior outputs below
                         if (ow >= aw.out) break;
                         max_pool_one(xp, g, dl, dh, ds, hl, hh, hs, w_lo[size_t(ow)],
                                      w_hi[size_t(ow)], ws, yp + o + ow, ip + o + ow);
                       }
                       const int64_t n = ow_hi - ow_lo;
                       if (n <= 0) continue;
                       C* __restrict bv = best.data();
                       int32_t* __restrict bi = best_idx.data();
                       const int64_t first_row = (dl * g.h.in + hl) * aw.in;
                       for (int64_t j = 0; j < n; ++j) {
                         bv[j] = -std::numeric_limits<C>::infinity();
                         bi[j] = int32_t(first_row + (ow_lo + j) * aw.s - aw.p);
                       }
                       for (int64_t id = dl; id < dh; id += ds)
                         for (int64_t ih = hl; ih < hh; ih += hs) {
                           const int64_t row0 = (id * g.h.in + ih) * aw.in;
                           // float16's scalar conversion does not vectorize: widen the row once
                           // instead.
                           using RowT = std::conditional_t<std::is_same_v<T, Half>, float, T>;
                           const RowT* row;
                           if constexpr (std::is_same_v<T, Half>) {
                             detail::widen(xp + row0, row_buf.data(), aw.in);
                             row = row_buf.data();
                           } else {
                             row = xp + row0;
                           }
                           for (int64_t kw = 0; kw < aw.k; ++kw) {
                             const int32_t start = int32_t(row0 + ow_lo * aw.s - aw.p + kw * aw.d);
                             const int32_t step = int32_t(aw.s);
                             const RowT* __restrict src = row + (ow_lo * aw.s - aw.p + kw * aw.d);
                             for (int64_t j = 0; j < n; ++j) {
                               C v = to_compute(src[j * step]);
                               C cur = bv[j];
                               int32_t cur_i = bi[j];
                               bool take = (v > cur) | (v != v);
                               bv[j] = take ? v : cur;
                               bi[j] = take ? start + int32_t(j) * step : cur_i;
                             }
                           }
                         }
                       for (int64_t j = 0; j < n; ++j) ip[o + ow_lo + j] = bi[j];
                       for (int64_t j = 0; j < n; ++j) yp[o + ow_lo + j] = from_compute<T>(bv[j]);
                     }
                   }
                 }
               });
}

// gx[plane][idx] += gy[plane][o]; parallel over planes so writes never collide.
template <typename T>
void max_pool_backward_kernel(const T* gy, const int64_t* idx, T* gx, int64_t planes,
                              int64_t out_plane, int64_t in_plane) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
               [&](int64_t p0, int64_t p1) {
                 GradPlane<T> plane(in_plane);
                 for (int64_t pl = p0; pl < p1; ++pl) {
                   auto* xp = plane.begin(gx + pl * in_plane, in_plane);
                   const T* yp = gy + pl * out_plane;
                   const int64_t* ip = idx + pl * out_plane;
                   for (int64_t o = 0; o < out_plane; ++o) xp[ip[o]] += to_compute(yp[o]);
                   plane.finish(gx + pl * in_plane, in_plane);
                 }
               });
}

// Averaging window along one axis: clamped bounds and the padded extent (for count_include_pad).
struct AxisWindow {
  int64_t lo, hi, padded;
};

inline AxisWindow avg_axis(const Axis& a, int64_t o) {
  if (a.adaptive) {
    int64_t lo = a.start(o), hi = a.end_adaptive(o);
    return {lo, hi, hi - lo};
  }
  int64_t s0 = a.start(o);
  int64_t s1 = std::min(s0 + a.k, a.in + a.p);
  return {std::max<int64_t>(s0, 0), std::min(s1, a.in), s1 - s0};
}

inline double avg_scale(const Pool2d& g, const AxisWindow& d, const AxisWindow& h,
                        const AxisWindow& w) {
  int64_t count = (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
  int64_t divisor = g.divisor_override                       ? g.divisor_override
                    : (g.count_include_pad && !g.w.adaptive) ? d.padded * h.padded * w.padded
                                                             : count;
  return divisor > 0 ? 1.0 / double(divisor) : 0.0;
}

// Average pooling. As max pooling, outputs whose window lies inside the row along w are summed
// a whole output row at a time (the per-output loop is short and overhead-bound); the elements
// of each window are added in the same order either way.
template <typename T>
void avg_pool_kernel(const T* x, T* y, const Pool2d& g) {
  using C = compute_t<T>;
  const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
  if (g.w.adaptive && out_plane == 1) {  // global average pooling: one lane sum per plane
    const C scale = C(1.0 / double(in_plane));
    parallel_for(
        0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
        [&](int64_t p0, int64_t p1) {
          for (int64_t pl = p0; pl < p1; ++pl)
            y[pl] = from_compute<T>(
                C(detail::span_sum(x + pl * in_plane, in_plane, [](C v) { return v; })) * scale);
        });
    return;
  }
  int64_t ow_lo, ow_hi;
  interior_range(g.w, 1, ow_lo, ow_hi);
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
               [&](int64_t p0, int64_t p1) {
                 std::vector<C> acc_row(size_t(std::max<int64_t>(ow_hi - ow_lo, 1)));
                 std::vector<float> row_buf(std::is_same_v<T, Half> ? size_t(g.w.in) : 0);
                 for (int64_t pl = p0; pl < p1; ++pl) {
                   const T* xp = x + pl * in_plane;
                   T* yp = y + pl * out_plane;
                   int64_t o = 0;
                   for (int64_t od = 0; od < g.d.out; ++od) {
                     AxisWindow wd = avg_axis(g.d, od);
                     for (int64_t oh = 0; oh < g.h.out; ++oh, o += g.w.out) {
                       AxisWindow wh = avg_axis(g.h, oh);
                       for (int64_t ow = 0; ow < g.w.out; ++ow) {
                         if (ow == ow_lo) ow = ow_hi;  // interior outputs below
                         if (ow >= g.w.out) break;
                         AxisWindow ww = avg_axis(g.w, ow);
                         C acc = 0;
                         for (int64_t id = wd.lo; id < wd.hi; ++id)
                           for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                             const T* row = xp + (id * g.h.in + ih) * g.w.in;
                             for (int64_t iw = ww.lo; iw < ww.hi; ++iw) acc += to_compute(row[iw]);
                           }
                         yp[o + ow] = from_compute<T>(acc * C(avg_scale(g, wd, wh, ww)));
                       }
                       const int64_t n = ow_hi - ow_lo;
                       if (n <= 0) continue;
                       const C scale = C(avg_scale(g, wd, wh, avg_axis(g.w, ow_lo)));
                       C* __restrict acc = acc_row.data();
                       std::fill(acc, acc + n, C(0));
                       const int64_t step = g.w.s;
                       for (int64_t id = wd.lo; id < wd.hi; ++id)
                         for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                           using RowT = std::conditional_t<std::is_same_v<T, Half>, float, T>;
                           const RowT* row;
                           if constexpr (std::is_same_v<T, Half>) {
                             detail::widen(xp + (id * g.h.in + ih) * g.w.in, row_buf.data(),
                                           g.w.in);
                             row = row_buf.data();
                           } else {
                             row = xp + (id * g.h.in + ih) * g.w.in;
                           }
                           for (int64_t kw = 0; kw < g.w.k; ++kw) {
                             const RowT* __restrict src = row + ow_lo * step - g.w.p + kw;
                             for (int64_t j = 0; j < n; ++j) acc[j] += to_compute(src[j * step]);
                           }
                         }
                       for (int64_t j = 0; j < n; ++j)
                         yp[o + ow_lo + j] = from_compute<T>(acc[j] * scale);
                     }
                   }
                 }
               });
}

// The adjoint of avg_pool_kernel: each output adds its scaled gradient over its window. Interior
// outputs along w go a row at a time with the window offsets in descending order, so every
// input element still receives its contributions in output order (left border, interior,
// right border) and the sums equal the per-output loop's.
template <typename T>
void avg_pool_backward_kernel(const T* gy, T* gx, const Pool2d& g) {
  using C = compute_t<T>;
  const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
  if (g.w.adaptive && out_plane == 1) {  // global average pooling: broadcast gy / size
    const C scale = C(1.0 / double(in_plane));
    parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
                 [&](int64_t p0, int64_t p1) {
                   for (int64_t pl = p0; pl < p1; ++pl)
                     std::fill(gx + pl * in_plane, gx + (pl + 1) * in_plane,
                               from_compute<T>(to_compute(gy[pl]) * scale));
                 });
    return;
  }
  int64_t ow_lo, ow_hi;
  interior_range(g.w, 1, ow_lo, ow_hi);
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane, 1)),
               [&](int64_t p0, int64_t p1) {
                 GradPlane<T> plane(in_plane);
                 std::vector<C> v_row(size_t(std::max<int64_t>(ow_hi - ow_lo, 1)));
                 for (int64_t pl = p0; pl < p1; ++pl) {
                   C* xp = plane.begin(gx + pl * in_plane, in_plane);
                   const T* yp = gy + pl * out_plane;
                   int64_t o = 0;
                   for (int64_t od = 0; od < g.d.out; ++od) {
                     AxisWindow wd = avg_axis(g.d, od);
                     for (int64_t oh = 0; oh < g.h.out; ++oh, o += g.w.out) {
                       AxisWindow wh = avg_axis(g.h, oh);
                       auto one = [&](int64_t ow) {
                         AxisWindow ww = avg_axis(g.w, ow);
                         C v = to_compute(yp[o + ow]) * C(avg_scale(g, wd, wh, ww));
                         for (int64_t id = wd.lo; id < wd.hi; ++id)
                           for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                             C* row = xp + (id * g.h.in + ih) * g.w.in;
                             for (int64_t iw = ww.lo; iw < ww.hi; ++iw) row[iw] += v;
                           }
                       };
                       for (int64_t ow = 0; ow < ow_lo; ++ow) one(ow);
                       const int64_t n = ow_hi - ow_lo;
                       if (n > 0) {
                         const C scale = C(avg_scale(g, wd, wh, avg_axis(g.w, ow_lo)));
                         C* __restrict v = v_row.data();
                         for (int64_t j = 0; j < n; ++j)
                           v[j] = to_compute(yp[o + ow_lo + j]) * scale;
                         const int64_t step = g.w.s;
                         for (int64_t id = wd.lo; id < wd.hi; ++id)
                           for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                             C* row = xp + (id * g.h.in + ih) * g.w.in;
                             for (int64_t kw = g.w.k - 1; kw >= 0; --kw) {
                               C* __restrict dst = row + ow_lo * step - g.w.p + kw;
                               for (int64_t j = 0; j < n; ++j) dst[j * step] += v[j];
                             }
                           }
                       }
                       for (int64_t ow = std::max(ow_hi, ow_lo); ow < g.w.out; ++ow) one(ow);
                     }
                   }
                   plane.finish(gx + pl * in_plane, in_plane);
                 }
               });
}

// The CPU kernels of the pooling tables: contiguous tensors, preallocated outputs.
void max_pool_forward_cpu(const Tensor& x, const Tensor& y, const Tensor& idx,
                          const PoolParams& p) {
  const Pool2d g = pool2d_of(p);
  dispatch_dtype<kPoolTypes>(x.dtype(), "max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_kernel<T>(x.data<T>(), y.data<T>(), idx.data<int64_t>(), g);
  });
}

void max_pool_backward_cpu(const Tensor& gy, const Tensor& idx, const Tensor& gx,
                           const PoolParams& p) {
  const Pool2d g = pool2d_of(p);
  dispatch_dtype<kPoolTypes>(gy.dtype(), "max_pool backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_backward_kernel<T>(gy.data<T>(), idx.data<int64_t>(), gx.data<T>(), g.planes,
                                g.out_plane(), g.in_plane());
  });
}

void avg_pool_forward_cpu(const Tensor& x, const Tensor& y, const PoolParams& p) {
  const Pool2d g = pool2d_of(p);
  dispatch_dtype<kPoolTypes>(x.dtype(), "avg_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_kernel<T>(x.data<T>(), y.data<T>(), g);
  });
}

void avg_pool_backward_cpu(const Tensor& gy, const Tensor& gx, const PoolParams& p) {
  const Pool2d g = pool2d_of(p);
  dispatch_dtype<kPoolTypes>(gy.dtype(), "avg_pool backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_backward_kernel<T>(gy.data<T>(), gx.data<T>(), g);
  });
}

TC_REGISTER_KERNEL(nn::max_pool_forward_kernel, CPU, max_pool_forward_cpu);
TC_REGISTER_KERNEL(nn::max_pool_backward_kernel, CPU, max_pool_backward_cpu);
TC_REGISTER_KERNEL(nn::avg_pool_forward_kernel, CPU, avg_pool_forward_cpu);
TC_REGISTER_KERNEL(nn::avg_pool_backward_kernel, CPU, avg_pool_backward_cpu);

// Input viewed as [planes, H, W]: the caller passes the batch/channel shape to restore.
Tensor avg_backward_op(const Tensor& gy, const Pool2d& g, const Shape& in_shape);

Tensor avg_forward_op(const Tensor& x_in, const Pool2d& g, const Shape& out_shape) {
  Tensor x = contiguous(x_in);
  Tensor y = empty(out_shape, TensorOptions(x.dtype()).device(x.device()));
  avg_pool_forward_kernel.get(x.device().type)(x, y, kernel_params(g));
  if (autograd::needs_grad({x_in})) {
    Shape in_shape = x_in.sizes();
    autograd::record("AvgPoolBackward0", {x_in}, {y}, {},
                     [g, in_shape](const TensorList&, const TensorList& gr) -> TensorList {
                       return {avg_backward_op(gr[0], g, in_shape)};
                     });
  }
  return y;
}

Tensor avg_backward_op(const Tensor& gy_in, const Pool2d& g, const Shape& in_shape) {
  Tensor gy = contiguous(gy_in);
  Tensor gx = empty(in_shape, TensorOptions(gy.dtype()).device(gy.device()));
  nn::avg_pool_backward_kernel.get(gy.device().type)(gy, gx, kernel_params(g));
  if (autograd::needs_grad({gy_in})) {
    Shape out_shape = gy_in.sizes();
    autograd::record("AvgPoolBackwardBackward0", {gy_in}, {gx}, {},
                     [g, out_shape](const TensorList&, const TensorList& gr) -> TensorList {
                       return {avg_forward_op(gr[0], g, out_shape)};
                     });
  }
  return gx;
}

// The max-pool gradient: scatter-add through the indices. Its own vjp is a gather.
Tensor max_backward_op(const Tensor& gy_in, const Tensor& idx, const Pool2d& g,
                       const Shape& in_shape) {
  Tensor gy = contiguous(gy_in);
  Tensor gx = empty(in_shape, TensorOptions(gy.dtype()).device(gy.device()));
  nn::max_pool_backward_kernel.get(gy.device().type)(gy, contiguous(idx), gx, kernel_params(g));
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

// A float32 [N, C, H, W] input laid out NHWC (channels-last strides), as frozen graphs'
// convolutions hand it over: NHWC values and indices (as torch returns for channels-last input),
// without a copy to NCHW first. Each output reduces its window over a contiguous run of channels.
bool nhwc_float32(const Tensor& x) {
  if (x.dim() != 4 || !x.is_cpu() || x.dtype() != DType::Float32 || x.is_contiguous()) return false;
  const Shape& z = x.sizes();
  const Shape& st = x.strides();
  return st[1] == 1 && st[3] == z[1] && st[2] == z[1] * z[3] && st[0] == z[1] * z[2] * z[3];
}

std::pair<Tensor, Tensor> max_forward_nhwc(const Tensor& x, const Pool2d& g,
                                           const Shape& out_shape) {
  const int64_t n = x.size(0), c = x.size(1), H = g.h.in, W = g.w.in, OH = g.h.out, OW = g.w.out;
  const Shape st = {c * OH * OW, 1, OW * c, c};
  Tensor y = empty_strided(out_shape, st, TensorOptions(DType::Float32));
  Tensor idx = empty_strided(out_shape, st, TensorOptions(DType::Int64));
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  int64_t* ip = idx.data<int64_t>();
  parallel_for(0, n * OH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / OH, oh = r % OH;
      int64_t hl, hh, hs;
      max_window(g.h, oh, hl, hh, hs);
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t wl, wh, ws;
        max_window(g.w, ow, wl, wh, ws);
        float* __restrict yo = yp + (r * OW + ow) * c;
        int64_t* __restrict io = ip + (r * OW + ow) * c;
        const int64_t first = hl * W + wl;
        for (int64_t ch = 0; ch < c; ++ch) {
          yo[ch] = -std::numeric_limits<float>::infinity();
          io[ch] = first;
        }
        // Window elements in the NCHW kernel's order: ties and NaNs resolve the same way.
        for (int64_t ih = hl; ih < hh; ih += hs)
          for (int64_t iw = wl; iw < wh; iw += ws) {
            const float* __restrict xv = xp + ((b * H + ih) * W + iw) * c;
            const int64_t at = ih * W + iw;
            for (int64_t ch = 0; ch < c; ++ch) {
              const float v = xv[ch];
              const bool take = v > yo[ch] || v != v;
              yo[ch] = take ? v : yo[ch];
              io[ch] = take ? at : io[ch];
            }
          }
      }
    }
  });
  return {y, idx};
}

// Max pooling: values and flat per-plane indices; the gradient scatters through the indices.
std::pair<Tensor, Tensor> max_forward_op(const Tensor& x_in, const Pool2d& g,
                                         const Shape& out_shape) {
  if (g.d.out == 1 && g.d.in == 1 && !g.h.adaptive && !g.w.adaptive && out_shape.size() == 4 &&
      nhwc_float32(x_in) && !autograd::needs_grad({x_in}))
    return max_forward_nhwc(x_in, g, out_shape);
  Tensor x = contiguous(x_in);
  Tensor y = empty(out_shape, TensorOptions(x.dtype()).device(x.device()));
  Tensor idx = empty(out_shape, TensorOptions(DType::Int64).device(x.device()));
  max_pool_forward_kernel.get(x.device().type)(x, y, idx, kernel_params(g));
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
  TC_CHECK(v.size() == 1, op, ": ", what, " must be one int or ", nd, " ints, got ", v.size(),
           " values");
  return Shape(size_t(nd), v[0]);
}

struct PoolInput {
  Tensor x;           // [planes..., H, W] view of the input
  Shape batch_shape;  // leading dims to restore
  int64_t planes = 1;
};

PoolInput pool_input(const char* op, int nd, const Tensor& input) {
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  TC_CHECK_TYPE(is_floating(input.dtype()), op,
                ": expected a float32, float64, float16 or bfloat16 input, got ",
                dtype_name(input.dtype()));
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

Pool2d window_geometry(const char* op, int nd, const Tensor& input,
                       const functional::IntList& kernel_size, const functional::IntList& stride_in,
                       const functional::IntList& padding_in,
                       const functional::IntList& dilation_in, bool ceil_mode) {
  Shape k = param(kernel_size, nd, op, "kernel_size");
  Shape s = stride_in.empty() ? k : param(stride_in, nd, op, "stride");
  Shape p = param(padding_in, nd, op, "padding");
  Shape d = param(dilation_in, nd, op, "dilation");
  Pool2d g;
  Axis* axes[3] = {&g.d, &g.h, &g.w};
  for (int i = 0; i < nd; ++i) {
    Axis& a = *axes[3 - nd + i];
    a.in = input.size(input.dim() - nd + i);
    a.k = k[i];
    a.s = s[i];
    a.p = p[i];
    a.d = d[i];
    TC_CHECK(a.k > 0 && a.s > 0 && a.d > 0, op,
             ": kernel_size, stride and dilation must be positive, got kernel_size ", shape_str(k),
             " stride ", shape_str(s), " dilation ", shape_str(d));
    TC_CHECK(a.p >= 0 && 2 * a.p <= a.k, op,
             ": padding should be at most half of kernel size, got padding ", shape_str(p),
             " and kernel_size ", shape_str(k));
    a.out = pooled_size(a.in, a.k, a.s, a.p, a.d, ceil_mode);
    TC_CHECK(a.out > 0, op, ": output size is too small for input ", shape_str(input.sizes()),
             " with kernel_size ", shape_str(k), " (computed output size ", a.out, ")");
  }
  return g;
}

Shape out_shape_of(const PoolInput& p, int nd, const Pool2d& g) {
  Shape s = p.batch_shape;
  if (nd == 3) s.push_back(g.d.out);
  if (nd >= 2) s.push_back(g.h.out);
  s.push_back(g.w.out);
  return s;
}

std::pair<Tensor, Tensor> max_pool(const char* op, int nd, const Tensor& input,
                                   const functional::IntList& kernel_size,
                                   const functional::IntList& stride,
                                   const functional::IntList& padding,
                                   const functional::IntList& dilation, bool ceil_mode) {
  PoolInput p = pool_input(op, nd, input);
  Pool2d g = window_geometry(op, nd, input, kernel_size, stride, padding, dilation, ceil_mode);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, nd, g));
}

Tensor avg_pool(const char* op, int nd, const Tensor& input, const functional::IntList& kernel_size,
                const functional::IntList& stride, const functional::IntList& padding,
                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
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

Pool2d adaptive_geometry(const char* op, int nd, const Tensor& input,
                         const functional::IntList& output_size) {
  Shape o = param(output_size, nd, op, "output_size");
  Pool2d g;
  g.d.adaptive = g.h.adaptive = g.w.adaptive = true;  // unused leading axes are 1 -> 1 identities
  Axis* axes[3] = {&g.d, &g.h, &g.w};
  for (int i = 0; i < nd; ++i) {
    Axis& a = *axes[3 - nd + i];
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
  return avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, {});
}
Tensor avg_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, divisor_override);
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
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                           const IntList& output_size) {
  PoolInput p = pool_input("adaptive_max_pool1d", 1, input);
  Pool2d g = adaptive_geometry("adaptive_max_pool1d", 1, input, output_size);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, 1, g));
}
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                           const IntList& output_size) {
  PoolInput p = pool_input("adaptive_max_pool2d", 2, input);
  Pool2d g = adaptive_geometry("adaptive_max_pool2d", 2, input, output_size);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, 2, g));
}

std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                  const IntList& stride, const IntList& padding,
                                                  const IntList& dilation, bool ceil_mode) {
  TC_AUTOCAST("max_pool3d", max_pool3d_with_indices, input, kernel_size, stride, padding, dilation,
              ceil_mode);
  return max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor max_pool3d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, const IntList& dilation, bool ceil_mode) {
  return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
Tensor avg_pool3d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  TC_AUTOCAST("avg_pool3d", avg_pool3d, input, kernel_size, stride, padding, ceil_mode,
              count_include_pad, divisor_override);
  return avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, divisor_override);
}
Tensor adaptive_avg_pool3d(const Tensor& input, const IntList& output_size) {
  TC_AUTOCAST("adaptive_avg_pool3d", adaptive_avg_pool3d, input, output_size);
  PoolInput p = pool_input("adaptive_avg_pool3d", 3, input);
  Pool2d g = adaptive_geometry("adaptive_avg_pool3d", 3, input, output_size);
  g.planes = p.planes;
  return avg_forward_op(input, g, out_shape_of(p, 3, g));
}
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                           const IntList& output_size) {
  TC_AUTOCAST("adaptive_max_pool3d", adaptive_max_pool3d_with_indices, input, output_size);
  PoolInput p = pool_input("adaptive_max_pool3d", 3, input);
  Pool2d g = adaptive_geometry("adaptive_max_pool3d", 3, input, output_size);
  g.planes = p.planes;
  return max_forward_op(input, g, out_shape_of(p, 3, g));
}

namespace {
Tensor max_unpool(const char* op, int nd, const Tensor& input, const Tensor& indices,
                  const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  const IntList& output_size) {
  TC_AUTOCAST(op, max_unpool, op, nd, input, indices, kernel_size, stride, padding, output_size);
  TC_CHECK(input.defined() && indices.defined(), op, ": input and indices must be tensors");
  TC_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, op, ": expected a ", nd + 1, "-d or ",
           nd + 2, "-d input, got shape ", shape_str(input.sizes()));
  TC_CHECK(indices.sizes() == input.sizes(), op, ": indices shape ", shape_str(indices.sizes()),
           " must match input shape ", shape_str(input.sizes()));
  TC_CHECK_TYPE(indices.dtype() == DType::Int64, op, ": indices must be int64, got ",
                dtype_name(indices.dtype()));
  Shape k = param(kernel_size, nd, op, "kernel_size");
  Shape s = stride.empty() ? k : param(stride, nd, op, "stride");
  Shape p = param(padding, nd, op, "padding");
  Shape in(input.sizes().end() - nd, input.sizes().end()), out(static_cast<size_t>(nd));
  for (int i = 0; i < nd; ++i)
    out[size_t(i)] = (in[size_t(i)] - 1) * s[size_t(i)] - 2 * p[size_t(i)] + k[size_t(i)];
  if (!output_size.empty()) {
    TC_CHECK(int64_t(output_size.size()) >= nd, op, ": output_size must have at least ", nd,
             " entries, got ", shape_str(output_size));
    Shape o(output_size.end() - nd, output_size.end());
    for (int i = 0; i < nd; ++i)
      TC_CHECK(std::abs(o[size_t(i)] - out[size_t(i)]) < s[size_t(i)], op, ": output_size ",
               shape_str(o), " is not within one stride of the default output size ",
               shape_str(out));
    out = o;
  }
  Shape lead(input.sizes().begin(), input.sizes().end() - nd);
  int64_t planes = shape_numel(lead), in_plane = shape_numel(in), out_plane = shape_numel(out);
  Tensor flat_idx = reshape(indices, {planes, in_plane});
  if (flat_idx.numel() > 0) {
    int64_t mx = max(flat_idx).item<int64_t>(), mn = min(flat_idx).item<int64_t>();
    TC_CHECK_INDEX(mn >= 0 && mx < out_plane, op, ": found an invalid max index ", mn < 0 ? mn : mx,
                   " (output plane has ", out_plane, " elements)");
  }
  Tensor res =
      scatter(zeros({planes, out_plane}, TensorOptions(input.dtype()).device(input.device())), 1,
              flat_idx, reshape(input, {planes, in_plane}));
  Shape out_shape = lead;
  out_shape.insert(out_shape.end(), out.begin(), out.end());
  return reshape(res, out_shape);
}
}  // namespace

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride, const IntList& padding, const IntList& output_size) {
  return max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size);
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride, const IntList& padding, const IntList& output_size) {
  return max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size);
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride, const IntList& padding, const IntList& output_size) {
  return max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size);
}

}  // namespace functional
}  // namespace tc::nn

namespace tc::nn::functional {
using detail::check_rank;
using detail::expand_list;

namespace {

// (sum over the window of x^p)^(1/p), as torch: avg_pool of x^p times the window size.
Tensor lp_pool(const char* op, int n, const Tensor& x, double p, const IntList& k, const IntList& s,
               bool ceil) {
  TC_CHECK(p > 0, op, ": norm_type must be positive, got ", p);
  check_rank(op, n, x);
  IntList ks = expand_list(op, "kernel_size", k, n);
  int64_t area = 1;
  for (auto v : ks) area *= v;
  Tensor xp = pow(x, p);
  Tensor pooled = n == 1 ? avg_pool1d(xp, ks, s, {0}, ceil) : avg_pool2d(xp, ks, s, {0}, ceil);
  // sign * relu(|.|) as torch, so a slightly negative average from rounding does not give NaN.
  return pow(mul(mul(sign(pooled), tc::relu(abs(pooled))), double(area)), 1.0 / p);
}

}  // namespace

Tensor lp_pool1d(const Tensor& x, double p, const IntList& k, const IntList& s, bool ceil) {
  return lp_pool("lp_pool1d", 1, x, p, k, s, ceil);
}
Tensor lp_pool2d(const Tensor& x, double p, const IntList& k, const IntList& s, bool ceil) {
  return lp_pool("lp_pool2d", 2, x, p, k, s, ceil);
}

}  // namespace tc::nn::functional
