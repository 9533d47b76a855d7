// GradScaler primitives on CUDA: the unscale/inf-check pass over each grad and the one-thread
// scale update, both reading and writing only device memory (no host synchronization).
#include "tensorcore/amp/grad_scaler.h"
#include "tensorcore/kernels/cuda/common.cuh"

namespace tc::cuda_kernels {
namespace {

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    unscale_kernel(T* data, int64_t n, float* found_inf, const float* inv_scale) {
  using M = opmath_t<T>;
  const float inv = *inv_scale;
  bool bad = false;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    M v = cvt<M>(data[i]);
    bad |= !isfinite(v);
    if (inv != 1.0f) data[i] = cvt<T>(v * M(inv));
  }
  // Every writer stores the same value, so the race is benign.
  if (bad) *found_inf = 1.0f;
}

__global__ void update_scale_kernel(float* scale, int32_t* tracker, const float* found_inf,
                                    double growth_factor, double backoff_factor,
                                    int64_t growth_interval) {
  if (*found_inf != 0.0f) {
    *scale = float(*scale * backoff_factor);
    *tracker = 0;
    return;
  }
  int64_t successful = int64_t(*tracker) + 1;
  if (successful == growth_interval) {
    float grown = float(*scale * growth_factor);
    if (isfinite(grown)) *scale = grown;
    *tracker = 0;
  } else {
    *tracker = int32_t(successful);
  }
}

template <typename T>
void launch_unscale(const Tensor& grad, const Tensor& found_inf, const Tensor& inv_scale) {
  const int64_t n = grad.numel();
  unscale_kernel<T><<<grid_for(n), kBlockSize, 0, stream_of(grad.device().index)>>>(
      static_cast<T*>(grad.data_ptr()), n, static_cast<float*>(found_inf.data_ptr()),
      static_cast<const float*>(inv_scale.data_ptr()));
  TC_CUDA_CHECK(cudaGetLastError());
}

void unscale_cuda(const Tensor& grad, const Tensor& found_inf, const Tensor& inv_scale) {
  DeviceGuard guard(grad.device().index);
  switch (grad.dtype()) {
    case DType::Float32:
      return launch_unscale<float>(grad, found_inf, inv_scale);
    case DType::Float64:
      return launch_unscale<double>(grad, found_inf, inv_scale);
    case DType::Float16:
      return launch_unscale<half>(grad, found_inf, inv_scale);
    case DType::BFloat16:
      return launch_unscale<bf16>(grad, found_inf, inv_scale);
    default:
      throw TypeError(
          detail::concat("_amp_foreach_non_finite_check_and_unscale_: unsupported dtype ",
                         dtype_name(grad.dtype())));
  }
}

void update_scale_cuda(const Tensor& current_scale, const Tensor& growth_tracker,
                       const Tensor& found_inf, double growth_factor, double backoff_factor,
                       int64_t growth_interval) {
  DeviceGuard guard(current_scale.device().index);
  update_scale_kernel<<<1, 1, 0, stream_of(current_scale.device().index)>>>(
      static_cast<float*>(current_scale.data_ptr()),
      static_cast<int32_t*>(growth_tracker.data_ptr()),
      static_cast<const float*>(found_inf.data_ptr()), growth_factor, backoff_factor,
      growth_interval);
  TC_CUDA_CHECK(cudaGetLastError());
}

TC_REGISTER_KERNEL(::tc::amp::amp_unscale_kernel, CUDA, unscale_cuda);
TC_REGISTER_KERNEL(::tc::amp::amp_update_scale_kernel, CUDA, update_scale_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
