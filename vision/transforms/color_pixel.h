#pragma once
// Per-pixel arithmetic of the fused color kernels (torchvision's float32 steps), shared by the
// CPU kernels (color.cpp) and the CUDA ones (vision/cuda/transforms_cuda.cu). Both compile it
// without FMA contraction, so their results agree bit for bit.
#include <cstdint>
#include <type_traits>

#include "tensorcore/core/host_device.h"

namespace tc::vision::kernels::detail {

template <typename T>
TC_HOST_DEVICE T color_store(float v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return T(v);  // truncation, as torch's float -> uint8 conversion
  } else {
    return v;
  }
}

template <typename T>
TC_HOST_DEVICE float color_bound() {
  return std::is_same_v<T, uint8_t> ? 255.0f : 1.0f;
}

// torchvision's rgb_to_grayscale value of one pixel, in the image dtype.
template <typename T>
TC_HOST_DEVICE T gray_of(T r, T g, T b) {
  float l = 0.2989f * float(r) + 0.587f * float(g);
  l = l + 0.114f * float(b);
  return color_store<T>(l);
}

// _blend of one value: clamp(ratio * x + rest * other, 0, bound) in the image dtype.
template <typename T>
TC_HOST_DEVICE T blend_value(float ratio, T x, float rest, float other, float hi) {
  float a = ratio * float(x);
  float b = rest * other;
  float v = a + b;
  v = v < 0.0f ? 0.0f : (v > hi ? hi : v);
  return color_store<T>(v);
}

// torchvision's _rgb2hsv -> hue shift -> _hsv2rgb on one pixel (values in [0, 1]).
TC_HOST_DEVICE void shift_hue(float r, float g, float b, float hue, float& ro, float& go,
                              float& bo) {
  float maxc = hd::max(hd::max(r, g), b), minc = hd::min(hd::min(r, g), b);
  bool eqc = maxc == minc;
  float cr = maxc - minc;
  float s = cr / (eqc ? 1.0f : maxc);
  float div = eqc ? 1.0f : cr;
  float rc = (maxc - r) / div, gc = (maxc - g) / div, bc = (maxc - b) / div;
  float h;
  if (maxc == r)
    h = bc - gc;
  else if (maxc == g)
    h = (2.0f + rc) - bc;
  else
    h = (4.0f + gc) - rc;
  h = hd::fmod(h / 6.0f + 1.0f, 1.0f);
  float v = maxc;
  // (h + hue) % 1.0 with Python's (floored) remainder.
  float hs = h + hue;
  h = hs - hd::floor(hs / 1.0f) * 1.0f;
  float h6 = h * 6.0f;
  float fi = hd::floor(h6);
  float f = h6 - fi;
  int i = int(fi) % 6;
  if (i < 0) i += 6;
  float p = hd::clamp(v * (1.0f - s), 0.0f, 1.0f);
  float q = hd::clamp(v * (1.0f - s * f), 0.0f, 1.0f);
  float t = hd::clamp(v * (1.0f - s * (1.0f - f)), 0.0f, 1.0f);
  switch (i) {
    case 0:
      ro = v, go = t, bo = p;
      break;
    case 1:
      ro = q, go = v, bo = p;
      break;
    case 2:
      ro = p, go = v, bo = t;
      break;
    case 3:
      ro = p, go = q, bo = v;
      break;
    case 4:
      ro = t, go = p, bo = v;
      break;
    default:
      ro = v, go = p, bo = q;
      break;
  }
}

// adjust_hue of pixel p of one (3, HW) image.
template <typename T>
TC_HOST_DEVICE void hue_pixel(const T* img, T* out, int64_t HW, int64_t p, float hue) {
  float r = float(img[p]), g = float(img[HW + p]), b = float(img[2 * HW + p]);
  if constexpr (std::is_same_v<T, uint8_t>) r = r / 255.0f, g = g / 255.0f, b = b / 255.0f;
  float ro, go, bo;
  shift_hue(r, g, b, hue, ro, go, bo);
  if constexpr (std::is_same_v<T, uint8_t>) {
    out[p] = T(ro * 255.0f), out[HW + p] = T(go * 255.0f), out[2 * HW + p] = T(bo * 255.0f);
  } else {
    out[p] = ro, out[HW + p] = go, out[2 * HW + p] = bo;
  }
}

}  // namespace tc::vision::kernels::detail
