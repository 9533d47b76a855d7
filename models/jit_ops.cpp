// Graph-runtime adapters (tensorcore/jit) for the native model parts, named after their bindings
// in python/src/models_vision.cpp: a traced RetinaNet keeps its data-dependent parts as these
// nodes, so it runs on images of other sizes and finds other numbers of objects; a traced
// ConvTasNet pads to its encoder stride from the input length seen at run time.
#include "models/audio/conv_tasnet.h"
#include "models/vision/detection.h"
#include "tensorcore/jit/op_registry.h"

namespace tc::models {
namespace {

using jit::IValue;
using jit::OpArgs;
namespace mv = vision;

mv::DensePostprocessOptions options(const OpArgs& a, size_t first) {
  mv::DensePostprocessOptions o;
  std::vector<double> w = a.doubles(first);
  TC_CHECK(w.size() == 4, a.op(), "(): box coder weights must be 4 numbers");
  std::copy(w.begin(), w.end(), o.weights.begin());
  o.bbox_xform_clip = a.double_(first + 1);
  o.score_thresh = a.double_(first + 2);
  o.nms_thresh = a.double_(first + 3);
  o.topk_candidates = a.int_(first + 4);
  o.detections_per_img = a.int_(first + 5);
  return o;
}

IValue detections(const std::vector<mv::Detections>& dets) {
  jit::IValueList out;
  for (const auto& d : dets) out.push_back(IValue::tuple({d.boxes, d.scores, d.labels}));
  return IValue::list(std::move(out));
}

const jit::OpRegistrar registrar({
    {"_C._models_audio.conv_tasnet_pad",
     [](const OpArgs& a) {
       return IValue(audio::conv_tasnet_pad(a.tensor(0), a.int_(1), a.int_(2)));
     }},
    {"_C._models_audio.conv_tasnet_unpad",
     [](const OpArgs& a) { return IValue(audio::conv_tasnet_unpad(a.tensor(0), a.tensor(1))); }},
    {"_C._models_vision.detection_preprocess",
     [](const OpArgs& a) {
       std::optional<std::pair<int64_t, int64_t>> fixed;
       if (a.has(6)) fixed = a.int_pair(6);
       auto [batch, sizes] = mv::detection_preprocess(a.tensors(0), a.doubles(1), a.doubles(2),
                                                      a.doubles(3), a.double_(4), a.int_(5), fixed);
       return IValue::tuple({batch, sizes});
     }},
    {"_C._models_vision.image_sizes",
     [](const OpArgs& a) { return IValue(mv::image_sizes(a.tensors(0))); }},
    {"_C._models_vision.grid_anchors",
     [](const OpArgs& a) {
       return IValue(mv::grid_anchors(a.tensors(0), a.tensor(1), a.tensors(2)));
     }},
    {"_C._models_vision.resize_boxes",
     [](const OpArgs& a) {
       return IValue(mv::resize_boxes(a.tensor(0), a.int_pair(1), a.int_pair(2)));
     }},
    {"_C._models_vision.dense_postprocess",
     [](const OpArgs& a) {
       return detections(mv::dense_postprocess(a.tensors(0), a.tensors(1), a.tensors(2),
                                               a.tensor(3), options(a, 4)));
     }},
    {"_C._models_vision.retinanet_postprocess",
     [](const OpArgs& a) {
       return detections(mv::retinanet_postprocess(a.tensor(0), a.tensor(1), a.tensor(2),
                                                   a.tensors(3), a.tensor(4), a.tensor(5),
                                                   options(a, 6)));
     }},
});

}  // namespace
}  // namespace tc::models
