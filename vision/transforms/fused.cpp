// crop + flip + dtype conversion + normalize in one read of the source and one write of the
// result, instead of four full passes over the batch. CUDA images: crop_flip_normalize runs the
// same one-pass kernel on the device (vision/cuda/transforms_cuda.cu); crop_flip is per-sample
// slices and flips (core ops), which copy once as well.
#include <algorithm>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"

namespace tc::vision::kernels {
namespace {

template <typename T>
void crop_flip_rows(const T* src, int64_t N, int64_t C, int64_t H, int64_t W,
                    const std::vector<int64_t>& tops, const std::vector<int64_t>& lefts,
                    const std::vector<uint8_t>& hflip, const std::vector<uint8_t>& vflip,
                    int64_t oh, int64_t ow, const std::vector<float>& scale,
                    const std::vector<float>& bias, float* dst) {
  auto pick = [](const auto& v, int64_t n) { return v.size() == 1 ? v[0] : v[size_t(n)]; };
  parallel_for(0, N * C * oh, std::max<int64_t>(1, 16384 / ow), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t y = r % oh, nc = r / oh, c = nc % C, n = nc / C;
      int64_t sy = pick(tops, n) + (pick(vflip, n) ? oh - 1 - y : y);
      const T* row = src + ((n * C + c) * H + sy) * W + pick(lefts, n);
      float* out = dst + r * ow;
      const float a = scale[size_t(c)], b = bias[size_t(c)];
      if (pick(hflip, n)) {
        const T* last = row + ow - 1;
        for (int64_t x = 0; x < ow; ++x) out[x] = float(last[-x]) * a + b;
      } else {
        for (int64_t x = 0; x < ow; ++x) out[x] = float(row[x]) * a + b;
      }
    }
  });
}

template <typename T>
void crop_flip_copy(const T* src, int64_t N, int64_t C, int64_t H, int64_t W,
                    const std::vector<int64_t>& tops, const std::vector<int64_t>& lefts,
                    const std::vector<uint8_t>& hflip, const std::vector<uint8_t>& vflip,
                    int64_t oh, int64_t ow, T* dst) {
  auto pick = [](const auto& v, int64_t n) { return v.size() == 1 ? v[0] : v[size_t(n)]; };
  parallel_for(0, N * C * oh, std::max<int64_t>(1, 32768 / ow), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t y = r % oh, nc = r / oh, n = nc / C;
      int64_t sy = pick(tops, n) + (pick(vflip, n) ? oh - 1 - y : y);
      const T* row = src + (nc * H + sy) * W + pick(lefts, n);
      T* out = dst + r * ow;
      if (pick(hflip, n)) {
        const T* last = row + ow - 1;
        for (int64_t x = 0; x < ow; ++x) out[x] = last[-x];
      } else {
        std::copy(row, row + ow, out);
      }
    }
  });
}

void check_crop_args(const char* op, const Tensor& img, const std::vector<int64_t>& tops,
                     const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                     const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w) {
  TC_CHECK(img.dim() == 4, op, ": expected (N, C, H, W), got shape ", shape_str(img.sizes()));
  const int64_t N = img.size(0), H = img.size(2), W = img.size(3);
  TC_CHECK(out_h > 0 && out_w > 0 && out_h <= H && out_w <= W, op, ": crop size (", out_h, ", ",
           out_w, ") must be positive and fit in the image (", H, ", ", W, ")");
  for (const auto* v : {&tops, &lefts})
    TC_CHECK(v->size() == 1 || int64_t(v->size()) == N, op, ": expected 1 or N offsets, got ",
             v->size());
  for (const auto* v : {&hflip, &vflip})
    TC_CHECK(v->size() == 1 || int64_t(v->size()) == N, op, ": expected 1 or N flags, got ",
             v->size());
  for (size_t i = 0; i < tops.size(); ++i)
    TC_CHECK(tops[i] >= 0 && tops[i] + out_h <= H, op, ": crop top ", tops[i], " out of range");
  for (size_t i = 0; i < lefts.size(); ++i)
    TC_CHECK(lefts[i] >= 0 && lefts[i] + out_w <= W, op, ": crop left ", lefts[i], " out of range");
}

// crop_flip on a CUDA image: one slice (and flip) per sample, concatenated.
[[maybe_unused]] Tensor crop_flip_composed(const Tensor& img, const std::vector<int64_t>& tops,
                                           const std::vector<int64_t>& lefts,
                                           const std::vector<uint8_t>& hflip,
                                           const std::vector<uint8_t>& vflip, int64_t out_h,
                                           int64_t out_w) {
  auto pick = [](const auto& v, int64_t n) { return v.size() == 1 ? v[0] : v[size_t(n)]; };
  const int64_t N = img.size(0);
  TensorList parts;
  for (int64_t n = 0; n < N; ++n) {
    Tensor part =
        narrow(narrow(narrow(img, 0, n, 1), 2, pick(tops, n), out_h), 3, pick(lefts, n), out_w);
    std::vector<int64_t> dims;
    if (pick(hflip, n)) dims.push_back(3);
    if (pick(vflip, n)) dims.push_back(2);
    parts.push_back(dims.empty() ? part : flip(part, dims));
  }
  if (parts.empty())
    return empty({0, img.size(1), out_h, out_w}, TensorOptions(img.dtype()).device(img.device()));
  return parts.size() == 1 ? contiguous(parts[0]) : cat(parts, 0);
}

}  // namespace

Tensor crop_flip(const Tensor& img, const std::vector<int64_t>& tops,
                 const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                 const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w) {
  check_crop_args("crop_flip", img, tops, lefts, hflip, vflip, out_h, out_w);
  return crop_flip_kernel.get(img.device().type)(img, tops, lefts, hflip, vflip, out_h, out_w);
}

namespace {

// crop_flip's CPU kernel: one copy per output row.
Tensor crop_flip_cpu(const Tensor& img, const std::vector<int64_t>& tops,
                     const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                     const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w) {
  Tensor src = contiguous(img);
  Tensor out = empty({src.size(0), src.size(1), out_h, out_w}, TensorOptions(src.dtype()));
  if (out.numel() == 0) return out;
  dispatch_dtype<kAllReal>(src.dtype(), "crop_flip", [&](auto tag) {
    using T = typename decltype(tag)::type;
    crop_flip_copy<T>(src.data<T>(), src.size(0), src.size(1), src.size(2), src.size(3), tops,
                      lefts, hflip, vflip, out_h, out_w, out.data<T>());
  });
  return out;
}

void crop_flip_normalize_cpu(const Tensor& src, const std::vector<int64_t>& tops,
                             const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                             const std::vector<uint8_t>& vflip, const std::vector<float>& a,
                             const std::vector<float>& b, const Tensor& out) {
  const int64_t N = src.size(0), C = src.size(1), H = src.size(2), W = src.size(3);
  const int64_t out_h = out.size(2), out_w = out.size(3);
  dispatch_dtype<(1u << int(DType::UInt8)) | (1u << int(DType::Float32))>(
      src.dtype(), "crop_flip_normalize", [&](auto tag) {
        using T = typename decltype(tag)::type;
        crop_flip_rows<T>(src.data<T>(), N, C, H, W, tops, lefts, hflip, vflip, out_h, out_w, a, b,
                          out.data<float>());
      });
}

TC_REGISTER_KERNEL(crop_flip_kernel, CPU, crop_flip_cpu);
TC_REGISTER_KERNEL(crop_flip_normalize_kernel, CPU, crop_flip_normalize_cpu);
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(crop_flip_kernel, CUDA, crop_flip_composed);
#endif

}  // namespace

Tensor crop_flip_normalize(const Tensor& img, const std::vector<int64_t>& tops,
                           const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                           const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w,
                           const std::vector<double>& scale, const std::vector<double>& bias) {
  const char* op = "crop_flip_normalize";
  check_crop_args(op, img, tops, lefts, hflip, vflip, out_h, out_w);
  const int64_t N = img.size(0), C = img.size(1);
  auto per_channel = [&](const std::vector<double>& v, const char* what) {
    TC_CHECK(v.size() == 1 || int64_t(v.size()) == C, op, ": ", what, " needs 1 or C=", C,
             " values, got ", v.size());
    std::vector<float> f(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) f[size_t(c)] = float(v.size() == 1 ? v[0] : v[size_t(c)]);
    return f;
  };
  std::vector<float> a = per_channel(scale, "scale"), b = per_channel(bias, "bias");
  Tensor src = contiguous(img);
  Tensor out = empty({N, C, out_h, out_w}, TensorOptions(DType::Float32).device(src.device()));
  if (out.numel() == 0) return out;
  crop_flip_normalize_kernel.get(src.device().type)(src, tops, lefts, hflip, vflip, a, b, out);
  return out;
}

}  // namespace tc::vision::kernels
