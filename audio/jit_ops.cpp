// Graph-runtime adapters (tensorcore/jit) for the audio transforms pipeline, named after its
// binding in python/src/audio_pipeline.cpp: a traced audio front end is one node.
#include <mutex>
#include <unordered_map>

#include "audio/pipeline.h"
#include "tensorcore/jit/op_registry.h"

namespace tc::audio {

namespace transforms {
Tensor apply_pipeline(const std::string& json, const Tensor& waveform, const GeneratorPtr& gen) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, std::shared_ptr<const Pipeline>>();
  std::shared_ptr<const Pipeline> pipe;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(json);
    if (it != cache->end()) pipe = it->second;
  }
  if (!pipe) {
    pipe = std::make_shared<const Pipeline>(Pipeline::from_json(json));
    std::lock_guard<std::mutex> lock(mu);
    if (cache->size() < 64) cache->emplace(json, pipe);
  }
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
