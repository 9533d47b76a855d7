#pragma once
// Audio file IO through libsox: load / save / info with torchaudio's (sox_io backend) semantics.
// Every entry point is safe to call from several threads and from forked worker processes.
// Corrupt, truncated or unsupported input raises tc::DecodeError.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tensorcore/core/tensor.h"

namespace tc::audio {

struct AudioMetaData {
  int64_t sample_rate = 0;
  int64_t num_frames = 0;  // exactly the frames load() returns (compressed formats are decoded)
  int64_t num_channels = 0;
  int64_t bits_per_sample = 0;  // 0 for lossy formats (mp3, vorbis, ...)
  std::string encoding;         // "PCM_S", "PCM_U", "PCM_F", "ULAW", "ALAW", "FLAC", "MP3", ...
};

struct LoadOptions {
  int64_t frame_offset = 0;
  int64_t num_frames = -1;  // -1: to the end
  // true: float32 in [-1, 1). false: WAV PCM keeps its integer type (uint8/int16/int32);
  // other formats still return float32 (as torchaudio does).
  bool normalize = true;
  bool channels_first = true;
  std::string format;  // "" detects from the name / header
};

struct LoadResult {
  Tensor waveform;  // (channels, frames) or (frames, channels)
  int64_t sample_rate = 0;
};

struct SaveOptions {
  bool channels_first = true;
  std::string format;           // "" takes it from the file extension
  std::string encoding;         // "PCM_S", "PCM_U", "PCM_F", "ULAW", "ALAW" or "" (from the dtype)
  int64_t bits_per_sample = 0;  // 0: from the dtype / format default
  // Format-specific: FLAC level 0-8, MP3 bit rate in kbps (negative: VBR quality), Vorbis quality.
  std::optional<double> compression;
};

AudioMetaData info(const std::string& path, const std::string& format = "");
AudioMetaData info_bytes(std::string_view data, const std::string& format = "");

LoadResult load(const std::string& path, const LoadOptions& options = {});
LoadResult load_bytes(std::string_view data, const LoadOptions& options = {});
// load_bytes over the bytes of a 1-d uint8 tensor (a file read into memory; a graph input).
LoadResult decode_audio(const Tensor& data, const LoadOptions& options = {});

void save(const std::string& path, const Tensor& src, int64_t sample_rate,
          const SaveOptions& options = {});
// Encodes into memory; options.format is required.
std::string save_bytes(const Tensor& src, int64_t sample_rate, const SaveOptions& options);

}  // namespace tc::audio
