#pragma once
// Copies and conversions.
#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/options.h"

namespace tc {

// dst.copy_(src): broadcasts src to dst's shape, converts dtype, crosses devices.
Tensor& copy_(Tensor& dst, const Tensor& src, bool non_blocking = false);
inline const Tensor& copy_(const Tensor& dst, const Tensor& src) {
  Tensor d = dst;
  copy_(d, src);
  return dst;
}
// Returns `t` itself when nothing changes (like torch's .to), unless copy=true.
Tensor to_dtype(const Tensor& t, DType dtype, bool copy = false);
Tensor to_device(const Tensor& t, Device device, bool copy = false);
Tensor to(const Tensor& t, Device device, DType dtype, bool copy = false);
Tensor clone(const Tensor& t);
Tensor contiguous(const Tensor& t);

}  // namespace tc
