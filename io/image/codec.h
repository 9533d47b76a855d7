#pragma once
// The codec layer under tc::io: decoders and encoders over raw byte buffers, with no Tensor
// dependency, so the fuzz targets can compile it alone. Decoded images are H x W x C
// (interleaved), which is what libjpeg/libpng write; the Tensor layer exposes them as C x H x W
// views without a copy.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensorcore/core/error.h"

namespace tc::io {

// Same values as torchvision.io.ImageReadMode.
enum class ImageReadMode : int { Unchanged = 0, Gray = 1, GrayAlpha = 2, RGB = 3, RGBAlpha = 4 };

}  // namespace tc::io

namespace tc::io::codec {

// Returns writable memory for `nbytes` (it may throw, e.g. to cap memory in the fuzzers).
using Allocator = std::function<uint8_t*(size_t nbytes)>;

struct DecodedImage {
  uint8_t* data = nullptr;  // H x W x C samples from the allocator
  int height = 0, width = 0, channels = 0;
  int bytes_per_sample = 1;  // 2 for 16-bit PNG (native-endian uint16)
  int exif_orientation = 1;  // 1..8, read when asked for, else 1
  size_t nbytes() const {
    return size_t(height) * size_t(width) * size_t(channels) * size_t(bytes_per_sample);
  }
};

enum class ImageFormat { Unknown, JPEG, PNG };
ImageFormat detect_format(const uint8_t* data, size_t size);

// `read_exif`: fill exif_orientation from the APP1 (JPEG) / eXIf (PNG) block.
DecodedImage decode_jpeg(const uint8_t* data, size_t size, ImageReadMode mode, bool read_exif,
                         const Allocator& alloc);
DecodedImage decode_png(const uint8_t* data, size_t size, ImageReadMode mode, bool read_exif,
                        const Allocator& alloc);

// Encoders pull the image one H x W x C interleaved row at a time (row y's samples, valid
// until the next call), so a planar tensor is interleaved row by row in cache instead of into a
// whole-image copy. JPEG: C in {1, 3}, quality 1..100. PNG: C in 1..4, bytes_per_sample 1 or 2,
// compression_level 0..9.
using RowSource = std::function<const uint8_t*(int y)>;
std::vector<uint8_t> encode_jpeg(const RowSource& rows, int height, int width, int channels,
                                 int quality);
std::vector<uint8_t> encode_png(const RowSource& rows, int height, int width, int channels,
                                int bytes_per_sample, int compression_level);
// The same from a contiguous H x W x C buffer.
RowSource interleaved_rows(const uint8_t* image, int width, int channels, int bytes_per_sample);

// EXIF: the orientation tag (0x0112) of a TIFF-structured block ("II*\0"/"MM\0*" header, with
// or without the "Exif\0\0" prefix); 1 when absent or malformed.
int exif_orientation(const uint8_t* data, size_t size);
// Rotates/flips `img` so it displays upright; returns a new image from `alloc` (or `img`
// itself for orientation 1 or an invalid value).
DecodedImage apply_orientation(const DecodedImage& img, const Allocator& alloc);

}  // namespace tc::io::codec
