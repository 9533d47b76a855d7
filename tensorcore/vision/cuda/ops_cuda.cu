// Detection ops on CUDA: the NMS overlap bit matrix and RoIAlign forward/backward. The arithmetic
// follows the CPU kernels in tensorcore/vision/ops (same expressions, same order) so results
// match them to rounding; products that feed a sum are rounded explicitly (__fmul_rn) where a
// fused multiply-add could flip an IoU comparison.
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/creation.h"
#include "tensorcore/vision/cuda/ops_cuda.h"
#include "tensorcore/vision/ops/bilinear_sample.h"

namespace tc::vision::ops::cuda {
namespace {

using cuda_kernels::dev_t;
using cuda_kernels::kBlockSize;

constexpr uint32_t kOpTypes = (1u << int(DType::Float32)) | (1u << int(DType::Float64));
constexpr int kBoxesPerWord = 64;

#define TC_VISION_GRID_STRIDE(i, n)                                               \
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
  const int64_t rows_left = n - row_block * kBoxesPerWord, cols_left = n - col_block * kBoxesPerWord;
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

// ---- RoIAlign: geometry and bilinear taps as in vision/ops/roi_common.h ----

template <typename T>
struct Geometry {
  T start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
  T count;
};

template <typename T>
__device__ __forceinline__ Geometry<T> align_geometry(const T* roi, const RoiAlignArgs& a) {
  const T scale = T(a.spatial_scale), offset = a.aligned ? T(0.5) : T(0);
  T sw = roi[1] * scale - offset, sh = roi[2] * scale - offset;
  T ew = roi[3] * scale - offset, eh = roi[4] * scale - offset;
  T rw = ew - sw, rh = eh - sh;
  if (!a.aligned) {  // legacy mode: RoIs at least 1x1
    rw = fmax(rw, T(1));
    rh = fmax(rh, T(1));
  }
  Geometry<T> g;
  g.start_h = sh, g.start_w = sw;
  g.bin_h = rh / T(a.pooled_height), g.bin_w = rw / T(a.pooled_width);
  g.grid_h = a.sampling_ratio > 0 ? a.sampling_ratio : int64_t(ceil(rh / T(a.pooled_height)));
  g.grid_w = a.sampling_ratio > 0 ? a.sampling_ratio : int64_t(ceil(rw / T(a.pooled_width)));
  int64_t n = g.grid_h * g.grid_w;
  g.count = T(n > 1 ? n : 1);
  return g;
}


// Sample (iy, ix) of bin (py, px), the CPU's formula.
template <typename T>
__device__ __forceinline__ T sample_y(const Geometry<T>& g, int64_t py, int64_t iy) {
  return g.start_h + T(py) * g.bin_h + (T(iy) + T(0.5)) * g.bin_h / T(g.grid_h);
}
template <typename T>
__device__ __forceinline__ T sample_x(const Geometry<T>& g, int64_t px, int64_t ix) {
  return g.start_w + T(px) * g.bin_w + (T(ix) + T(0.5)) * g.bin_w / T(g.grid_w);
}

// One thread per output element (k, c, py, px).
template <typename T>
__global__ void roi_align_forward_kernel(const T* input, const T* rois, T* out, RoiAlignArgs a,
                                         int64_t C, int64_t H, int64_t W, int64_t total) {
  const int64_t ph = a.pooled_height, pw = a.pooled_width;
  TC_VISION_GRID_STRIDE(idx, total) {
    const int64_t px = idx % pw, py = (idx / pw) % ph, c = (idx / (pw * ph)) % C;
    const int64_t k = idx / (pw * ph * C);
    const T* roi = rois + k * 5;
    const T* plane = input + (int64_t(roi[0]) * C + c) * H * W;
    const Geometry<T> g = align_geometry(roi, a);
    T acc = 0;
    for (int64_t iy = 0; iy < g.grid_h; ++iy) {
      const T y = sample_y(g, py, iy);
      for (int64_t ix = 0; ix < g.grid_w; ++ix) {
        // Outside the image all four weights are zero, as on the CPU.
        const detail::Sample<T> s = detail::bilinear_sample(H, W, y, sample_x(g, px, ix));
        acc += s.w1 * plane[s.o1] + s.w2 * plane[s.o2] + s.w3 * plane[s.o3] + s.w4 * plane[s.o4];
      }
    }
    out[idx] = acc * (T(1) / g.count);
  }
}

// One thread per gradient element, scattering into the input gradient with atomicAdd.
template <typename T>
__global__ void roi_align_backward_kernel(const T* grad, const T* rois, T* grad_input,
                                          RoiAlignArgs a, int64_t C, int64_t H, int64_t W,
                                          int64_t total) {
  const int64_t ph = a.pooled_height, pw = a.pooled_width;
  TC_VISION_GRID_STRIDE(idx, total) {
    const int64_t px = idx % pw, py = (idx / pw) % ph, c = (idx / (pw * ph)) % C;
    const int64_t k = idx / (pw * ph * C);
    const T* roi = rois + k * 5;
    T* plane = grad_input + (int64_t(roi[0]) * C + c) * H * W;
    const Geometry<T> g = align_geometry(roi, a);
    const T gv = grad[idx] / g.count;
    if (gv == T(0)) continue;
    for (int64_t iy = 0; iy < g.grid_h; ++iy) {
      const T y = sample_y(g, py, iy);
      for (int64_t ix = 0; ix < g.grid_w; ++ix) {
        const detail::Sample<T> s = detail::bilinear_sample(H, W, y, sample_x(g, px, ix));
        if (s.w1 == T(0) && s.w2 == T(0) && s.w3 == T(0) && s.w4 == T(0)) continue;
        atomicAdd(plane + s.o1, gv * s.w1);
        atomicAdd(plane + s.o2, gv * s.w2);
        atomicAdd(plane + s.o3, gv * s.w3);
        atomicAdd(plane + s.o4, gv * s.w4);
      }
    }
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
  const int64_t C = input.size(1), H = input.size(2), W = input.size(3), total = out.numel();
  cuda_kernels::dispatch_dev<kOpTypes>(input.dtype(), "roi_align (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(input, total, [&](cudaStream_t s) {
      roi_align_forward_kernel<T><<<cuda_kernels::grid_for(total), kBlockSize, 0, s>>>(
          static_cast<const T*>(input.data_ptr()), static_cast<const T*>(rois.data_ptr()),
          static_cast<T*>(out.data_ptr()), a, C, H, W, total);
    });
  });
}

void roi_align_backward(const Tensor& grad, const Tensor& rois, const RoiAlignArgs& a,
                        const Tensor& grad_input) {
  const int64_t C = grad_input.size(1), H = grad_input.size(2), W = grad_input.size(3);
  const int64_t total = grad.numel();
  cuda_kernels::dispatch_dev<kOpTypes>(grad.dtype(), "roi_align_backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(grad, total, [&](cudaStream_t s) {
      roi_align_backward_kernel<T><<<cuda_kernels::grid_for(total), kBlockSize, 0, s>>>(
          static_cast<const T*>(grad.data_ptr()), static_cast<const T*>(rois.data_ptr()),
          static_cast<T*>(grad_input.data_ptr()), a, C, H, W, total);
    });
  });
}

}  // namespace tc::vision::ops::cuda
