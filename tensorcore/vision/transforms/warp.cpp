// Grid-based resampling for rotate / affine / perspective. The source coordinate of each output
// pixel comes from a 3x3 projective matrix, so no grid tensor is materialized. Out-of-image taps
// read zero; with a fill value the result blends towards it by the in-image weight, exactly as
// torchvision's _apply_grid_transform does with its extra mask channel.
#include <algorithm>
#include <cmath>

#include "tensorcore/vision/device_check.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/vision/transforms/kernels.h"

namespace tc::vision::kernels {
namespace {

template <typename T>
void warp_rows(const T* src, int64_t N, int64_t C, int64_t H, int64_t W, const double* mats,
               bool per_sample, int64_t oh, int64_t ow, Interpolation mode, const double* fill,
               int64_t nfill, T* dst) {
  using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
  constexpr bool kRound = std::is_same_v<T, uint8_t>;
  parallel_for(0, N * oh, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, ow * C)),
               [&](int64_t r0, int64_t r1) {
                 std::vector<F> vals(static_cast<size_t>(C));
                 for (int64_t r = r0; r < r1; ++r) {
                   int64_t n = r / oh, y = r % oh;
                   const double* m = mats + (per_sample ? n * 9 : 0);
                   for (int64_t x = 0; x < ow; ++x) {
                     double den = m[6] * double(x) + m[7] * double(y) + m[8];
                     F ix = F((m[0] * double(x) + m[1] * double(y) + m[2]) / den);
                     F iy = F((m[3] * double(x) + m[4] * double(y) + m[5]) / den);
                     F mask;
                     if (mode == Interpolation::Nearest) {
                       int64_t sx = int64_t(std::nearbyint(ix)), sy = int64_t(std::nearbyint(iy));
                       bool in = sx >= 0 && sx < W && sy >= 0 && sy < H;
                       mask = in ? F(1) : F(0);
                       for (int64_t c = 0; c < C; ++c)
                         vals[size_t(c)] = in ? F(src[((n * C + c) * H + sy) * W + sx]) : F(0);
                     } else {
                       int64_t x0 = int64_t(std::floor(ix)), y0 = int64_t(std::floor(iy));
                       F lx = ix - F(x0), ly = iy - F(y0);
                       F w[4] = {(1 - lx) * (1 - ly), lx * (1 - ly), (1 - lx) * ly, lx * ly};
                       int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
                       bool ok[4];
                       mask = 0;
                       for (int k = 0; k < 4; ++k) {
                         ok[k] = xs[k] >= 0 && xs[k] < W && ys[k] >= 0 && ys[k] < H;
                         if (ok[k]) mask += w[k];
                       }
                       for (int64_t c = 0; c < C; ++c) {
                         const T* plane = src + (n * C + c) * H * W;
                         F v = 0;
                         for (int k = 0; k < 4; ++k)
                           if (ok[k]) v += w[k] * F(plane[ys[k] * W + xs[k]]);
                         vals[size_t(c)] = v;
                       }
                     }
                     for (int64_t c = 0; c < C; ++c) {
                       F v = vals[size_t(c)];
                       if (fill) {
                         F f = F(fill[nfill == 1 ? 0 : c]);
                         if (mode == Interpolation::Nearest)
                           v = mask < F(0.5) ? f : v;
                         else
                           v = v * mask + (F(1) - mask) * f;
                       }
                       T* out = dst + ((n * C + c) * oh + y) * ow + x;
                       if constexpr (kRound)
                         *out = T(std::clamp(std::nearbyint(v), F(0), F(255)));
                       else
                         *out = T(v);
                     }
                   }
                 }
               });
}

}  // namespace

Tensor warp(const Tensor& img, const std::vector<double>& matrices, int64_t out_h, int64_t out_w,
            Interpolation mode, const std::optional<std::vector<double>>& fill) {
  TC_CHECK(img.dim() == 4, "warp: expected (N, C, H, W), got shape ", shape_str(img.sizes()));
  require_cpu("warp", {&img});
  TC_CHECK(mode != Interpolation::Bicubic,
           "warp: interpolation must be nearest or bilinear, got bicubic");
  const int64_t N = img.size(0), C = img.size(1), H = img.size(2), W = img.size(3);
  TC_CHECK(matrices.size() == 9 || int64_t(matrices.size()) == 9 * N,
           "warp: expected 9 or 9*N matrix entries, got ", matrices.size());
  TC_CHECK(out_h > 0 && out_w > 0, "warp: output size must be positive");
  if (fill)
    TC_CHECK(fill->size() == 1 || int64_t(fill->size()) == C, "warp: fill needs 1 or C=", C,
             " values, got ", fill->size());
  Tensor src = contiguous(img);
  Tensor out = empty({N, C, out_h, out_w}, TensorOptions(src.dtype()));
  if (out.numel() == 0 || H == 0 || W == 0) return out;
  dispatch_dtype<(1u << int(DType::UInt8)) | (1u << int(DType::Float32)) |
                 (1u << int(DType::Float64))>(src.dtype(), "warp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    warp_rows<T>(src.data<T>(), N, C, H, W, matrices.data(), matrices.size() != 9, out_h, out_w,
                 mode, fill ? fill->data() : nullptr, fill ? int64_t(fill->size()) : 0,
                 out.data<T>());
  });
  return out;
}

}  // namespace tc::vision::kernels
