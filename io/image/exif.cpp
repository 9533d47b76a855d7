// EXIF orientation: read tag 0x0112 from IFD0 and apply it as a flip/rotation of the pixels.
#include <cstring>

#include "io/image/codec.h"

namespace tc::io::codec {

namespace {

struct TiffReader {
  const uint8_t* p;
  size_t n;
  bool little;
  bool has(size_t off, size_t len) const { return off <= n && len <= n - off; }
  uint32_t u16(size_t off) const {
    return little ? uint32_t(p[off]) | uint32_t(p[off + 1]) << 8
                  : uint32_t(p[off]) << 8 | uint32_t(p[off + 1]);
  }
  uint32_t u32(size_t off) const {
    return little ? u16(off) | u16(off + 2) << 16 : u16(off) << 16 | u16(off + 2);
  }
};

}  // namespace

int exif_orientation(const uint8_t* data, size_t size) {
  if (data == nullptr) return 1;
  if (size >= 6 && std::memcmp(data, "Exif\0\0", 6) == 0) {
    data += 6;
    size -= 6;
  }
  if (size < 8) return 1;
  TiffReader r{data, size, false};
  if (std::memcmp(data, "II*\0", 4) == 0) {
    r.little = true;
  } else if (std::memcmp(data, "MM\0*", 4) != 0) {
    return 1;
  }
  size_t ifd = r.u32(4);
  if (!r.has(ifd, 2)) return 1;
  size_t entries = r.u16(ifd);
  for (size_t i = 0; i < entries; ++i) {
    size_t e = ifd + 2 + 12 * i;
    if (!r.has(e, 12)) return 1;
    if (r.u16(e) != 0x0112) continue;
    uint32_t type = r.u16(e + 2);
    uint32_t value = type == 3 ? r.u16(e + 8) : type == 4 ? r.u32(e + 8) : 0;
    return value >= 1 && value <= 8 ? int(value) : 1;
  }
  return 1;
}

DecodedImage apply_orientation(const DecodedImage& img, const Allocator& alloc) {
  int o = img.exif_orientation;
  if (o <= 1 || o > 8) return img;
  const int64_t h = img.height, w = img.width;
  // Output pixel (y, x) reads input pixel off0 + y * step_y + x * step_x (row-major, in pixels).
  int64_t off0 = 0, step_y = 0, step_x = 0;
  switch (o) {
    case 2:
      off0 = w - 1;
      step_y = w;
      step_x = -1;
      break;  // mirror
    case 3:
      off0 = (h - 1) * w + w - 1;
      step_y = -w;
      step_x = -1;
      break;  // rotate 180
    case 4:
      off0 = (h - 1) * w;
      step_y = -w;
      step_x = 1;
      break;  // flip
    case 5:
      off0 = 0;
      step_y = 1;
      step_x = w;
      break;  // transpose
    case 6:
      off0 = (h - 1) * w;
      step_y = 1;
      step_x = -w;
      break;  // rotate 90 cw
    case 7:
      off0 = (h - 1) * w + w - 1;
      step_y = -1;
      step_x = -w;
      break;  // transverse
    case 8:
      off0 = w - 1;
      step_y = -1;
      step_x = w;
      break;  // rotate 90 ccw
  }
  DecodedImage out = img;
  out.exif_orientation = 1;
  if (o >= 5) std::swap(out.height, out.width);
  out.data = alloc(out.nbytes());
  const size_t px = size_t(img.channels) * size_t(img.bytes_per_sample);
  for (int64_t y = 0; y < out.height; ++y) {
    uint8_t* dst = out.data + size_t(y) * size_t(out.width) * px;
    int64_t src = off0 + y * step_y;
    for (int64_t x = 0; x < out.width; ++x, src += step_x, dst += px)
      std::memcpy(dst, img.data + size_t(src) * px, px);
  }
  return out;
}

}  // namespace tc::io::codec
