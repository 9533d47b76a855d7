#pragma once
// Kernels that only move data (gather, scatter, copy, fill) dispatch on the element size, not
// the dtype: one instantiation per size serves every dtype of that size. Shared by the CPU and
// CUDA indexing and copy kernels.
#include <cstddef>
#include <cstdint>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/error.h"

namespace tc {

// A 16-byte element (complex128) moved as two words.
struct alignas(8) Bytes16 {
  uint64_t lo, hi;
};

// f(TypeTag<an unsigned type of that size, or Bytes16>{}).
template <typename F>
void dispatch_itemsize(size_t size, F&& f) {
  switch (size) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    case 8:
      return f(TypeTag<uint64_t>{});
    case 16:
      return f(TypeTag<Bytes16>{});
    default:
      TC_FAIL("indexing: unsupported element size ", size);
  }
}

}  // namespace tc
