// batched_nms over nms (nms.cpp), as torchvision.ops.batched_nms chooses its strategy.
#include "tensorcore/tensor.h"
#include "vision/ops/ops.h"

namespace tc::vision::ops {
namespace {

Tensor num(int64_t v) { return scalar_tensor(Scalar(v), {}, Device(), /*wrapped=*/true); }

Tensor nms_upcast(const Tensor& boxes, const Tensor& scores, double thr) {
  if (boxes.dtype() == DType::Float16 || boxes.dtype() == DType::BFloat16)
    return nms(to_dtype(boxes, DType::Float32), to_dtype(scores, DType::Float32), thr);
  return nms(boxes, scores, thr);
}

}  // namespace

Tensor batched_nms(const Tensor& boxes, const Tensor& scores, const Tensor& idxs,
                   double iou_threshold) {
  if (boxes.numel() == 0) return empty({0}, TensorOptions(DType::Int64).device(boxes.device()));
  const int64_t vanilla_limit = boxes.device().is_cuda() ? 20000 : 4000;
  if (boxes.numel() <= vanilla_limit) {
    Tensor offsets = mul(to_dtype(idxs, boxes.dtype()), add(max(boxes), num(int64_t(1))));
    return nms_upcast(add(boxes, unsqueeze(offsets, 1)), scores, iou_threshold);
  }
  Tensor order = argsort(idxs, 0, false, true);
  Tensor sorted_boxes = index_select(boxes, 0, order),
         sorted_scores = index_select(scores, 0, order);
  Tensor counts_t = contiguous(
      to_device(std::get<2>(unique_consecutive(index_select(idxs, 0, order))), Device()));
  TensorList kept;
  int64_t start = 0;
  for (int64_t i = 0; i < counts_t.numel(); ++i) {
    const int64_t count = counts_t.data<int64_t>()[i];
    kept.push_back(add(nms_upcast(slice(sorted_boxes, 0, start, start + count),
                                  slice(sorted_scores, 0, start, start + count), iou_threshold),
                       num(start)));
    start += count;
  }
  Tensor keep = sort(index_select(order, 0, cat(kept))).first;
  return index_select(keep, 0, sort(index_select(scores, 0, keep), -1, true).second);
}

}  // namespace tc::vision::ops
