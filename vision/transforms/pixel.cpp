// Pixel transforms shared by the Python functional transforms and the C++ pipeline (RandomInvert,
// RandomPosterize, RandomSolarize, RandomAutocontrast, RandomAdjustSharpness, RandomEqualize).
// All but equalize are compositions of core ops following torchvision's tensor steps, so they run
// on every device; equalize is a per-plane histogram loop (CPU).
#include <algorithm>

#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"

namespace tc::vision::kernels {

namespace {
void check_image(const Tensor& img, const char* op) {
  TC_CHECK(img.dim() >= 3, op, ": expected an image (..., C, H, W), got shape ",
           shape_str(img.sizes()));
}
}  // namespace

Tensor invert(const Tensor& img) {
  check_image(img, "invert");
  if (is_floating(img.dtype())) return rsub(img, Scalar(1.0));
  if (img.dtype() == DType::UInt8) return rsub(img, Scalar(int64_t(255)));
  TC_CHECK_TYPE(is_integral(img.dtype(), true), "invert: expected an integer or float image, got ",
                dtype_name(img.dtype()));
  return bitwise_not(img);
}

Tensor posterize(const Tensor& img, int64_t bits) {
  check_image(img, "posterize");
  TC_CHECK_TYPE(img.dtype() == DType::UInt8, "posterize: only uint8 images are supported, got ",
                dtype_name(img.dtype()));
  TC_CHECK(bits >= 0 && bits <= 8, "posterize: bits should be in [0, 8], got ", bits);
  const int64_t mask = (0xFF << (8 - bits)) & 0xFF;
  return bitwise_and(img, full({}, Scalar(mask), TensorOptions(DType::UInt8).device(img.device())));
}

Tensor solarize(const Tensor& img, double threshold) {
  check_image(img, "solarize");
  const double bound = is_floating(img.dtype()) ? 1.0 : 255.0;
  TC_CHECK_TYPE(threshold <= bound,
                "solarize: threshold should be less than the bound of the image dtype, got ",
                threshold);
  Tensor thr = full({}, Scalar(threshold), TensorOptions(DType::Float64).device(img.device()));
  return where(ge(img, thr), invert(img), img);
}

}  // namespace tc::vision::kernels

namespace tc::vision::kernels {

Tensor autocontrast(const Tensor& img) {
  check_image(img, "autocontrast");
  const bool is_float = is_floating(img.dtype());
  TC_CHECK_TYPE(is_float || img.dtype() == DType::UInt8,
                "autocontrast: expected a uint8 or float image, got ", dtype_name(img.dtype()));
  const double bound = is_float ? 1.0 : 255.0;
  const DType dt = is_float ? img.dtype() : DType::Float32;
  Tensor lo = to_dtype(amin(img, {-2, -1}, true), dt);
  Tensor hi = to_dtype(amax(img, {-2, -1}, true), dt);
  Tensor scale = div(full({}, Scalar(bound), TensorOptions(dt).device(img.device())), sub(hi, lo));
  // Constant channels (infinite scale) stay as they are.
  Tensor flat = logical_not(isfinite(scale));
  lo = where(flat, zeros_like(lo), lo);
  scale = where(flat, ones_like(scale), scale);
  return to_dtype(clamp(mul(sub(img, lo), scale), Scalar(0.0), Scalar(bound)), img.dtype());
}

Tensor adjust_sharpness(const Tensor& img, double factor) {
  check_image(img, "adjust_sharpness");
  TC_CHECK(factor >= 0, "adjust_sharpness: sharpness_factor (", factor, ") is not non-negative.");
  const int64_t c = img.size(-3), h = img.size(-2), w = img.size(-1);
  TC_CHECK(c == 1 || c == 3, "adjust_sharpness: expected 1 or 3 channels, got ", c);
  if (h <= 2 || w <= 2) return img;
  const bool is_float = is_floating(img.dtype());
  const double bound = is_float ? 1.0 : 255.0;
  // torchvision's smoothing kernel [[1,1,1],[1,5,1],[1,1,1]] / 13 on the interior pixels.
  Tensor x = is_float ? img : to_dtype(img, DType::Float32);
  Tensor inner;
  for (int64_t dy = 0; dy < 3; ++dy)
    for (int64_t dx = 0; dx < 3; ++dx) {
      const double k = (dy == 1 && dx == 1 ? 5.0 : 1.0) / 13.0;
      Tensor term = mul(narrow(narrow(x, -2, dy, h - 2), -1, dx, w - 2), Scalar(k));
      inner = inner.defined() ? add(inner, term) : term;
    }
  if (!is_float) inner = round(inner);
  Tensor degenerate = clone(img);
  copy_(narrow(narrow(degenerate, -2, 1, h - 2), -1, 1, w - 2), to_dtype(inner, img.dtype()));
  Tensor mixed = add(mul(img, Scalar(factor)), mul(degenerate, Scalar(1.0 - factor)));
  return to_dtype(clamp(mixed, Scalar(0.0), Scalar(bound)), img.dtype());
}

namespace {

// equalize's CPU kernel: a histogram and lookup table per plane.
void equalize_cpu(const Tensor& src, int64_t planes, int64_t plane, const Tensor& out) {
  const uint8_t* s = src.data<uint8_t>();
  uint8_t* d = out.data<uint8_t>();
  parallel_for(0, planes, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const uint8_t* in = s + p * plane;
      uint8_t* o = d + p * plane;
      int64_t hist[256] = {0};
      for (int64_t i = 0; i < plane; ++i) ++hist[in[i]];
      // torchvision: step = (count of all pixels but those of the last non-empty bin) // 255.
      int64_t last = 255;
      while (last > 0 && hist[last] == 0) --last;
      const int64_t step = (plane - hist[last]) / 255;
      if (step == 0) {
        std::copy(in, in + plane, o);
        continue;
      }
      uint8_t lut[256];
      int64_t cum = 0;
      for (int v = 0; v < 256; ++v) {
        lut[v] = uint8_t(std::min<int64_t>((cum + step / 2) / step, 255));
        cum += hist[v];
      }
      for (int64_t i = 0; i < plane; ++i) o[i] = lut[in[i]];
    }
  });
}

TC_REGISTER_KERNEL(equalize_kernel, CPU, equalize_cpu);

}  // namespace

Tensor equalize(const Tensor& img) {
  check_image(img, "equalize");
  TC_CHECK_TYPE(img.dtype() == DType::UInt8, "equalize: only uint8 images are supported, got ",
                dtype_name(img.dtype()));
  Tensor src = contiguous(img);
  Tensor out = empty(src.sizes(), TensorOptions(DType::UInt8).device(src.device()));
  const int64_t plane = img.size(-2) * img.size(-1), planes = plane ? src.numel() / plane : 0;
  equalize_kernel.get(src.device().type)(src, planes, plane, out);
  return out;
}

}  // namespace tc::vision::kernels
