#pragma once
// Helpers shared by reduction ops.
#include <vector>

#include "tensorcore/ops/kernel_tables.h"
#include "tensorcore/ops/reduce.h"

namespace tc {

// Which dims of `a` are reduced (all when dims is empty); errors name `op`.
std::vector<bool> reduce_mask(const Tensor& a, const DimList& dims, const char* op);
Shape reduced_shape(const Tensor& a, const std::vector<bool>& mask, bool keepdim);
// Allocates the output and runs the device kernel.
Tensor run_reduce(KernelTable<ReduceKernel>& table, const Tensor& in, const std::vector<bool>& mask,
                  bool keepdim, DType out_dtype);
// Expands a reduction's output gradient back to the input shape.
Tensor expand_reduced_grad(const Tensor& g, const Shape& in_shape, const std::vector<bool>& mask,
                           bool keepdim);

}  // namespace tc
