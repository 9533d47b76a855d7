#pragma once
// torch's "internal overlap" check for the tensor an in-place op or an `out=` argument writes
// into: an expanded tensor (a stride of 0 on a dimension of size > 1) has several elements on
// one memory location, so an elementwise write through it applies the op once per alias. As
// torch, only this definite case is detected (other non-contiguous layouts are "too hard" and
// allowed), and only where user-facing ops enter (arg_guard.cpp for Tensor's in-place methods,
// _out.py for out=): internal kernels write through expanded outputs on purpose.
#include <string>

#include "bind.h"

namespace tc::python {

inline bool has_internal_overlap(const Tensor& t) {
  if (!t.defined()) return false;
  const Shape& sizes = t.sizes();
  const Shape& strides = t.strides();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1 && strides[d] == 0) return true;
  return false;
}

inline constexpr const char* kInternalOverlapMessage =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";

}  // namespace tc::python
