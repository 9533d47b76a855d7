#pragma once
// Shared by the RoI ops: argument checks and the bilinear sample plan of torchvision's RoIAlign
// (the geometry itself is roi_geometry.h, shared with the CUDA kernels).
#include <algorithm>
#include <cmath>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "vision/ops/bilinear_sample.h"
#include "vision/ops/roi_geometry.h"

namespace tc::vision::ops::detail {

constexpr uint32_t kRoiDTypes = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// Every RoI op has CPU and CUDA kernels: input and rois must be on one device.
inline void check_roi_args(const char* op, const Tensor& input, const Tensor& rois,
                           int64_t pooled_height, int64_t pooled_width) {
  TC_CHECK(input.dim() == 4, op, ": input should be (N, C, H, W), got shape ",
           shape_str(input.sizes()));
  TC_CHECK(rois.dim() == 2 && rois.size(1) == 5, op,
           ": rois should be (K, 5) [batch_index, x1, y1, x2, y2], got shape ",
           shape_str(rois.sizes()));
  TC_CHECK(pooled_height > 0 && pooled_width > 0, op, ": output_size must be positive, got (",
           pooled_height, ", ", pooled_width, ")");
  TC_CHECK_AS(::tc::Error, rois.device() == input.device(), op,
              ": input and rois must be on the same device, got ", input.device().str(), " and ",
              rois.device().str());
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

// All samples of one bin, appended to `out`.
template <typename T>
inline void bin_samples(const AlignGeometry<T>& g, int64_t height, int64_t width, int64_t py,
                        int64_t px, std::vector<Sample<T>>& out) {
  for (int64_t iy = 0; iy < g.grid_h; ++iy) {
    T y = align_sample_y(g, py, iy);
    for (int64_t ix = 0; ix < g.grid_w; ++ix) {
      T x = align_sample_x(g, px, ix);
      out.push_back(bilinear_sample<T>(height, width, y, x));
    }
  }
}

// The CPU kernels raise IndexError for a bad batch index; the CUDA kernels cannot, so for CUDA
// rois the batch column is checked on the host first (one small device-to-host copy).
inline void check_batch_indices_on_host(const char* op, const Tensor& rois, int64_t batch) {
  Tensor host = contiguous(to_device(rois, Device(DeviceType::CPU)));
  dispatch_dtype<kRoiDTypes>(host.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* r = host.data<T>();
    for (int64_t k = 0; k < host.size(0); ++k) roi_batch_index(op, r + k * 5, batch);
  });
}

// Chunks of work so each thread gets one contiguous range.
inline int64_t grain_for(int64_t n) {
  int64_t t = std::max(1, get_num_threads());
  return std::max<int64_t>(1, (n + t - 1) / t);
}

}  // namespace tc::vision::ops::detail
