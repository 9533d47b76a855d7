#pragma once
// Device kernel tables of the image kernels (vision/transforms). The front ends check the
// arguments, compute the small host-side tables (matrices, filter taps, resize windows) and call
// `<name>_kernel.get(device)(...)`; the CPU kernels register beside them, the CUDA kernels from
// vision/cuda/transforms_cuda.cu and resize_cuda.cu (which upload those tables and launch). No
// CUDA types here, and nothing to stub: a device without a kernel (a build without CUDA) raises
// KernelTable's one clear error.
#include <array>
#include <cstdint>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/warp_sample.h"

namespace tc::vision::kernels {

// src: contiguous (N, C, H, W) uint8/float32/float64; out: (N, C, oh, ow), same dtype and device.
// args describes the geometry (on the CPU its host pointers are used as they are; CUDA replaces
// them by device copies of `matrices` and `fill` (empty: no fill)).
using WarpFn = void (*)(const Tensor& src, const std::vector<double>& matrices,
                        const std::vector<double>& fill, const detail::WarpArgs& args,
                        const Tensor& out);

// src, out: contiguous (N, C, H, W) uint8/float32/float64. kx / ky: 1 or N float32 kernels of one
// odd length each (<= 63), applied horizontally / vertically with reflect padding.
using GaussianBlurFn = void (*)(const Tensor& src, const std::vector<std::vector<float>>& kx,
                                const std::vector<std::vector<float>>& ky, const Tensor& out);

// crop + flip: src contiguous (N, C, H, W) of any real dtype -> (N, C, out_h, out_w), per-sample
// windows/flips (1 or N entries each, checked by the caller).
using CropFlipFn = Tensor (*)(const Tensor& img, const std::vector<int64_t>& tops,
                              const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                              const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w);

// The fused crop + flip + convert + normalize: src contiguous (N, C, H, W) uint8/float32; out
// contiguous float32 (N, C, oh, ow); per-sample windows/flips (1 or N entries each, checked by
// the caller) and per-channel scale/bias (C entries): out = float(x) * scale[c] + bias[c].
using CropFlipNormalizeFn = void (*)(const Tensor& src, const std::vector<int64_t>& tops,
                                     const std::vector<int64_t>& lefts,
                                     const std::vector<uint8_t>& hflip,
                                     const std::vector<uint8_t>& vflip,
                                     const std::vector<float>& scale,
                                     const std::vector<float>& bias, const Tensor& out);

// The fused color kernels on contiguous uint8/float32 images of N (C, HW) planes (the caller
// checked the counts): blend (factors, values: 1 or N each) and adjust_hue (C = 3).
using BlendFn = void (*)(const Tensor& src, int64_t N, int64_t C, int64_t HW, BlendOther other,
                         const std::vector<double>& factors, const std::vector<double>& values,
                         const Tensor& out);
using AdjustHueFn = void (*)(const Tensor& src, int64_t N, int64_t HW,
                             const std::vector<double>& factors, const Tensor& out);

// equalize of contiguous uint8 planes (planes x plane pixels): torchvision's integer algorithm.
using EqualizeFn = void (*)(const Tensor& src, int64_t planes, int64_t plane, const Tensor& out);

// resize of contiguous src viewed as [planes, in_h, in_w] to out_shape (the image's leading dims
// with out_h x out_w); the windows and weights are computed on the host the same way for every
// device, so the results match the CPU's.
using ResizeFn = Tensor (*)(const Tensor& src, int64_t planes, int64_t out_h, int64_t out_w,
                            Interpolation mode, bool antialias, const Shape& out_shape);

// pad of an (N, C, H, W) image: output row y reads source row rows[y] + top (column cols[x] +
// left); -1 in a map means the fill value (constant mode).
using PadImageFn = Tensor (*)(const Tensor& x, const std::vector<int64_t>& rows,
                              const std::vector<int64_t>& cols, int64_t top, int64_t left,
                              double fill);

// ---- the separable resize passes on CUDA (resize_cuda.cu), which the CUDA resize runs ----
// One axis: output i reads input [start[i], start[i] + ksize) with weights[i * ksize + k].
// start: int64 (out,); weights: (out * ksize,) int32 (22-bit fixed point) for uint8 images,
// else the image's dtype; both on the image's device.
struct ResizeAxis {
  Tensor start, weights;
  int64_t ksize = 0;
};
// src: contiguous [planes, in_h, width] -> dst: [planes, out_h, width].
using ResizeVerticalFn = void (*)(const Tensor& src, int64_t planes, int64_t in_h, int64_t width,
                                  const Tensor& dst, int64_t out_h, const ResizeAxis& a);
// src: contiguous [rows, in_w] -> dst: [rows, out_w].
using ResizeHorizontalFn = void (*)(const Tensor& src, int64_t rows, int64_t in_w,
                                    const Tensor& dst, int64_t out_w, const ResizeAxis& a);
// dst[p, y, x] = src[p, iy[y], ix[x]] (iy, ix: int64 on the device).
using ResizeNearestFn = void (*)(const Tensor& src, int64_t planes, int64_t in_h, int64_t in_w,
                                 const Tensor& dst, int64_t out_h, int64_t out_w, const Tensor& iy,
                                 const Tensor& ix);
// float32 -> uint8: round half to even, saturate (torchvision's conversion after resizing).
using RoundToUint8Fn = void (*)(const Tensor& src, const Tensor& dst);

TC_DECLARE_KERNEL(warp, WarpFn);
TC_DECLARE_KERNEL(gaussian_blur, GaussianBlurFn);
TC_DECLARE_KERNEL(crop_flip, CropFlipFn);
TC_DECLARE_KERNEL(crop_flip_normalize, CropFlipNormalizeFn);
TC_DECLARE_KERNEL(blend, BlendFn);
TC_DECLARE_KERNEL(adjust_hue, AdjustHueFn);
TC_DECLARE_KERNEL(equalize, EqualizeFn);
TC_DECLARE_KERNEL(resize, ResizeFn);
TC_DECLARE_KERNEL(pad_image, PadImageFn);
TC_DECLARE_KERNEL(resize_vertical, ResizeVerticalFn);
TC_DECLARE_KERNEL(resize_horizontal, ResizeHorizontalFn);
TC_DECLARE_KERNEL(resize_nearest, ResizeNearestFn);
TC_DECLARE_KERNEL(round_to_uint8, RoundToUint8Fn);

}  // namespace tc::vision::kernels
