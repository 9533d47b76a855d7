#pragma once
// Up-front refusal of absurd output sizes for ops that build large helper tables before they
// allocate their output (interpolate, vision resize): without it a request such as
// interpolate(size=2**31) filled gigabytes of index tables and got the process OOM-killed
// before the output allocation could fail cleanly. Found by tests/python/apifuzz.
#include <cstdint>

#include "tensorcore/core/dtype.h"
#include "tensorcore/core/tensor.h"

namespace tc {

// Physical memory plus swap, in bytes (read once).
int64_t memory_capacity_bytes();

// Throws tc::ValueError naming `op` when a tensor of `shape` and `dtype` has more than 2^63
// bytes or more than the machine's memory_capacity_bytes().
void check_output_fits_in_memory(const Shape& shape, DType dtype, const char* op);

}  // namespace tc
