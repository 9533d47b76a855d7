#pragma once
// RoI geometry shared by the CPU RoI kernels (roi_align.cpp, roi_pool.cpp) and the CUDA ones
// (vision/cuda/ops_cuda.cu, roi_cuda.cu): the sampling grid of RoIAlign and the integer bins of
// RoIPool, with torchvision's rounding rules.
#include <cstdint>

#include "tensorcore/core/host_device.h"

namespace tc::vision::ops::detail {

// RoIAlign: bins of (bin_h, bin_w) from (start_h, start_w), grid_h x grid_w samples per bin.
template <typename T>
struct AlignGeometry {
  T start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
  T count;
};

// roi: [batch, x1, y1, x2, y2]. aligned: half-pixel offset; clamp_size: RoIs at least 1x1 (the
// legacy, non-aligned mode).
template <typename T>
TC_HOST_DEVICE AlignGeometry<T> align_geometry(const T* roi, T scale, int64_t ph, int64_t pw,
                                               int64_t sampling_ratio, bool aligned,
                                               bool clamp_size) {
  T offset = aligned ? T(0.5) : T(0);
  T sw = roi[1] * scale - offset, sh = roi[2] * scale - offset;
  T ew = roi[3] * scale - offset, eh = roi[4] * scale - offset;
  T rw = ew - sw, rh = eh - sh;
  if (clamp_size) {
    rw = hd::max(rw, T(1));
    rh = hd::max(rh, T(1));
  }
  AlignGeometry<T> g;
  g.start_h = sh, g.start_w = sw, g.bin_h = rh / T(ph), g.bin_w = rw / T(pw);
  g.grid_h = sampling_ratio > 0 ? sampling_ratio : int64_t(hd::ceil(rh / T(ph)));
  g.grid_w = sampling_ratio > 0 ? sampling_ratio : int64_t(hd::ceil(rw / T(pw)));
  g.count = T(hd::max<int64_t>(g.grid_h * g.grid_w, 1));
  return g;
}

// Sample (iy, ix) of bin (py, px).
template <typename T>
TC_HOST_DEVICE T align_sample_y(const AlignGeometry<T>& g, int64_t py, int64_t iy) {
  return g.start_h + T(py) * g.bin_h + (T(iy) + T(0.5)) * g.bin_h / T(g.grid_h);
}
template <typename T>
TC_HOST_DEVICE T align_sample_x(const AlignGeometry<T>& g, int64_t px, int64_t ix) {
  return g.start_w + T(px) * g.bin_w + (T(ix) + T(0.5)) * g.bin_w / T(g.grid_w);
}

// RoIPool: integer bin [hs, he) x [ws, we).
struct PoolBin {
  int64_t hs, he, ws, we;
  TC_HOST_DEVICE bool empty() const { return he <= hs || we <= ws; }
};

// Bin (py, px) of a RoI. As in torchvision, roi_pool adds one pixel to the RoI size (plus_one)
// and clamps bins to the image; ps_roi_pool does neither and clamps to the last row/column
// (clamp_last). (torchvision's ps_roi_pool backward clamps to the image instead, which disagrees
// with its own forward; ours uses the forward's bins so the gradient is exact.)
template <typename T>
TC_HOST_DEVICE PoolBin pool_bin(const T* roi, T scale, int64_t ph, int64_t pw, int64_t H, int64_t W,
                                bool plus_one, bool clamp_last, int64_t py, int64_t px) {
  const int64_t sw = int64_t(hd::round(roi[1] * scale)), sh = int64_t(hd::round(roi[2] * scale));
  const int64_t ew = int64_t(hd::round(roi[3] * scale)), eh = int64_t(hd::round(roi[4] * scale));
  const int64_t extra = plus_one ? 1 : 0;
  const int64_t rw = hd::max<int64_t>(ew - sw + extra, 1);
  const int64_t rh = hd::max<int64_t>(eh - sh + extra, 1);
  const T bh = T(rh) / T(ph), bw = T(rw) / T(pw);
  const int64_t hmax = clamp_last ? H - 1 : H, wmax = clamp_last ? W - 1 : W;
  PoolBin b;
  b.hs = hd::clamp<int64_t>(int64_t(hd::floor(T(py) * bh)) + sh, 0, hmax);
  b.he = hd::clamp<int64_t>(int64_t(hd::ceil(T(py + 1) * bh)) + sh, 0, hmax);
  b.ws = hd::clamp<int64_t>(int64_t(hd::floor(T(px) * bw)) + sw, 0, wmax);
  b.we = hd::clamp<int64_t>(int64_t(hd::ceil(T(px + 1) * bw)) + sw, 0, wmax);
  return b;
}

}  // namespace tc::vision::ops::detail
