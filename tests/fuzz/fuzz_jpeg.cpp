// libFuzzer target for the JPEG decoder (libjpeg-turbo behind our error manager, CMYK
// conversion, EXIF parsing and orientation). Build and run: FUZZ_ONLY=jpeg tests/fuzz/run_all.sh.
// Any input must decode or throw DecodeError: never crash, abort, hang, leak or trip a sanitizer.
// Whatever decodes (but CMYK) is re-encoded and decoded again (the encoder must accept decoder
// output).
#include <cstddef>
#include <cstdint>

#include "image_fuzz_common.h"

namespace codec = tc::io::codec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  fuzz::Buffers buffers;
  auto alloc = buffers.allocator();
  try {
    codec::DecodedImage img =
        codec::decode_jpeg(data, size, tc::io::ImageReadMode::Unchanged, true, alloc);
    img = codec::apply_orientation(img, alloc);
    // Unchanged: gray 1, colour 3, CMYK/YCCK 4 (PIL's samples; the encoder takes 1 or 3).
    if (img.channels != 1 && img.channels != 3 && img.channels != 4) __builtin_trap();
    if (img.channels != 4 && img.nbytes() <= (size_t(1) << 20)) {
      auto bytes = codec::encode_jpeg(codec::interleaved_rows(img.data, img.width, img.channels, 1),
                                      img.height, img.width, img.channels, 90);
      codec::DecodedImage again = codec::decode_jpeg(
          bytes.data(), bytes.size(), tc::io::ImageReadMode::Unchanged, false, alloc);
      if (again.height != img.height || again.width != img.width) __builtin_trap();
    }
  } catch (const tc::DecodeError&) {
  }
  try {
    codec::DecodedImage img = codec::decode_jpeg(data, size, fuzz::second_mode(size), false, alloc);
    if (img.channels != int(fuzz::second_mode(size))) __builtin_trap();
  } catch (const tc::DecodeError&) {
  }
  return 0;
}
