// libFuzzer target for audio::load's libFLAC path (io/audio/flac_decode.cpp). Build and run with
// tests/fuzz/run_all.sh (FUZZ_ONLY=flac). The first byte picks the layout and a window
// (frame_offset, num_frames); the rest, after a forced "fLaC" magic, is the stream. Any input
// must decode or throw a tc::Error; when both the full decode and the windowed one succeed, the
// window must equal that slice of the full decode (the seek path agrees with the linear one),
// and a full decode must hold the frames info() reports.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "io/audio/audio_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  std::string input = "fLaC";
  if (size > 5 && std::memcmp(data + 1, "fLaC", 4) == 0)
    input.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  else
    input.append(reinterpret_cast<const char*>(data + 1), size - 1);
  using namespace tc::audio;
  LoadOptions full_opt;
  full_opt.channels_first = (selector & 1) != 0;
  LoadOptions window = full_opt;
  window.frame_offset = int64_t(selector >> 1 & 7) * 700;
  window.num_frames = (selector & 0x80) ? -1 : int64_t(selector >> 4 & 7) * 300;
  tc::Tensor full;
  try {
    full = load_bytes(input, full_opt).waveform;
    const AudioMetaData md = info_bytes(input);
    const int64_t frames = full_opt.channels_first ? full.size(1) : full.size(0);
    if (frames != md.num_frames) __builtin_trap();
  } catch (const tc::Error&) {
    full = tc::Tensor();
  }
  try {
    const tc::Tensor part = load_bytes(input, window).waveform;
    if (full.defined()) {
      const int dim = window.channels_first ? 1 : 0;
      const int64_t total = full.size(dim);
      const int64_t start = std::min(window.frame_offset, total);
      const int64_t end =
          window.num_frames < 0 ? total : std::min(total, start + window.num_frames);
      if (part.size(dim) != end - start || part.size(1 - dim) != full.size(1 - dim))
        __builtin_trap();
      const int64_t channels = full.size(1 - dim);
      const float* a = part.data<float>();
      const float* b = full.data<float>();
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t i = 0; i < end - start; ++i) {
          const float x = dim == 1 ? a[c * (end - start) + i] : a[i * channels + c];
          const float y = dim == 1 ? b[c * total + start + i] : b[(start + i) * channels + c];
          if (std::memcmp(&x, &y, sizeof x) != 0) __builtin_trap();
        }
    }
  } catch (const tc::Error&) {
  }
  return 0;
}
