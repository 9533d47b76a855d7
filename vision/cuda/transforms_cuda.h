#pragma once
// CUDA back ends of the image kernels (vision/transforms), called by the front ends
// when the image lives on a CUDA device. The front ends check the arguments; these only upload
// the small host-side tables (matrices, filter taps) and launch. No CUDA types here: a build
// without CUDA links stubs that raise (ops_cuda_stub.cpp).
#include <cstdint>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/warp_sample.h"

namespace tc::vision::cuda {

// src: contiguous (N, C, H, W) uint8/float32/float64; out: (N, C, oh, ow), same dtype and device.
// args describes the geometry; its host pointers (mats, fill) are replaced by device copies of
// `matrices` and `fill` (empty: no fill).
void warp(const Tensor& src, const std::vector<double>& matrices, const std::vector<double>& fill,
          const kernels::detail::WarpArgs& args, const Tensor& out);

// src, out: contiguous (N, C, H, W) uint8/float32/float64. kx / ky: 1 or N float32 kernels of one
// odd length each (<= 63), applied horizontally / vertically with reflect padding.
void gaussian_blur(const Tensor& src, const std::vector<std::vector<float>>& kx,
                   const std::vector<std::vector<float>>& ky, const Tensor& out);

// The fused crop + flip + convert + normalize: src contiguous (N, C, H, W) uint8/float32; out
// contiguous float32 (N, C, oh, ow); per-sample windows/flips (1 or N entries each, checked by
// the caller) and per-channel scale/bias (C entries): out = float(x) * scale[c] + bias[c].
void crop_flip_normalize(const Tensor& src, const std::vector<int64_t>& tops,
                         const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                         const std::vector<uint8_t>& vflip, const std::vector<float>& scale,
                         const std::vector<float>& bias, const Tensor& out);

// The fused color kernels on contiguous uint8/float32 images of N (C, HW) planes (the caller
// checked the counts): blend (factors, values: 1 or N each) and adjust_hue (C = 3).
void blend(const Tensor& src, int64_t N, int64_t C, int64_t HW, kernels::BlendOther other,
           const std::vector<double>& factors, const std::vector<double>& values,
           const Tensor& out);
void adjust_hue(const Tensor& src, int64_t N, int64_t HW, const std::vector<double>& factors,
                const Tensor& out);

// equalize of contiguous uint8 planes (planes x plane pixels): torchvision's integer algorithm,
// one block per plane.
void equalize(const Tensor& src, int64_t planes, int64_t plane, const Tensor& out);

}  // namespace tc::vision::cuda
