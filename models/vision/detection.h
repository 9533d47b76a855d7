#pragma once
// The data-dependent parts of the dense detectors (RetinaNet), as native ops so that eager
// Python and traced graphs (tc.jit) run the same code, on images of any size and with any
// number of detections: torchvision's GeneralizedRCNNTransform image path, anchor grids and
// post-processing (score threshold, per-level top-k, box decoding and clipping, class-wise NMS,
// detections per image, boxes mapped back to the original images).
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::models::vision {

// Normalizes each (C, H, W) float image, resizes it (bilinear) so its shorter side is min_sizes[i]
// (one per image, or one for all) unless the longer would exceed max_size (torchvision's float32
// scale arithmetic; fixed_size (w, h) overrides), and zero-pads them into one (N, C, H', W') batch
// with H', W' rounded up to size_divisible. Returns the batch and the resized sizes (N, 2) int64
// (h, w).
std::pair<Tensor, Tensor> detection_preprocess(
    const TensorList& images, const std::vector<double>& mean, const std::vector<double>& std,
    const std::vector<double>& min_sizes, double max_size, int64_t size_divisible,
    std::optional<std::pair<int64_t, int64_t>> fixed_size);

// (sum over maps of H_i * W_i * A_i, 4) xyxy anchors in (map, y, x, anchor) order: cell_anchors[i]
// shifted over map i's grid, strided over the padded batch (its last two dims).
Tensor grid_anchors(const TensorList& feature_maps, const Tensor& batch,
                    const TensorList& cell_anchors);

struct DensePostprocessOptions {
  std::array<double, 4> weights{1.0, 1.0, 1.0, 1.0};  // BoxCoder weights
  double bbox_xform_clip = 4.135166556742356;         // log(1000 / 16)
  double score_thresh = 0.05;
  double nms_thresh = 0.5;
  int64_t topk_candidates = 1000;
  int64_t detections_per_img = 300;
};

struct Detections {
  Tensor boxes, scores, labels;
};

// Per image detections from per-level head outputs: cls_logits[l] (N, HWA_l, K), bbox[l]
// (N, HWA_l, 4) and anchors[l] (HWA_l, 4) shared by the images or (N, HWA_l, 4) per image.
std::vector<Detections> dense_postprocess(const TensorList& cls_logits,
                                          const TensorList& bbox_regression,
                                          const TensorList& anchors, const Tensor& image_sizes,
                                          const DensePostprocessOptions& opts);

// RetinaNet's eval tail: splits the concatenated head outputs (N, total, K) / (N, total, 4) and
// anchors (total, 4) into the levels of feature_maps, post-processes, and maps the boxes from
// the resized image sizes to original_sizes (N, 2).
std::vector<Detections> retinanet_postprocess(const Tensor& cls_logits,
                                              const Tensor& bbox_regression, const Tensor& anchors,
                                              const TensorList& feature_maps,
                                              const Tensor& image_sizes,
                                              const Tensor& original_sizes,
                                              const DensePostprocessOptions& opts);

// The (h, w) of each (..., H, W) image as an (N, 2) int64 tensor (a graph value, not constants).
Tensor image_sizes(const TensorList& images);

// Boxes (K, 4) scaled from an image of size `from` (h, w) to one of size `to`, with torchvision's
// float32 ratios.
Tensor resize_boxes(const Tensor& boxes, std::pair<int64_t, int64_t> from,
                    std::pair<int64_t, int64_t> to);

}  // namespace tc::models::vision
