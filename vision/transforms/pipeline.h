#pragma once
// Runs a transforms pipeline saved from Python (tensorcore.vision.transforms.Compose.save) in
// C++, with the same output for the same input and generator state: random transforms draw
// their parameters from the core Philox generator in the same order and amount as Python, and
// the same chains are fused into one crop/flip/convert/normalize pass.
//
//   auto pipe = tc::vision::transforms::Pipeline::load("pipeline.json");
//   tc::Tensor out = pipe(image_uint8_chw_or_nchw, generator);
//
// Supported: Resize, CenterCrop, RandomCrop (with padding / pad_if_needed), Pad,
// RandomHorizontalFlip, RandomVerticalFlip, RandomResizedCrop, ColorJitter, Grayscale,
// ConvertImageDtype (to float32), Normalize.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::vision::transforms {

struct Step;  // one transform with its parameters

class Pipeline {
 public:
  static Pipeline load(const std::string& path);
  static Pipeline from_json(std::string_view text);

  // img: (C, H, W) or (N, C, H, W); random steps draw per sample unless same_on_batch.
  Tensor operator()(const Tensor& img, const GeneratorPtr& gen = {}) const;

  size_t size() const { return steps_.size(); }
  std::vector<std::string> names() const;

 private:
  std::vector<std::shared_ptr<const Step>> steps_;
};

// Runs the pipeline described by `json` (Compose.to_json()); parsed pipelines are cached by
// their text, so a traced graph's pipeline node parses once per process.
Tensor apply_pipeline(const std::string& json, const Tensor& img, const GeneratorPtr& gen = {});

}  // namespace tc::vision::transforms
