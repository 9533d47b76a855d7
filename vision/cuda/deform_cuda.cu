// Deformable convolution's sampling on CUDA: the columns of one image and, backward, the input /
// offset / mask gradients from the column gradient. The matrix products around them are core ops
// (cuBLAS), as on the CPU. One thread per column element (or per offset-group tap and location);
// every sample is deform_sample.h's code, the same as the CPU kernels'.
#include "tensorcore/core/deterministic.h"
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/kernels/cuda/launch_on.cuh"
#include "vision/ops/device_kernels.h"

namespace tc::vision::ops::cuda {
namespace {

using cuda_kernels::kBlockSize;
using detail::DeformGeometry;

constexpr uint32_t kOpTypes = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

#define TC_DEFORM_GRID_STRIDE(i, n)                                         \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

// cols[(c * K + k) * L + l] for channel c, tap k, output location l.
template <typename T>
__global__ void im2col_kernel(DeformGeometry g, const T* in, const T* off, const T* msk, T* cols,
                              int64_t total) {
  const int64_t K = g.K(), L = g.L(), cpg = g.Cin / g.offset_groups;
  TC_DEFORM_GRID_STRIDE(idx, total) {
    const int64_t l = idx % L, k = (idx / L) % K, c = idx / (L * K);
    const detail::DeformPos<T> p = detail::deform_position<T>(g, off, msk, c / cpg, k, l);
    cols[idx] = p.m * detail::deform_sample(in + c * g.H * g.W, g.H, g.W, p.y, p.x);
  }
}

// Input gradient: each column element scatters into its four taps.
template <typename T>
__global__ void col2im_input_kernel(DeformGeometry g, const T* off, const T* msk, const T* gcols,
                                    T* gin, int64_t total) {
  const int64_t K = g.K(), L = g.L(), cpg = g.Cin / g.offset_groups;
  TC_DEFORM_GRID_STRIDE(idx, total) {
    const int64_t l = idx % L, k = (idx / L) % K, c = idx / (L * K);
    const detail::DeformPos<T> p = detail::deform_position<T>(g, off, msk, c / cpg, k, l);
    if (!detail::deform_inside(p.y, p.x, g.H, g.W)) continue;
    const T gv = gcols[idx] * p.m;
    const detail::DeformTaps<T> t = detail::deform_taps(g.H, g.W, p.y, p.x);
    T* plane = gin + c * g.H * g.W;
    for (int q = 0; q < 4; ++q)
      if (t.off[q] >= 0) atomicAdd(plane + t.off[q], detail::deform_tap_grad(t, q, gv));
  }
}

// Offset and mask gradients: one thread per (offset group, tap, location), summing over the
// group's channels in the CPU's order.
template <typename T>
__global__ void col2im_coord_kernel(DeformGeometry g, const T* in, const T* off, const T* msk,
                                    const T* gcols, T* goff, T* gmsk, int64_t total) {
  const int64_t K = g.K(), L = g.L(), cpg = g.Cin / g.offset_groups;
  TC_DEFORM_GRID_STRIDE(idx, total) {
    const int64_t l = idx % L, k = (idx / L) % K, og = idx / (L * K);
    const detail::DeformPos<T> p = detail::deform_position<T>(g, off, msk, og, k, l);
    T acc_y = 0, acc_x = 0, acc_m = 0;
    if (detail::deform_inside(p.y, p.x, g.H, g.W)) {
      const detail::DeformTaps<T> t = detail::deform_taps(g.H, g.W, p.y, p.x);
      for (int64_t c = og * cpg; c < (og + 1) * cpg; ++c)
        detail::deform_coord_grads(t, in + c * g.H * g.W, gcols[(c * K + k) * L + l], p.m, acc_y,
                                   acc_x, acc_m);
    }
    T* gy = goff + (og * 2 * K + 2 * k) * L;
    gy[l] = acc_y;
    gy[L + l] = acc_x;
    if (gmsk) gmsk[(og * K + k) * L + l] = acc_m;
  }
}

using cuda_kernels::launch_on;

// Pointers to image n's planes of the input, offset and mask.
template <typename T>
struct ImagePtrs {
  const T* in;
  const T* off;
  const T* msk;
};

template <typename T>
ImagePtrs<T> image_ptrs(const DeformGeometry& g, const Tensor& x, const Tensor& off,
                        const Tensor& msk, int64_t n) {
  const int64_t KL = g.K() * g.L();
  return {static_cast<const T*>(x.data_ptr()) + n * g.Cin * g.H * g.W,
          static_cast<const T*>(off.data_ptr()) + n * 2 * g.offset_groups * KL,
          g.use_mask ? static_cast<const T*>(msk.data_ptr()) + n * g.offset_groups * KL : nullptr};
}

}  // namespace

void deform_im2col(const DeformGeometry& g, const Tensor& x, const Tensor& off, const Tensor& msk,
                   int64_t n, const Tensor& cols) {
  const int64_t total = g.Cin * g.K() * g.L();
  cuda_kernels::dispatch_dev<kOpTypes>(x.dtype(), "deform_conv2d (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const ImagePtrs<T> p = image_ptrs<T>(g, x, off, msk, n);
    launch_on(x, total, [&](int grid, cudaStream_t s) {
      im2col_kernel<T><<<grid, kBlockSize, 0, s>>>(g, p.in, p.off, p.msk,
                                                   static_cast<T*>(cols.data_ptr()), total);
    });
  });
}

void deform_col2im(const DeformGeometry& g, const Tensor& x, const Tensor& off, const Tensor& msk,
                   int64_t n, const Tensor& gcols, const Tensor& gin, const Tensor& goff,
                   const Tensor& gmsk) {
  if (n == 0) alert_not_deterministic("deform_conv2d_backward (CUDA)");  // once per backward
  const int64_t KL = g.K() * g.L();
  const int64_t col_work = g.Cin * KL, coord_work = g.offset_groups * KL;
  cuda_kernels::dispatch_dev<kOpTypes>(x.dtype(), "deform_conv2d_backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const ImagePtrs<T> p = image_ptrs<T>(g, x, off, msk, n);
    const T* gc = static_cast<const T*>(gcols.data_ptr());
    launch_on(x, col_work, [&](int grid, cudaStream_t s) {
      col2im_input_kernel<T><<<grid, kBlockSize, 0, s>>>(
          g, p.off, p.msk, gc, static_cast<T*>(gin.data_ptr()) + n * g.Cin * g.H * g.W, col_work);
    });
    launch_on(x, coord_work, [&](int grid, cudaStream_t s) {
      col2im_coord_kernel<T><<<grid, kBlockSize, 0, s>>>(
          g, p.in, p.off, p.msk, gc,
          static_cast<T*>(goff.data_ptr()) + n * 2 * g.offset_groups * KL,
          g.use_mask ? static_cast<T*>(gmsk.data_ptr()) + n * g.offset_groups * KL : nullptr,
          coord_work);
    });
  });
}

}  // namespace tc::vision::ops::cuda

namespace tc::vision::ops {
TC_REGISTER_KERNEL(deform_im2col_kernel, CUDA, cuda::deform_im2col);
TC_REGISTER_KERNEL(deform_col2im_kernel, CUDA, cuda::deform_col2im);
}  // namespace tc::vision::ops
