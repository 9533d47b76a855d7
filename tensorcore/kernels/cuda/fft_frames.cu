// stft's framing primitives on CUDA: frame_signal gathers [B, T, n] frames from [B, L]; its
// adjoint overlap_add sums, for each output sample, the frames covering it (a gather, so no
// atomics and a deterministic result). Data movement by element size; sums per float dtype.
#include "tensorcore/fft/fft_kernels.h"
#include "tensorcore/kernels/cuda/common.cuh"

namespace tc::cuda_kernels {
namespace {

template <typename T>
__global__ void frame_kernel(T* out, const T* x, int64_t total, int64_t T_frames, int64_t n,
                             int64_t L, int64_t hop) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t j = i % n, bt = i / n, t = bt % T_frames, b = bt / T_frames;
    out[i] = x[b * L + t * hop + j];
  }
}

template <typename T>
__global__ void overlap_add_kernel_dev(T* out, const T* f, int64_t total, int64_t T_frames,
                                       int64_t n, int64_t out_len, int64_t hop) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t p = i % out_len, b = i / out_len;
    // Frames t with t*hop <= p < t*hop + n.
    const int64_t t_hi = min(T_frames - 1, p / hop);
    const int64_t t_lo = p >= n ? (p - n) / hop + 1 : 0;
    T acc = T(0);
    for (int64_t t = t_lo; t <= t_hi; ++t) acc += f[(b * T_frames + t) * n + (p - t * hop)];
    out[i] = acc;
  }
}

template <typename F>
void dispatch_frame_dtype(DType d, const char* op, F&& f) {
  switch (d) {
    case DType::Float32:
      return f(TypeTag<float>{});
    case DType::Float64:
      return f(TypeTag<double>{});
    case DType::Complex64:
      return f(TypeTag<cplx<float>>{});
    case DType::Complex128:
      return f(TypeTag<cplx<double>>{});
    default:
      throw TypeError(detail::concat(op, ": unsupported dtype ", dtype_name(d)));
  }
}

void frame_signal_cuda(const Tensor& out, const Tensor& x, int64_t frame_length, int64_t hop) {
  const int dev = x.device().index;
  DeviceGuard g(dev);
  const int64_t total = out.numel();
  dispatch_frame_dtype(x.dtype(), "frame_signal", [&](auto tag) {
    using T = typename decltype(tag)::type;
    frame_kernel<T><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(x.data_ptr()), total, out.size(1),
        frame_length, x.size(1), hop);
  });
  TC_CUDA_KERNEL_CHECK();
}

void overlap_add_cuda(const Tensor& out, const Tensor& frames, int64_t hop) {
  const int dev = frames.device().index;
  DeviceGuard g(dev);
  const int64_t total = out.numel();
  dispatch_frame_dtype(frames.dtype(), "overlap_add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    overlap_add_kernel_dev<T><<<grid_for(total), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(frames.data_ptr()), total,
        frames.size(1), frames.size(2), out.size(1), hop);
  });
  TC_CUDA_KERNEL_CHECK();
}

TC_REGISTER_KERNEL(fft::frame_signal_kernel, CUDA, frame_signal_cuda);
TC_REGISTER_KERNEL(fft::overlap_add_kernel, CUDA, overlap_add_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
