#pragma once
// SoX effect chains over tensors and files (torchaudio.sox_effects). Each effect is a list of
// strings as on the sox command line: {{"gain", "-n"}, {"rate", "16000"}, {"reverb", "50"}}.
// Safe to call from several threads; the chain's output is float32 in [-1, 1) unless noted.
#include <string>
#include <vector>

#include "io/audio/audio_io.h"

namespace tc::audio {

using EffectChain = std::vector<std::vector<std::string>>;

// waveform: (channels, time) when channels_first, else (time, channels); float32/float64/
// int32/int16/uint8. Returns the processed float32 waveform in the same layout and its rate.
LoadResult apply_effects_tensor(const Tensor& waveform, int64_t sample_rate,
                                const EffectChain& effects, bool channels_first = true);
// Decodes the file (or bytes) through the chain. normalize=false keeps WAV PCM's integer dtype.
LoadResult apply_effects_file(const std::string& path, const EffectChain& effects,
                              bool normalize = true, bool channels_first = true,
                              const std::string& format = "");
LoadResult apply_effects_bytes(std::string_view data, const EffectChain& effects,
                               bool normalize = true, bool channels_first = true,
                               const std::string& format = "");
// Names of the effects a chain may use.
std::vector<std::string> effect_names();

}  // namespace tc::audio
