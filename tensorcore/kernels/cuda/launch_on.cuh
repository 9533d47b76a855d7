#pragma once
// Runs `launch(grid, stream)` for `work` grid-stride items on the tensor's device and checks the
// launch; nothing is launched for empty work. Shared by the nn/vision kernel files.
#include "tensorcore/kernels/cuda/common.cuh"

namespace tc::cuda_kernels {

template <typename F>
void launch_on(const Tensor& t, int64_t work, F&& launch) {
  if (work == 0) return;
  DeviceGuard guard(t.device().index);
  cudaStream_t stream = stream_of(t.device().index);
  launch(grid_for(work), stream);
  TC_CUDA_KERNEL_CHECK();
}

}  // namespace tc::cuda_kernels
