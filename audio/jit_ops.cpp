// Graph-runtime adapters (tensorcore/jit) for the audio transforms pipeline, named after its
// binding in python/src/audio_pipeline.cpp: a traced audio front end is one node.
#include "audio/pipeline.h"
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/jit/parsed_cache.h"

namespace tc::audio {

namespace transforms {
Tensor apply_pipeline(const std::string& json, const Tensor& waveform, const GeneratorPtr& gen) {
  auto pipe = jit::parsed_from_text<Pipeline>(
      json, [](const std::string& text) { return Pipeline::from_json(text); });
  return (*pipe)(waveform, gen);
}
}  // namespace transforms

namespace {
const jit::OpRegistrar registrar({
    {"_C._audio_pipeline.apply_pipeline",
     [](const jit::OpArgs& a) {
       return jit::IValue(transforms::apply_pipeline(a.str(0), a.tensor(1)));
     }},
});
}  // namespace
}  // namespace tc::audio
