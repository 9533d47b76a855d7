#pragma once
// grid_sample's per-location work for 4-d inputs (bilinear / nearest / bicubic; zeros / border /
// reflection padding) and 5-d inputs (trilinear / nearest), shared by the CPU kernels
// (grid_sample.cpp) and the CUDA ones (nn/grid_sample_cuda.cu). Input-gradient updates go through
// an `Add` functor: a plain += on the CPU (threads own disjoint samples) and atomicAdd on CUDA.
// Coordinate conventions follow torch: grid values in [-1, 1] map to pixel centers
// (align_corners=False) or corner pixels (align_corners=True).
#include <cstdint>

#include "tensorcore/core/host_device.h"

namespace tc::nn::detail {

namespace hd = ::tc::hd;

enum class GridPad { Zeros, Border, Reflection };

// The Add of a forward pass (no input gradient).
struct GridNoAdd {
  template <typename T>
  TC_HOST_DEVICE void operator()(T*, T) const {}
};

struct GridGeom {
  int64_t N, C, H, W, Ho, Wo;
  bool nearest, align;
  GridPad pad;
  bool bicubic = false;
};

template <typename T>
TC_HOST_DEVICE T grid_reflect(T x, T twice_low, T twice_high, T& grad) {
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
  T extra = hd::fmod(x, span);
  int64_t flips = int64_t(hd::floor(x / span));
  if (flips % 2 == 0) {
    grad = sign;
    return extra + lo;
  }
  grad = -sign;
  return span - extra + lo;
}

template <typename T>
TC_HOST_DEVICE T grid_clip(T x, int64_t size, T& grad) {
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
TC_HOST_DEVICE T grid_source_index(T v, int64_t size, GridPad pad, bool align, T& grad) {
  T x, g;
  if (align) {
    x = (v + 1) / 2 * T(size - 1);
    g = T(size - 1) / 2;
  } else {
    x = ((v + 1) * T(size) - 1) / 2;
    g = T(size) / 2;
  }
  if (pad == GridPad::Border) {
    T gc;
    x = grid_clip(x, size, gc);
    g *= gc;
  } else if (pad == GridPad::Reflection) {
    T gr, gc;
    x = align ? grid_reflect(x, T(0), T(2 * (size - 1)), gr)
              : grid_reflect(x, T(-1), T(2 * size - 1), gr);
    x = grid_clip(x, size, gc);
    g *= gr * gc;
  }
  grad = g;
  return x;
}

// Cubic convolution weight (A = -0.75, torch's) and its derivative.
template <typename T>
TC_HOST_DEVICE T cubic_w(T x) {
  const T A = T(-0.75);
  x = hd::abs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}
template <typename T>
TC_HOST_DEVICE T cubic_dw(T x) {
  const T A = T(-0.75);
  T s = x < 0 ? T(-1) : T(1);
  x = hd::abs(x);
  if (x <= 1) return s * (3 * (A + 2) * x * x - 2 * (A + 3) * x);
  if (x < 2) return s * (3 * A * x * x - 10 * A * x + 8 * A);
  return 0;
}

// Where a bicubic tap actually reads: border/reflection move it inside; zeros leaves it (and
// out-of-range taps read 0).
template <typename T>
TC_HOST_DEVICE int64_t tap_coord(int64_t i, int64_t size, GridPad pad, bool align) {
  if (pad == GridPad::Zeros) return i;
  T x = T(i), g;
  if (pad == GridPad::Reflection)
    x = align ? grid_reflect(x, T(0), T(2 * (size - 1)), g)
              : grid_reflect(x, T(-1), T(2 * size - 1), g);
  x = grid_clip(x, size, g);
  return int64_t(x);
}

template <typename T>
TC_HOST_DEVICE T unnormalize(T v, int64_t size, bool align, T& grad) {
  grad = align ? T(size - 1) / 2 : T(size) / 2;
  return align ? (v + 1) / 2 * T(size - 1) : ((v + 1) * T(size) - 1) / 2;
}

// Bicubic sampling of one output location; with go (gradient of the output), accumulates the
// input gradient into gsrc and returns d out/d(ix, iy) contracted with go in dix/diy.
template <typename T, typename Add>
TC_HOST_DEVICE void bicubic_point(const T* src, T* dst, int64_t P, const T* go, T* gsrc, T& dix,
                                  T& diy, T ix, T iy, const GridGeom& g, Add add) {
  T fx = hd::floor(ix), fy = hd::floor(iy);
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
          if (gsrc) add(gsrc + c * g.H * g.W + ys[a] * g.W + xs[b], wy[a] * wx[b] * gv);
          dix += wy[a] * dwx[b] * v * gv;
          diy += dwy[a] * wx[b] * v * gv;
        }
      }
    }
    if (dst) dst[c * P] = acc;
  }
}

// Output location i = n * P + p (P = Ho * Wo): writes out[n, :, p].
template <typename T>
TC_HOST_DEVICE void grid_point_forward(const T* in, const T* grid, T* out, const GridGeom& g,
                                       int64_t i) {
  const int64_t P = g.Ho * g.Wo, n = i / P, p = i % P;
  T gx, gy;
  const T* src = in + n * g.C * g.H * g.W;
  T* dst = out + n * g.C * P + p;
  if (g.bicubic) {
    T dix, diy;
    T bx = unnormalize(grid[i * 2], g.W, g.align, gx);
    T by = unnormalize(grid[i * 2 + 1], g.H, g.align, gy);
    bicubic_point<T>(src, dst, P, nullptr, nullptr, dix, diy, bx, by, g, GridNoAdd{});
    return;
  }
  T ix = grid_source_index(grid[i * 2], g.W, g.pad, g.align, gx);
  T iy = grid_source_index(grid[i * 2 + 1], g.H, g.pad, g.align, gy);
  if (g.nearest) {
    int64_t x = int64_t(hd::rint(ix)), y = int64_t(hd::rint(iy));
    bool ok = x >= 0 && x < g.W && y >= 0 && y < g.H;
    for (int64_t c = 0; c < g.C; ++c) dst[c * P] = ok ? src[c * g.H * g.W + y * g.W + x] : T(0);
    return;
  }
  int64_t x0 = int64_t(hd::floor(ix)), y0 = int64_t(hd::floor(iy));
  T fx = ix - T(x0), fy = iy - T(y0);
  T w[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
  int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
  for (int64_t c = 0; c < g.C; ++c) {
    const T* sc = src + c * g.H * g.W;
    T acc = 0;
    for (int k = 0; k < 4; ++k)
      if (xs[k] >= 0 && xs[k] < g.W && ys[k] >= 0 && ys[k] < g.H)
        acc += w[k] * sc[ys[k] * g.W + xs[k]];
    dst[c * P] = acc;
  }
}

// Backward of output location i: adds its input gradient into gin (through `add`; gin may be
// null) and writes its grid gradient into ggrid[i] (may be null).
template <typename T, typename Add>
TC_HOST_DEVICE void grid_point_backward(const T* gout, const T* in, const T* grid, T* gin, T* ggrid,
                                        const GridGeom& g, int64_t i, Add add) {
  const int64_t P = g.Ho * g.Wo, n = i / P, p = i % P;
  const T* src = in + n * g.C * g.H * g.W;
  T* gsrc = gin ? gin + n * g.C * g.H * g.W : nullptr;
  const T* go = gout + n * g.C * P + p;
  T gxm, gym;
  if (g.bicubic) {
    T dix, diy;
    T bx = unnormalize(grid[i * 2], g.W, g.align, gxm);
    T by = unnormalize(grid[i * 2 + 1], g.H, g.align, gym);
    bicubic_point<T>(src, nullptr, P, go, gsrc, dix, diy, bx, by, g, add);
    if (ggrid) {
      ggrid[i * 2] = dix * gxm;
      ggrid[i * 2 + 1] = diy * gym;
    }
    return;
  }
  T ix = grid_source_index(grid[i * 2], g.W, g.pad, g.align, gxm);
  T iy = grid_source_index(grid[i * 2 + 1], g.H, g.pad, g.align, gym);
  if (g.nearest) {
    int64_t x = int64_t(hd::rint(ix)), y = int64_t(hd::rint(iy));
    if (gsrc && x >= 0 && x < g.W && y >= 0 && y < g.H)
      for (int64_t c = 0; c < g.C; ++c) add(gsrc + c * g.H * g.W + y * g.W + x, go[c * P]);
    if (ggrid) ggrid[i * 2] = ggrid[i * 2 + 1] = 0;
    return;
  }
  int64_t x0 = int64_t(hd::floor(ix)), y0 = int64_t(hd::floor(iy));
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
      if (gsrc) add(gsrc + c * g.H * g.W + off, w[k] * gv);
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

// ---- 5-d (volumetric) inputs: grid (N, Do, Ho, Wo, 3) holding (x, y, z) ----

struct GridGeom3 {
  int64_t N, C, D, H, W, Do, Ho, Wo;
  bool nearest, align;
  GridPad pad;
};

// Output location i = n * P + p (P = Do * Ho * Wo): forward (out) or, with gout, backward (input
// gradient added through `add` into gin when given, grid gradient written to ggrid when given).
template <typename T, typename Add>
TC_HOST_DEVICE void grid3d_point(const T* in, const T* grid, T* out, const T* gout, T* gin,
                                 T* ggrid, const GridGeom3& g, int64_t i, Add add) {
  const int64_t P = g.Do * g.Ho * g.Wo, V = g.D * g.H * g.W, n = i / P, p = i % P;
  const T* src = in + n * g.C * V;
  T* gsrc = gin ? gin + n * g.C * V : nullptr;
  T mx, my, mz;
  T ix = grid_source_index(grid[i * 3], g.W, g.pad, g.align, mx);
  T iy = grid_source_index(grid[i * 3 + 1], g.H, g.pad, g.align, my);
  T iz = grid_source_index(grid[i * 3 + 2], g.D, g.pad, g.align, mz);
  T* dst = out ? out + n * g.C * P + p : nullptr;
  const T* go = gout ? gout + n * g.C * P + p : nullptr;
  if (g.nearest) {
    int64_t x = int64_t(hd::rint(ix)), y = int64_t(hd::rint(iy)), z = int64_t(hd::rint(iz));
    bool ok = x >= 0 && x < g.W && y >= 0 && y < g.H && z >= 0 && z < g.D;
    int64_t off = (z * g.H + y) * g.W + x;
    for (int64_t c = 0; c < g.C; ++c) {
      if (dst) dst[c * P] = ok ? src[c * V + off] : T(0);
      if (go && gsrc && ok) add(gsrc + c * V + off, go[c * P]);
    }
    if (ggrid) ggrid[i * 3] = ggrid[i * 3 + 1] = ggrid[i * 3 + 2] = 0;
    return;
  }
  int64_t x0 = int64_t(hd::floor(ix)), y0 = int64_t(hd::floor(iy)), z0 = int64_t(hd::floor(iz));
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
        if (gsrc) add(gsrc + off, wx * wy * wz * gv);
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

}  // namespace tc::nn::detail
