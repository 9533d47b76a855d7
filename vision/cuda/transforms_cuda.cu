// Image kernels on CUDA: the warp (rotate / affine / perspective), the separable Gaussian blur,
// the fused crop + flip + convert + normalize, the fused color kernels (blend, adjust_hue) and
// equalize. One thread per output element or pixel. The warp and color kernels run the CPU's own
// per-pixel functions (warp_sample.h, color_pixel.h) and the blur the CPU's two passes in its
// summation order; this file is compiled with --fmad=false (cmake/deps/vision.cmake) and the
// CPU files without contraction, so the results equal the CPU's bit for bit.
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/kernels/cuda/launch_on.cuh"
#include "tensorcore/ops/creation.h"
#include "vision/cuda/dispatch_image.h"
#include "vision/transforms/color_pixel.h"
#include "vision/transforms/device_kernels.h"

namespace tc::vision::cuda {
namespace {

using cuda_kernels::kBlockSize;
using kernels::detail::reflect_index;
using kernels::detail::warp_pixel;
using kernels::detail::WarpArgs;

#define TC_IMAGE_GRID_STRIDE(i, n)                                          \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

template <typename T, typename F>
__global__ void warp_kernel(const T* src, T* dst, WarpArgs a, int64_t total) {
  TC_IMAGE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % a.ow, y = (idx / a.ow) % a.oh, n = idx / (a.ow * a.oh);
    warp_pixel<T, F>(src, dst, a, n, y, x);
  }
}

// Horizontal pass: rows[plane, y, x] for every reflect-padded row y in [0, H + 2 * pad_y).
template <typename T, typename Acc>
__global__ void blur_rows_kernel(const T* src, Acc* rows, const Acc* kx, bool per_sample_x,
                                 int64_t KX, int64_t C, int64_t H, int64_t W, int64_t pad_y,
                                 int64_t total) {
  const int64_t PH = H + 2 * pad_y, pad_x = KX / 2;
  TC_IMAGE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % W, y = (idx / W) % PH, plane = idx / (W * PH);
    const Acc* w = kx + (per_sample_x ? (plane / C) * KX : 0);
    const T* row = src + plane * H * W + reflect_index(y - pad_y, H) * W;
    Acc r = w[0] * Acc(row[reflect_index(x - pad_x, W)]);
    for (int64_t k = 1; k < KX; ++k) r += w[k] * Acc(row[reflect_index(x + k - pad_x, W)]);
    rows[idx] = r;
  }
}

// Vertical pass over the buffered rows; uint8 rounds half to even and clamps, as on the CPU.
template <typename T, typename Acc>
__global__ void blur_cols_kernel(const Acc* rows, T* dst, const Acc* ky, bool per_sample_y,
                                 int64_t KY, int64_t C, int64_t H, int64_t W, int64_t total) {
  const int64_t PH = H + KY - 1;
  TC_IMAGE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % W, y = (idx / W) % H, plane = idx / (W * H);
    const Acc* w = ky + (per_sample_y ? (plane / C) * KY : 0);
    const Acc* col = rows + plane * PH * W + y * W + x;
    Acc v = w[0] * col[0];
    for (int64_t k = 1; k < KY; ++k) v += w[k] * col[k * W];
    if constexpr (std::is_same_v<T, uint8_t>)
      dst[idx] = uint8_t(hd::clamp(hd::rint(v), Acc(0), Acc(255)));
    else
      dst[idx] = T(v);
  }
}

// windows: per sample (top, left, hflip, vflip); affine: scale[0..C) then bias[0..C).
template <typename T>
__global__ void crop_flip_normalize_kernel(const T* src, float* dst, const int64_t* windows,
                                           const float* affine, int64_t C, int64_t H, int64_t W,
                                           int64_t oh, int64_t ow, int64_t total) {
  TC_IMAGE_GRID_STRIDE(idx, total) {
    const int64_t x = idx % ow, y = (idx / ow) % oh, c = (idx / (ow * oh)) % C;
    const int64_t n = idx / (ow * oh * C);
    const int64_t* win = windows + n * 4;
    const int64_t sy = win[0] + (win[3] ? oh - 1 - y : y);
    const int64_t sx = win[1] + (win[2] ? ow - 1 - x : x);
    // One rounding, like the FMA the CPU compiler contracts this expression into.
    dst[idx] = __fmaf_rn(float(src[((n * C + c) * H + sy) * W + sx]), affine[c], affine[C + c]);
  }
}

// One thread per pixel of one image: the other operand (zero, the pixel's gray value or the
// image's value), then every channel blended. coef: per image (ratio, rest, value).
template <typename T>
__global__ void blend_kernel(const T* src, T* dst, const float* coef, int64_t C, int64_t HW,
                             kernels::BlendOther other, int64_t total) {
  TC_IMAGE_GRID_STRIDE(idx, total) {
    const int64_t n = idx / HW, p = idx % HW;
    const T* img = src + n * C * HW;
    T* out = dst + n * C * HW;
    const float ratio = coef[n * 3], rest = coef[n * 3 + 1];
    const float hi = kernels::detail::color_bound<T>();
    float o = 0.0f;
    if (other == kernels::BlendOther::Gray)
      o = float(kernels::detail::gray_of<T>(img[p], img[HW + p], img[2 * HW + p]));
    else if (other == kernels::BlendOther::Value)
      o = coef[n * 3 + 2];
    for (int64_t c = 0; c < C; ++c)
      out[c * HW + p] = kernels::detail::blend_value<T>(ratio, img[c * HW + p], rest, o, hi);
  }
}

template <typename T>
__global__ void hue_kernel(const T* src, T* dst, const float* hue, int64_t HW, int64_t total) {
  TC_IMAGE_GRID_STRIDE(idx, total) {
    const int64_t n = idx / HW;
    kernels::detail::hue_pixel<T>(src + n * 3 * HW, dst + n * 3 * HW, HW, idx % HW, hue[n]);
  }
}

// One block per plane: a shared histogram, the CPU's LUT built by one thread, then the mapping.
// Integer arithmetic only, so the result equals the CPU's.
__global__ void equalize_kernel(const uint8_t* src, uint8_t* dst, int64_t plane) {
  __shared__ unsigned long long hist[256];
  __shared__ uint8_t lut[256];
  __shared__ long long step_shared;
  const uint8_t* in = src + int64_t(blockIdx.x) * plane;
  uint8_t* out = dst + int64_t(blockIdx.x) * plane;
  for (int v = threadIdx.x; v < 256; v += blockDim.x) hist[v] = 0;
  __syncthreads();
  for (int64_t i = threadIdx.x; i < plane; i += blockDim.x) atomicAdd(&hist[in[i]], 1ULL);
  __syncthreads();
  if (threadIdx.x == 0) {
    // torchvision: step = (count of all pixels but those of the last non-empty bin) // 255.
    int last = 255;
    while (last > 0 && hist[last] == 0) --last;
    const long long step = (plane - (long long)hist[last]) / 255;
    step_shared = step;
    long long cum = 0;
    for (int v = 0; v < 256 && step != 0; ++v) {
      const long long q = (cum + step / 2) / step;
      lut[v] = uint8_t(q < 255 ? q : 255);
      cum += (long long)hist[v];
    }
  }
  __syncthreads();
  const long long step = step_shared;
  for (int64_t i = threadIdx.x; i < plane; i += blockDim.x) out[i] = step == 0 ? in[i] : lut[in[i]];
}

using cuda_kernels::launch_on;

template <typename V>
Tensor upload(const std::vector<V>& v, Device device) {
  return from_vector(v, {int64_t(v.size())}, TensorOptions(dtype_of_v<V>).device(device));
}

template <typename Acc>
std::vector<Acc> flatten_taps(const std::vector<std::vector<float>>& k) {
  std::vector<Acc> out;
  for (const auto& row : k)
    for (float w : row) out.push_back(Acc(w));
  return out;
}

// Calls f(T{}) for the fused color kernels' dtypes.
template <typename Fn>
void dispatch_color(DType dt, const char* op, Fn&& f) {
  if (dt == DType::UInt8)
    f(uint8_t{});
  else if (dt == DType::Float32)
    f(float{});
  else
    throw TypeError(
        ::tc::detail::concat(op, ": expected a uint8 or float32 image, got ", dtype_name(dt)));
}

double pick(const std::vector<double>& v, int64_t n) { return v.size() == 1 ? v[0] : v[size_t(n)]; }

}  // namespace

void warp(const Tensor& src, const std::vector<double>& matrices, const std::vector<double>& fill,
          const WarpArgs& args, const Tensor& out) {
  const int64_t total = out.size(0) * args.oh * args.ow;  // one thread per pixel, all channels
  if (total == 0 || args.C == 0) return;
  // The device copies must outlive the (asynchronous) kernel: the caching allocator keeps their
  // blocks reserved for this stream until the kernel has run.
  Tensor mats = upload(matrices, src.device());
  Tensor fills = fill.empty() ? Tensor() : upload(fill, src.device());
  WarpArgs a = args;
  a.mats = static_cast<const double*>(mats.data_ptr());
  a.fill = fill.empty() ? nullptr : static_cast<const double*>(fills.data_ptr());
  a.nfill = int64_t(fill.size());
  dispatch_image<float>(src.dtype(), "warp (CUDA)", [&](auto t_tag, auto f_tag) {
    using T = decltype(t_tag);
    using F = decltype(f_tag);
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      warp_kernel<T, F><<<grid, kBlockSize, 0, s>>>(static_cast<const T*>(src.data_ptr()),
                                                    static_cast<T*>(out.data_ptr()), a, total);
    });
  });
}

void gaussian_blur(const Tensor& src, const std::vector<std::vector<float>>& kx,
                   const std::vector<std::vector<float>>& ky, const Tensor& out) {
  const int64_t N = src.size(0), C = src.size(1), H = src.size(2), W = src.size(3);
  const int64_t KX = int64_t(kx[0].size()), KY = int64_t(ky[0].size()), pad_y = KY / 2;
  const int64_t planes = N * C, PH = H + 2 * pad_y;
  if (planes * H * W == 0) return;
  dispatch_image<float>(src.dtype(), "gaussian_blur (CUDA)", [&](auto t_tag, auto f_tag) {
    using T = decltype(t_tag);
    using Acc = decltype(f_tag);
    Tensor wx = upload(flatten_taps<Acc>(kx), src.device());
    Tensor wy = upload(flatten_taps<Acc>(ky), src.device());
    Tensor rows = empty({planes * PH * W}, TensorOptions(dtype_of_v<Acc>).device(src.device()));
    const int64_t row_work = planes * PH * W, out_work = planes * H * W;
    launch_on(src, row_work, [&](int grid, cudaStream_t s) {
      blur_rows_kernel<T, Acc><<<grid, kBlockSize, 0, s>>>(
          static_cast<const T*>(src.data_ptr()), static_cast<Acc*>(rows.data_ptr()),
          static_cast<const Acc*>(wx.data_ptr()), kx.size() > 1, KX, C, H, W, pad_y, row_work);
    });
    launch_on(src, out_work, [&](int grid, cudaStream_t s) {
      blur_cols_kernel<T, Acc><<<grid, kBlockSize, 0, s>>>(
          static_cast<const Acc*>(rows.data_ptr()), static_cast<T*>(out.data_ptr()),
          static_cast<const Acc*>(wy.data_ptr()), ky.size() > 1, KY, C, H, W, out_work);
    });
  });
}

void crop_flip_normalize(const Tensor& src, const std::vector<int64_t>& tops,
                         const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                         const std::vector<uint8_t>& vflip, const std::vector<float>& scale,
                         const std::vector<float>& bias, const Tensor& out) {
  const int64_t N = src.size(0), C = src.size(1), H = src.size(2), W = src.size(3);
  const int64_t oh = out.size(2), ow = out.size(3), total = out.numel();
  if (total == 0) return;
  auto pick_i = [](const auto& v, int64_t n) {
    return int64_t(v.size() == 1 ? v[0] : v[size_t(n)]);
  };
  std::vector<int64_t> windows;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t v : {pick_i(tops, n), pick_i(lefts, n), pick_i(hflip, n), pick_i(vflip, n)})
      windows.push_back(v);
  std::vector<float> affine(scale);
  affine.insert(affine.end(), bias.begin(), bias.end());
  Tensor win = upload(windows, src.device()), aff = upload(affine, src.device());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      crop_flip_normalize_kernel<T><<<grid, kBlockSize, 0, s>>>(
          static_cast<const T*>(src.data_ptr()), static_cast<float*>(out.data_ptr()),
          static_cast<const int64_t*>(win.data_ptr()), static_cast<const float*>(aff.data_ptr()), C,
          H, W, oh, ow, total);
    });
  };
  if (src.dtype() == DType::UInt8)
    run(uint8_t{});
  else if (src.dtype() == DType::Float32)
    run(float{});
  else
    throw TypeError(
        ::tc::detail::concat("crop_flip_normalize (CUDA): expected a uint8 or float32 "
                             "image, got ",
                             dtype_name(src.dtype())));
}

void blend(const Tensor& src, int64_t N, int64_t C, int64_t HW, kernels::BlendOther other,
           const std::vector<double>& factors, const std::vector<double>& values,
           const Tensor& out) {
  const int64_t total = N * HW;
  if (total == 0) return;
  // The CPU's per-image constants, computed the same way on the host.
  std::vector<float> coef;
  for (int64_t n = 0; n < N; ++n) {
    const double f = pick(factors, n);
    coef.push_back(float(f));
    coef.push_back(float(1.0 - f));
    coef.push_back(other == kernels::BlendOther::Value ? float(pick(values, n)) : 0.0f);
  }
  dispatch_color(src.dtype(), "blend (CUDA)", [&](auto tag) {
    using T = decltype(tag);
    Tensor c = upload(coef, src.device());
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      blend_kernel<T><<<grid, kBlockSize, 0, s>>>(
          static_cast<const T*>(src.data_ptr()), static_cast<T*>(out.data_ptr()),
          static_cast<const float*>(c.data_ptr()), C, HW, other, total);
    });
  });
}

void adjust_hue(const Tensor& src, int64_t N, int64_t HW, const std::vector<double>& factors,
                const Tensor& out) {
  const int64_t total = N * HW;
  if (total == 0) return;
  std::vector<float> hue;
  for (int64_t n = 0; n < N; ++n) hue.push_back(float(pick(factors, n)));
  dispatch_color(src.dtype(), "adjust_hue (CUDA)", [&](auto tag) {
    using T = decltype(tag);
    Tensor h = upload(hue, src.device());
    launch_on(src, total, [&](int grid, cudaStream_t s) {
      hue_kernel<T><<<grid, kBlockSize, 0, s>>>(static_cast<const T*>(src.data_ptr()),
                                                static_cast<T*>(out.data_ptr()),
                                                static_cast<const float*>(h.data_ptr()), HW, total);
    });
  });
}

void equalize(const Tensor& src, int64_t planes, int64_t plane, const Tensor& out) {
  if (planes == 0 || plane == 0) return;
  TC_CHECK(planes <= int64_t(0x7fffffff), "equalize (CUDA): at most 2^31 - 1 planes, got ", planes);
  cuda_kernels::DeviceGuard guard(src.device().index);
  cudaStream_t s = cuda_kernels::stream_of(src.device().index);
  equalize_kernel<<<unsigned(planes), kBlockSize, 0, s>>>(
      static_cast<const uint8_t*>(src.data_ptr()), static_cast<uint8_t*>(out.data_ptr()), plane);
  TC_CUDA_KERNEL_CHECK();
}

}  // namespace tc::vision::cuda

namespace tc::vision::kernels {
TC_REGISTER_KERNEL(warp_kernel, CUDA, cuda::warp);
TC_REGISTER_KERNEL(gaussian_blur_kernel, CUDA, cuda::gaussian_blur);
TC_REGISTER_KERNEL(crop_flip_normalize_kernel, CUDA, cuda::crop_flip_normalize);
TC_REGISTER_KERNEL(blend_kernel, CUDA, cuda::blend);
TC_REGISTER_KERNEL(adjust_hue_kernel, CUDA, cuda::adjust_hue);
TC_REGISTER_KERNEL(equalize_kernel, CUDA, cuda::equalize);
}  // namespace tc::vision::kernels
