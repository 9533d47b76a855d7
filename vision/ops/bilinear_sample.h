#pragma once
// torchvision's RoIAlign bilinear sample, shared by the CPU and CUDA RoI kernels so both read
// the same taps with the same weights.
#include <cstdint>

#include "tensorcore/core/host_device.h"

namespace tc::vision::ops::detail {

// One bilinear sample: four plane offsets and their weights (all zero outside the image).
template <typename T>
struct Sample {
  int64_t o1, o2, o3, o4;
  T w1, w2, w3, w4;
};

template <typename T>
TC_HOST_DEVICE Sample<T> bilinear_sample(int64_t height, int64_t width, T y, T x) {
  if (y < T(-1) || y > T(height) || x < T(-1) || x > T(width)) return {0, 0, 0, 0, 0, 0, 0, 0};
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = int64_t(y), x_low = int64_t(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = T(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = T(x_low);
  } else {
    x_high = x_low + 1;
  }
  T ly = y - T(y_low), lx = x - T(x_low), hy = 1 - ly, hx = 1 - lx;
  return {y_low * width + x_low,
          y_low * width + x_high,
          y_high * width + x_low,
          y_high * width + x_high,
          hy * hx,
          hy * lx,
          ly * hx,
          ly * lx};
}

}  // namespace tc::vision::ops::detail
