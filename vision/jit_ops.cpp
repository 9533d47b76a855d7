// Graph-runtime adapters (tensorcore/jit) for the vision ops and the transforms pipeline, named
// after their bindings in python/src/vision.cpp. Linking libtensorcore_vision registers them.
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/jit/parsed_cache.h"
#include "vision/ops/ops.h"
#include "vision/transforms/pipeline.h"

namespace tc::vision {

namespace transforms {
Tensor apply_pipeline(const std::string& json, const Tensor& img, const GeneratorPtr& gen) {
  auto pipe = jit::parsed_from_text<Pipeline>(
      json, [](const std::string& text) { return Pipeline::from_json(text); });
  return (*pipe)(img, gen);
}
}  // namespace transforms

namespace {

using jit::IValue;
using jit::OpArgs;

const jit::OpRegistrar registrar({
    {"_C._vision.apply_pipeline",
     [](const OpArgs& a) { return IValue(transforms::apply_pipeline(a.str(0), a.tensor(1))); }},
    {"_C._vision.nms",
     [](const OpArgs& a) { return IValue(ops::nms(a.tensor(0), a.tensor(1), a.double_(2))); }},
    {"_C._vision.batched_nms",
     [](const OpArgs& a) {
       return IValue(ops::batched_nms(a.tensor(0), a.tensor(1), a.tensor(2), a.double_(3)));
     }},
    {"_C._vision.roi_align",
     [](const OpArgs& a) {
       return IValue(ops::roi_align(a.tensor(0), a.tensor(1), a.double_(2), a.int_(3), a.int_(4),
                                    a.int_(5), a.bool_(6)));
     }},
    {"_C._vision.roi_pool",
     [](const OpArgs& a) {
       return IValue(ops::roi_pool(a.tensor(0), a.tensor(1), a.double_(2), a.int_(3), a.int_(4)));
     }},
    {"_C._vision.ps_roi_align",
     [](const OpArgs& a) {
       return IValue(ops::ps_roi_align(a.tensor(0), a.tensor(1), a.double_(2), a.int_(3), a.int_(4),
                                       a.int_(5)));
     }},
    {"_C._vision.ps_roi_pool",
     [](const OpArgs& a) {
       return IValue(
           ops::ps_roi_pool(a.tensor(0), a.tensor(1), a.double_(2), a.int_(3), a.int_(4)));
     }},
    {"_C._vision.deform_conv2d",
     [](const OpArgs& a) {
       return IValue(ops::deform_conv2d(a.tensor(0), a.tensor(1), a.tensor(2), a.opt_tensor(3),
                                        a.int_pair(4), a.int_pair(5), a.int_pair(6),
                                        a.opt_tensor(7)));
     }},
});

}  // namespace
}  // namespace tc::vision
