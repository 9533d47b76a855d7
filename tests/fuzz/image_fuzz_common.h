#pragma once
// Shared by the image decoder fuzz targets: an allocator with a memory cap (a header may claim
// 65535 x 65535 pixels; refusing it is the right answer, not an out-of-memory report) and the
// read-mode pick.
#include <memory>
#include <vector>

#include "io/image/codec.h"

namespace fuzz {

constexpr size_t kMaxImageBytes = size_t(64) << 20;

struct Buffers {
  std::vector<std::unique_ptr<uint8_t[]>> blocks;
  tc::io::codec::Allocator allocator() {
    return [this](size_t n) {
      if (n > kMaxImageBytes) throw tc::DecodeError("fuzz: image larger than the 64 MiB cap");
      blocks.emplace_back(new uint8_t[n ? n : 1]);
      return blocks.back().get();
    };
  }
};

// Every input is decoded unchanged with EXIF applied, and once more in a mode picked from its
// size, so all five modes and both EXIF settings get coverage.
inline tc::io::ImageReadMode second_mode(size_t size) {
  return static_cast<tc::io::ImageReadMode>(1 + size % 4);
}

}  // namespace fuzz
