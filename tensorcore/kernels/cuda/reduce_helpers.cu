// The private helpers behind the vjps of the sort / scan / reduction family on CUDA (they ran on
// a host copy before): gather and scatter-add along the last dim of [rows, n] rows, the
// pointwise masks (equal-with-NaN, not-NaN, zero, |x|, sign, |x|^p, NaN -> 0), prod's
// "product of the others" and cumprod's backward with zeros. float32/float64.
#include <cmath>

#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc::cuda_kernels {
namespace {

constexpr uint32_t kFloats = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

// out [rows, k] = in[r, idx[r, j]]
template <typename T>
__global__ void rows_gather_dev(T* out, const T* in, const int64_t* idx, int64_t total, int64_t k,
                                int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step)
    out[i] = in[(i / k) * n + idx[i]];
}

// out [rows, n] += src[r, j] at idx[r, j] (atomics: an index may repeat within a row).
template <typename T>
__global__ void rows_scatter_add_dev(T* out, const T* src, const int64_t* idx, int64_t total,
                                     int64_t k, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step)
    atomicAdd(out + (i / k) * n + idx[i], src[i]);
}

void rows_gather_cuda(const Tensor& out, const Tensor& in, const Tensor& idx) {
  const int64_t total = idx.numel(), k = idx.sizes().back(), n = in.sizes().back();
  if (total == 0) return;
  const int dev = in.device().index;
  DeviceGuard g(dev);
  dispatch_dtype<kFloats>(in.dtype(), "gather", [&](auto tag) {
    using T = typename decltype(tag)::type;
    rows_gather_dev<T><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(in.data_ptr()),
        static_cast<const int64_t*>(idx.data_ptr()), total, k, n);
  });
  TC_CUDA_KERNEL_CHECK();
}

void rows_scatter_add_cuda(const Tensor& out, const Tensor& src, const Tensor& idx) {
  const int64_t total = idx.numel(), k = idx.sizes().back(), n = out.sizes().back();
  if (total == 0) return;
  const int dev = out.device().index;
  DeviceGuard g(dev);
  dispatch_dtype<kFloats>(out.dtype(), "scatter_add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    rows_scatter_add_dev<T><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(src.data_ptr()),
        static_cast<const int64_t*>(idx.data_ptr()), total, k, n);
  });
  TC_CUDA_KERNEL_CHECK();
}

template <typename T>
__global__ void pointwise_dev(T* o, const T* x, const T* y, int64_t n, PointwiseCode code,
                              double p) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const T v = x[i];
    switch (code) {
      case PointwiseCode::EqMask:
        o[i] = (v == y[i] || (v != v && y[i] != y[i])) ? T(1) : T(0);
        break;
      case PointwiseCode::NotNan:
        o[i] = v != v ? T(0) : T(1);
        break;
      case PointwiseCode::IsZero:
        o[i] = v == T(0) ? T(1) : T(0);
        break;
      case PointwiseCode::Abs:
        o[i] = v < T(0) ? -v : v;
        break;
      case PointwiseCode::Sign:
        o[i] = T((v > T(0)) - (v < T(0)));
        break;
      case PointwiseCode::PowAbs:
        o[i] = T(pow(fabs(double(v)), p));
        break;
      case PointwiseCode::NanToZero:
        o[i] = v != v ? T(0) : v;
        break;
    }
  }
}

void pointwise_cuda(const Tensor& out, const Tensor& a, const Tensor& b, PointwiseCode code,
                    double p) {
  const int64_t n = a.numel();
  if (n == 0) return;
  const int dev = a.device().index;
  DeviceGuard g(dev);
  dispatch_dtype<kFloats>(a.dtype(), "reduce_pointwise", [&](auto tag) {
    using T = typename decltype(tag)::type;
    pointwise_dev<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(a.data_ptr()),
        b.defined() ? static_cast<const T*>(b.data_ptr()) : nullptr, n, code, p);
  });
  TC_CUDA_KERNEL_CHECK();
}

// values[r, j] = prod_{i != j} in[r, i] = (inclusive cumprod)[j-1] * (reverse cumprod)[j+1]:
// no division, so zeros need no special case.
template <typename T>
__global__ void prod_others_dev(T* out, const T* fwd, const T* bwd, int64_t total, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t j = i % n;
    const double before = j > 0 ? double(fwd[i - 1]) : 1.0;
    const double after = j + 1 < n ? double(bwd[i + 1]) : 1.0;
    out[i] = T(before * after);
  }
}

void prod_others_cuda(const Tensor& in, const Tensor& values, const Tensor&, const RowParams&) {
  const int64_t total = in.numel(), n = in.size(1);
  if (total == 0) return;
  Tensor fwd = empty(in.sizes(), TensorOptions(in.dtype()).device(in.device()));
  Tensor bwd = empty(in.sizes(), TensorOptions(in.dtype()).device(in.device()));
  RowParams forward, reverse;
  reverse.flag = true;
  cumprod_kernel.get(DeviceType::CUDA)(in, fwd, Tensor(), forward);
  cumprod_kernel.get(DeviceType::CUDA)(in, bwd, Tensor(), reverse);
  const int dev = in.device().index;
  DeviceGuard g(dev);
  dispatch_dtype<kFloats>(in.dtype(), "prod_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    prod_others_dev<T><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(values.data_ptr()), static_cast<const T*>(fwd.data_ptr()),
        static_cast<const T*>(bwd.data_ptr()), total, n);
  });
  TC_CUDA_KERNEL_CHECK();
}

// out[r, i] = sum_{j >= i} g[r, j] * prod_{k <= j, k != i} x[r, k], one thread per (r, i): the
// same O(n^2) per row as the CPU kernel, in double.
template <typename T>
__global__ void cumprod_backward_dev(T* out, const T* x, const T* g, int64_t total, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t q = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total; q += step) {
    const int64_t i = q % n;
    const T* xr = x + (q - i);
    const T* gr = g + (q - i);
    double run = 1;
    for (int64_t k = 0; k < i; ++k) run *= double(xr[k]);
    double s = 0;
    for (int64_t j = i; j < n; ++j) {
      if (j > i) run *= double(xr[j]);
      s += double(gr[j]) * run;
    }
    out[q] = T(s);
  }
}

void cumprod_backward_cuda(const Tensor& out, const Tensor& x, const Tensor& g) {
  const int64_t total = x.numel(), n = x.size(1);
  if (total == 0) return;
  const int dev = x.device().index;
  DeviceGuard guard(dev);
  dispatch_dtype<kFloats>(x.dtype(), "cumprod_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cumprod_backward_dev<T><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(x.data_ptr()),
        static_cast<const T*>(g.data_ptr()), total, n);
  });
  TC_CUDA_KERNEL_CHECK();
}

TC_REGISTER_KERNEL(prod_others_kernel, CUDA, prod_others_cuda);
TC_REGISTER_KERNEL(cumprod_backward_kernel, CUDA, cumprod_backward_cuda);
TC_REGISTER_KERNEL(rows_gather_kernel, CUDA, rows_gather_cuda);
TC_REGISTER_KERNEL(rows_scatter_add_kernel, CUDA, rows_scatter_add_cuda);
TC_REGISTER_KERNEL(reduce_pointwise_kernel, CUDA, pointwise_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
