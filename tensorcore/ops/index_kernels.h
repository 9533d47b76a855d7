#pragma once
// Kernel tables for the indexing family (index.cpp, indexing.cpp, shape_ops.cpp). Indexing is
// done in two steps: a kernel turns index tensors into element offsets (with bounds checks),
// then a gather/scatter kernel moves data through those offsets. Pure data movement dispatches
// on the element size only; reductions (accumulate, amax, ...) dispatch on the dtype.
#include "tensorcore/ops/kernel_tables.h"

namespace tc {

enum class ScatterMode { Assign, Add, Mul, Max, Min };

// out (int64, contiguous, shape B) = sum_k wrap(idx[k]) * strides[k]; each idx[k] is int64 and
// contiguous with shape B. sizes[k] bound idx[k]; dims[k] names the dimension in errors.
using IndexOffsetsKernel = void (*)(const Tensor& out, const TensorList& idx, const Shape& sizes,
                                    const Shape& strides, const Shape& dims);
// iter: output = out, input 0 = source view (strides 0 on indexed dims), input 1 = int64
// offsets in elements. out = *(src + offset).
using IndexGatherKernel = void (*)(TensorIter& iter);
// iter: output = destination view (strides 0 on indexed dims), input 0 = values, input 1 =
// offsets. *(dst + offset) (op)= value. Runs serially (deterministic with duplicates).
using IndexScatterKernel = void (*)(TensorIter& iter, ScatterMode mode);
// iter: output = self, input 0 = bool mask; writes the single element of `value` (same dtype
// as self) where the mask is set.
using MaskedFillKernel = void (*)(TensorIter& iter, const Tensor& value);
// Returns int64 [n, ndim] coordinates of the nonzero elements of a contiguous bool tensor.
using NonzeroKernel = Tensor (*)(const Tensor& mask);
// out/in contiguous, same shape [..., R, C]: keeps j - i <= k (lower) or >= k (upper), else 0.
using TriKernel = void (*)(const Tensor& out, const Tensor& in, int64_t k, bool lower);
// out /= count where count > 0 (count has out's dtype; both contiguous; integer: floor div).
using DivCountKernel = void (*)(const Tensor& out, const Tensor& count);

TC_DECLARE_KERNEL(index_offsets, IndexOffsetsKernel);
TC_DECLARE_KERNEL(index_gather, IndexGatherKernel);
TC_DECLARE_KERNEL(index_scatter, IndexScatterKernel);
TC_DECLARE_KERNEL(masked_fill, MaskedFillKernel);
TC_DECLARE_KERNEL(nonzero, NonzeroKernel);
TC_DECLARE_KERNEL(tri, TriKernel);
TC_DECLARE_KERNEL(div_count, DivCountKernel);

}  // namespace tc
