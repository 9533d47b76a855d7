// Grid-based resampling for rotate / affine / perspective. The source coordinate of each output
// pixel comes from a 3x3 projective matrix, so no grid tensor is materialized. Out-of-image taps
// read zero; with a fill value the result blends towards it by the in-image weight, exactly as
// torchvision's _apply_grid_transform does with its extra mask channel. The per-pixel work is
// warp_sample.h, shared with the CUDA kernel (vision/cuda/transforms_cuda.cu); no FMA
// contraction here so that both round identically.
#include "vision/transforms/no_fp_contract.h"

#include <algorithm>
#include <cmath>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/warp_sample.h"

namespace tc::vision::kernels {
namespace {
using detail::warp_pixel;
using detail::WarpArgs;

template <typename T>
void warp_rows(const T* src, int64_t N, const WarpArgs& args, T* dst) {
  using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t oh = args.oh, ow = args.ow;
  parallel_for(0, N * oh, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, ow * args.C)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r)
                   for (int64_t x = 0; x < ow; ++x)
                     warp_pixel<T, F>(src, dst, args, r / oh, r % oh, x);
               });
}

// warp's CPU kernel: the host pointers of args are used as they are.
void warp_cpu(const Tensor& src, const std::vector<double>&, const std::vector<double>&,
              const WarpArgs& args, const Tensor& out) {
  dispatch_dtype<(1u << int(DType::UInt8)) | (1u << int(DType::Float32)) |
                 (1u << int(DType::Float64))>(src.dtype(), "warp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    warp_rows<T>(src.data<T>(), src.size(0), args, out.data<T>());
  });
}

TC_REGISTER_KERNEL(warp_kernel, CPU, warp_cpu);

}  // namespace

Tensor warp(const Tensor& img, const std::vector<double>& matrices, int64_t out_h, int64_t out_w,
            Interpolation mode, const std::optional<std::vector<double>>& fill) {
  TC_CHECK(img.dim() == 4, "warp: expected (N, C, H, W), got shape ", shape_str(img.sizes()));
  TC_CHECK(mode != Interpolation::Bicubic,
           "warp: interpolation must be nearest or bilinear, got bicubic");
  const int64_t N = img.size(0), C = img.size(1), H = img.size(2), W = img.size(3);
  TC_CHECK(matrices.size() == 9 || int64_t(matrices.size()) == 9 * N,
           "warp: expected 9 or 9*N matrix entries, got ", matrices.size());
  TC_CHECK(out_h > 0 && out_w > 0, "warp: output size must be positive");
  if (fill)
    TC_CHECK(fill->size() == 1 || int64_t(fill->size()) == C, "warp: fill needs 1 or C=", C,
             " values, got ", fill->size());
  TC_CHECK_TYPE(
      img.dtype() == DType::UInt8 || img.dtype() == DType::Float32 || img.dtype() == DType::Float64,
      "warp: expected a uint8, float32 or float64 image, got ", dtype_name(img.dtype()));
  Tensor src = contiguous(img);
  Tensor out = empty({N, C, out_h, out_w}, TensorOptions(src.dtype()).device(src.device()));
  if (out.numel() == 0 || H == 0 || W == 0) return out;
  WarpArgs args{matrices.data(),
                matrices.size() != 9,
                mode == Interpolation::Nearest,
                C,
                H,
                W,
                out_h,
                out_w,
                fill ? fill->data() : nullptr,
                fill ? int64_t(fill->size()) : 0};
  warp_kernel.get(src.device().type)(src, matrices, fill ? *fill : std::vector<double>{}, args,
                                     out);
  return out;
}

}  // namespace tc::vision::kernels
