#pragma once
// Per-pixel work of the warp (rotate / affine / perspective) and the blur's reflect index,
// shared by the CPU kernels (warp.cpp, blur.cpp) and the CUDA kernels
// (vision/cuda/transforms_cuda.cu), so both sample the same taps with the same arithmetic.
// Both sides compile these without FMA contraction (the pragma in the .cpp files, --fmad=false
// for the .cu file, cmake/deps/vision.cmake), so their results agree bit for bit.
#include <cstdint>
#include <type_traits>

#include "tensorcore/core/host_device.h"

namespace tc::vision::kernels::detail {

// Everything one output pixel needs. mats: (1 or N) row-major 3x3 projective matrices mapping
// output pixel (x, y) to input coordinates; fill: nullptr or 1 / C values.
struct WarpArgs {
  const double* mats;
  bool per_sample, nearest;
  int64_t C, H, W, oh, ow;
  const double* fill;
  int64_t nfill;
};

// Writes all C channels of output pixel (x, y) of sample n. Out-of-image taps read zero; with a
// fill value the result blends towards it by the in-image weight (torchvision's mask channel).
// F: float for uint8/float32 images, double for float64. uint8 rounds half to even and clamps.
template <typename T, typename F>
TC_HOST_DEVICE void warp_pixel(const T* src, T* dst, const WarpArgs& a, int64_t n, int64_t y,
                               int64_t x) {
  const int64_t C = a.C, H = a.H, W = a.W;
  const double* m = a.mats + (a.per_sample ? n * 9 : 0);
  const double den = m[6] * double(x) + m[7] * double(y) + m[8];
  const F ix = F((m[0] * double(x) + m[1] * double(y) + m[2]) / den);
  const F iy = F((m[3] * double(x) + m[4] * double(y) + m[5]) / den);
  const T* img = src + n * C * H * W;
  T* out = dst + n * C * a.oh * a.ow + y * a.ow + x;
  const int64_t out_plane = a.oh * a.ow;
  // Taps: nearest uses tap 0 only.
  int64_t offs[4] = {0, 0, 0, 0};
  F w[4] = {0, 0, 0, 0};
  bool ok[4] = {false, false, false, false};
  F mask = 0;
  int taps;
  if (a.nearest) {
    const int64_t sx = int64_t(hd::rint(ix)), sy = int64_t(hd::rint(iy));
    ok[0] = sx >= 0 && sx < W && sy >= 0 && sy < H;
    offs[0] = ok[0] ? sy * W + sx : 0;
    mask = ok[0] ? F(1) : F(0);
    taps = 1;
  } else {
    const int64_t x0 = int64_t(hd::floor(ix)), y0 = int64_t(hd::floor(iy));
    const F lx = ix - F(x0), ly = iy - F(y0);
    w[0] = (1 - lx) * (1 - ly), w[1] = lx * (1 - ly), w[2] = (1 - lx) * ly, w[3] = lx * ly;
    const int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
    for (int k = 0; k < 4; ++k) {
      ok[k] = xs[k] >= 0 && xs[k] < W && ys[k] >= 0 && ys[k] < H;
      if (ok[k]) {
        mask += w[k];
        offs[k] = ys[k] * W + xs[k];
      }
    }
    taps = 4;
  }
  for (int64_t c = 0; c < C; ++c) {
    const T* plane = img + c * H * W;
    F v = 0;
    if (taps == 1) {
      v = ok[0] ? F(plane[offs[0]]) : F(0);
    } else {
      for (int k = 0; k < 4; ++k)
        if (ok[k]) v += w[k] * F(plane[offs[k]]);
    }
    if (a.fill) {
      const F f = F(a.fill[a.nfill == 1 ? 0 : c]);
      if (a.nearest)
        v = mask < F(0.5) ? f : v;
      else
        v = v * mask + (F(1) - mask) * f;
    }
    if constexpr (std::is_same_v<T, uint8_t>)
      out[c * out_plane] = T(hd::clamp(hd::rint(v), F(0), F(255)));
    else
      out[c * out_plane] = T(v);
  }
}

// Reflect index (torch's "reflect" padding: the edge pixel is not repeated).
TC_HOST_DEVICE int64_t reflect_index(int64_t i, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  i = (i < 0 ? -i : i) % period;
  return i >= n ? period - i : i;
}

}  // namespace tc::vision::kernels::detail
