#pragma once
// CUDA passes of the separable resize (vision/transforms/resize.cpp). The front end
// computes the windows and weights on the host, exactly as for the CPU, and uploads them; these
// kernels only apply them, in the CPU's summation order, so the results match the CPU's.
// No CUDA types here; a build without CUDA links stubs that raise (ops_cuda_stub.cpp).
#include <cstdint>

#include "tensorcore/core/tensor.h"

namespace tc::vision::cuda {

// One axis: output i reads input [start[i], start[i] + ksize) with weights[i * ksize + k].
// start: int64 (out,); weights: (out * ksize,) int32 (22-bit fixed point) for uint8 images,
// else the image's dtype; both on the image's device.
struct ResizeAxis {
  Tensor start, weights;
  int64_t ksize = 0;
};

// src: contiguous [planes, in_h, width] -> dst: [planes, out_h, width].
void resize_vertical(const Tensor& src, int64_t planes, int64_t in_h, int64_t width,
                     const Tensor& dst, int64_t out_h, const ResizeAxis& a);
// src: contiguous [rows, in_w] -> dst: [rows, out_w].
void resize_horizontal(const Tensor& src, int64_t rows, int64_t in_w, const Tensor& dst,
                       int64_t out_w, const ResizeAxis& a);
// dst[p, y, x] = src[p, iy[y], ix[x]] (iy, ix: int64 on the device).
void resize_nearest(const Tensor& src, int64_t planes, int64_t in_h, int64_t in_w,
                    const Tensor& dst, int64_t out_h, int64_t out_w, const Tensor& iy,
                    const Tensor& ix);
// float32 -> uint8: round half to even, saturate (torchvision's conversion after resizing).
void round_to_uint8(const Tensor& src, const Tensor& dst);

}  // namespace tc::vision::cuda
