// Greedy NMS: sort by score, then one pass per kept box that marks every later box it overlaps
// too much. The boxes are copied into score order as separate coordinate arrays so the inner
// IoU loop is branch-free and vectorizes; a box already suppressed is skipped in the outer loop.
// CUDA tensors: the device computes the whole overlap bit matrix of the score-sorted boxes
// (vision/cuda/ops_cuda.cu) and the greedy pass runs on the host over that matrix. Both register
// into the nms table (vision/ops/device_kernels.h).
#include <algorithm>
#include <numeric>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/sort.h"
#include "vision/device_check.h"
#include "vision/ops/device_kernels.h"
#include "vision/ops/ops.h"

namespace tc::vision::ops {
namespace {

template <typename T>
Tensor nms_cpu(const Tensor& boxes, const Tensor& scores, T threshold) {
  const int64_t n = boxes.size(0);
  const T* b = boxes.data<T>();
  const T* s = scores.data<T>();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // Stable, so equal scores keep input order (deterministic results).
  std::stable_sort(order.begin(), order.end(), [s](int64_t i, int64_t j) { return s[i] > s[j]; });

  std::vector<T> x1(n), y1(n), x2(n), y2(n), area(n);
  for (int64_t i = 0; i < n; ++i) {
    const T* bi = b + order[i] * 4;
    x1[i] = bi[0], y1[i] = bi[1], x2[i] = bi[2], y2[i] = bi[3];
    area[i] = (x2[i] - x1[i]) * (y2[i] - y1[i]);
  }
  std::vector<uint8_t> suppressed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  keep.reserve(size_t(n));
  uint8_t* sup = suppressed.data();
  for (int64_t i = 0; i < n; ++i) {
    if (sup[i]) continue;
    keep.push_back(order[i]);
    const T ix1 = x1[i], iy1 = y1[i], ix2 = x2[i], iy2 = y2[i], iarea = area[i];
    const T *px1 = x1.data(), *py1 = y1.data(), *px2 = x2.data(), *py2 = y2.data(),
            *parea = area.data();
    for (int64_t j = i + 1; j < n; ++j) {
      T w = std::max(T(0), std::min(ix2, px2[j]) - std::max(ix1, px1[j]));
      T h = std::max(T(0), std::min(iy2, py2[j]) - std::max(iy1, py1[j]));
      T inter = w * h;
      T iou = inter / (iarea + parea[j] - inter);
      sup[j] |= uint8_t(iou > threshold);
    }
  }
  Tensor out = empty({int64_t(keep.size())}, TensorOptions(DType::Int64));
  std::copy(keep.begin(), keep.end(), out.data<int64_t>());
  return out;
}

Tensor nms_cpu_kernel(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  require_cpu("nms", {&boxes, &scores});
  Tensor b = contiguous(boxes), s = contiguous(scores);
  return dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64))>(
      b.dtype(), "nms", [&](auto tag) {
        using T = typename decltype(tag)::type;
        return nms_cpu<T>(b, s, T(iou_threshold));
      });
}

[[maybe_unused]] Tensor nms_cuda(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  TC_CHECK_AS(::tc::Error, scores.device() == boxes.device(),
              "nms: boxes and scores must be on the same device, got ", boxes.device().str(),
              " and ", scores.device().str());
  TC_CHECK_TYPE(boxes.dtype() == DType::Float32 || boxes.dtype() == DType::Float64,
                "nms: boxes must be float32 or float64, got ", dtype_name(boxes.dtype()));
  const Device device = boxes.device();
  const int64_t n = boxes.size(0);
  if (n == 0) return empty({0}, TensorOptions(DType::Int64).device(device));
  // Stable, so equal scores keep input order, as on the CPU.
  Tensor order = argsort(scores, 0, /*descending=*/true, /*stable=*/true);
  Tensor sorted = contiguous(index_select(boxes, 0, order));
  Tensor mask =
      to_device(nms_mask_kernel.get(device.type)(sorted, iou_threshold), Device(DeviceType::CPU));
  const int64_t words = mask.size(1);
  const uint64_t* m = reinterpret_cast<const uint64_t*>(mask.data<int64_t>());
  std::vector<uint64_t> removed(static_cast<size_t>(words), 0);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < n; ++i) {
    if (removed[size_t(i / 64)] >> (i % 64) & 1) continue;
    keep.push_back(i);
    // Row i only has bits for boxes after i, so earlier words need no update.
    const uint64_t* row = m + i * words;
    for (int64_t w = i / 64; w < words; ++w) removed[size_t(w)] |= row[w];
  }
  Tensor keep_t = empty({int64_t(keep.size())}, TensorOptions(DType::Int64));
  std::copy(keep.begin(), keep.end(), keep_t.data<int64_t>());
  return index_select(order, 0, to_device(keep_t, device));
}

TC_REGISTER_KERNEL(nms_kernel, CPU, nms_cpu_kernel);
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(nms_kernel, CUDA, nms_cuda);
#endif

}  // namespace

Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  TC_CHECK(boxes.dim() == 2 && boxes.size(1) == 4,
           "nms: boxes should be a (N, 4) tensor, got shape ", shape_str(boxes.sizes()));
  TC_CHECK(scores.dim() == 1 && scores.size(0) == boxes.size(0),
           "nms: scores should be a (N,) tensor matching boxes (N=", boxes.size(0), "), got shape ",
           shape_str(scores.sizes()));
  TC_CHECK_TYPE(boxes.dtype() == scores.dtype(),
                "nms: boxes and scores must have the same dtype, got ", dtype_name(boxes.dtype()),
                " and ", dtype_name(scores.dtype()));
  return nms_kernel.get(boxes.device().type)(boxes, scores, iou_threshold);
}

}  // namespace tc::vision::ops
