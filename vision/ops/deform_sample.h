#pragma once
// The sampling of deformable convolution, shared by the CPU kernels (deform_conv2d.cpp) and the
// CUDA ones (vision/cuda/deform_cuda.cu): where column (k, l) samples, torchvision's bilinear
// read with zero outside the image, and the gradients of one sample.
#include <cstdint>

#include "tensorcore/core/host_device.h"

namespace tc::vision::ops::detail {

struct DeformGeometry {
  int64_t N, Cin, H, W, Cout, kh, kw, oh, ow, groups, offset_groups;
  int64_t sh, sw, ph, pw, dh, dw;
  bool use_mask;
  TC_HOST_DEVICE int64_t K() const { return kh * kw; }
  TC_HOST_DEVICE int64_t L() const { return oh * ow; }
};

// Sampling position of column (k, l) for offset group og of one image (off, msk: that image's
// offset and mask planes), with its modulation m (1 without a mask).
template <typename T>
struct DeformPos {
  T y, x, m;
};

template <typename T>
TC_HOST_DEVICE DeformPos<T> deform_position(const DeformGeometry& g, const T* off, const T* msk,
                                            int64_t og, int64_t k, int64_t l) {
  const int64_t i = k / g.kw, j = k % g.kw, oy = l / g.ow, ox = l % g.ow;
  const T* o = off + (og * 2 * g.K() + 2 * k) * g.L();
  T y = T(oy * g.sh - g.ph + i * g.dh) + o[l];
  T x = T(ox * g.sw - g.pw + j * g.dw) + o[g.L() + l];
  T m = g.use_mask ? msk[(og * g.K() + k) * g.L() + l] : T(1);
  return {y, x, m};
}

template <typename T>
TC_HOST_DEVICE bool deform_inside(T y, T x, int64_t H, int64_t W) {
  return !(y <= -1 || y >= T(H) || x <= -1 || x >= T(W));
}

// torchvision's deformable sampling: corners outside the image contribute zero.
template <typename T>
TC_HOST_DEVICE T deform_sample(const T* plane, int64_t H, int64_t W, T y, T x) {
  if (!deform_inside(y, x, H, W)) return 0;
  int64_t y0 = int64_t(hd::floor(y)), x0 = int64_t(hd::floor(x)), y1 = y0 + 1, x1 = x0 + 1;
  T ly = y - T(y0), lx = x - T(x0), hy = 1 - ly, hx = 1 - lx;
  T v = 0;
  if (y0 >= 0 && x0 >= 0) v += hy * hx * plane[y0 * W + x0];
  if (y0 >= 0 && x1 <= W - 1) v += hy * lx * plane[y0 * W + x1];
  if (y1 <= H - 1 && x0 >= 0) v += ly * hx * plane[y1 * W + x0];
  if (y1 <= H - 1 && x1 <= W - 1) v += ly * lx * plane[y1 * W + x1];
  return v;
}

// The four corner taps of a sample inside the image: plane offsets (-1 when outside) and
// the bilinear fractions; taps in the order (y0, x0), (y0, x1), (y1, x0), (y1, x1).
template <typename T>
struct DeformTaps {
  int64_t off[4];
  T ly, lx, hy, hx;
};

template <typename T>
TC_HOST_DEVICE DeformTaps<T> deform_taps(int64_t H, int64_t W, T y, T x) {
  DeformTaps<T> t;
  const int64_t y0 = int64_t(hd::floor(y)), x0 = int64_t(hd::floor(x));
  t.ly = y - T(y0), t.lx = x - T(x0), t.hy = 1 - t.ly, t.hx = 1 - t.lx;
  t.off[0] = (y0 >= 0 && x0 >= 0) ? y0 * W + x0 : -1;
  t.off[1] = (y0 >= 0 && x0 + 1 <= W - 1) ? y0 * W + x0 + 1 : -1;
  t.off[2] = (y0 + 1 <= H - 1 && x0 >= 0) ? (y0 + 1) * W + x0 : -1;
  t.off[3] = (y0 + 1 <= H - 1 && x0 + 1 <= W - 1) ? (y0 + 1) * W + x0 + 1 : -1;
  return t;
}

// Input-gradient share of tap q for the sample's gradient gv (already times the mask).
template <typename T>
TC_HOST_DEVICE T deform_tap_grad(const DeformTaps<T>& t, int q, T gv) {
  switch (q) {
    case 0:
      return gv * t.hy * t.hx;
    case 1:
      return gv * t.hy * t.lx;
    case 2:
      return gv * t.ly * t.hx;
    default:
      return gv * t.ly * t.lx;
  }
}

// Contribution of one channel's column gradient gc at a sample to the offset (y, x) and mask
// gradients (added to acc_y, acc_x, acc_m).
template <typename T>
TC_HOST_DEVICE void deform_coord_grads(const DeformTaps<T>& t, const T* plane, T gc, T m, T& acc_y,
                                       T& acc_x, T& acc_m) {
  const T v00 = t.off[0] >= 0 ? plane[t.off[0]] : T(0);
  const T v01 = t.off[1] >= 0 ? plane[t.off[1]] : T(0);
  const T v10 = t.off[2] >= 0 ? plane[t.off[2]] : T(0);
  const T v11 = t.off[3] >= 0 ? plane[t.off[3]] : T(0);
  const T dy = t.hx * (v10 - v00) + t.lx * (v11 - v01);
  const T dx = t.hy * (v01 - v00) + t.ly * (v11 - v10);
  acc_y += gc * m * dy;
  acc_x += gc * m * dx;
  acc_m += gc * (t.hy * t.hx * v00 + t.hy * t.lx * v01 + t.ly * t.hx * v10 + t.ly * t.lx * v11);
}

}  // namespace tc::vision::ops::detail
