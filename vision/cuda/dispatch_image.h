#pragma once
// The image kernels' dtype dispatch (resize_cuda.cu, transforms_cuda.cu): calls f(T{}, Acc{})
// with the image type and its arithmetic type: U8Acc for uint8 (int32 for resize's fixed point,
// float for the warp and blur), the type itself for float32 and float64.
#include <cstdint>

#include "tensorcore/core/dtype.h"
#include "tensorcore/core/error.h"

namespace tc::vision::cuda {

template <typename U8Acc, typename F>
void dispatch_image(DType dt, const char* op, F&& f) {
  switch (dt) {
    case DType::UInt8:
      f(uint8_t{}, U8Acc{});
      break;
    case DType::Float32:
      f(float{}, float{});
      break;
    case DType::Float64:
      f(double{}, double{});
      break;
    default:
      throw TypeError(::tc::detail::concat(op, ": expected a uint8, float32 or float64 image, got ",
                                           dtype_name(dt)));
  }
}

}  // namespace tc::vision::cuda
