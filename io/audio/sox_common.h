#pragma once
// Internal glue shared by the SoX-backed audio IO and effects (not a public header).
// libsox keeps process-wide state (plugin table, globals, the message handler): it is set up
// once, and the few calls that touch shared state run under one mutex that is fork-safe.
#include <sox.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tensorcore/core/tensor.h"

namespace tc::audio::detail {

// Initializes libsox once per process (thread-safe); later calls are free.
void ensure_sox_initialized();
// Also readies libsox's effects (its FFT cache); needed before any effects chain.
void ensure_sox_effects_initialized();
// Guards libsox calls that read or write process-wide state (open/close, effect creation).
std::mutex& sox_mutex();

// Messages libsox reported with level FAIL on this thread since the last call (then cleared).
std::string take_sox_error();
// Throws DecodeError "op: what (libsox: <captured message>)".
[[noreturn]] void throw_sox_error(const char* op, const std::string& what);

// Closes a sox_format_t under the libsox lock.
struct SoxFormatCloser {
  void operator()(sox_format_t* f) const;
};

using SoxPtr = std::unique_ptr<sox_format_t, SoxFormatCloser>;
constexpr int64_t kMaxChannels = 4096;

// Opens a path (or, with path == nullptr, an in-memory buffer) for decoding and validates the
// stream's rate and channel count. format "" auto-detects.
SoxPtr open_input(const std::string* path, std::string_view bytes, const std::string& format,
                  const char* op);

// torchaudio's encoding names for AudioMetaData.encoding.
std::string encoding_name(sox_encoding_t enc);

// The dtype load(normalize=False) returns: WAV PCM keeps uint8/int16/int32, float WAV and every
// other format give float32 (torchaudio's rule).
DType native_dtype(const sox_format_t* ft);

// Interleaved libsox samples (int32 full scale) -> tensor of `dtype` shaped (C, N) or (N, C).
// dtype: Float32 (divided by 2^31), Int32 (as is), Int16 (>> 16), UInt8 ((>> 24) + 128).
Tensor samples_to_tensor(const sox_sample_t* samples, int64_t frames, int64_t channels, DType dtype,
                         bool channels_first);
// Tensor (C, N) or (N, C) of float32/float64/int32/int16/uint8 -> interleaved libsox samples;
// floats are clipped to [-1, 1). `clips` counts clipped samples.
std::vector<sox_sample_t> tensor_to_samples(const Tensor& src, bool channels_first, const char* op);

}  // namespace tc::audio::detail
