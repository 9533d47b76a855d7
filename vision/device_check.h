#pragma once
// For a kernel path that runs on the host (the CPU branch of an op whose CUDA tensors take
// another branch): a tensor on any other device gets a clear NotImplementedError naming the op
// instead of a host read of device memory.
#include <initializer_list>

#include "tensorcore/core/error.h"
#include "tensorcore/core/tensor.h"

namespace tc::vision {

inline void require_cpu(const char* op, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors)
    TC_CHECK_AS(::tc::NotImplementedError, !t->defined() || t->is_cpu(), op,
                ": not implemented for ", t->device().str(),
                " tensors (tensorcore.vision's kernels run on the CPU); move the tensor to the "
                "CPU with .cpu() first");
}

}  // namespace tc::vision
