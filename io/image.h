#pragma once
// Native image IO (torchvision.io's image half): JPEG through libjpeg-turbo, PNG through libpng.
// Decoders return C x H x W tensors (uint8; uint16 for 16-bit PNG). Like torchvision, the
// result is a channels-first view of the interleaved H x W x C buffer the codecs write (strides
// {1, W*C, C}): no transpose pass; call tc::contiguous() when planar memory is needed.
// Corrupt, truncated, empty or non-image input throws tc::DecodeError naming the problem.
#include <string>

#include "io/image/codec.h"
#include "tensorcore/core/tensor.h"

namespace tc::io {

// Whole file as a 1-D uint8 tensor, and back.
Tensor read_file(const std::string& path);
void write_file(const std::string& path, const Tensor& data);

// `data`: 1-D uint8 tensor of encoded bytes. apply_exif_orientation rotates/flips the pixels
// by the EXIF orientation tag (JPEG APP1, PNG eXIf), as PIL's ImageOps.exif_transpose does.
Tensor decode_jpeg(const Tensor& data, ImageReadMode mode = ImageReadMode::Unchanged,
                   bool apply_exif_orientation = false);
Tensor decode_png(const Tensor& data, ImageReadMode mode = ImageReadMode::Unchanged,
                  bool apply_exif_orientation = false);
// Picks the decoder from the magic bytes, not from any file name.
Tensor decode_image(const Tensor& data, ImageReadMode mode = ImageReadMode::Unchanged,
                    bool apply_exif_orientation = false);
Tensor read_image(const std::string& path, ImageReadMode mode = ImageReadMode::Unchanged,
                  bool apply_exif_orientation = false);

// Batched: decodes every element on `num_threads` threads (0: tc::get_num_threads()). A failure
// throws the error of the first bad element, prefixed with its index.
TensorList decode_jpeg(const TensorList& data, ImageReadMode mode = ImageReadMode::Unchanged,
                       bool apply_exif_orientation = false, int num_threads = 0);
TensorList decode_image(const TensorList& data, ImageReadMode mode = ImageReadMode::Unchanged,
                        bool apply_exif_orientation = false, int num_threads = 0);

// `image`: C x H x W, any strides. JPEG: uint8, C in {1, 3}; PNG: uint8 or uint16, C in 1..4.
Tensor encode_jpeg(const Tensor& image, int quality = 75);
Tensor encode_png(const Tensor& image, int compression_level = 6);
void write_jpeg(const Tensor& image, const std::string& path, int quality = 75);
void write_png(const Tensor& image, const std::string& path, int compression_level = 6);

}  // namespace tc::io
