// Gaussian blur and erase, shared by tensorcore.vision.transforms (Python) and the C++ pipeline.
// The blur is separable: torchvision convolves with the outer product of two 1-D float32
// kernels after reflect padding; here a horizontal pass writes a float row buffer per padded row
// and a vertical pass accumulates rows, so both loops run over contiguous memory. CUDA images run
// the same two passes in vision/cuda/transforms_cuda.cu (same weights, order and rounding; no FMA
// contraction on either side).
#include "vision/transforms/no_fp_contract.h"

#include <algorithm>
#include <cmath>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/warp_sample.h"

namespace tc::vision::kernels {
namespace {

// torchvision's _get_gaussian_kernel1d in float32: linspace(-half, half), exp(-x^2 / 2 sigma^2),
// normalized by its sum.
std::vector<float> gaussian_kernel1d(int64_t size, double sigma) {
  const float half = float(size - 1) * 0.5f, s = float(sigma);
  std::vector<float> k(static_cast<size_t>(size));
  const float step = size > 1 ? (half - -half) / float(size - 1) : 0.0f;
  float sum = 0;
  for (int64_t i = 0; i < size; ++i) {
    // torch.linspace fills the first half from the start and the second half from the end.
    float x = i < size / 2 ? -half + step * float(i) : half - step * float(size - 1 - i);
    float t = x / s;
    k[size_t(i)] = std::exp(-0.5f * (t * t));
    sum += k[size_t(i)];
  }
  for (float& v : k) v /= sum;
  return k;
}

using detail::reflect_index;

template <typename T>
void blur_planes(const T* src, T* dst, int64_t N, int64_t C, int64_t H, int64_t W,
                 const std::vector<std::vector<float>>& kx,
                 const std::vector<std::vector<float>>& ky) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t KX = int64_t(kx[0].size()), KY = int64_t(ky[0].size());
  const int64_t px = KX / 2, py = KY / 2, PH = H + 2 * py;
  parallel_for(0, N * C, 1, [&](int64_t p0, int64_t p1) {
    std::vector<Acc> padded(static_cast<size_t>(W + 2 * px)), rows(static_cast<size_t>(PH * W)),
        out(static_cast<size_t>(W));
    std::vector<int64_t> col(static_cast<size_t>(W + 2 * px));
    for (int64_t x = 0; x < W + 2 * px; ++x) col[size_t(x)] = reflect_index(x - px, W);
    for (int64_t plane = p0; plane < p1; ++plane) {
      const int64_t n = plane / C;
      const auto& kxs = kx[kx.size() == 1 ? 0 : size_t(n)];
      const auto& kys = ky[ky.size() == 1 ? 0 : size_t(n)];
      Acc wx[64], wy[64];
      for (int64_t k = 0; k < KX; ++k) wx[k] = Acc(kxs[size_t(k)]);
      for (int64_t k = 0; k < KY; ++k) wy[k] = Acc(kys[size_t(k)]);
      const T* s = src + plane * H * W;
      // Horizontal pass over every padded row (rows above/below reflect the image's rows).
      for (int64_t y = 0; y < PH; ++y) {
        const T* row = s + reflect_index(y - py, H) * W;
        for (int64_t x = 0; x < W + 2 * px; ++x) padded[size_t(x)] = Acc(row[col[size_t(x)]]);
        Acc* r = rows.data() + y * W;
        for (int64_t x = 0; x < W; ++x) r[x] = wx[0] * padded[size_t(x)];
        for (int64_t k = 1; k < KX; ++k) {
          const Acc* pk = padded.data() + k;
          for (int64_t x = 0; x < W; ++x) r[x] += wx[k] * pk[x];
        }
      }
      // Vertical pass: each output row is a weighted sum of KY consecutive buffered rows.
      T* d = dst + plane * H * W;
      for (int64_t y = 0; y < H; ++y) {
        const Acc* r0 = rows.data() + y * W;
        for (int64_t x = 0; x < W; ++x) out[size_t(x)] = wy[0] * r0[x];
        for (int64_t k = 1; k < KY; ++k) {
          const Acc* rk = rows.data() + (y + k) * W;
          for (int64_t x = 0; x < W; ++x) out[size_t(x)] += wy[k] * rk[x];
        }
        if constexpr (std::is_same_v<T, uint8_t>) {
          for (int64_t x = 0; x < W; ++x)
            d[y * W + x] = uint8_t(std::clamp(std::nearbyint(out[size_t(x)]), 0.0f, 255.0f));
        } else {
          for (int64_t x = 0; x < W; ++x) d[y * W + x] = T(out[size_t(x)]);
        }
      }
    }
  });
}

// gaussian_blur's CPU kernel.
void gaussian_blur_cpu(const Tensor& src, const std::vector<std::vector<float>>& kx,
                       const std::vector<std::vector<float>>& ky, const Tensor& out) {
  dispatch_dtype<(1u << int(DType::UInt8)) | (1u << int(DType::Float32)) |
                 (1u << int(DType::Float64))>(src.dtype(), "gaussian_blur", [&](auto tag) {
    using T = typename decltype(tag)::type;
    blur_planes<T>(src.data<T>(), out.data<T>(), src.size(0), src.size(1), src.size(2), src.size(3),
                   kx, ky);
  });
}

TC_REGISTER_KERNEL(gaussian_blur_kernel, CPU, gaussian_blur_cpu);

}  // namespace

Tensor gaussian_blur(const Tensor& img, int64_t kernel_x, int64_t kernel_y,
                     const std::vector<double>& sigma_x, const std::vector<double>& sigma_y) {
  TC_CHECK(img.dim() == 4, "gaussian_blur: expected (N, C, H, W), got shape ",
           shape_str(img.sizes()));
  TC_CHECK_TYPE(
      img.dtype() == DType::UInt8 || img.dtype() == DType::Float32 || img.dtype() == DType::Float64,
      "gaussian_blur: expected a uint8, float32 or float64 image, got ", dtype_name(img.dtype()));
  for (int64_t k : {kernel_x, kernel_y})
    TC_CHECK(k > 0 && k % 2 == 1 && k <= 63,
             "gaussian_blur: kernel_size should be odd, positive and at most 63, got ", k);
  const int64_t N = img.size(0), H = img.size(2), W = img.size(3);
  for (const auto* s : {&sigma_x, &sigma_y}) {
    TC_CHECK(s->size() == 1 || int64_t(s->size()) == N, "gaussian_blur: expected 1 or N=", N,
             " sigma values, got ", s->size());
    for (double v : *s) TC_CHECK(v > 0, "gaussian_blur: sigma should be positive, got ", v);
  }
  TC_CHECK(kernel_x / 2 < W && kernel_y / 2 < H, "gaussian_blur: reflect padding (", kernel_x / 2,
           ", ", kernel_y / 2, ") must be smaller than the image size (", H, ", ", W, ")");
  std::vector<std::vector<float>> kx, ky;
  for (double s : sigma_x) kx.push_back(gaussian_kernel1d(kernel_x, s));
  for (double s : sigma_y) ky.push_back(gaussian_kernel1d(kernel_y, s));
  Tensor src = contiguous(img);
  Tensor out = empty(src.sizes(), TensorOptions(src.dtype()).device(src.device()));
  if (out.numel() == 0) return out;
  gaussian_blur_kernel.get(src.device().type)(src, kx, ky, out);
  return out;
}

Tensor erase(const Tensor& img, int64_t i, int64_t j, int64_t h, int64_t w, const Tensor& value,
             bool inplace) {
  TC_CHECK(img.dim() >= 3, "erase: expected an image (..., C, H, W), got shape ",
           shape_str(img.sizes()));
  const int64_t H = img.size(-2), W = img.size(-1);
  TC_CHECK(i >= 0 && j >= 0 && h >= 0 && w >= 0 && i + h <= H && j + w <= W, "erase: region (i=", i,
           ", j=", j, ", h=", h, ", w=", w, ") is not inside the image of size (", H, ", ", W, ")");
  Tensor out = inplace ? img : clone(img);
  Tensor region = narrow(narrow(out, -2, i, h), -1, j, w);
  copy_(region, value);
  return out;
}

}  // namespace tc::vision::kernels
