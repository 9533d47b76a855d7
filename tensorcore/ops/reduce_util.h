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

// ---- private helpers of the reduction / sort family (not part of the public API) ----
namespace reduce_detail {
// Dtype the CPU kernels compute in: float32/float64/int64 (reduced floats -> float32, other
// integers and bool -> int64).
DType kernel_dtype(DType d);
// float32/float64 stay, other dtypes become float32 (the dtypes the vjp helper kernels take).
Tensor float_for_grad(const Tensor& t);
// Moves `dim` last and returns a contiguous [rows, n] tensor (0-dim -> [1, 1]).
Tensor to_rows(const Tensor& a, int64_t dim);
// Inverse of to_rows for a [rows, k] result: `shape` is the input shape with size k at `dim`.
Tensor from_rows(const Tensor& r, const Shape& shape, int64_t dim);
// out[..., j, ...] = x[..., idx[..., j, ...], ...] along dim (differentiable in x).
Tensor take_along(const Tensor& x, const Tensor& idx, int64_t dim);
// zeros(shape) with src added at idx along dim (differentiable in src).
Tensor scatter_add_along(const Shape& shape, const Tensor& idx, const Tensor& src, int64_t dim);
// 1 where a == b (NaN == NaN), else 0, in a's dtype; b is broadcast to a. Not differentiable.
Tensor eq_mask(const Tensor& a, const Tensor& b);
Tensor notnan_mask(const Tensor& a);
Tensor zero_mask(const Tensor& a);
Tensor sign(const Tensor& a);               // not differentiable (zero gradient)
Tensor abs(const Tensor& a);                // differentiable
Tensor pow_abs(const Tensor& a, double p);  // |a|^p, differentiable
// Unsqueezes the reduced dims of a non-keepdim result so it broadcasts against the input.
Tensor keep_dims(const Tensor& r, const std::vector<bool>& mask, bool keepdim);
}  // namespace reduce_detail

}  // namespace tc
