#pragma once
// Band-limited resampling (torchaudio.functional.resample, windowed sinc), as a polyphase FIR.
#include <optional>
#include <string>

#include "tensorcore/core/tensor.h"

namespace tc::audio {

// waveform (..., time), float32 or float64. method: "sinc_interpolation" (Hann window) or
// "kaiser_window" (beta defaults to 14.769656459379492). Same output as torchaudio 0.13 within
// float rounding; differentiable with respect to waveform. The result does not depend on how
// the work is split across threads.
Tensor resample(const Tensor& waveform, int64_t orig_freq, int64_t new_freq,
                int64_t lowpass_filter_width = 6, double rolloff = 0.99,
                const std::string& method = "sinc_interpolation",
                std::optional<double> beta = std::nullopt);

}  // namespace tc::audio
