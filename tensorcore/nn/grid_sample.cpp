// grid_sample (4-d input: bilinear / nearest / bicubic; 5-d: trilinear / nearest; zeros / border /
// reflection padding) with fused
// forward and backward kernels (gradients for input and grid), and affine_grid as a composite.
// Coordinate conventions follow torch: grid values in [-1, 1] map to pixel centers
// (align_corners=False) or corner pixels (align_corners=True).
#include <cmath>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/cudnn/nn_cuda.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

enum class Pad { Zeros, Border, Reflection };

struct GridGeom {
  int64_t N, C, H, W, Ho, Wo;
  bool nearest, align;
  Pad pad;
  bool bicubic = false;
};

template <typename T>
T reflect(T x, T twice_low, T twice_high, T& grad) {
  if (twice_low == twice_high) {
    grad = 0;
    return 0;
  }
  T lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  T sign = 1;
  x -= lo;
  if (x < 0) {
    sign = -1;
    x = -x;
  }
  T extra = std::fmod(x, span);
  int64_t flips = int64_t(std::floor(x / span));
  if (flips % 2 == 0) {
    grad = sign;
    return extra + lo;
  }
  grad = -sign;
  return span - extra + lo;
}

template <typename T>
T clip(T x, int64_t size, T& grad) {
  if (x <= T(0)) {
    grad = 0;
    return 0;
  }
  T hi = T(size - 1);
  if (x >= hi) {
    grad = 0;
    return hi;
  }
  grad = 1;
  return x;
}

// Grid value -> source pixel coordinate, with d(coordinate)/d(grid value) in `grad`.
template <typename T>
T source_index(T v, int64_t size, Pad pad, bool align, T& grad) {
  T x, g;
  if (align) {
    x = (v + 1) / 2 * T(size - 1);
    g = T(size - 1) / 2;
  } else {
    x = ((v + 1) * T(size) - 1) / 2;
    g = T(size) / 2;
  }
  if (pad == Pad::Border) {
    T gc;
    x = clip(x, size, gc);
    g *= gc;
  } else if (pad == Pad::Reflection) {
    T gr, gc;
    x = align ? reflect(x, T(0), T(2 * (size - 1)), gr) : reflect(x, T(-1), T(2 * size - 1), gr);
    x = clip(x, size, gc);
    g *= gr * gc;
  }
  grad = g;
  return x;
}

// Cubic convolution weight (A = -0.75, torch's) and its derivative.
template <typename T>
T cubic_w(T x) {
  const T A = T(-0.75);
  x = std::abs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}
template <typename T>
T cubic_dw(T x) {
  const T A = T(-0.75);
  T s = x < 0 ? T(-1) : T(1);
  x = std::abs(x);
  if (x <= 1) return s * (3 * (A + 2) * x * x - 2 * (A + 3) * x);
  if (x < 2) return s * (3 * A * x * x - 10 * A * x + 8 * A);
  return 0;
}

// Where a bicubic tap actually reads: border/reflection move it inside; zeros leaves it (and
// out-of-range taps read 0).
template <typename T>
int64_t tap_coord(int64_t i, int64_t size, Pad pad, bool align) {
  if (pad == Pad::Zeros) return i;
  T x = T(i), g;
  if (pad == Pad::Reflection)
    x = align ? reflect(x, T(0), T(2 * (size - 1)), g) : reflect(x, T(-1), T(2 * size - 1), g);
  x = clip(x, size, g);
  return int64_t(x);
}

template <typename T>
T unnormalize(T v, int64_t size, bool align, T& grad) {
  grad = align ? T(size - 1) / 2 : T(size) / 2;
  return align ? (v + 1) / 2 * T(size - 1) : ((v + 1) * T(size) - 1) / 2;
}

// Bicubic sampling of one output location; with go (gradient of the output), accumulates the
// input gradient into gsrc and returns d out/d(ix, iy) contracted with go in dix/diy.
template <typename T>
void bicubic_point(const T* src, T* dst, int64_t P, const T* go, T* gsrc, T& dix, T& diy, T ix, T iy,
                   const GridGeom& g) {
  T fx = std::floor(ix), fy = std::floor(iy);
  T tx = ix - fx, ty = iy - fy;
  T wx[4], wy[4], dwx[4], dwy[4];
  int64_t xs[4], ys[4];
  for (int j = 0; j < 4; ++j) {
    wx[j] = cubic_w(tx - T(j - 1));
    wy[j] = cubic_w(ty - T(j - 1));
    dwx[j] = cubic_dw(tx - T(j - 1));
    dwy[j] = cubic_dw(ty - T(j - 1));
    xs[j] = tap_coord<T>(int64_t(fx) - 1 + j, g.W, g.pad, g.align);
    ys[j] = tap_coord<T>(int64_t(fy) - 1 + j, g.H, g.pad, g.align);
  }
  dix = diy = 0;
  for (int64_t c = 0; c < g.C; ++c) {
    const T* sc = src + c * g.H * g.W;
    T acc = 0, gv = go ? go[c * P] : T(0);
    for (int a = 0; a < 4; ++a) {
      if (ys[a] < 0 || ys[a] >= g.H) continue;
      for (int b = 0; b < 4; ++b) {
        if (xs[b] < 0 || xs[b] >= g.W) continue;
        T v = sc[ys[a] * g.W + xs[b]];
        acc += wy[a] * wx[b] * v;
        if (go) {
          if (gsrc) gsrc[c * g.H * g.W + ys[a] * g.W + xs[b]] += wy[a] * wx[b] * gv;
          dix += wy[a] * dwx[b] * v * gv;
          diy += dwy[a] * wx[b] * v * gv;
        }
      }
    }
    if (dst) dst[c * P] = acc;
  }
}

template <typename T>
void grid_forward(const T* in, const T* grid, T* out, const GridGeom& g) {
  const int64_t P = g.Ho * g.Wo;
  parallel_for(0, g.N * P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(4 * g.C, 1)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      int64_t n = i / P, p = i % P;
      T gx, gy;
      if (g.bicubic) {
        T dix, diy;
        T bx = unnormalize(grid[i * 2], g.W, g.align, gx), by = unnormalize(grid[i * 2 + 1], g.H, g.align, gy);
        bicubic_point<T>(in + n * g.C * g.H * g.W, out + n * g.C * P + p, P, nullptr, nullptr, dix, diy, bx, by, g);
        continue;
      }
      T ix = source_index(grid[i * 2], g.W, g.pad, g.align, gx);
      T iy = source_index(grid[i * 2 + 1], g.H, g.pad, g.align, gy);
      const T* src = in + n * g.C * g.H * g.W;
      T* dst = out + n * g.C * P + p;
      if (g.nearest) {
        int64_t x = int64_t(std::nearbyint(ix)), y = int64_t(std::nearbyint(iy));
        bool ok = x >= 0 && x < g.W && y >= 0 && y < g.H;
        for (int64_t c = 0; c < g.C; ++c) dst[c * P] = ok ? src[c * g.H * g.W + y * g.W + x] : T(0);
        continue;
      }
      int64_t x0 = int64_t(std::floor(ix)), y0 = int64_t(std::floor(iy));
      T fx = ix - T(x0), fy = iy - T(y0);
      T w[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
      int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
      for (int64_t c = 0; c < g.C; ++c) {
        const T* sc = src + c * g.H * g.W;
        T acc = 0;
        for (int k = 0; k < 4; ++k)
          if (xs[k] >= 0 && xs[k] < g.W && ys[k] >= 0 && ys[k] < g.H) acc += w[k] * sc[ys[k] * g.W + xs[k]];
        dst[c * P] = acc;
      }
    }
  });
}

// Input gradients scatter into the sample's planes: parallel over samples keeps writes disjoint.
template <typename T>
void grid_backward(const T* gout, const T* in, const T* grid, T* gin, T* ggrid, const GridGeom& g) {
  const int64_t P = g.Ho * g.Wo;
  parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* src = in + n * g.C * g.H * g.W;
      T* gsrc = gin ? gin + n * g.C * g.H * g.W : nullptr;
      for (int64_t p = 0; p < P; ++p) {
        int64_t i = n * P + p;
        T gxm, gym;
        if (g.bicubic) {
          T dix, diy;
          T bx = unnormalize(grid[i * 2], g.W, g.align, gxm), by = unnormalize(grid[i * 2 + 1], g.H, g.align, gym);
          bicubic_point<T>(src, nullptr, P, gout + n * g.C * P + p, gsrc, dix, diy, bx, by, g);
          if (ggrid) {
            ggrid[i * 2] = dix * gxm;
            ggrid[i * 2 + 1] = diy * gym;
          }
          continue;
        }
        T ix = source_index(grid[i * 2], g.W, g.pad, g.align, gxm);
        T iy = source_index(grid[i * 2 + 1], g.H, g.pad, g.align, gym);
        const T* go = gout + n * g.C * P + p;
        if (g.nearest) {
          int64_t x = int64_t(std::nearbyint(ix)), y = int64_t(std::nearbyint(iy));
          if (gsrc && x >= 0 && x < g.W && y >= 0 && y < g.H)
            for (int64_t c = 0; c < g.C; ++c) gsrc[c * g.H * g.W + y * g.W + x] += go[c * P];
          if (ggrid) ggrid[i * 2] = ggrid[i * 2 + 1] = 0;
          continue;
        }
        int64_t x0 = int64_t(std::floor(ix)), y0 = int64_t(std::floor(iy));
        T fx = ix - T(x0), fy = iy - T(y0);
        T w[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
        T dwdx[4] = {-(1 - fy), (1 - fy), -fy, fy}, dwdy[4] = {-(1 - fx), -fx, (1 - fx), fx};
        int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
        T dix = 0, diy = 0;
        for (int k = 0; k < 4; ++k) {
          if (!(xs[k] >= 0 && xs[k] < g.W && ys[k] >= 0 && ys[k] < g.H)) continue;
          int64_t off = ys[k] * g.W + xs[k];
          for (int64_t c = 0; c < g.C; ++c) {
            T gv = go[c * P];
            if (gsrc) gsrc[c * g.H * g.W + off] += w[k] * gv;
            T v = src[c * g.H * g.W + off] * gv;
            dix += dwdx[k] * v;
            diy += dwdy[k] * v;
          }
        }
        if (ggrid) {
          ggrid[i * 2] = dix * gxm;
          ggrid[i * 2 + 1] = diy * gym;
        }
      }
    }
  });
}

struct GridGeom3 {
  int64_t N, C, D, H, W, Do, Ho, Wo;
  bool nearest, align;
  Pad pad;
};

// Volumetric sampling (5-d input, grid [N, Do, Ho, Wo, 3] holding (x, y, z)); with gout, the
// backward pass (input gradient scattered per sample, grid gradient per location).
template <typename T>
void grid3d(const T* in, const T* grid, T* out, const T* gout, T* gin, T* ggrid, const GridGeom3& g) {
  const int64_t P = g.Do * g.Ho * g.Wo, V = g.D * g.H * g.W;
  parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* src = in + n * g.C * V;
      T* gsrc = gin ? gin + n * g.C * V : nullptr;
      for (int64_t p = 0; p < P; ++p) {
        int64_t i = n * P + p;
        T mx, my, mz;
        T ix = source_index(grid[i * 3], g.W, g.pad, g.align, mx);
        T iy = source_index(grid[i * 3 + 1], g.H, g.pad, g.align, my);
        T iz = source_index(grid[i * 3 + 2], g.D, g.pad, g.align, mz);
        T* dst = out ? out + n * g.C * P + p : nullptr;
        const T* go = gout ? gout + n * g.C * P + p : nullptr;
        if (g.nearest) {
          int64_t x = int64_t(std::nearbyint(ix)), y = int64_t(std::nearbyint(iy)), z = int64_t(std::nearbyint(iz));
          bool ok = x >= 0 && x < g.W && y >= 0 && y < g.H && z >= 0 && z < g.D;
          int64_t off = (z * g.H + y) * g.W + x;
          for (int64_t c = 0; c < g.C; ++c) {
            if (dst) dst[c * P] = ok ? src[c * V + off] : T(0);
            if (go && gsrc && ok) gsrc[c * V + off] += go[c * P];
          }
          if (ggrid) ggrid[i * 3] = ggrid[i * 3 + 1] = ggrid[i * 3 + 2] = 0;
          continue;
        }
        int64_t x0 = int64_t(std::floor(ix)), y0 = int64_t(std::floor(iy)), z0 = int64_t(std::floor(iz));
        T fx = ix - T(x0), fy = iy - T(y0), fz = iz - T(z0);
        T dix = 0, diy = 0, diz = 0;
        for (int64_t c = 0; c < g.C; ++c) {
          T acc = 0, gv = go ? go[c * P] : T(0);
          for (int k = 0; k < 8; ++k) {
            int dx = k & 1, dy = (k >> 1) & 1, dz = k >> 2;
            int64_t x = x0 + dx, y = y0 + dy, z = z0 + dz;
            if (x < 0 || x >= g.W || y < 0 || y >= g.H || z < 0 || z >= g.D) continue;
            T wx = dx ? fx : 1 - fx, wy = dy ? fy : 1 - fy, wz = dz ? fz : 1 - fz;
            int64_t off = c * V + (z * g.H + y) * g.W + x;
            T v = src[off];
            acc += wx * wy * wz * v;
            if (go) {
              if (gsrc) gsrc[off] += wx * wy * wz * gv;
              T sx = dx ? T(1) : T(-1), sy = dy ? T(1) : T(-1), sz = dz ? T(1) : T(-1);
              dix += sx * wy * wz * v * gv;
              diy += sy * wx * wz * v * gv;
              diz += sz * wx * wy * v * gv;
            }
          }
          if (dst) dst[c * P] = acc;
        }
        if (ggrid) {
          ggrid[i * 3] = dix * mx;
          ggrid[i * 3 + 1] = diy * my;
          ggrid[i * 3 + 2] = diz * mz;
        }
      }
    }
  });
}

Tensor grid_sample_3d(const Tensor& input, const Tensor& grid, const std::string& mode, Pad pad,
                      bool align_corners) {
  const char* op = "grid_sample";
  TC_CHECK(grid.dim() == 5 && grid.size(4) == 3 && grid.size(0) == input.size(0), op,
           ": expected grid of shape [", input.size(0), ", D_out, H_out, W_out, 3] for a 5-d input, got ",
           shape_str(grid.sizes()));
  TC_CHECK(mode == "bilinear" || mode == "nearest", op,
           ": mode must be 'bilinear' or 'nearest' for 5-d inputs, got '", mode, "'");
  GridGeom3 g{input.size(0), input.size(1), input.size(2), input.size(3), input.size(4), grid.size(1),
              grid.size(2), grid.size(3), mode == "nearest", align_corners, pad};
  TC_CHECK(g.D > 0 && g.H > 0 && g.W > 0, op, ": input ", shape_str(input.sizes()), " has an empty spatial dim");
  Tensor x = contiguous(input), gr = contiguous(grid);
  Tensor out = empty({g.N, g.C, g.Do, g.Ho, g.Wo}, TensorOptions(x.dtype()));
  dispatch_dtype<kF32F64>(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    grid3d<T>(x.data<T>(), gr.data<T>(), out.data<T>(), nullptr, nullptr, nullptr, g);
  });
  if (autograd::needs_grad({input, grid})) {
    bool need_x = input.requires_grad(), need_g = grid.requires_grad();
    autograd::record("GridSampler3DBackward0", {input, grid}, {out}, {input, grid},
                     [g, need_x, need_g](const TensorList& s, const TensorList& gr_) -> TensorList {
      Tensor go = contiguous(gr_[0]).detach(), xs = contiguous(s[0]).detach(), gs = contiguous(s[1]).detach();
      Tensor gx = need_x ? zeros(xs.sizes(), TensorOptions(xs.dtype())) : Tensor();
      Tensor gg = need_g ? empty(gs.sizes(), TensorOptions(gs.dtype())) : Tensor();
      dispatch_dtype<kF32F64>(xs.dtype(), "grid_sample backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        grid3d<T>(xs.data<T>(), gs.data<T>(), nullptr, go.data<T>(), need_x ? gx.data<T>() : nullptr,
                  need_g ? gg.data<T>() : nullptr, g);
      });
      return {gx, gg};
    });
  }
  return out;
}

}  // namespace

namespace functional {

Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode,
                   const std::string& padding_mode, bool align_corners) {
  TC_AUTOCAST("grid_sampler", grid_sample, input, grid, mode, padding_mode, align_corners);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, grid_sample, input, grid, mode, padding_mode, align_corners);
  const char* op = "grid_sample";
  TC_CHECK(input.defined() && grid.defined(), op, ": input and grid must be tensors");
  detail::require_cpu(op, {&input, &grid});
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  TC_CHECK_TYPE(grid.dtype() == input.dtype(), op, ": grid dtype ", dtype_name(grid.dtype()),
                " must match input dtype ", dtype_name(input.dtype()));
  TC_CHECK(input.dim() == 4 || input.dim() == 5, op, ": expected a 4-d (N, C, H, W) or 5-d (N, C, D, H, W) input, got shape ",
           shape_str(input.sizes()));
  TC_CHECK(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection", op,
           ": padding_mode must be 'zeros', 'border' or 'reflection', got '", padding_mode, "'");
  if (input.dim() == 5)
    return grid_sample_3d(input, grid, mode,
                          padding_mode == "zeros" ? Pad::Zeros : padding_mode == "border" ? Pad::Border : Pad::Reflection,
                          align_corners);
  TC_CHECK(grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == input.size(0), op,
           ": expected grid of shape [", input.size(0), ", H_out, W_out, 2], got ", shape_str(grid.sizes()));
  TC_CHECK(mode == "bilinear" || mode == "nearest" || mode == "bicubic", op,
           ": mode must be 'bilinear', 'nearest' or 'bicubic', got '", mode, "'");
  TC_CHECK(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection", op,
           ": padding_mode must be 'zeros', 'border' or 'reflection', got '", padding_mode, "'");
  GridGeom g{input.size(0), input.size(1), input.size(2), input.size(3), grid.size(1), grid.size(2),
             mode == "nearest", align_corners,
             padding_mode == "zeros" ? Pad::Zeros : padding_mode == "border" ? Pad::Border : Pad::Reflection};
  g.bicubic = mode == "bicubic";
  TC_CHECK(g.H > 0 && g.W > 0, op, ": input ", shape_str(input.sizes()), " has an empty spatial dim");
  Tensor x = contiguous(input), gr = contiguous(grid);
  Tensor out = empty({g.N, g.C, g.Ho, g.Wo}, TensorOptions(x.dtype()));
  dispatch_dtype<kF32F64>(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    grid_forward<T>(x.data<T>(), gr.data<T>(), out.data<T>(), g);
  });
  if (autograd::needs_grad({input, grid})) {
    bool need_x = input.requires_grad(), need_g = grid.requires_grad();
    autograd::record("GridSampler2DBackward0", {input, grid}, {out}, {input, grid},
                     [g, need_x, need_g](const TensorList& s, const TensorList& gr_) -> TensorList {
      Tensor go = contiguous(gr_[0]).detach(), xs = contiguous(s[0]).detach(), gs = contiguous(s[1]).detach();
      Tensor gx = need_x ? zeros(xs.sizes(), TensorOptions(xs.dtype())) : Tensor();
      Tensor gg = need_g ? empty(gs.sizes(), TensorOptions(gs.dtype())) : Tensor();
      dispatch_dtype<kF32F64>(xs.dtype(), "grid_sample backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        grid_backward<T>(go.data<T>(), xs.data<T>(), gs.data<T>(), need_x ? gx.data<T>() : nullptr,
                         need_g ? gg.data<T>() : nullptr, g);
      });
      return {gx, gg};
    });
  }
  return out;
}

Tensor affine_grid(const Tensor& theta, const IntList& size, bool align_corners) {
  const char* op = "affine_grid";
  TC_CHECK(theta.defined() && theta.is_floating_point(), op, ": theta must be a floating point tensor");
  TC_CHECK(size.size() == 4 || size.size() == 5, op, ": size must be (N, C, H, W) or (N, C, D, H, W), got ",
           shape_str(size));
  int64_t sd = int64_t(size.size()) - 2;
  TC_CHECK(theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == sd && theta.size(2) == sd + 1, op,
           ": expected theta of shape [", size[0], ", ", sd, ", ", sd + 1, "] for size ", shape_str(size), ", got ",
           shape_str(theta.sizes()));
  // base[..., :] = (x, y[, z], 1) for each output location, x varying fastest.
  auto axis = [&](int64_t n) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      double t = n > 1 ? -1.0 + 2.0 * double(i) / double(n - 1) : 0.0;
      v[size_t(i)] = align_corners ? t : t * double(n - 1) / double(n);
    }
    return v;
  };
  Shape spatial(size.begin() + 2, size.end());  // [D,] H, W
  int64_t P = shape_numel(spatial);
  std::vector<double> base(static_cast<size_t>(P * (sd + 1)));
  std::vector<std::vector<double>> ax;
  for (int64_t d = 0; d < sd; ++d) ax.push_back(axis(spatial[size_t(d)]));
  for (int64_t p = 0; p < P; ++p) {
    int64_t rem = p;
    std::vector<int64_t> coord(static_cast<size_t>(sd));
    for (int64_t d = sd - 1; d >= 0; --d) {
      coord[size_t(d)] = rem % spatial[size_t(d)];
      rem /= spatial[size_t(d)];
    }
    // Component k of the base is the coordinate along spatial dim sd-1-k (x is the last dim).
    for (int64_t k = 0; k < sd; ++k) base[size_t(p * (sd + 1) + k)] = ax[size_t(sd - 1 - k)][size_t(coord[size_t(sd - 1 - k)])];
    base[size_t(p * (sd + 1) + sd)] = 1.0;
  }
  Tensor b = to_dtype(from_vector(base, {1, P, sd + 1}), theta.dtype());
  Tensor grid = matmul(b, transpose(theta, 1, 2));  // [N, P, sd]
  Shape out = {size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(sd);
  return reshape(grid, out);
}

}  // namespace functional
}  // namespace tc::nn
