#pragma once
#include "tensorcore/core/device.h"
#include "tensorcore/core/dtype.h"

namespace tc {

// Factory arguments: zeros({2, 3}, TensorOptions().dtype(DType::Int64).device(Device("cuda"))).
struct TensorOptions {
  DType dtype_ = DType::Float32;
  Device device_;
  bool requires_grad_ = false;
  TensorOptions() = default;
  TensorOptions(DType d) : dtype_(d) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions dtype(DType d) const {
    auto o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    auto o = *this;
    o.requires_grad_ = r;
    return o;
  }
};

// The dtype a Python float becomes (torch.get_default_dtype()).
DType get_default_dtype();
void set_default_dtype(DType d);

}  // namespace tc
