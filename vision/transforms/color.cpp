// Fused color adjustments (ColorJitter's hot path). Each is one pass per pixel instead of a
// dozen full-size temporaries, and follows torchvision's float32 arithmetic step by step (no
// FMA contraction, so products round as they do in separate tensor ops). The per-pixel steps are
// color_pixel.h, which the CUDA kernels (vision/cuda/transforms_cuda.cu) share.
#include "vision/transforms/no_fp_contract.h"

#include <algorithm>
#include <cmath>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "vision/transforms/color_pixel.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"

namespace tc::vision::kernels {
namespace {

constexpr uint32_t kColorDTypes = (1u << int(DType::UInt8)) | (1u << int(DType::Float32));

using detail::color_bound;
using detail::gray_of;

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
      const float ratio = float(f), rest = float(1.0 - f), hi = color_bound<T>();
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
        for (int64_t p = 0; p < len; ++p)
          res[p] = detail::blend_value<T>(ratio, in[p], rest, o[p], hi);
      }
    }
  });
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
      for (int64_t p = p0; p < p1; ++p) detail::hue_pixel<T>(img, out, HW, p, hue);
    }
  });
}

void check_color(const char* op, const Tensor& img, int64_t n, size_t nf) {
  TC_CHECK(img.dim() >= 3, op, ": expected (..., C, H, W), got ", shape_str(img.sizes()));
  TC_CHECK(nf == 1 || int64_t(nf) == n, op, ": expected 1 or ", n, " factors, got ", nf);
}

// The CPU kernels of the blend / adjust_hue tables.
void blend_cpu(const Tensor& src, int64_t N, int64_t C, int64_t HW, BlendOther other,
               const std::vector<double>& factors, const std::vector<double>& values,
               const Tensor& out) {
  dispatch_dtype<kColorDTypes>(src.dtype(), "blend", [&](auto tag) {
    using T = typename decltype(tag)::type;
    blend_planes<T>(src.data<T>(), out.data<T>(), N, C, HW, other, factors, values);
  });
}

void adjust_hue_cpu(const Tensor& src, int64_t N, int64_t HW, const std::vector<double>& factors,
                    const Tensor& out) {
  dispatch_dtype<kColorDTypes>(src.dtype(), "adjust_hue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    hue_planes<T>(src.data<T>(), out.data<T>(), N, HW, factors);
  });
}

TC_REGISTER_KERNEL(blend_kernel, CPU, blend_cpu);
TC_REGISTER_KERNEL(adjust_hue_kernel, CPU, adjust_hue_cpu);

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
  Tensor out = empty(img.sizes(), TensorOptions(img.dtype()).device(img.device()));
  if (out.numel() == 0) return out;
  blend_kernel.get(src.device().type)(src, N, C, HW, other, factors, values, out);
  return out;
}

Tensor adjust_hue(const Tensor& img, const std::vector<double>& factors) {
  TC_CHECK(img.dim() >= 3 && img.size(-3) == 3, "adjust_hue: expected (..., 3, H, W), got ",
           shape_str(img.sizes()));
  const int64_t HW = img.size(-1) * img.size(-2);
  const int64_t N = HW == 0 ? 0 : img.numel() / (3 * HW);
  check_color("adjust_hue", img, N, factors.size());
  Tensor src = contiguous(img);
  Tensor out = empty(img.sizes(), TensorOptions(img.dtype()).device(img.device()));
  if (out.numel() == 0) return out;
  adjust_hue_kernel.get(src.device().type)(src, N, HW, factors, out);
  return out;
}

}  // namespace tc::vision::kernels
