#pragma once
// Device kernel tables for the core op families. An op looks up its kernel by device; CPU
// kernels register from kernels/cpu/, CUDA kernels from kernels/cuda/.
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor_iter.h"

namespace tc {

using IterKernel = void (*)(TensorIter&);
using IterScalarKernel = void (*)(TensorIter&, const Scalar&);
using FillKernel = void (*)(const Tensor&, const Scalar&);

TC_DECLARE_KERNEL(copy, IterKernel);
TC_DECLARE_KERNEL(fill, FillKernel);
TC_DECLARE_KERNEL(add, IterScalarKernel);  // out = a + alpha * b
TC_DECLARE_KERNEL(mul, IterKernel);
TC_DECLARE_KERNEL(div_true, IterKernel);
TC_DECLARE_KERNEL(div_trunc, IterKernel);
TC_DECLARE_KERNEL(div_floor, IterKernel);
TC_DECLARE_KERNEL(neg, IterKernel);
TC_DECLARE_KERNEL(exp, IterKernel);
TC_DECLARE_KERNEL(log, IterKernel);
TC_DECLARE_KERNEL(sqrt, IterKernel);
TC_DECLARE_KERNEL(conj, IterKernel);

}  // namespace tc

namespace tc {
// out is contiguous with the kept dims of `in` (in order); mask marks reduced dims of `in`.
using ReduceKernel = void (*)(const Tensor& out, const Tensor& in, const std::vector<bool>& mask);
TC_DECLARE_KERNEL(sum, ReduceKernel);
TC_DECLARE_KERNEL(mean, ReduceKernel);
}  // namespace tc
