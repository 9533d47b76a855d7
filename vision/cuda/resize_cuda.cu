// The separable resize passes on CUDA, one thread per output element. Weighted sums run in the
// CPU's order with explicitly rounded products (no FMA contraction, which the CPU kernel also
// disables), so float results equal the CPU's and uint8 ones use Pillow's fixed point like it.
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/kernels/cuda/launch_on.cuh"
#include "vision/cuda/dispatch_image.h"
#include "vision/transforms/device_kernels.h"

namespace tc::vision::cuda {
using kernels::ResizeAxis;
namespace {

using cuda_kernels::kBlockSize;

constexpr int kPrecisionBits = 22;  // Pillow's, as in resize.cpp

#define TC_RESIZE_GRID_STRIDE(i, n)                                         \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

__device__ __forceinline__ int32_t mul_exact(int32_t a, int32_t b) { return a * b; }
__device__ __forceinline__ float mul_exact(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_exact(double a, double b) { return __dmul_rn(a, b); }

// Accumulator type W for image type T: int32 fixed point for uint8, else T itself.
template <typename T, typename W>
__device__ __forceinline__ W acc_init() {
  if constexpr (std::is_same_v<T, uint8_t>)
    return W(1 << (kPrecisionBits - 1));
  else
    return W(0);
}

template <typename T, typename W>
__device__ __forceinline__ T acc_store(W acc) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    acc >>= kPrecisionBits;
    return uint8_t(acc < 0 ? 0 : (acc > 255 ? 255 : acc));
  } else {
    return T(acc);
  }
}

template <typename T, typename W>
__global__ void vertical_kernel(const T* src, T* dst, const int64_t* start, const W* weights,
                                int64_t ksize, int64_t ks, int64_t in_h, int64_t width,
                                int64_t out_h, int64_t total) {
  TC_RESIZE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % width, y = (idx / width) % out_h, p = idx / (width * out_h);
    const T* col = src + (p * in_h + start[y]) * width + x;
    const W* w = weights + y * ksize;
    W acc = acc_init<T, W>();
    for (int64_t k = 0; k < ks; ++k) {
      const W wk = w[k];
      if (wk == W(0)) continue;
      acc = acc + mul_exact(wk, W(col[k * width]));
    }
    dst[idx] = acc_store<T, W>(acc);
  }
}

template <typename T, typename W>
__global__ void horizontal_kernel(const T* src, T* dst, const int64_t* start, const W* weights,
                                  int64_t ksize, int64_t ks, int64_t in_w, int64_t out_w,
                                  int64_t total) {
  TC_RESIZE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % out_w, r = idx / out_w;
    const T* in = src + r * in_w + start[x];
    const W* w = weights + x * ksize;
    W acc = acc_init<T, W>();
    for (int64_t k = 0; k < ks; ++k) acc = acc + mul_exact(w[k], W(in[k]));
    dst[idx] = acc_store<T, W>(acc);
  }
}

// Nearest copies bits: one kernel per element size.
template <typename T>
__global__ void nearest_kernel(const T* src, T* dst, const int64_t* iy, const int64_t* ix,
                               int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                               int64_t total) {
  TC_RESIZE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % out_w, y = (idx / out_w) % out_h, p = idx / (out_w * out_h);
    dst[idx] = src[(p * in_h + iy[y]) * in_w + ix[x]];
  }
}

__global__ void round_to_uint8_kernel(const float* src, uint8_t* dst, int64_t total) {
  TC_RESIZE_GRID_STRIDE(i, total) {
    float v = rintf(src[i]);  // round half to even
    dst[i] = uint8_t(v < 0.f ? 0.f : (v > 255.f ? 255.f : v));
  }
}

using cuda_kernels::launch_on;

void check_axis(const char* op, const ResizeAxis& a, DType image_dtype, int64_t out) {
  const DType wt = image_dtype == DType::UInt8 ? DType::Int32 : image_dtype;
  TC_CHECK(a.start.dtype() == DType::Int64 && a.start.numel() == out && a.weights.dtype() == wt &&
               a.weights.numel() == out * a.ksize && a.start.is_contiguous() &&
               a.weights.is_contiguous(),
           op, ": malformed resize weights (internal error)");
}

}  // namespace

void resize_vertical(const Tensor& src, int64_t planes, int64_t in_h, int64_t width,
                     const Tensor& dst, int64_t out_h, const ResizeAxis& a) {
  check_axis("resize (CUDA)", a, src.dtype(), out_h);
  const int64_t total = planes * out_h * width, ks = a.ksize < in_h ? a.ksize : in_h;
  dispatch_image<int32_t>(src.dtype(), "resize (CUDA)", [&](auto t_tag, auto w_tag) {
    using T = decltype(t_tag);
    using W = decltype(w_tag);
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      vertical_kernel<T, W><<<grid, kBlockSize, 0, s>>>(
          static_cast<const T*>(src.data_ptr()), static_cast<T*>(dst.data_ptr()),
          static_cast<const int64_t*>(a.start.data_ptr()),
          static_cast<const W*>(a.weights.data_ptr()), a.ksize, ks, in_h, width, out_h, total);
    });
  });
}

void resize_horizontal(const Tensor& src, int64_t rows, int64_t in_w, const Tensor& dst,
                       int64_t out_w, const ResizeAxis& a) {
  check_axis("resize (CUDA)", a, src.dtype(), out_w);
  const int64_t total = rows * out_w, ks = a.ksize < in_w ? a.ksize : in_w;
  dispatch_image<int32_t>(src.dtype(), "resize (CUDA)", [&](auto t_tag, auto w_tag) {
    using T = decltype(t_tag);
    using W = decltype(w_tag);
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      horizontal_kernel<T, W><<<grid, kBlockSize, 0, s>>>(
          static_cast<const T*>(src.data_ptr()), static_cast<T*>(dst.data_ptr()),
          static_cast<const int64_t*>(a.start.data_ptr()),
          static_cast<const W*>(a.weights.data_ptr()), a.ksize, ks, in_w, out_w, total);
    });
  });
}

void resize_nearest(const Tensor& src, int64_t planes, int64_t in_h, int64_t in_w,
                    const Tensor& dst, int64_t out_h, int64_t out_w, const Tensor& iy,
                    const Tensor& ix) {
  const int64_t total = planes * out_h * out_w;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      nearest_kernel<T><<<grid, kBlockSize, 0, s>>>(
          static_cast<const T*>(src.data_ptr()), static_cast<T*>(dst.data_ptr()),
          static_cast<const int64_t*>(iy.data_ptr()), static_cast<const int64_t*>(ix.data_ptr()),
          in_h, in_w, out_h, out_w, total);
    });
  };
  switch (src.itemsize()) {
    case 1:
      run(uint8_t{});
      break;
    case 4:
      run(uint32_t{});
      break;
    case 8:
      run(uint64_t{});
      break;
    default:
      throw TypeError(
          ::tc::detail::concat("resize (CUDA): unsupported dtype ", dtype_name(src.dtype())));
  }
}

void round_to_uint8(const Tensor& src, const Tensor& dst) {
  const int64_t total = src.numel();
  launch_on(src, total, [&](int grid, cudaStream_t s) {
    round_to_uint8_kernel<<<grid, kBlockSize, 0, s>>>(static_cast<const float*>(src.data_ptr()),
                                                      static_cast<uint8_t*>(dst.data_ptr()), total);
  });
}

}  // namespace tc::vision::cuda

namespace tc::vision::kernels {
TC_REGISTER_KERNEL(resize_vertical_kernel, CUDA, cuda::resize_vertical);
TC_REGISTER_KERNEL(resize_horizontal_kernel, CUDA, cuda::resize_horizontal);
TC_REGISTER_KERNEL(resize_nearest_kernel, CUDA, cuda::resize_nearest);
TC_REGISTER_KERNEL(round_to_uint8_kernel, CUDA, cuda::round_to_uint8);
}  // namespace tc::vision::kernels
