// libFuzzer target for the PNG decoder (libpng behind our error handler, every color type and
// transform, eXIf parsing and orientation). Build and run: FUZZ_ONLY=png tests/fuzz/run_all.sh.
// Any input must decode or throw DecodeError: never crash, abort, hang, leak or trip a sanitizer.
// Whatever decodes must survive a lossless encode/decode round trip bit for bit.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "image_fuzz_common.h"

namespace codec = tc::io::codec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  fuzz::Buffers buffers;
  auto alloc = buffers.allocator();
  try {
    codec::DecodedImage img =
        codec::decode_png(data, size, tc::io::ImageReadMode::Unchanged, true, alloc);
    img = codec::apply_orientation(img, alloc);
    if (img.channels < 1 || img.channels > 4) __builtin_trap();
    if (img.nbytes() <= (size_t(1) << 20)) {
      auto bytes = codec::encode_png(
          codec::interleaved_rows(img.data, img.width, img.channels, img.bytes_per_sample),
          img.height, img.width, img.channels, img.bytes_per_sample, 1);
      codec::DecodedImage again = codec::decode_png(bytes.data(), bytes.size(),
                                                    tc::io::ImageReadMode::Unchanged, false, alloc);
      if (again.nbytes() != img.nbytes() || std::memcmp(again.data, img.data, img.nbytes()) != 0)
        __builtin_trap();
    }
  } catch (const tc::DecodeError&) {
  }
  try {
    codec::DecodedImage img = codec::decode_png(data, size, fuzz::second_mode(size), false, alloc);
    if (img.channels != int(fuzz::second_mode(size))) __builtin_trap();
  } catch (const tc::DecodeError&) {
  }
  return 0;
}
