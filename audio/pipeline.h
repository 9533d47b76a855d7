#pragma once
// Runs an audio front end saved from Python (tensorcore.audio.transforms.Compose.save or
// save_pipeline over an nn.Sequential) in C++, with the same output for the same input and
// generator state: every step applies the same tensor ops in the same order as the Python
// transform, and the masking steps draw from the core Philox generator exactly as Python does.
//
//   auto pipe = tc::audio::transforms::Pipeline::load("frontend.json");
//   tc::Tensor feats = pipe(waveform, generator);   // waveform (..., time)
//
// Steps (the file stores composite transforms as these): Spectrogram, MelScale (fb matrix),
// LinearFilterbank (LFCC's), AmplitudeToDB, Log (log(x + offset), MFCC/LFCC's log option), DCT,
// Resample, MuLawEncoding, MuLawDecoding, FrequencyMasking, TimeMasking, Vol, ComputeDeltas, Fade,
// SlidingWindowCmn, SpectralCentroid, TimeStretch (fixed rate, on a complex spectrogram),
// InverseSpectrogram (without a target length), GriffinLim (initial phases from the default
// generator, as in Python), InverseMelScale (the same projected-SGD loop, initial values from the
// default generator).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::audio::transforms {

struct Step;  // one transform with its parameters

class Pipeline {
 public:
  static Pipeline load(const std::string& path);
  static Pipeline from_json(std::string_view text);

  // Random steps (masking) draw from gen, or from the default generator when gen is null.
  Tensor operator()(const Tensor& waveform, const GeneratorPtr& gen = {}) const;

  size_t size() const { return steps_.size(); }
  std::vector<std::string> names() const;

 private:
  std::vector<std::shared_ptr<const Step>> steps_;
};

// Runs the pipeline described by `json` (tensorcore.audio.pipeline.pipeline_json); parsed
// pipelines are cached by their text, so a traced graph's pipeline node parses once.
Tensor apply_pipeline(const std::string& json, const Tensor& waveform,
                      const GeneratorPtr& gen = {});

}  // namespace tc::audio::transforms
