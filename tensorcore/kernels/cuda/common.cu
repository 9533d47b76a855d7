#include "tensorcore/kernels/cuda/common.cuh"

#include <mutex>
#include <vector>

namespace tc::cuda_kernels {

int sm_count(int device) {
  static std::vector<int> counts;
  static std::mutex mu;
  int dev = device;
  if (dev < 0) TC_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (counts.size() <= size_t(dev)) counts.resize(dev + 1, 0);
  if (!counts[dev])
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&counts[dev], cudaDevAttrMultiProcessorCount, dev));
  return counts[dev];
}

int grid_for(int64_t work, int block) {
  int64_t needed = (work + block - 1) / block;
  // A grid-stride loop: ~16 resident blocks per SM keeps every SM busy with loads in flight.
  int64_t cap = int64_t(sm_count()) * (2048 / block) * 4;
  return int(std::max<int64_t>(1, std::min(needed, cap)));
}

cudaStream_t current_stream_for(const Tensor& t) { return stream_of(t.device().index); }

}  // namespace tc::cuda_kernels
