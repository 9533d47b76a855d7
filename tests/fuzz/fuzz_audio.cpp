// libFuzzer target for the SoX-backed audio loader. Build (see tests/fuzz/README.md):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//     tests/fuzz/fuzz_audio.cpp io/audio/*.cpp -Lbuild -ltensorcore -lsox -lFLAC \
//     -Wl,-rpath,$PWD/build/lib -o fuzz_audio
// The first byte picks the format hint and the call (info / load / load with an offset); the
// rest is the encoded file. Any input must decode or throw a tc::Error; info and a full load
// must agree on the frame count.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/audio/audio_io.h"

namespace {
const char* const kFormats[] = {"", "wav", "mp3", "flac", "vorbis", "sph", "amr-nb", "au"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string format = kFormats[selector & 7];
  try {
    switch ((selector >> 3) & 3) {
      case 0: {
        const tc::audio::AudioMetaData md = tc::audio::info_bytes(input, format);
        tc::audio::LoadOptions o;
        o.format = format;
        const tc::audio::LoadResult r = tc::audio::load_bytes(input, o);
        if (r.waveform.size(1) != md.num_frames || r.waveform.size(0) != md.num_channels)
          __builtin_trap();
        break;
      }
      case 1: {
        tc::audio::LoadOptions o;
        o.format = format;
        o.normalize = false;
        o.channels_first = false;
        tc::audio::load_bytes(input, o);
        break;
      }
      default: {
        tc::audio::LoadOptions o;
        o.format = format;
        o.frame_offset = selector >> 5;
        o.num_frames = 64;
        tc::audio::load_bytes(input, o);
        break;
      }
    }
  } catch (const tc::Error&) {
  }
  return 0;
}
