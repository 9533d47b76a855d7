#pragma once
// Shared by the RoI ops: argument checks and the bilinear sample plan of torchvision's RoIAlign.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tensorcore/vision/device_check.h"
#include "tensorcore/vision/ops/bilinear_sample.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"

namespace tc::vision::ops::detail {

constexpr uint32_t kRoiDTypes = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// cuda_supported: the op has CUDA kernels (both tensors on one CUDA device are then accepted).
inline void check_roi_args(const char* op, const Tensor& input, const Tensor& rois,
                           int64_t pooled_height, int64_t pooled_width,
                           bool cuda_supported = false) {
  TC_CHECK(input.dim() == 4, op, ": input should be (N, C, H, W), got shape ",
           shape_str(input.sizes()));
  TC_CHECK(rois.dim() == 2 && rois.size(1) == 5, op,
           ": rois should be (K, 5) [batch_index, x1, y1, x2, y2], got shape ",
           shape_str(rois.sizes()));
  TC_CHECK(pooled_height > 0 && pooled_width > 0, op, ": output_size must be positive, got (",
           pooled_height, ", ", pooled_width, ")");
  if (cuda_supported && input.is_cuda())
    TC_CHECK_AS(::tc::Error, rois.device() == input.device(), op,
             ": input and rois must be on the same device, got ", input.device().str(), " and ",
             rois.device().str());
  else
    require_cpu(op, {&input, &rois});
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": input must be float32 or float64, got ", dtype_name(input.dtype()));
  TC_CHECK_TYPE(rois.dtype() == input.dtype(), op, ": rois must have the input's dtype (",
                dtype_name(input.dtype()), "), got ", dtype_name(rois.dtype()));
}

template <typename T>
inline int64_t roi_batch_index(const char* op, const T* roi, int64_t batch) {
  int64_t b = int64_t(roi[0]);
  TC_CHECK_INDEX(b >= 0 && b < batch, op, ": roi batch index ", b, " out of range for ", batch,
                 " images");
  return b;
}

// RoI geometry for the align ops.
template <typename T>
struct AlignGeometry {
  T start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
  T count;
};

template <typename T>
inline AlignGeometry<T> align_geometry(const T* roi, T scale, int64_t ph, int64_t pw,
                                       int64_t sampling_ratio, bool aligned, bool clamp_size) {
  T offset = aligned ? T(0.5) : T(0);
  T sw = roi[1] * scale - offset, sh = roi[2] * scale - offset;
  T ew = roi[3] * scale - offset, eh = roi[4] * scale - offset;
  T rw = ew - sw, rh = eh - sh;
  if (clamp_size) {
    rw = std::max(rw, T(1));
    rh = std::max(rh, T(1));
  }
  AlignGeometry<T> g;
  g.start_h = sh, g.start_w = sw, g.bin_h = rh / T(ph), g.bin_w = rw / T(pw);
  g.grid_h = sampling_ratio > 0 ? sampling_ratio : int64_t(std::ceil(rh / T(ph)));
  g.grid_w = sampling_ratio > 0 ? sampling_ratio : int64_t(std::ceil(rw / T(pw)));
  g.count = T(std::max<int64_t>(g.grid_h * g.grid_w, 1));
  return g;
}

// All samples of one bin, appended to `out`.
template <typename T>
inline void bin_samples(const AlignGeometry<T>& g, int64_t height, int64_t width, int64_t py,
                        int64_t px, std::vector<Sample<T>>& out) {
  for (int64_t iy = 0; iy < g.grid_h; ++iy) {
    T y = g.start_h + T(py) * g.bin_h + (T(iy) + T(0.5)) * g.bin_h / T(g.grid_h);
    for (int64_t ix = 0; ix < g.grid_w; ++ix) {
      T x = g.start_w + T(px) * g.bin_w + (T(ix) + T(0.5)) * g.bin_w / T(g.grid_w);
      out.push_back(bilinear_sample<T>(height, width, y, x));
    }
  }
}

// Chunks of work so each thread gets one contiguous range.
inline int64_t grain_for(int64_t n) {
  int64_t t = std::max(1, get_num_threads());
  return std::max<int64_t>(1, (n + t - 1) / t);
}

}  // namespace tc::vision::ops::detail
