#pragma once
// Kernel tables for the reduction / scan / sort family (beyond sum and mean, which live in
// kernel_tables.h). CPU kernels: kernels/cpu/reduce_value_kernels.cpp, sort_kernels.cpp.
#include <vector>

#include "tensorcore/ops/kernel_tables.h"

namespace tc {

// Value reductions through cpu_reduce; `p` is the op's scalar parameter (norm order, var
// correction), unused otherwise. out has in's dtype unless stated.
using ReduceKernelP = void (*)(const Tensor& out, const Tensor& in, const std::vector<bool>& mask,
                               double p);
TC_DECLARE_KERNEL(prod, ReduceKernelP);
TC_DECLARE_KERNEL(amax, ReduceKernelP);
TC_DECLARE_KERNEL(amin, ReduceKernelP);
TC_DECLARE_KERNEL(nansum, ReduceKernelP);
TC_DECLARE_KERNEL(logsumexp, ReduceKernelP);
TC_DECLARE_KERNEL(norm, ReduceKernelP);  // p = order (inf / -inf / 0 / any)
TC_DECLARE_KERNEL(var, ReduceKernelP);   // p = correction
TC_DECLARE_KERNEL(all, ReduceKernelP);   // bool in, bool out
TC_DECLARE_KERNEL(any, ReduceKernelP);   // bool in, bool out

// Row kernels: `in` is contiguous [rows, n] (the op moves the dim last); outputs are contiguous
// [rows, k] (values in in's dtype, indices int64), k depending on the op.
struct RowParams {
  int64_t k = 0;       // topk/kthvalue k
  bool flag = false;   // descending / largest / reverse / ignore_nan
  bool flag2 = false;  // stable / sorted
};
using RowKernel = void (*)(const Tensor& in, const Tensor& values, const Tensor& indices,
                           const RowParams& p);
TC_DECLARE_KERNEL(argmax, RowKernel);  // values+indices [rows]
TC_DECLARE_KERNEL(argmin, RowKernel);
TC_DECLARE_KERNEL(cumsum, RowKernel);  // values [rows, n]; flag = reverse
TC_DECLARE_KERNEL(cumprod, RowKernel);
TC_DECLARE_KERNEL(logcumsumexp, RowKernel);
TC_DECLARE_KERNEL(cummax, RowKernel);  // values+indices [rows, n]
TC_DECLARE_KERNEL(cummin, RowKernel);
TC_DECLARE_KERNEL(sort, RowKernel);      // flag = descending
TC_DECLARE_KERNEL(topk, RowKernel);      // flag = largest, flag2 = sorted
TC_DECLARE_KERNEL(kthvalue, RowKernel);  // k is 1-based
TC_DECLARE_KERNEL(median, RowKernel);    // flag = ignore_nan (nanmedian)
TC_DECLARE_KERNEL(mode, RowKernel);
TC_DECLARE_KERNEL(prod_others, RowKernel);  // values[i] = prod_{j != i} in[j]

// Private gather / scatter along the last dim of [rows, n] (vjp helpers).
// gather: out [rows, k] = in[r, idx[r, j]]; scatter_add: out [rows, n] += src[r, j] at idx[r, j].
using RowIndexKernel = void (*)(const Tensor& out, const Tensor& in, const Tensor& idx);
TC_DECLARE_KERNEL(rows_gather, RowIndexKernel);
TC_DECLARE_KERNEL(rows_scatter_add, RowIndexKernel);
// cumprod backward with zeros: out[r, i] = sum_{j>=i} g[r, j] * prod_{k<=j, k!=i} x[r, k].
using CumprodBackwardKernel = void (*)(const Tensor& out, const Tensor& x, const Tensor& g);
TC_DECLARE_KERNEL(cumprod_backward, CumprodBackwardKernel);

// Private pointwise helpers on contiguous same-shape tensors (out dtype = a's dtype).
enum class PointwiseCode { EqMask, NotNan, IsZero, Abs, Sign, PowAbs, NanToZero };
using PointwiseKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b,
                                 PointwiseCode code, double p);
TC_DECLARE_KERNEL(reduce_pointwise, PointwiseKernel);

// unique over a flat contiguous tensor: values, inverse (int64 [n]), counts (int64).
// consecutive=true: unique_consecutive. Outputs are allocated by the kernel.
using UniqueKernel = void (*)(const Tensor& in, Tensor& values, Tensor& inverse, Tensor& counts,
                              bool consecutive);
TC_DECLARE_KERNEL(unique, UniqueKernel);
// boundaries [rows_b, nb] (rows_b == 1 or rows), values [rows, nv], sorter like boundaries or
// undefined; out int64 or int32 [rows, nv].
using SearchsortedKernel = void (*)(const Tensor& out, const Tensor& boundaries,
                                    const Tensor& values, const Tensor& sorter, bool right);
TC_DECLARE_KERNEL(searchsorted, SearchsortedKernel);
using HistcKernel = void (*)(const Tensor& out, const Tensor& in, int64_t bins, double lo,
                             double hi);
TC_DECLARE_KERNEL(histc, HistcKernel);
// out zero-filled [nbins]; weights undefined or same length as in (dtype of out).
using BincountKernel = void (*)(const Tensor& out, const Tensor& in, const Tensor& weights);
TC_DECLARE_KERNEL(bincount, BincountKernel);

}  // namespace tc
