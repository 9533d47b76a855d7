// searchsorted / bucketize on CUDA (one thread per value, a binary search in its boundary row,
// through `sorter` when given, with torch's order: NaN largest) and the counting ops histc and
// bincount (atomic adds, so float sums may differ from the CPU's in the last bits).
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc::cuda_kernels {
namespace {

constexpr uint32_t kRowTypes =
    (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | (1u << int(DType::Int64));

template <typename T>
__device__ __forceinline__ bool lt_nan(T a, T b) {
  return (a == a && b != b) || a < b;  // integers: a < b
}

template <typename T, typename Out>
__global__ void searchsorted_dev(Out* out, const T* bnd, const T* vals, const int64_t* sorter,
                                 int64_t total, int64_t nv, int64_t nb, bool shared, bool right) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t q = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total; q += step) {
    const int64_t br = shared ? 0 : q / nv;
    const T* row = bnd + br * nb;
    const int64_t* srow = sorter ? sorter + br * nb : nullptr;
    const T v = vals[q];
    int64_t lo = 0, hi = nb;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      const T m = srow ? row[srow[mid]] : row[mid];
      if (right ? !lt_nan(v, m) : lt_nan(m, v))
        lo = mid + 1;
      else
        hi = mid;
    }
    out[q] = Out(lo);
  }
}

void searchsorted_cuda(const Tensor& out, const Tensor& bnd, const Tensor& vals,
                       const Tensor& sorter, bool right) {
  const int64_t total = vals.numel(), nv = vals.size(1), nb = bnd.size(1);
  if (total == 0) return;
  const bool shared = bnd.size(0) == 1;
  const int dev = vals.device().index;
  DeviceGuard g(dev);
  const int64_t* sp = sorter.defined() ? static_cast<const int64_t*>(sorter.data_ptr()) : nullptr;
  dispatch_dtype<kRowTypes>(bnd.dtype(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* b = static_cast<const T*>(bnd.data_ptr());
    const T* v = static_cast<const T*>(vals.data_ptr());
    if (out.dtype() == DType::Int32)
      searchsorted_dev<T, int32_t><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
          static_cast<int32_t*>(out.data_ptr()), b, v, sp, total, nv, nb, shared, right);
    else
      searchsorted_dev<T, int64_t><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
          static_cast<int64_t*>(out.data_ptr()), b, v, sp, total, nv, nb, shared, right);
  });
  TC_CUDA_KERNEL_CHECK();
}

constexpr uint32_t kFloats = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

template <typename T>
__global__ void histc_dev(T* out, const T* in, int64_t n, int64_t bins, double lo, double hi) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const double x = double(in[i]);
    if (!(x >= lo && x <= hi)) continue;
    int64_t b = int64_t((x - lo) * double(bins) / (hi - lo));
    if (b >= bins) b = bins - 1;
    atomicAdd(out + b, T(1));
  }
}

void histc_cuda(const Tensor& out, const Tensor& in, int64_t bins, double lo, double hi) {
  const int64_t n = in.numel();
  if (n == 0) return;
  const int dev = in.device().index;
  DeviceGuard g(dev);
  dispatch_dtype<kFloats>(in.dtype(), "histc", [&](auto tag) {
    using T = typename decltype(tag)::type;
    histc_dev<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(in.data_ptr()), n, bins, lo, hi);
  });
  TC_CUDA_KERNEL_CHECK();
}

template <typename T>
__global__ void bincount_dev(T* out, const int64_t* in, const T* w, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if constexpr (std::is_same_v<T, int64_t>) {
      atomicAdd(reinterpret_cast<unsigned long long*>(out + in[i]),
                static_cast<unsigned long long>(w ? w[i] : 1));
    } else {
      atomicAdd(out + in[i], w ? w[i] : T(1));
    }
  }
}

void bincount_cuda(const Tensor& out, const Tensor& in, const Tensor& weights) {
  const int64_t n = in.numel();
  if (n == 0) return;
  const int dev = in.device().index;
  DeviceGuard g(dev);
  dispatch_dtype<kFloats | (1u << int(DType::Int64))>(out.dtype(), "bincount", [&](auto tag) {
    using T = typename decltype(tag)::type;
    bincount_dev<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const int64_t*>(in.data_ptr()),
        weights.defined() ? static_cast<const T*>(weights.data_ptr()) : nullptr, n);
  });
  TC_CUDA_KERNEL_CHECK();
}

TC_REGISTER_KERNEL(searchsorted_kernel, CUDA, searchsorted_cuda);
TC_REGISTER_KERNEL(histc_kernel, CUDA, histc_cuda);
TC_REGISTER_KERNEL(bincount_kernel, CUDA, bincount_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
