// A port of the Python detection path (python/tensorcore/vision/models/detection) to native
// code, op for op and with the same scalar arithmetic, so eager and traced runs give torchvision's
// results bit for bit; the detection tests compare with torchvision.
#include "models/vision/detection.h"

#include <cmath>

#include "tensorcore/nn/functional.h"
#include "tensorcore/tensor.h"
#include "vision/ops/ops.h"

namespace tc::models::vision {
namespace {

// A Python number in an expression with a tensor (a wrapped 0-d tensor: the tensor's dtype wins).
Tensor num(double v) { return scalar_tensor(Scalar(v), {}, Device(), /*wrapped=*/true); }
Tensor num(int64_t v) { return scalar_tensor(Scalar(v), {}, Device(), /*wrapped=*/true); }

Tensor float_tensor(const std::vector<double>& v, DType dtype, Device device) {
  return to_device(to_dtype(from_vector(v, {int64_t(v.size())}), dtype), device);
}

Tensor col(const Tensor& t, int64_t c) { return select(t, 1, c); }
Tensor cols(const Tensor& t, int64_t start, int64_t step) {
  return slice(t, 1, start, t.size(1), step);
}

std::pair<int64_t, int64_t> resized_size(int64_t h, int64_t w, double min_size, double max_size) {
  const float shorter = float(std::min(h, w)), longer = float(std::max(h, w));
  const float by_min = (1.0f / shorter) * float(min_size);
  const float by_max = (1.0f / longer) * float(max_size);
  const double scale = double(std::min(by_min, by_max));
  return {int64_t(std::floor(double(h) * scale)), int64_t(std::floor(double(w) * scale))};
}

std::vector<int64_t> sizes_of(const Tensor& image_sizes) {
  Tensor s = contiguous(to_dtype(to_device(image_sizes, Device()), DType::Int64));
  TC_CHECK(s.dim() == 2 && s.size(1) == 2, "image sizes must be an (N, 2) tensor, got shape ",
           shape_str(s.sizes()));
  const int64_t* p = s.data<int64_t>();
  return std::vector<int64_t>(p, p + s.numel());
}

std::vector<int64_t> counts_per_image(const Tensor& img, int64_t num_images) {
  if (img.numel() == 0) return std::vector<int64_t>(size_t(num_images), 0);
  Tensor c = contiguous(to_device(bincount(img, Tensor(), num_images), Device()));
  const int64_t* p = c.data<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// (image, anchor, class) indices and scores of the logits (N, A, K) whose sigmoid exceeds the
// threshold; the logit bound skips the sigmoid of entries that cannot pass.
std::array<Tensor, 4> candidates(const Tensor& logits, double score_thresh) {
  Tensor probs, idx;
  const bool prefilter = (logits.dtype() == DType::Float32 || logits.dtype() == DType::Float64) &&
                         score_thresh > 0.0 && score_thresh <= 0.999;
  if (prefilter) {
    const double bound = std::log(score_thresh / (1.0 - score_thresh)) - 0.01;
    idx = nonzero(gt(logits, num(bound)));
  } else {
    probs = sigmoid(logits);
    idx = nonzero(gt(probs, num(score_thresh)));
  }
  Tensor img = col(idx, 0), anchor = col(idx, 1), label = col(idx, 2);
  Tensor scores = index(prefilter ? logits : probs, {img, anchor, label});
  if (!prefilter) return {img, anchor, label, scores};
  scores = sigmoid(scores);
  Tensor exact = gt(scores, num(score_thresh));
  if (!all(exact).item().to<bool>()) {
    Tensor keep = col(nonzero(exact), 0);
    img = index_select(img, 0, keep);
    anchor = index_select(anchor, 0, keep);
    label = index_select(label, 0, keep);
    scores = index_select(scores, 0, keep);
  }
  return {img, anchor, label, scores};
}

// Positions of each image's k best scores (img sorted); undefined when no image has more than k.
Tensor top_per_image(const Tensor& img, const Tensor& scores, int64_t num_images, int64_t k) {
  std::vector<int64_t> counts = counts_per_image(img, num_images);
  if (*std::max_element(counts.begin(), counts.end()) <= k) return Tensor();
  TensorList pieces;
  int64_t start = 0;
  for (int64_t count : counts) {
    if (count > k) {
      pieces.push_back(add(topk(slice(scores, 0, start, start + count), k).second, num(start)));
    } else {
      pieces.push_back(arange(Scalar(start), Scalar(start + count), Scalar(int64_t(1)),
                              TensorOptions(DType::Int64).device(img.device())));
    }
    start += count;
  }
  return cat(pieces);
}

Tensor decode(const Tensor& rel_codes, Tensor boxes, const DensePostprocessOptions& o) {
  boxes = to_dtype(boxes, rel_codes.dtype());
  Tensor widths = sub(col(boxes, 2), col(boxes, 0));
  Tensor heights = sub(col(boxes, 3), col(boxes, 1));
  Tensor ctr_x = add(col(boxes, 0), mul(num(0.5), widths));
  Tensor ctr_y = add(col(boxes, 1), mul(num(0.5), heights));
  Tensor dx = div(cols(rel_codes, 0, 4), num(o.weights[0]));
  Tensor dy = div(cols(rel_codes, 1, 4), num(o.weights[1]));
  Tensor dw =
      clamp(div(cols(rel_codes, 2, 4), num(o.weights[2])), std::nullopt, Scalar(o.bbox_xform_clip));
  Tensor dh =
      clamp(div(cols(rel_codes, 3, 4), num(o.weights[3])), std::nullopt, Scalar(o.bbox_xform_clip));
  Tensor w = unsqueeze(widths, 1), h = unsqueeze(heights, 1);
  Tensor pred_x = add(mul(dx, w), unsqueeze(ctr_x, 1));
  Tensor pred_y = add(mul(dy, h), unsqueeze(ctr_y, 1));
  Tensor half_w = mul(num(0.5), mul(exp(dw), w));
  Tensor half_h = mul(num(0.5), mul(exp(dh), h));
  return flatten(
      stack({sub(pred_x, half_w), sub(pred_y, half_h), add(pred_x, half_w), add(pred_y, half_h)},
            2),
      1);
}

// clip_boxes_to_image with each row's own image size (h, w).
Tensor clip_rows(const Tensor& boxes, const Tensor& img, const Tensor& image_sizes) {
  Tensor sizes =
      index_select(to_dtype(to_device(image_sizes, boxes.device()), boxes.dtype()), 0, img);
  Tensor x =
      minimum(clamp(cols(boxes, 0, 2), Scalar(int64_t(0)), std::nullopt), slice(sizes, 1, 1, 2));
  Tensor y =
      minimum(clamp(cols(boxes, 1, 2), Scalar(int64_t(0)), std::nullopt), slice(sizes, 1, 0, 1));
  return reshape(stack({x, y}, 2), {-1, 4});
}

}  // namespace

std::pair<Tensor, Tensor> detection_preprocess(
    const TensorList& images, const std::vector<double>& mean, const std::vector<double>& std,
    const std::vector<double>& min_sizes, double max_size, int64_t size_divisible,
    std::optional<std::pair<int64_t, int64_t>> fixed_size) {
  TC_CHECK(!images.empty(), "GeneralizedRCNNTransform: no images given");
  TC_CHECK(size_divisible > 0, "GeneralizedRCNNTransform: size_divisible must be positive");
  TC_CHECK(min_sizes.size() == 1 || min_sizes.size() == images.size(),
           "GeneralizedRCNNTransform: ", min_sizes.size(), " min sizes for ", images.size(),
           " images");
  TensorList resized;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < images.size(); ++i) {
    Tensor image = images[i];
    TC_CHECK(image.dim() == 3,
             "images is expected to be a list of 3d tensors of shape [C, H, W], "
             "got ",
             shape_str(image.sizes()), " for images[", i, "]");
    TC_CHECK_TYPE(is_floating(image.dtype()),
                  "Expected input images to be of floating type (in range [0, 1]), but found "
                  "type ",
                  dtype_name(image.dtype()), " instead");
    TC_CHECK(image.size(0) == int64_t(mean.size()) && mean.size() == std.size(),
             "GeneralizedRCNNTransform: expected images with ", mean.size(),
             " channels (one per image_mean entry), got an image of shape ",
             shape_str(image.sizes()));
    const int64_t c = image.size(0);
    Tensor m = reshape(float_tensor(mean, image.dtype(), image.device()), {c, 1, 1});
    Tensor s = reshape(float_tensor(std, image.dtype(), image.device()), {c, 1, 1});
    image = div(sub(image, m), s);
    const double min_size = min_sizes[min_sizes.size() == 1 ? 0 : i];
    auto [h, w] = fixed_size ? std::pair<int64_t, int64_t>{fixed_size->second, fixed_size->first}
                             : resized_size(image.size(1), image.size(2), min_size, max_size);
    TC_CHECK(std::min(h, w) >= 1, "GeneralizedRCNNTransform: image of size (", image.size(1), ", ",
             image.size(2), ") would be resized to (", h, ", ", w,
             "); it is too small or too elongated for min_size=", min_size,
             ", max_size=", max_size);
    image = select(nn::functional::interpolate_to_size(unsqueeze(image, 0), {h, w}, "bilinear",
                                                       false, {}, false),
                   0, 0);
    resized.push_back(image);
    sizes.push_back(h);
    sizes.push_back(w);
  }
  const int64_t channels = resized[0].size(0);
  int64_t max_h = 0, max_w = 0;
  for (const Tensor& img : resized) {
    TC_CHECK(img.size(0) == channels,
             "GeneralizedRCNNTransform: images have different channel "
             "counts");
    max_h = std::max(max_h, img.size(1));
    max_w = std::max(max_w, img.size(2));
  }
  const double stride = double(size_divisible);
  max_h = int64_t(std::ceil(double(max_h) / stride) * stride);
  max_w = int64_t(std::ceil(double(max_w) / stride) * stride);
  Tensor batch = zeros({int64_t(resized.size()), channels, max_h, max_w},
                       TensorOptions(resized[0].dtype()).device(resized[0].device()));
  for (size_t i = 0; i < resized.size(); ++i) {
    Tensor dst = narrow(narrow(select(batch, 0, int64_t(i)), 1, 0, resized[i].size(1)), 2, 0,
                        resized[i].size(2));
    copy_(dst, resized[i]);
  }
  return {batch, from_vector(sizes, {int64_t(resized.size()), 2})};
}

Tensor grid_anchors(const TensorList& feature_maps, const Tensor& batch,
                    const TensorList& cell_anchors) {
  TC_CHECK(!feature_maps.empty(), "AnchorGenerator: no feature maps given");
  TC_CHECK(feature_maps.size() == cell_anchors.size(), "AnchorGenerator: got ", feature_maps.size(),
           " feature maps but anchors are defined for ", cell_anchors.size(),
           " (sizes and aspect_ratios need one entry per feature map)");
  const int64_t image_h = batch.size(-2), image_w = batch.size(-1);
  const DType dtype = feature_maps[0].dtype();
  const Device device = feature_maps[0].device();
  TensorList per_map;
  for (size_t i = 0; i < feature_maps.size(); ++i) {
    const int64_t gh = feature_maps[i].size(-2), gw = feature_maps[i].size(-1);
    const int64_t stride_h = image_h / gh, stride_w = image_w / gw;
    Tensor base = to_device(to_dtype(cell_anchors[i], dtype), device);
    TensorOptions opts = TensorOptions(DType::Int64).device(device);
    Tensor sx =
        mul(arange(Scalar(int64_t(0)), Scalar(gw), Scalar(int64_t(1)), opts), num(stride_w));
    Tensor sy =
        mul(arange(Scalar(int64_t(0)), Scalar(gh), Scalar(int64_t(1)), opts), num(stride_h));
    sx = reshape(expand(unsqueeze(sx, 0), {gh, gw}), {-1});
    sy = reshape(expand(unsqueeze(sy, 1), {gh, gw}), {-1});
    Tensor shifts = stack({sx, sy, sx, sy}, 1);
    per_map.push_back(
        reshape(add(reshape(shifts, {-1, 1, 4}), reshape(base, {1, -1, 4})), {-1, 4}));
  }
  return cat(per_map);
}

std::vector<Detections> dense_postprocess(const TensorList& cls_logits,
                                          const TensorList& bbox_regression,
                                          const TensorList& anchors, const Tensor& image_sizes,
                                          const DensePostprocessOptions& o) {
  TC_CHECK(cls_logits.size() == bbox_regression.size(),
           "postprocess_detections: ", cls_logits.size(), " levels of logits but ",
           bbox_regression.size(), " of box regression");
  TC_CHECK(anchors.size() == cls_logits.size(), "postprocess_detections: anchors for ",
           anchors.size(), " levels, logits for ", cls_logits.size());
  const int64_t num_images = image_sizes.size(0);
  TensorList imgs, all_scores, all_labels, all_boxes;
  for (size_t level = 0; level < cls_logits.size(); ++level) {
    auto [img, anchor, label, scores] = candidates(cls_logits[level], o.score_thresh);
    Tensor top = top_per_image(img, scores, num_images, o.topk_candidates);
    if (top.defined()) {
      img = index_select(img, 0, top);
      anchor = index_select(anchor, 0, top);
      label = index_select(label, 0, top);
      scores = index_select(scores, 0, top);
    }
    const Tensor& a = anchors[level];
    Tensor level_anchors = a.dim() == 2 ? index_select(a, 0, anchor) : index(a, {img, anchor});
    Tensor boxes = decode(index(bbox_regression[level], {img, anchor}), level_anchors, o);
    imgs.push_back(img);
    all_scores.push_back(scores);
    all_labels.push_back(label);
    all_boxes.push_back(clip_rows(boxes, img, image_sizes));
  }
  Tensor img = cat(imgs);
  Tensor order = argsort(img, 0, false, true);
  Tensor scores = index_select(cat(all_scores), 0, order);
  Tensor labels = index_select(cat(all_labels), 0, order);
  Tensor boxes = index_select(cat(all_boxes), 0, order);
  std::vector<Detections> out;
  int64_t start = 0;
  for (int64_t count : counts_per_image(img, num_images)) {
    const int64_t stop = start + count;
    Tensor keep =
        tc::vision::ops::batched_nms(slice(boxes, 0, start, stop), slice(scores, 0, start, stop),
                                     slice(labels, 0, start, stop), o.nms_thresh);
    keep = add(slice(keep, 0, 0, std::min(o.detections_per_img, keep.size(0))), num(start));
    out.push_back({index_select(boxes, 0, keep), index_select(scores, 0, keep),
                   index_select(labels, 0, keep)});
    start = stop;
  }
  return out;
}

Tensor image_sizes(const TensorList& images) {
  std::vector<int64_t> sizes;
  for (const Tensor& img : images) {
    TC_CHECK(img.dim() >= 2, "images: expected (C, H, W) tensors, got shape ",
             shape_str(img.sizes()));
    sizes.push_back(img.size(-2));
    sizes.push_back(img.size(-1));
  }
  return from_vector(sizes, {int64_t(images.size()), 2});
}

Tensor resize_boxes(const Tensor& boxes, std::pair<int64_t, int64_t> from,
                    std::pair<int64_t, int64_t> to) {
  const double ratio_h = double(float(to.first) / float(from.first));
  const double ratio_w = double(float(to.second) / float(from.second));
  TensorList c = unbind(boxes, 1);
  return stack({mul(c[0], num(ratio_w)), mul(c[1], num(ratio_h)), mul(c[2], num(ratio_w)),
                mul(c[3], num(ratio_h))},
               1);
}

std::vector<Detections> retinanet_postprocess(const Tensor& cls_logits,
                                              const Tensor& bbox_regression, const Tensor& anchors,
                                              const TensorList& feature_maps,
                                              const Tensor& image_sizes,
                                              const Tensor& original_sizes,
                                              const DensePostprocessOptions& o) {
  int64_t locations = 0;
  for (const Tensor& f : feature_maps) locations += f.size(2) * f.size(3);
  TC_CHECK(locations > 0 && cls_logits.size(1) % locations == 0,
           "retinanet_postprocess: ", cls_logits.size(1),
           " predictions do not tile the feature maps' ", locations, " locations");
  const int64_t per_location = cls_logits.size(1) / locations;
  Shape level_sizes;
  for (const Tensor& f : feature_maps) level_sizes.push_back(f.size(2) * f.size(3) * per_location);
  std::vector<Detections> dets =
      dense_postprocess(split_with_sizes(cls_logits, level_sizes, 1),
                        split_with_sizes(bbox_regression, level_sizes, 1),
                        split_with_sizes(anchors, level_sizes, anchors.dim() - 2), image_sizes, o);
  std::vector<int64_t> resized = sizes_of(image_sizes), original = sizes_of(original_sizes);
  TC_CHECK(resized.size() == original.size(), "retinanet_postprocess: ", resized.size() / 2,
           " resized sizes but ", original.size() / 2, " original sizes");
  for (size_t i = 0; i < dets.size(); ++i)
    dets[i].boxes = resize_boxes(dets[i].boxes, {resized[2 * i], resized[2 * i + 1]},
                                 {original[2 * i], original[2 * i + 1]});
  return dets;
}

}  // namespace tc::models::vision
