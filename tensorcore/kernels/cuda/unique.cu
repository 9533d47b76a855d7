// unique / unique_consecutive on CUDA: (stable sort,) mark where a new value starts (NaNs are all
// distinct, as torch keeps every NaN), an int64 cumsum of the marks numbers the groups, and one
// pass scatters values, group starts and the inverse; counts are differences of the starts.
// The number of unique values is read back once to size the outputs. Sorting and the cumsum
// are the CUDA kernels of sort.cu and scan_arith.cu, reached through their kernel tables.
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/reduce_kernels.h"
#include "tensorcore/ops/shape.h"

namespace tc::cuda_kernels {
namespace {

constexpr uint32_t kRowTypes =
    (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | (1u << int(DType::Int64));

template <typename T>
__global__ void group_starts_kernel(const T* s, int64_t* marks, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    marks[i] = (i == 0 || !(s[i] == s[i - 1])) ? 1 : 0;
}

// group[i] = 1-based group number of sorted element i; order (optional) maps it to its input
// position.
template <typename T>
__global__ void scatter_groups_kernel(const T* s, const int64_t* marks, const int64_t* group,
                                      const int64_t* order, T* values, int64_t* starts,
                                      int64_t* inverse, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t g = group[i] - 1;
    inverse[order ? order[i] : i] = g;
    if (marks[i]) {
      values[g] = s[i];
      starts[g] = i;
    }
  }
}

__global__ void counts_kernel(const int64_t* starts, int64_t* counts, int64_t u, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t g = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; g < u; g += step)
    counts[g] = (g + 1 < u ? starts[g + 1] : n) - starts[g];
}

void unique_cuda(const Tensor& in, Tensor& values, Tensor& inverse, Tensor& counts,
                 bool consecutive) {
  const int64_t n = in.numel();
  const Device device = in.device();
  auto i64 = TensorOptions(DType::Int64).device(device);
  // bool compares as int64 (0/1) and converts back at the end.
  Tensor x = in.dtype() == DType::Bool ? to_dtype(in, DType::Int64) : in;
  if (n == 0) {
    values = empty({0}, TensorOptions(in.dtype()).device(device));
    inverse = empty({0}, i64);
    counts = empty({0}, i64);
    return;
  }
  Tensor sorted = x, order;
  if (!consecutive) {
    sorted = empty({1, n}, TensorOptions(x.dtype()).device(device));
    order = empty({1, n}, i64);
    RowParams prm;  // ascending
    sort_kernel.get(DeviceType::CUDA)(reshape(x, {1, n}), sorted, order, prm);
  }
  Tensor marks = empty({1, n}, i64), group = empty({1, n}, i64);
  const int dev = device.index;
  DeviceGuard guard(dev);
  dispatch_dtype<kRowTypes>(x.dtype(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    group_starts_kernel<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<const T*>(sorted.data_ptr()), static_cast<int64_t*>(marks.data_ptr()), n);
  });
  TC_CUDA_KERNEL_CHECK();
  cumsum_kernel.get(DeviceType::CUDA)(marks, group, Tensor(), RowParams{});
  const int64_t u = narrow(group, 1, n - 1, 1).item<int64_t>();
  Tensor vals = empty({u}, TensorOptions(x.dtype()).device(device));
  Tensor starts = empty({u}, i64);
  inverse = empty({n}, i64);
  counts = empty({u}, i64);
  dispatch_dtype<kRowTypes>(x.dtype(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_groups_kernel<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<const T*>(sorted.data_ptr()), static_cast<const int64_t*>(marks.data_ptr()),
        static_cast<const int64_t*>(group.data_ptr()),
        order.defined() ? static_cast<const int64_t*>(order.data_ptr()) : nullptr,
        static_cast<T*>(vals.data_ptr()), static_cast<int64_t*>(starts.data_ptr()),
        static_cast<int64_t*>(inverse.data_ptr()), n);
  });
  TC_CUDA_KERNEL_CHECK();
  counts_kernel<<<grid_for(u), kBlockSize, 0, stream_of(dev)>>>(
      static_cast<const int64_t*>(starts.data_ptr()), static_cast<int64_t*>(counts.data_ptr()), u,
      n);
  TC_CUDA_KERNEL_CHECK();
  values = in.dtype() == DType::Bool ? to_dtype(vals, DType::Bool) : vals;
}

TC_REGISTER_KERNEL(unique_kernel, CUDA, unique_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
