// Normalization layers with fused forward/backward kernels:
//  * rows:  layer_norm and group_norm normalize contiguous rows [R, M]; row r belongs to group
//    r % G and element j of a row uses affine index (r % G) * (M / L) + j / L.
//  * channels: batch_norm normalizes each channel of [N, C, L] over N and L.
// instance_norm is batch_norm over [1, N*C, L]; local_response_norm is a composite.
// The fused backward kernels run when no graph is being built; under create_graph the vjp is
// the same formula in tensor ops, so double backward works.
#include <cmath>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/half_span.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

// float32/float64, and float16/bfloat16 natively (computed in float, rounded once).
constexpr uint32_t kNormTypes = kFloating;

using detail::compute_t;
using detail::for_spans2;
using detail::lane_sum;
using detail::map_spans;
using detail::map_spans2;
using detail::span_sum;
using detail::span_sum2;

// The dtype statistics, parameters and parameter gradients are computed in.
DType compute_dtype(DType d) { return d == DType::Float64 ? DType::Float64 : DType::Float32; }

// A parameter (weight, bias, running stat) as a contiguous compute-dtype tensor, outside autograd
// (the op records its own node). No copy when it already is one.
Tensor compute_param(const Tensor& t, DType input_dtype) {
  if (!t.defined()) return t;
  return to_dtype(contiguous(t.detach()), compute_dtype(input_dtype));
}

template <typename C>
const C* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data<C>() : nullptr;
}
template <typename C>
C* mut_ptr_or_null(Tensor& t) {
  return t.defined() ? t.data<C>() : nullptr;
}

struct RowGeom {
  int64_t R, M, G, L;
  int64_t per_group() const { return M / L; }  // affine entries per row
};

// T is the storage type; statistics and affine parameters are in C = compute_t<T>.
template <typename T>
void row_norm_forward(const T* x, const compute_t<T>* w, const compute_t<T>* b, T* y,
                      compute_t<T>* mean_out, compute_t<T>* rstd_out, const RowGeom& g,
                      double eps) {
  using C = compute_t<T>;
  parallel_for(0, g.R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.M, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const T* xr = x + r * g.M;
                   T* yr = y + r * g.M;
                   double mean = span_sum(xr, g.M, [](C v) { return v; }) / double(g.M);
                   C m = C(mean);
                   double var = span_sum(xr, g.M,
                                         [m](C v) {
                                           C d = v - m;
                                           return d * d;
                                         }) /
                                double(g.M);
                   C rstd = C(1.0 / std::sqrt(var + eps));
                   mean_out[r] = m;
                   rstd_out[r] = rstd;
                   int64_t a0 = (r % g.G) * g.per_group();
                   if (g.L == 1) {  // layer_norm: one affine entry per element
                     // Scalars by value and __restrict spans: otherwise GCC must assume the output
                     // store may change them and leaves the loop scalar.
                     map_spans(
                         xr, yr, g.M,
                         [m, rstd, w, b, a0](auto in, C* __restrict out, int64_t off, int64_t len) {
                           const C* __restrict wj = w ? w + a0 + off : nullptr;
                           const C* __restrict bj = b ? b + a0 + off : nullptr;
                           if (wj && bj) {
                             for (int64_t j = 0; j < len; ++j)
                               out[j] = (in[j] - m) * rstd * wj[j] + bj[j];
                           } else if (!wj && !bj) {
                             for (int64_t j = 0; j < len; ++j) out[j] = (in[j] - m) * rstd;
                           } else {
                             for (int64_t j = 0; j < len; ++j) {
                               C v = (in[j] - m) * rstd;
                               if (wj) v *= wj[j];
                               if (bj) v += bj[j];
                               out[j] = v;
                             }
                           }
                         });
                     continue;
                   }
                   for (int64_t c = 0; c < g.per_group(); ++c) {
                     C scale = rstd * (w ? w[a0 + c] : C(1));
                     C shift = (b ? b[a0 + c] : C(0)) - m * scale;
                     map_spans(xr + c * g.L, yr + c * g.L, g.L,
                               [scale, shift](auto in, C* __restrict out, int64_t, int64_t len) {
                                 for (int64_t l = 0; l < len; ++l) out[l] = in[l] * scale + shift;
                               });
                   }
                 }
               });
}

template <typename T>
void row_norm_backward(const T* gy, const T* x, const compute_t<T>* w, const compute_t<T>* mean,
                       const compute_t<T>* rstd, T* gx, compute_t<T>* gw, compute_t<T>* gb,
                       const RowGeom& g) {
  using C = compute_t<T>;
  if (gx) {
    parallel_for(
        0, g.R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.M, 1)),
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const T* xr = x + r * g.M;
            const T* gr = gy + r * g.M;
            T* out = gx + r * g.M;
            int64_t a0 = (r % g.G) * g.per_group();
            double s_gy = 0, s_gyx = 0;  // sums of w*gy and w*gy*x
            if (g.L == 1) {
              for_spans2(
                  gr, xr, g.M,
                  [&](const C* __restrict pg, const C* __restrict px, int64_t off, int64_t len) {
                    const C* wr = w ? w + a0 + off : nullptr;
                    s_gy += wr ? lane_sum<C>(len, [&](int64_t i) { return pg[i] * wr[i]; })
                               : lane_sum<C>(len, [&](int64_t i) { return pg[i]; });
                    s_gyx += wr ? lane_sum<C>(len, [&](int64_t i) { return pg[i] * wr[i] * px[i]; })
                                : lane_sum<C>(len, [&](int64_t i) { return pg[i] * px[i]; });
                  });
            } else {
              for (int64_t c = 0; c < g.per_group(); ++c) {
                double wv = w ? double(w[a0 + c]) : 1.0;
                const T* xc = xr + c * g.L;
                const T* gc = gr + c * g.L;
                double sg = 0, sgx = 0;
                for_spans2(gc, xc, g.L, [&](const C* pg, const C* px, int64_t, int64_t len) {
                  sg += lane_sum<C>(len, [&](int64_t i) { return pg[i]; });
                  sgx += lane_sum<C>(len, [&](int64_t i) { return pg[i] * px[i]; });
                });
                s_gy += wv * sg;
                s_gyx += wv * sgx;
              }
            }
            double m = mean[r], rs = rstd[r], M = double(g.M);
            double A = s_gy / M, B = rs * (s_gyx - m * s_gy) / M;
            C cx = C(-rs * rs * B), c0 = C(rs * (m * rs * B - A)), rst = C(rs);
            if (g.L == 1) {
              map_spans2(gr, xr, out, g.M,
                         [rst, cx, c0, w, a0](auto pg, auto px, C* __restrict po, int64_t off,
                                              int64_t len) {
                           const C* __restrict wr = w ? w + a0 + off : nullptr;
                           if (wr) {
                             for (int64_t j = 0; j < len; ++j)
                               po[j] = rst * wr[j] * pg[j] + cx * px[j] + c0;
                           } else {
                             for (int64_t j = 0; j < len; ++j)
                               po[j] = rst * pg[j] + cx * px[j] + c0;
                           }
                         });
              continue;
            }
            for (int64_t c = 0; c < g.per_group(); ++c) {
              C k = rst * (w ? w[a0 + c] : C(1));
              map_spans2(gr + c * g.L, xr + c * g.L, out + c * g.L, g.L,
                         [k, cx, c0](auto pg, auto px, C* __restrict po, int64_t, int64_t len) {
                           for (int64_t l = 0; l < len; ++l) po[l] = k * pg[l] + cx * px[l] + c0;
                         });
            }
          }
        });
  }
  if ((gw || gb) && g.L == 1 && g.G == 1) {
    // layer_norm: column sums over rows; threads own disjoint column ranges.
    parallel_for(0, g.M, std::max<int64_t>(64, kGrainSize / std::max<int64_t>(g.R, 1)),
                 [&](int64_t j0, int64_t j1) {
                   std::vector<C> dw(size_t(j1 - j0), C(0)), db(size_t(j1 - j0), C(0));
                   for (int64_t r = 0; r < g.R; ++r) {
                     C m = mean[r], rs = rstd[r];
                     for_spans2(gy + r * g.M + j0, x + r * g.M + j0, j1 - j0,
                                [&dw, &db, m, rs](const C* __restrict pg, const C* __restrict px,
                                                  int64_t off, int64_t len) {
                                  C* __restrict dwp = dw.data() + off;
                                  C* __restrict dbp = db.data() + off;
                                  for (int64_t j = 0; j < len; ++j) {
                                    dwp[j] += pg[j] * (px[j] - m) * rs;
                                    dbp[j] += pg[j];
                                  }
                                });
                   }
                   for (int64_t j = j0; j < j1; ++j) {
                     if (gw) gw[j] = dw[size_t(j - j0)];
                     if (gb) gb[j] = db[size_t(j - j0)];
                   }
                 });
  } else if (gw || gb) {
    const int64_t A = g.G * g.per_group(), rows_per_group = g.R / g.G;
    parallel_for(0, A,
                 std::max<int64_t>(1, kGrainSize / std::max<int64_t>(rows_per_group * g.L, 1)),
                 [&](int64_t a0, int64_t a1) {
                   for (int64_t a = a0; a < a1; ++a) {
                     int64_t grp = a / g.per_group(), c = a % g.per_group();
                     double dw = 0, db = 0;
                     for (int64_t n = 0; n < rows_per_group; ++n) {
                       int64_t r = n * g.G + grp;
                       const T* xc = x + r * g.M + c * g.L;
                       const T* gc = gy + r * g.M + c * g.L;
                       C m = mean[r];
                       dw += double(rstd[r]) *
                             span_sum2(gc, xc, g.L, [m](C gv, C xv) { return gv * (xv - m); });
                       db += span_sum(gc, g.L, [](C gv) { return gv; });
                     }
                     if (gw) gw[a] = C(dw);
                     if (gb) gb[a] = C(db);
                   }
                 });
  }
}

// Composite (differentiable) backward of the row norm, for double backward. x4 is the input as
// [R/G, G, M/L, L]; w4/b4 as [1, G, M/L, 1].
TensorList row_norm_backward_composite(const Tensor& gy, const Tensor& x, const Tensor& w,
                                       const RowGeom& g, double eps, bool need_x, bool need_w,
                                       bool need_b) {
  Shape s4 = {g.R / g.G, g.G, g.per_group(), g.L};
  Tensor x4 = reshape(x, s4), g4 = reshape(gy, s4);
  DimList stat = {2, 3}, aff = {0, 3};
  Tensor mu = mean(x4, stat, true);
  Tensor xc = sub(x4, mu);
  Tensor rstd = pow(add(mean(mul(xc, xc), stat, true), Scalar(eps)), Scalar(-0.5));
  Tensor xhat = mul(xc, rstd);
  Tensor gx, gw, gb;
  if (need_x) {
    Tensor gyw = w.defined() ? mul(g4, reshape(w, {1, g.G, g.per_group(), 1})) : g4;
    gx = mul(rstd,
             sub(sub(gyw, mean(gyw, stat, true)), mul(xhat, mean(mul(gyw, xhat), stat, true))));
    gx = reshape(gx, x.sizes());
  }
  if (need_w) gw = reshape(sum(mul(g4, xhat), aff), w.sizes());
  if (need_b) gb = reshape(sum(g4, aff), {g.G * g.per_group()});
  return {gx, gw, gb};
}

// Casts a parameter gradient computed in the compute dtype back to its parameter's dtype.
Tensor to_param_dtype(const Tensor& g, DType dtype) { return g.defined() ? to_dtype(g, dtype) : g; }

// The composite (double-backward) formulas for float16/bfloat16 run in float32 through
// differentiable casts; results come back in each input's dtype.
template <typename Fn>
TensorList composite_in_float32(const Tensor& gy, const Tensor& x, const Tensor& w, DType w_dtype,
                                DType b_dtype, Fn&& fn) {
  if (!amp::is_reduced_float(x)) return fn(gy, x, w);
  auto f32 = [](const Tensor& t) { return t.defined() ? to_dtype(t, DType::Float32) : t; };
  TensorList r = fn(f32(gy), f32(x), f32(w));
  return {to_param_dtype(r[0], x.dtype()), to_param_dtype(r[1], w_dtype),
          to_param_dtype(r[2], b_dtype)};
}

Tensor row_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const RowGeom& g,
                double eps) {
  Tensor x = contiguous(input);
  const DType cdt = compute_dtype(x.dtype());
  Tensor w = compute_param(weight, x.dtype()), b = compute_param(bias, x.dtype());
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()));
  Tensor mean_t = empty({g.R}, TensorOptions(cdt)), rstd_t = empty({g.R}, TensorOptions(cdt));
  dispatch_dtype<kNormTypes>(x.dtype(), "norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    row_norm_forward<T>(x.data<T>(), ptr_or_null<C>(w), ptr_or_null<C>(b), y.data<T>(),
                        mean_t.data<C>(), rstd_t.data<C>(), g, eps);
  });
  if (autograd::needs_grad({input, weight, bias})) {
    bool need_x = input.requires_grad(), need_w = weight.defined() && weight.requires_grad();
    bool need_b = bias.defined() && bias.requires_grad();
    Shape affine_shape = weight.defined() ? weight.sizes()
                         : bias.defined() ? bias.sizes()
                                          : Shape{};
    DType w_dtype = weight.defined() ? weight.dtype() : cdt,
          b_dtype = bias.defined() ? bias.dtype() : cdt;
    autograd::record(
        "NativeNormBackward0", {input, weight, bias}, {y}, {input, weight, mean_t, rstd_t},
        [g, eps, need_x, need_w, need_b, affine_shape, w_dtype, b_dtype](
            const TensorList& s, const TensorList& gr) -> TensorList {
          if (autograd::grad_enabled()) {
            TensorList r = composite_in_float32(
                gr[0], s[0], s[1], w_dtype, b_dtype,
                [&](const Tensor& gy, const Tensor& x, const Tensor& w) {
                  return row_norm_backward_composite(gy, x, w, g, eps, need_x, need_w, need_b);
                });
            if (need_b) r[2] = reshape(r[2], affine_shape);
            return r;
          }
          Tensor gy = contiguous(gr[0]), xs = contiguous(s[0]);
          const DType cdt = compute_dtype(xs.dtype());
          Tensor ws = compute_param(s[1], xs.dtype());
          Tensor gx = need_x ? empty(xs.sizes(), TensorOptions(xs.dtype())) : Tensor();
          int64_t A = g.G * g.per_group();
          Tensor gw = need_w ? empty({A}, TensorOptions(cdt)) : Tensor();
          Tensor gb = need_b ? empty({A}, TensorOptions(cdt)) : Tensor();
          dispatch_dtype<kNormTypes>(xs.dtype(), "norm backward", [&](auto tag) {
            using T = typename decltype(tag)::type;
            using C = compute_t<T>;
            row_norm_backward<T>(gy.data<T>(), xs.data<T>(), ptr_or_null<C>(ws), s[2].data<C>(),
                                 s[3].data<C>(), need_x ? gx.data<T>() : nullptr,
                                 need_w ? gw.data<C>() : nullptr, need_b ? gb.data<C>() : nullptr,
                                 g);
          });
          if (need_w) gw = to_param_dtype(reshape(gw, affine_shape), w_dtype);
          if (need_b) gb = to_param_dtype(reshape(gb, affine_shape), b_dtype);
          return {gx, gw, gb};
        });
  }
  return y;
}

// Input dtypes: float32/float64/float16/bfloat16 (the 16-bit types natively on the CPU, through
// cuDNN/CUDA kernels on the GPU).
void check_input_dtype(const char* op, const Tensor& input) {
  TC_CHECK_TYPE(is_floating(input.dtype()), op,
                ": expected a float32, float64, float16 or bfloat16 input, got ",
                dtype_name(input.dtype()));
}

void check_float(const char* op, const Tensor& t, const char* what, DType want) {
  if (!t.defined()) return;
  // A float16/bfloat16 input may come with float32 parameters (mixed precision), as in torch.
  bool mixed_ok =
      t.dtype() == DType::Float32 && (want == DType::Float16 || want == DType::BFloat16);
  TC_CHECK_TYPE(t.dtype() == want || mixed_ok, op, ": ", what, " dtype ", dtype_name(t.dtype()),
                " does not match input dtype ", dtype_name(want));
}

// ---- batch norm ----

struct ChanGeom {
  int64_t N, C, L;
};

// T is the storage type; parameters, running and saved statistics are in C = compute_t<T>.
template <typename T>
void batch_norm_forward(const T* x, const compute_t<T>* w, const compute_t<T>* b, T* y,
                        compute_t<T>* save_mean, compute_t<T>* save_rstd, compute_t<T>* run_mean,
                        compute_t<T>* run_var, const ChanGeom& g, bool training, double momentum,
                        double eps) {
  using C = compute_t<T>;
  const int64_t M = g.N * g.L;
  parallel_for(0, g.C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(M, 1)),
               [&](int64_t c0, int64_t c1) {
                 for (int64_t c = c0; c < c1; ++c) {
                   double mean, var;
                   if (training) {
                     double s = 0;
                     for (int64_t n = 0; n < g.N; ++n)
                       s += span_sum(x + (n * g.C + c) * g.L, g.L, [](C v) { return v; });
                     mean = s / double(M);
                     C m = C(mean);
                     double ss = 0;
                     for (int64_t n = 0; n < g.N; ++n)
                       ss += span_sum(x + (n * g.C + c) * g.L, g.L, [m](C v) {
                         C d = v - m;
                         return d * d;
                       });
                     var = ss / double(M);
                     if (run_mean)
                       run_mean[c] = C((1 - momentum) * double(run_mean[c]) + momentum * mean);
                     if (run_var)
                       run_var[c] = C((1 - momentum) * double(run_var[c]) +
                                      momentum * var * double(M) / double(M - 1));
                   } else {
                     mean = double(run_mean[c]);
                     var = double(run_var[c]);
                   }
                   C rstd = C(1.0 / std::sqrt(var + eps));
                   save_mean[c] = C(mean);
                   save_rstd[c] = rstd;
                   C scale = rstd * (w ? w[c] : C(1));
                   C shift = (b ? b[c] : C(0)) - C(mean) * scale;
                   for (int64_t n = 0; n < g.N; ++n) {
                     int64_t off = (n * g.C + c) * g.L;
                     map_spans(x + off, y + off, g.L,
                               [scale, shift](auto in, C* __restrict out, int64_t, int64_t len) {
                                 for (int64_t i = 0; i < len; ++i) out[i] = in[i] * scale + shift;
                               });
                   }
                 }
               });
}

template <typename T>
void batch_norm_backward(const T* gy, const T* x, const compute_t<T>* w, const compute_t<T>* mean,
                         const compute_t<T>* rstd, T* gx, compute_t<T>* gw, compute_t<T>* gb,
                         const ChanGeom& g, bool training) {
  using C = compute_t<T>;
  const int64_t M = g.N * g.L;
  parallel_for(
      0, g.C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(M, 1)),
      [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          C m = mean[c];
          double s_gy = 0, dot = 0;  // sum(gy), sum(gy * (x - mean))
          // Eval mode without weight/bias gradients: gx = w * rstd * gy needs no sums.
          const bool need_sums = training || gw || gb;
          for (int64_t n = 0; n < g.N && need_sums; ++n) {
            int64_t off = (n * g.C + c) * g.L;
            for_spans2(gy + off, x + off, g.L,
                       [&s_gy, &dot, m](const C* __restrict pg, const C* __restrict px, int64_t,
                                        int64_t len) {
                         s_gy += lane_sum<C>(len, [&](int64_t i) { return pg[i]; });
                         dot += lane_sum<C>(len, [&](int64_t i) { return pg[i] * (px[i] - m); });
                       });
          }
          double rs = rstd[c], wv = w ? double(w[c]) : 1.0;
          if (gw) gw[c] = C(dot * rs);
          if (gb) gb[c] = C(s_gy);
          if (!gx) continue;
          C k = C(rs * wv), cx, c0v;
          if (training) {
            // gx = w*rs*(gy - s_gy/M - (x-m)*rs^2*dot/M)
            double proj = rs * rs * dot / double(M);
            cx = C(-wv * rs * proj);
            c0v = C(wv * rs * (double(m) * proj - s_gy / double(M)));
          } else {
            cx = C(0);
            c0v = C(0);
          }
          for (int64_t n = 0; n < g.N; ++n) {
            int64_t off = (n * g.C + c) * g.L;
            map_spans2(gy + off, x + off, gx + off, g.L,
                       [k, cx, c0v](auto pg, auto px, C* __restrict po, int64_t, int64_t len) {
                         for (int64_t i = 0; i < len; ++i) po[i] = k * pg[i] + cx * px[i] + c0v;
                       });
          }
        }
      });
}

TensorList batch_norm_backward_composite(const Tensor& gy, const Tensor& x, const Tensor& w,
                                         const Tensor& save_mean, const Tensor& save_rstd,
                                         const ChanGeom& g, bool training, double eps, bool need_x,
                                         bool need_w, bool need_b) {
  Shape s3 = {g.N, g.C, g.L};
  Tensor x3 = reshape(x, s3), g3 = reshape(gy, s3);
  DimList stat = {0, 2};
  Tensor mu, rstd;
  if (training) {
    mu = mean(x3, stat, true);
    rstd = pow(add(mean(mul(sub(x3, mu), sub(x3, mu)), stat, true), Scalar(eps)), Scalar(-0.5));
  } else {
    mu = reshape(save_mean, {1, g.C, 1});
    rstd = reshape(save_rstd, {1, g.C, 1});
  }
  Tensor xhat = mul(sub(x3, mu), rstd);
  Tensor gx, gw, gb;
  if (need_x) {
    Tensor gyw = w.defined() ? mul(g3, reshape(w, {1, g.C, 1})) : g3;
    if (training)
      gx = mul(rstd,
               sub(sub(gyw, mean(gyw, stat, true)), mul(xhat, mean(mul(gyw, xhat), stat, true))));
    else
      gx = mul(gyw, rstd);
    gx = reshape(gx, x.sizes());
  }
  if (need_w) gw = sum(mul(g3, xhat), stat);
  if (need_b) gb = sum(g3, stat);
  return {gx, gw, gb};
}

}  // namespace

namespace functional {

Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  TC_AUTOCAST("layer_norm", layer_norm, input, normalized_shape, weight, bias, eps);
  const char* op = "layer_norm";
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  check_input_dtype(op, input);
  int64_t k = int64_t(normalized_shape.size());
  TC_CHECK(k >= 1, op, ": normalized_shape must not be empty");
  bool tail_ok = input.dim() >= k;
  for (int64_t i = 0; tail_ok && i < k; ++i)
    tail_ok = input.size(input.dim() - k + i) == normalized_shape[size_t(i)];
  TC_CHECK(tail_ok, op, ": expected input with shape [*, ", shape_str(normalized_shape).substr(1),
           ", but got input of size ", shape_str(input.sizes()));
  for (const Tensor* t : {&weight, &bias}) {
    if (!t->defined()) continue;
    TC_CHECK(t->sizes() == Shape(normalized_shape), op, ": expected weight and bias of shape ",
             shape_str(normalized_shape), ", got ", shape_str(t->sizes()));
    check_float(op, *t, t == &weight ? "weight" : "bias", input.dtype());
  }
  detail::require_same_device(op, {&input, &weight, &bias});
  if (input.numel() == 0) return mul(input, Scalar(1));
  return layer_norm_kernel.get(input.device().type)(input, k, weight, bias, eps);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  TC_AUTOCAST("group_norm", group_norm, input, num_groups, weight, bias, eps);
  const char* op = "group_norm";
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  check_input_dtype(op, input);
  TC_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims [N, C, *], got shape ",
           shape_str(input.sizes()));
  const int64_t C = input.size(1);
  TC_CHECK(num_groups > 0 && C % num_groups == 0, op, ": expected number of channels in input (", C,
           ") to be divisible by num_groups (", num_groups, ")");
  for (const Tensor* t : {&weight, &bias}) {
    if (!t->defined()) continue;
    TC_CHECK(t->dim() == 1 && t->size(0) == C, op, ": expected weight and bias of shape [", C,
             "], got ", shape_str(t->sizes()));
    check_float(op, *t, t == &weight ? "weight" : "bias", input.dtype());
  }
  detail::require_same_device(op, {&input, &weight, &bias});
  if (input.numel() == 0) return mul(input, Scalar(1));
  return group_norm_kernel.get(input.device().type)(input, num_groups, weight, bias, eps);
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  const char* op = "batch_norm";
  TC_CHECK(input.defined(), op, ": input must be a tensor");
  check_input_dtype(op, input);
  TC_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims [N, C, *], got shape ",
           shape_str(input.sizes()));
  int64_t N = input.size(0), C = input.size(1);
  int64_t L = (N * C != 0) ? input.numel() / (N * C) : 0;
  for (const Tensor* t : {&running_mean, &running_var, &weight, &bias}) {
    if (!t->defined()) continue;
    TC_CHECK(t->dim() == 1 && t->size(0) == C, op,
             ": expected running stats, weight and bias of shape [", C, "] for input ",
             shape_str(input.sizes()), ", got ", shape_str(t->sizes()));
    check_float(op, *t, "parameter", input.dtype());
  }
  TC_CHECK(training || (running_mean.defined() && running_var.defined()), op,
           ": running_mean and running_var must be given when training=False");
  if (training)
    TC_CHECK(N * L > 1, op,
             ": expected more than 1 value per channel when training, got input size ",
             shape_str(input.sizes()));
  detail::require_same_device(op, {&input, &running_mean, &running_var, &weight, &bias});
  return batch_norm_kernel.get(input.device().type)(input, running_mean, running_var, weight, bias,
                                                    training, momentum, eps);
}

}  // namespace functional

namespace {

Tensor layer_norm_cpu(const Tensor& input, int64_t normalized_dims, const Tensor& weight,
                      const Tensor& bias, double eps) {
  int64_t M = 1;
  for (int64_t d = input.dim() - normalized_dims; d < input.dim(); ++d) M *= input.size(d);
  RowGeom g{M ? input.numel() / M : 0, M, 1, 1};
  return row_norm(input, weight, bias, g, eps);
}

Tensor group_norm_cpu(const Tensor& input, int64_t num_groups, const Tensor& weight,
                      const Tensor& bias, double eps) {
  const int64_t N = input.size(0), C = input.size(1), L = input.numel() / (N * C);
  RowGeom g{N * num_groups, (C / num_groups) * L, num_groups, L};
  return row_norm(input, weight, bias, g, eps);
}

Tensor batch_norm_cpu(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                      const Tensor& weight, const Tensor& bias, bool training, double momentum,
                      double eps) {
  const char* op = "batch_norm";
  const int64_t N = input.size(0), C = input.size(1);
  const int64_t L = (N * C != 0) ? input.numel() / (N * C) : 0;
  ChanGeom g{N, C, L};
  Tensor x = contiguous(input);
  const DType cdt = compute_dtype(x.dtype());
  Tensor w = compute_param(weight, x.dtype()), b = compute_param(bias, x.dtype());
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()));
  Tensor save_mean = empty({C}, TensorOptions(cdt)), save_rstd = empty({C}, TensorOptions(cdt));
  // Running stats update in place; through a contiguous compute-dtype copy when they are strided
  // or float16/bfloat16 (float32 stats with a bfloat16 input are updated directly, as torch's
  // mixed-type batch norm).
  Tensor rm = running_mean.defined() ? to_dtype(contiguous(running_mean), cdt) : running_mean;
  Tensor rv = running_var.defined() ? to_dtype(contiguous(running_var), cdt) : running_var;
  dispatch_dtype<kNormTypes>(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Cc = compute_t<T>;
    batch_norm_forward<T>(x.data<T>(), ptr_or_null<Cc>(w), ptr_or_null<Cc>(b), y.data<T>(),
                          save_mean.data<Cc>(), save_rstd.data<Cc>(), mut_ptr_or_null<Cc>(rm),
                          mut_ptr_or_null<Cc>(rv), g, training, momentum, eps);
  });
  if (training) {
    autograd::NoGradGuard no_grad;
    if (rm.defined()) {
      if (!rm.is_same(running_mean)) copy_(running_mean, rm);
      running_mean.bump_version();
    }
    if (rv.defined()) {
      if (!rv.is_same(running_var)) copy_(running_var, rv);
      running_var.bump_version();
    }
  }
  if (autograd::needs_grad({input, weight, bias})) {
    bool need_x = input.requires_grad(), need_w = weight.defined() && weight.requires_grad();
    bool need_b = bias.defined() && bias.requires_grad();
    DType w_dtype = weight.defined() ? weight.dtype() : cdt,
          b_dtype = bias.defined() ? bias.dtype() : cdt;
    autograd::record("NativeBatchNormBackward0", {input, weight, bias}, {y},
                     {input, weight, save_mean, save_rstd},
                     [g, eps, training, need_x, need_w, need_b, w_dtype, b_dtype](
                         const TensorList& s, const TensorList& gr) -> TensorList {
                       if (autograd::grad_enabled())
                         return composite_in_float32(
                             gr[0], s[0], s[1], w_dtype, b_dtype,
                             [&](const Tensor& gy, const Tensor& x, const Tensor& w) {
                               return batch_norm_backward_composite(
                                   gy, x, w, s[2], s[3], g, training, eps, need_x, need_w, need_b);
                             });
                       Tensor gy = contiguous(gr[0]), xs = contiguous(s[0]);
                       const DType cdt = compute_dtype(xs.dtype());
                       Tensor ws = compute_param(s[1], xs.dtype());
                       Tensor gx = need_x ? empty(xs.sizes(), TensorOptions(xs.dtype())) : Tensor();
                       Tensor gw = need_w ? empty({g.C}, TensorOptions(cdt)) : Tensor();
                       Tensor gb = need_b ? empty({g.C}, TensorOptions(cdt)) : Tensor();
                       dispatch_dtype<kNormTypes>(xs.dtype(), "batch_norm backward", [&](auto tag) {
                         using T = typename decltype(tag)::type;
                         using Cc = compute_t<T>;
                         batch_norm_backward<T>(gy.data<T>(), xs.data<T>(), ptr_or_null<Cc>(ws),
                                                s[2].data<Cc>(), s[3].data<Cc>(),
                                                need_x ? gx.data<T>() : nullptr,
                                                need_w ? gw.data<Cc>() : nullptr,
                                                need_b ? gb.data<Cc>() : nullptr, g, training);
                       });
                       return {gx, to_param_dtype(gw, w_dtype), to_param_dtype(gb, b_dtype)};
                     });
  }
  return y;
}

TC_REGISTER_KERNEL(layer_norm_kernel, CPU, layer_norm_cpu);
TC_REGISTER_KERNEL(group_norm_kernel, CPU, group_norm_cpu);
TC_REGISTER_KERNEL(batch_norm_kernel, CPU, batch_norm_cpu);

}  // namespace

namespace functional {

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool use_input_stats,
                     double momentum, double eps) {
  const char* op = "instance_norm";
  TC_CHECK(input.defined() && input.dim() >= 3, op,
           ": expected an input of at least 3 dims [N, C, *], got shape ",
           input.defined() ? shape_str(input.sizes()) : "None");
  int64_t N = input.size(0), C = input.size(1);
  for (const Tensor* t : {&running_mean, &running_var, &weight, &bias})
    if (t->defined())
      TC_CHECK(t->dim() == 1 && t->size(0) == C, op,
               ": expected running stats, weight and bias of shape [", C, "], got ",
               shape_str(t->sizes()));
  // Each (sample, channel) is its own batch-norm channel.
  Shape flat = {1, N * C};
  flat.insert(flat.end(), input.sizes().begin() + 2, input.sizes().end());
  Tensor x = reshape(input, flat);
  Tensor w = weight.defined() ? repeat(weight, {N}) : weight;
  Tensor b = bias.defined() ? repeat(bias, {N}) : bias;
  Tensor rm = running_mean.defined() ? repeat(running_mean.detach(), {N}) : Tensor();
  Tensor rv = running_var.defined() ? repeat(running_var.detach(), {N}) : Tensor();
  Tensor y = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps);
  if (use_input_stats) {
    // The running stats average the per-sample updates, as torch does.
    if (running_mean.defined()) {
      Tensor rmc = running_mean;
      copy_(rmc, mean(reshape(rm, {N, C}), {0}));
    }
    if (running_var.defined()) {
      Tensor rvc = running_var;
      copy_(rvc, mean(reshape(rv, {N, C}), {0}));
    }
  }
  return reshape(y, input.sizes());
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  const char* op = "local_response_norm";
  TC_CHECK(input.defined() && input.dim() >= 3, op,
           ": expected an input of at least 3 dims [N, C, *], got shape ",
           input.defined() ? shape_str(input.sizes()) : "None");
  TC_CHECK(size > 0, op, ": size must be positive, got ", size);
  int64_t C = input.size(1);
  // Sum of squares over the channel window [c - size/2, c + (size-1)/2] via a padded cumsum.
  Tensor sq = mul(input, input);
  Shape pad_shape = input.sizes();
  pad_shape[1] = 1;
  Tensor zero = zeros(pad_shape, TensorOptions(input.dtype()));
  Tensor cs = cumsum(cat({zero, sq}, 1), 1);  // cs[c] = sum of sq[0..c)
  std::vector<int64_t> hi(static_cast<size_t>(C)), lo(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    hi[size_t(c)] = std::min(c + (size - 1) / 2 + 1, C);
    lo[size_t(c)] = std::max<int64_t>(c - size / 2, 0);
  }
  Tensor idx_hi = from_vector(hi, {C}), idx_lo = from_vector(lo, {C});
  Tensor win = sub(index_select(cs, 1, idx_hi), index_select(cs, 1, idx_lo));
  Tensor div = pow(add(mul(win, Scalar(alpha / double(size))), Scalar(k)), Scalar(beta));
  return tc::div(input, div);
}

}  // namespace functional
}  // namespace tc::nn
