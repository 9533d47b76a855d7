// Bindings for the native parts of the detection models (tensorcore::models), in the private
// submodule tensorcore._C._models_vision; the public API is tensorcore.vision.models.detection.
#include "bind.h"
#include "models/vision/detection.h"

namespace tc::python {
namespace {

namespace mv = tc::models::vision;

mv::DensePostprocessOptions options(const std::vector<double>& weights, double clip, double score,
                                    double nms, int64_t topk, int64_t detections) {
  TC_CHECK(weights.size() == 4, "postprocess: box coder weights must be 4 numbers, got ",
           weights.size());
  mv::DensePostprocessOptions o;
  std::copy(weights.begin(), weights.end(), o.weights.begin());
  o.bbox_xform_clip = clip;
  o.score_thresh = score;
  o.nms_thresh = nms;
  o.topk_candidates = topk;
  o.detections_per_img = detections;
  return o;
}

py::list detections_list(const std::vector<mv::Detections>& dets) {
  py::list out;
  for (const auto& d : dets) out.append(py::make_tuple(d.boxes, d.scores, d.labels));
  return out;
}

void bind_models_vision(py::module_& m, TensorClass&) {
  py::module_ v = m.def_submodule("_models_vision", "native parts of the detection models");
  v.def("detection_preprocess", &mv::detection_preprocess, py::arg("images"), py::arg("mean"),
        py::arg("std"), py::arg("min_sizes"), py::arg("max_size"), py::arg("size_divisible"),
        py::arg("fixed_size") = py::none());
  v.def("image_sizes", &mv::image_sizes, py::arg("images"));
  v.def("grid_anchors", &mv::grid_anchors, py::arg("feature_maps"), py::arg("batch"),
        py::arg("cell_anchors"));
  v.def("resize_boxes", &mv::resize_boxes, py::arg("boxes"), py::arg("original_size"),
        py::arg("new_size"));
  v.def(
      "dense_postprocess",
      [](const TensorList& cls, const TensorList& bbox, const TensorList& anchors,
         const Tensor& image_sizes, const std::vector<double>& weights, double clip, double score,
         double nms, int64_t topk, int64_t detections) {
        return detections_list(mv::dense_postprocess(
            cls, bbox, anchors, image_sizes, options(weights, clip, score, nms, topk, detections)));
      },
      py::arg("cls_logits"), py::arg("bbox_regression"), py::arg("anchors"), py::arg("image_sizes"),
      py::arg("weights"), py::arg("bbox_xform_clip"), py::arg("score_thresh"),
      py::arg("nms_thresh"), py::arg("topk_candidates"), py::arg("detections_per_img"));
  v.def(
      "retinanet_postprocess",
      [](const Tensor& cls, const Tensor& bbox, const Tensor& anchors, const TensorList& features,
         const Tensor& image_sizes, const Tensor& original_sizes,
         const std::vector<double>& weights, double clip, double score, double nms, int64_t topk,
         int64_t detections) {
        return detections_list(
            mv::retinanet_postprocess(cls, bbox, anchors, features, image_sizes, original_sizes,
                                      options(weights, clip, score, nms, topk, detections)));
      },
      py::arg("cls_logits"), py::arg("bbox_regression"), py::arg("anchors"),
      py::arg("feature_maps"), py::arg("image_sizes"), py::arg("original_sizes"),
      py::arg("weights"), py::arg("bbox_xform_clip"), py::arg("score_thresh"),
      py::arg("nms_thresh"), py::arg("topk_candidates"), py::arg("detections_per_img"));
}

Registrar registrar(bind_models_vision);

}  // namespace
}  // namespace tc::python
