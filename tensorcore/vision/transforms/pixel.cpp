// invert / posterize / solarize as compositions of core ops, shared by the Python functional
// transforms and the C++ pipeline (RandomInvert / RandomPosterize / RandomSolarize). Core ops
// run on every device, so these work on CUDA images too.
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/vision/transforms/kernels.h"

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
