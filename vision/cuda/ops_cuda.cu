// Detection ops on CUDA: the NMS overlap bit matrix, RoIAlign / PSRoIAlign and RoIPool /
// PSRoIPool forward and backward. The arithmetic follows the CPU kernels in
// vision/ops (the RoI geometry and bilinear taps are the same host/device functions)
// so results match them to rounding; products that feed a sum are rounded explicitly (__fmul_rn)
// where a fused multiply-add could flip an IoU comparison.
#include <limits>

#include "tensorcore/core/deterministic.h"
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/creation.h"
#include "vision/ops/bilinear_sample.h"
#include "vision/ops/device_kernels.h"
#include "vision/ops/roi_geometry.h"

namespace tc::vision::ops::cuda {
namespace {

using cuda_kernels::dev_t;
using cuda_kernels::kBlockSize;

constexpr uint32_t kOpTypes = (1u << int(DType::Float32)) | (1u << int(DType::Float64));
constexpr int kBoxesPerWord = 64;

#define TC_VISION_GRID_STRIDE(i, n)                                         \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// IoU(a, b) > threshold with the CPU's expression: inter / ((area_a + area_b) - inter).
template <typename T>
__device__ __forceinline__ bool iou_above(const T* a, const T* b, T threshold) {
  T w = fmax(T(0), fmin(a[2], b[2]) - fmax(a[0], b[0]));
  T h = fmax(T(0), fmin(a[3], b[3]) - fmax(a[1], b[1]));
  T inter = mul_rn(w, h);
  T area_a = mul_rn(a[2] - a[0], a[3] - a[1]);
  T area_b = mul_rn(b[2] - b[0], b[3] - b[1]);
  return inter / ((area_a + area_b) - inter) > threshold;
}

// Block (row_block, col_block) compares 64 row boxes with 64 column boxes; thread t owns row
// box row_block * 64 + t and writes its one 64-bit word for this column block.
template <typename T>
__global__ void nms_mask_kernel(const T* boxes, int64_t n, int64_t col_blocks, T threshold,
                                unsigned long long* mask) {
  const int64_t row_block = blockIdx.y, col_block = blockIdx.x;
  if (col_block < row_block) return;  // only j > i matters; the host pass never reads these
  const int64_t rows_left = n - row_block * kBoxesPerWord,
                cols_left = n - col_block * kBoxesPerWord;
  const int row_size = int(rows_left < kBoxesPerWord ? rows_left : kBoxesPerWord);
  const int col_size = int(cols_left < kBoxesPerWord ? cols_left : kBoxesPerWord);
  __shared__ T cols[kBoxesPerWord * 4];
  const int t = threadIdx.x;
  if (t < col_size)
    for (int k = 0; k < 4; ++k) cols[t * 4 + k] = boxes[(col_block * kBoxesPerWord + t) * 4 + k];
  __syncthreads();
  if (t >= row_size) return;
  const int64_t i = row_block * kBoxesPerWord + t;
  T row[4] = {boxes[i * 4], boxes[i * 4 + 1], boxes[i * 4 + 2], boxes[i * 4 + 3]};
  unsigned long long bits = 0;
  for (int j = row_block == col_block ? t + 1 : 0; j < col_size; ++j)
    if (iou_above(row, cols + j * 4, threshold)) bits |= 1ULL << j;
  mask[i * col_blocks + col_block] = bits;
}

// ---- RoIAlign: geometry (roi_geometry.h) and bilinear taps (bilinear_sample.h) shared with
// the CPU kernels ----

template <typename T>
__device__ __forceinline__ detail::AlignGeometry<T> geometry_of(const T* roi,
                                                                const RoiAlignArgs& a) {
  return detail::align_geometry<T>(roi, T(a.spatial_scale), a.pooled_height, a.pooled_width,
                                   a.sampling_ratio, a.aligned, !a.aligned);
}

// Input channel read by output channel c at bin (py, px).
__device__ __forceinline__ int64_t align_input_channel(const RoiAlignArgs& a, int64_t c, int64_t py,
                                                       int64_t px) {
  return a.position_sensitive ? (c * a.pooled_height + py) * a.pooled_width + px : c;
}

// One thread per output element (k, c, py, px).
template <typename T>
__global__ void roi_align_forward_kernel(const T* input, const T* rois, T* out, RoiAlignArgs a,
                                         int64_t C_in, int64_t C_out, int64_t H, int64_t W,
                                         int64_t total) {
  const int64_t ph = a.pooled_height, pw = a.pooled_width;
  TC_VISION_GRID_STRIDE(idx, total) {
    const int64_t px = idx % pw, py = (idx / pw) % ph, c = (idx / (pw * ph)) % C_out;
    const int64_t k = idx / (pw * ph * C_out);
    const T* roi = rois + k * 5;
    const int64_t cin = align_input_channel(a, c, py, px);
    const T* plane = input + (int64_t(roi[0]) * C_in + cin) * H * W;
    const detail::AlignGeometry<T> g = geometry_of(roi, a);
    T acc = 0;
    for (int64_t iy = 0; iy < g.grid_h; ++iy) {
      const T y = detail::align_sample_y(g, py, iy);
      for (int64_t ix = 0; ix < g.grid_w; ++ix) {
        // Outside the image all four weights are zero, as on the CPU.
        const detail::Sample<T> s =
            detail::bilinear_sample(H, W, y, detail::align_sample_x(g, px, ix));
        acc += s.w1 * plane[s.o1] + s.w2 * plane[s.o2] + s.w3 * plane[s.o3] + s.w4 * plane[s.o4];
      }
    }
    out[idx] = acc * (T(1) / g.count);
  }
}

// One thread per gradient element, scattering into the input gradient with atomicAdd.
template <typename T>
__global__ void roi_align_backward_kernel(const T* grad, const T* rois, T* grad_input,
                                          RoiAlignArgs a, int64_t C_in, int64_t C_out, int64_t H,
                                          int64_t W, int64_t total) {
  const int64_t ph = a.pooled_height, pw = a.pooled_width;
  TC_VISION_GRID_STRIDE(idx, total) {
    const int64_t px = idx % pw, py = (idx / pw) % ph, c = (idx / (pw * ph)) % C_out;
    const int64_t k = idx / (pw * ph * C_out);
    const T* roi = rois + k * 5;
    const int64_t cin = align_input_channel(a, c, py, px);
    T* plane = grad_input + (int64_t(roi[0]) * C_in + cin) * H * W;
    const detail::AlignGeometry<T> g = geometry_of(roi, a);
    const T gv = grad[idx] / g.count;
    if (gv == T(0)) continue;
    for (int64_t iy = 0; iy < g.grid_h; ++iy) {
      const T y = detail::align_sample_y(g, py, iy);
      for (int64_t ix = 0; ix < g.grid_w; ++ix) {
        const detail::Sample<T> s =
            detail::bilinear_sample(H, W, y, detail::align_sample_x(g, px, ix));
        if (s.w1 == T(0) && s.w2 == T(0) && s.w3 == T(0) && s.w4 == T(0)) continue;
        atomicAdd(plane + s.o1, gv * s.w1);
        atomicAdd(plane + s.o2, gv * s.w2);
        atomicAdd(plane + s.o3, gv * s.w3);
        atomicAdd(plane + s.o4, gv * s.w4);
      }
    }
  }
}

// ---- RoIPool and position-sensitive RoIPool: integer bins from roi_geometry.h ----

struct PoolArgs {
  double spatial_scale;
  int64_t ph, pw, C_in, C_out, H, W;
  bool position_sensitive;
};

template <typename T>
__device__ __forceinline__ detail::PoolBin bin_of(const T* roi, const PoolArgs& a, int64_t py,
                                                  int64_t px) {
  // roi_pool: one extra pixel, bins clamped to the image; ps_roi_pool: clamped to the last pixel.
  return detail::pool_bin<T>(roi, T(a.spatial_scale), a.ph, a.pw, a.H, a.W, !a.position_sensitive,
                             a.position_sensitive, py, px);
}

// Plane of the input (or its gradient) that output element (k, c, py, px) pools.
template <typename T>
__device__ __forceinline__ int64_t pool_plane(const T* roi, const PoolArgs& a, int64_t c,
                                              int64_t py, int64_t px) {
  const int64_t cin = a.position_sensitive ? (c * a.ph + py) * a.pw + px : c;
  return (int64_t(roi[0]) * a.C_in + cin) * a.H * a.W;
}

// One thread per output element: the max (roi_pool, with its argmax) or mean (ps) of the bin.
template <typename T>
__global__ void pool_forward_kernel(const T* input, const T* rois, T* out, int64_t* argmax,
                                    PoolArgs a, int64_t total) {
  TC_VISION_GRID_STRIDE(idx, total) {
    const int64_t px = idx % a.pw, py = (idx / a.pw) % a.ph;
    const int64_t c = (idx / (a.pw * a.ph)) % a.C_out, k = idx / (a.pw * a.ph * a.C_out);
    const T* roi = rois + k * 5;
    const detail::PoolBin b = bin_of(roi, a, py, px);
    const T* plane = input + pool_plane(roi, a, c, py, px);
    if (a.position_sensitive) {
      T acc = 0;
      for (int64_t h = b.hs; h < b.he; ++h)
        for (int64_t w = b.ws; w < b.we; ++w) acc += plane[h * a.W + w];
      out[idx] = b.empty() ? T(0) : acc / T((b.he - b.hs) * (b.we - b.ws));
    } else {
      T best = b.empty() ? T(0) : std::numeric_limits<T>::lowest();
      int64_t best_idx = -1;
      for (int64_t h = b.hs; h < b.he; ++h)
        for (int64_t w = b.ws; w < b.we; ++w)
          if (plane[h * a.W + w] > best) best = plane[h * a.W + w], best_idx = h * a.W + w;
      out[idx] = best;
      argmax[idx] = best_idx;
    }
  }
}

// One thread per gradient element: to the argmax (roi_pool) or spread over the bin (ps).
template <typename T>
__global__ void pool_backward_kernel(const T* grad, const T* rois, const int64_t* argmax,
                                     T* grad_input, PoolArgs a, int64_t total) {
  TC_VISION_GRID_STRIDE(idx, total) {
    const int64_t px = idx % a.pw, py = (idx / a.pw) % a.ph;
    const int64_t c = (idx / (a.pw * a.ph)) % a.C_out, k = idx / (a.pw * a.ph * a.C_out);
    const T* roi = rois + k * 5;
    T* plane = grad_input + pool_plane(roi, a, c, py, px);
    if (!a.position_sensitive) {
      if (argmax[idx] >= 0) atomicAdd(plane + argmax[idx], grad[idx]);
      continue;
    }
    const detail::PoolBin b = bin_of(roi, a, py, px);
    if (b.empty()) continue;
    const T gv = grad[idx] / T((b.he - b.hs) * (b.we - b.ws));
    for (int64_t h = b.hs; h < b.he; ++h)
      for (int64_t w = b.ws; w < b.we; ++w) atomicAdd(plane + h * a.W + w, gv);
  }
}

template <typename F>
void launch_on(const Tensor& t, int64_t work, F&& launch) {
  if (work == 0) return;
  cuda_kernels::DeviceGuard guard(t.device().index);
  cudaStream_t stream = cuda_kernels::stream_of(t.device().index);
  launch(stream);
  TC_CUDA_KERNEL_CHECK();
}

}  // namespace

Tensor nms_mask(const Tensor& boxes, double iou_threshold) {
  const int64_t n = boxes.size(0);
  const int64_t col_blocks = (n + kBoxesPerWord - 1) / kBoxesPerWord;
  TC_CHECK(col_blocks <= 65535, "nms (CUDA): at most ", int64_t(65535) * kBoxesPerWord,
           " boxes are supported, got ", n);
  Tensor mask = empty({n, col_blocks}, TensorOptions(DType::Int64).device(boxes.device()));
  cuda_kernels::dispatch_dev<kOpTypes>(boxes.dtype(), "nms (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(boxes, n, [&](cudaStream_t s) {
      const dim3 grid{unsigned(col_blocks), unsigned(col_blocks)};
      nms_mask_kernel<T><<<grid, kBoxesPerWord, 0, s>>>(
          static_cast<const T*>(boxes.data_ptr()), n, col_blocks, T(iou_threshold),
          static_cast<unsigned long long*>(mask.data_ptr()));
    });
  });
  return mask;
}

void roi_align_forward(const Tensor& input, const Tensor& rois, const RoiAlignArgs& a,
                       const Tensor& out) {
  const int64_t C_in = input.size(1), C_out = out.size(1), H = input.size(2), W = input.size(3);
  const int64_t total = out.numel();
  cuda_kernels::dispatch_dev<kOpTypes>(input.dtype(), "roi_align (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(input, total, [&](cudaStream_t s) {
      roi_align_forward_kernel<T><<<cuda_kernels::grid_for(total), kBlockSize, 0, s>>>(
          static_cast<const T*>(input.data_ptr()), static_cast<const T*>(rois.data_ptr()),
          static_cast<T*>(out.data_ptr()), a, C_in, C_out, H, W, total);
    });
  });
}

void roi_align_backward(const Tensor& grad, const Tensor& rois, const RoiAlignArgs& a,
                        const Tensor& grad_input) {
  alert_not_deterministic(a.position_sensitive ? "ps_roi_align_backward (CUDA)"
                                               : "roi_align_backward (CUDA)");
  const int64_t C_in = grad_input.size(1), H = grad_input.size(2), W = grad_input.size(3);
  const int64_t C_out = grad.size(1), total = grad.numel();
  cuda_kernels::dispatch_dev<kOpTypes>(grad.dtype(), "roi_align_backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(grad, total, [&](cudaStream_t s) {
      roi_align_backward_kernel<T><<<cuda_kernels::grid_for(total), kBlockSize, 0, s>>>(
          static_cast<const T*>(grad.data_ptr()), static_cast<const T*>(rois.data_ptr()),
          static_cast<T*>(grad_input.data_ptr()), a, C_in, C_out, H, W, total);
    });
  });
}

namespace {

PoolArgs pool_args(const Tensor& input_like, const Tensor& out_like, double scale, int64_t ph,
                   int64_t pw, bool position_sensitive) {
  return {scale,
          ph,
          pw,
          input_like.size(1),
          out_like.size(1),
          input_like.size(2),
          input_like.size(3),
          position_sensitive};
}

void pool_forward(const char* op, const Tensor& input, const Tensor& rois, const PoolArgs& a,
                  const Tensor& out, const Tensor& argmax) {
  const int64_t total = out.numel();
  cuda_kernels::dispatch_dev<kOpTypes>(input.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(input, total, [&](cudaStream_t s) {
      pool_forward_kernel<T><<<cuda_kernels::grid_for(total), kBlockSize, 0, s>>>(
          static_cast<const T*>(input.data_ptr()), static_cast<const T*>(rois.data_ptr()),
          static_cast<T*>(out.data_ptr()),
          argmax.defined() ? static_cast<int64_t*>(argmax.data_ptr()) : nullptr, a, total);
    });
  });
}

void pool_backward(const char* op, const Tensor& grad, const Tensor& rois, const Tensor& argmax,
                   const PoolArgs& a, const Tensor& grad_input) {
  const int64_t total = grad.numel();
  cuda_kernels::dispatch_dev<kOpTypes>(grad.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(grad, total, [&](cudaStream_t s) {
      pool_backward_kernel<T><<<cuda_kernels::grid_for(total), kBlockSize, 0, s>>>(
          static_cast<const T*>(grad.data_ptr()), static_cast<const T*>(rois.data_ptr()),
          argmax.defined() ? static_cast<const int64_t*>(argmax.data_ptr()) : nullptr,
          static_cast<T*>(grad_input.data_ptr()), a, total);
    });
  });
}

}  // namespace

void roi_pool_forward(const Tensor& input, const Tensor& rois, double spatial_scale,
                      int64_t pooled_height, int64_t pooled_width, const Tensor& out,
                      const Tensor& argmax) {
  pool_forward("roi_pool (CUDA)", input, rois,
               pool_args(input, out, spatial_scale, pooled_height, pooled_width, false), out,
               argmax);
}

void roi_pool_backward(const Tensor& grad, const Tensor& rois, const Tensor& argmax,
                       const Tensor& grad_input) {
  alert_not_deterministic("roi_pool_backward (CUDA)");
  pool_backward("roi_pool_backward (CUDA)", grad, rois, argmax,
                pool_args(grad_input, grad, 1.0, grad.size(2), grad.size(3), false), grad_input);
}

void ps_roi_pool_forward(const Tensor& input, const Tensor& rois, double spatial_scale,
                         int64_t pooled_height, int64_t pooled_width, const Tensor& out) {
  pool_forward("ps_roi_pool (CUDA)", input, rois,
               pool_args(input, out, spatial_scale, pooled_height, pooled_width, true), out,
               Tensor());
}

void ps_roi_pool_backward(const Tensor& grad, const Tensor& rois, double spatial_scale,
                          int64_t pooled_height, int64_t pooled_width, const Tensor& grad_input) {
  alert_not_deterministic("ps_roi_pool_backward (CUDA)");
  pool_backward("ps_roi_pool_backward (CUDA)", grad, rois, Tensor(),
                pool_args(grad_input, grad, spatial_scale, pooled_height, pooled_width, true),
                grad_input);
}

}  // namespace tc::vision::ops::cuda

namespace tc::vision::ops {
TC_REGISTER_KERNEL(nms_mask_kernel, CUDA, cuda::nms_mask);
TC_REGISTER_KERNEL(roi_align_forward_kernel, CUDA, cuda::roi_align_forward);
TC_REGISTER_KERNEL(roi_align_backward_kernel, CUDA, cuda::roi_align_backward);
TC_REGISTER_KERNEL(roi_pool_forward_kernel, CUDA, cuda::roi_pool_forward);
TC_REGISTER_KERNEL(roi_pool_backward_kernel, CUDA, cuda::roi_pool_backward);
TC_REGISTER_KERNEL(ps_roi_pool_forward_kernel, CUDA, cuda::ps_roi_pool_forward);
TC_REGISTER_KERNEL(ps_roi_pool_backward_kernel, CUDA, cuda::ps_roi_pool_backward);
}  // namespace tc::vision::ops
