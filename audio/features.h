#pragma once
// Cepstral features in one pass: MFCC / LFCC's power spectrogram -> filter bank -> decibels (or
// log) -> DCT, without the complex spectrogram, its magnitude or the per-op temporaries.
// tensorcore.audio.transforms.MFCC / LFCC and the C++ Pipeline (its Spectrogram, MelScale or
// LinearFilterbank, AmplitudeToDB or Log, DCT steps) take this path where it applies, so both
// still agree bit for bit.
#include <optional>

#include "tensorcore/core/tensor.h"

namespace tc::audio {

struct CepstralOptions {
  int64_t n_fft = 400, hop_length = 200;
  Tensor window;      // [n_fft] (win_length == n_fft), the input's dtype
  Tensor filterbank;  // [n_fft / 2 + 1, n_filters]: MelScale's fb or LFCC's filter_mat
  Tensor dct;         // [n_filters, n_coefficients]
  // AmplitudeToDB("power"): multiplier * log10(max(x, amin)) - multiplier * db_multiplier,
  // floored at (max over each spectrogram's last three dims) - top_db; or, with use_log,
  // log(x + log_offset).
  bool use_log = false;
  double log_offset = 1e-6;
  double multiplier = 10.0, amin = 1e-10, db_multiplier = 0.0;
  std::optional<double> top_db;
};

// Whether cepstral_features handles `waveform` (float32 CPU, no autograd, (..., time) longer
// than n_fft / 2, so the centred reflect padding is defined) with these options (n_fft even,
// the window, filter bank and DCT on the CPU).
bool cepstral_features_apply(const Tensor& waveform, const CepstralOptions& o);

// (..., time) -> (..., n_coefficients, frames), contiguous: the values of the unfused transform
// (a centred, reflect-padded, onesided, unnormalized power-2 spectrogram) up to rounding.
Tensor cepstral_features(const Tensor& waveform, const CepstralOptions& o);

}  // namespace tc::audio
