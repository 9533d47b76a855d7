// Fused color adjustments (ColorJitter's hot path). Each is one pass per pixel instead of a
// dozen full-size temporaries, and follows torchvision's float32 arithmetic step by step (no
// FMA contraction, so products round as they do in separate tensor ops).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#include <algorithm>
#include <cmath>

#include "tensorcore/vision/device_check.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/vision/transforms/kernels.h"

namespace tc::vision::kernels {
namespace {

constexpr uint32_t kColorDTypes = (1u << int(DType::UInt8)) | (1u << int(DType::Float32));

template <typename T>
T store(float v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return T(v);  // truncation, as torch's float -> uint8 conversion
  } else {
    return v;
  }
}

template <typename T>
float bound() {
  return std::is_same_v<T, uint8_t> ? 255.0f : 1.0f;
}

// torchvision's rgb_to_grayscale value of one pixel, in the image dtype.
template <typename T>
T gray_of(T r, T g, T b) {
  float l = 0.2989f * float(r) + 0.587f * float(g);
  l = l + 0.114f * float(b);
  return store<T>(l);
}

template <typename T>
void blend_planes(const T* src, T* dst, int64_t N, int64_t C, int64_t HW, BlendOther other,
                  const std::vector<double>& factors, const std::vector<double>& values) {
  auto pick = [](const std::vector<double>& v, int64_t n) {
    return v.size() == 1 ? v[0] : v[size_t(n)];
  };
  const int64_t chunk = 4096;
  const int64_t chunks = (HW + chunk - 1) / chunk;
  parallel_for(0, N * chunks, 1, [&](int64_t q0, int64_t q1) {
    std::vector<float> other_row(static_cast<size_t>(chunk));
    for (int64_t q = q0; q < q1; ++q) {
      int64_t n = q / chunks, p0 = (q % chunks) * chunk, len = std::min(HW, p0 + chunk) - p0;
      const double f = pick(factors, n);
      const float ratio = float(f), rest = float(1.0 - f), hi = bound<T>();
      const T* img = src + n * C * HW + p0;
      T* out = dst + n * C * HW + p0;
      float* o = other_row.data();
      if (other == BlendOther::Gray) {
        const T *r = img, *g = img + HW, *b = img + 2 * HW;
        for (int64_t p = 0; p < len; ++p) o[p] = float(gray_of<T>(r[p], g[p], b[p]));
      } else {
        const float v = other == BlendOther::Value ? float(pick(values, n)) : 0.0f;
        std::fill(o, o + len, v);
      }
      // Plain loops over contiguous rows so they vectorize.
      for (int64_t c = 0; c < C; ++c) {
        const T* in = img + c * HW;
        T* res = out + c * HW;
        for (int64_t p = 0; p < len; ++p) {
          float a = ratio * float(in[p]);
          float b = rest * o[p];
          float v = a + b;
          v = v < 0.0f ? 0.0f : (v > hi ? hi : v);
          res[p] = store<T>(v);
        }
      }
    }
  });
}

// torchvision's _rgb2hsv -> hue shift -> _hsv2rgb on one pixel (values in [0, 1]).
inline void shift_hue(float r, float g, float b, float hue, float& ro, float& go, float& bo) {
  float maxc = std::max(std::max(r, g), b), minc = std::min(std::min(r, g), b);
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
  h = std::fmod(h / 6.0f + 1.0f, 1.0f);
  float v = maxc;
  // (h + hue) % 1.0 with Python's (floored) remainder.
  float hs = h + hue;
  h = hs - std::floor(hs / 1.0f) * 1.0f;
  float h6 = h * 6.0f;
  float fi = std::floor(h6);
  float f = h6 - fi;
  int i = int(fi) % 6;
  if (i < 0) i += 6;
  float p = std::clamp(v * (1.0f - s), 0.0f, 1.0f);
  float q = std::clamp(v * (1.0f - s * f), 0.0f, 1.0f);
  float t = std::clamp(v * (1.0f - s * (1.0f - f)), 0.0f, 1.0f);
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

template <typename T>
void hue_planes(const T* src, T* dst, int64_t N, int64_t HW, const std::vector<double>& factors) {
  const int64_t chunk = 4096;
  const int64_t chunks = (HW + chunk - 1) / chunk;
  parallel_for(0, N * chunks, 1, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      int64_t n = q / chunks, p0 = (q % chunks) * chunk, p1 = std::min(HW, p0 + chunk);
      const float hue = float(factors.size() == 1 ? factors[0] : factors[size_t(n)]);
      const T* img = src + n * 3 * HW;
      T* out = dst + n * 3 * HW;
      for (int64_t p = p0; p < p1; ++p) {
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
    }
  });
}

void check_color(const char* op, const Tensor& img, int64_t n, size_t nf) {
  TC_CHECK(img.dim() >= 3, op, ": expected (..., C, H, W), got ", shape_str(img.sizes()));
  require_cpu(op, {&img});
  TC_CHECK(nf == 1 || int64_t(nf) == n, op, ": expected 1 or ", n, " factors, got ", nf);
}

}  // namespace

Tensor blend(const Tensor& img, const std::vector<double>& factors, BlendOther other,
             const std::vector<double>& values) {
  const int64_t C = img.dim() >= 3 ? img.size(-3) : 1;
  const int64_t HW = img.size(-1) * img.size(-2);
  const int64_t N = HW * C == 0 ? 0 : img.numel() / (HW * C);
  check_color("blend", img, N, factors.size());
  if (other == BlendOther::Gray) TC_CHECK(C == 3, "blend: grayscale blending needs 3 channels");
  if (other == BlendOther::Value)
    TC_CHECK(values.size() == 1 || int64_t(values.size()) == N, "blend: expected 1 or ", N,
             " values, got ", values.size());
  Tensor src = contiguous(img);
  Tensor out = empty(img.sizes(), TensorOptions(img.dtype()));
  if (out.numel() == 0) return out;
  dispatch_dtype<kColorDTypes>(img.dtype(), "blend", [&](auto tag) {
    using T = typename decltype(tag)::type;
    blend_planes<T>(src.data<T>(), out.data<T>(), N, C, HW, other, factors, values);
  });
  return out;
}

Tensor adjust_hue(const Tensor& img, const std::vector<double>& factors) {
  TC_CHECK(img.dim() >= 3 && img.size(-3) == 3, "adjust_hue: expected (..., 3, H, W), got ",
           shape_str(img.sizes()));
  const int64_t HW = img.size(-1) * img.size(-2);
  const int64_t N = HW == 0 ? 0 : img.numel() / (3 * HW);
  check_color("adjust_hue", img, N, factors.size());
  Tensor src = contiguous(img);
  Tensor out = empty(img.sizes(), TensorOptions(img.dtype()));
  if (out.numel() == 0) return out;
  dispatch_dtype<kColorDTypes>(img.dtype(), "adjust_hue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    hue_planes<T>(src.data<T>(), out.data<T>(), N, HW, factors);
  });
  return out;
}

}  // namespace tc::vision::kernels
