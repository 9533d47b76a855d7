// libFuzzer target for tc::io::VideoReader on in-memory input (custom AVIOContext). Build and
// run: see tests/fuzz/README.md. The first byte picks what is exercised:
//   bit 0: stream "video" or "audio"; bit 1: keyframes_only for the seek; bit 2: read_video too;
//   bits 3-7: seek target in tenths of a second.
// Every input must either decode or throw a tc::Error, without leaks or sanitizer reports.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/video.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  const auto source =
      tc::io::MediaSource::memory(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  try {
    tc::io::VideoReader reader(source, {(mode & 1) ? "audio" : "video", 1});
    for (int i = 0; i < 48 && reader.next(); ++i) {
    }
    reader.seek((mode >> 3) / 10.0, (mode & 2) != 0);
    for (int i = 0; i < 8; ++i) {
      auto frame = reader.next();
      if (!frame) break;
      // Touch the pixels/samples so a bad conversion shows up under ASan.
      const auto* p = static_cast<const volatile uint8_t*>(frame->data.data_ptr());
      if (frame->data.nbytes() > 0) (void)p[frame->data.nbytes() - 1];
    }
    (void)reader.streams();
  } catch (const tc::Error&) {
  }
  if (mode & 4) {
    try {
      (void)tc::io::read_video(source, 0.0, 0.5);
    } catch (const tc::Error&) {
    }
  }
  return 0;
}
