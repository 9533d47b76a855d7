// PNG over libpng. As for JPEG, libpng's errors longjmp back into the function that owns the
// png structs, which destroys them and reports the message as a DecodeError.
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "io/image/codec.h"

namespace tc::io::codec {

namespace {

struct PngDecodeJob {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
  ImageReadMode mode;
  bool read_exif;
  const Allocator* alloc;
  DecodedImage out;
  std::exception_ptr alloc_error;
  png_bytep* rows = nullptr;
  char message[256] = {0};
};

void on_png_error(png_structp png, png_const_charp msg) {
  auto* message = static_cast<char*>(png_get_error_ptr(png));
  if (message) std::snprintf(message, 256, "%s", msg);
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep dst, png_size_t n) {
  auto* job = static_cast<PngDecodeJob*>(png_get_io_ptr(png));
  if (n > job->size - job->pos) png_error(png, "truncated file (ran out of data)");
  std::memcpy(dst, job->data + job->pos, n);
  job->pos += n;
}

bool run_decode(PngDecodeJob& job) {
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, job.message, on_png_error, on_png_warning);
  if (!png) {
    std::snprintf(job.message, sizeof job.message, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    if (!info) std::snprintf(job.message, sizeof job.message, "out of memory");
    return false;
  }
  png_set_read_fn(png, &job, read_bytes);
  // Ancillary chunks the pixels do not depend on are skipped unread (text, ICC profiles, ...):
  // faster, and a forged multi-GB chunk length cannot make libpng allocate it.
  static const png_byte ignored[] =
      "tEXt\0zTXt\0iTXt\0iCCP\0sPLT\0tIME\0pHYs\0bKGD\0hIST\0oFFs\0pCAL\0sCAL\0";
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, 0);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ignored, int(sizeof ignored / 5));
  png_set_chunk_malloc_max(png, png_alloc_size_t(16) << 20);
  png_read_info(png, info);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, nullptr, nullptr);
  const bool palette = color_type == PNG_COLOR_TYPE_PALETTE;
  const bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  const bool color = palette || (color_type & PNG_COLOR_MASK_COLOR) != 0;
  const bool alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || (palette && has_trns);

  // Palettes always expand (to RGBA when tRNS is present): indices alone are not an image.
  if (palette) {
    png_set_palette_to_rgb(png);
  } else if (bit_depth < 8) {
    png_set_expand_gray_1_2_4_to_8(png);
  }
  auto add_alpha = [&] {
    if (has_trns && !palette)
      png_set_tRNS_to_alpha(png);
    else
      png_set_add_alpha(png, 0xffff, PNG_FILLER_AFTER);
  };
  // Same luma weights as torchvision, so GRAY from color matches it exactly.
  auto to_gray = [&] { png_set_rgb_to_gray(png, 1, 0.2989, 0.587); };
  switch (job.mode) {
    case ImageReadMode::Unchanged:
      break;
    case ImageReadMode::Gray:
      if (alpha) png_set_strip_alpha(png);
      if (color) to_gray();
      break;
    case ImageReadMode::GrayAlpha:
      if (!alpha) add_alpha();
      if (color) to_gray();
      break;
    case ImageReadMode::RGB:
      if (!color) png_set_gray_to_rgb(png);
      if (alpha) png_set_strip_alpha(png);
      break;
    case ImageReadMode::RGBAlpha:
      if (!color) png_set_gray_to_rgb(png);
      if (!alpha) add_alpha();
      break;
  }
  if (bit_depth == 16) {
    const uint16_t probe = 1;
    if (*reinterpret_cast<const uint8_t*>(&probe) == 1) png_set_swap(png);
  }
  if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
  png_read_update_info(png, info);

  job.out.width = int(width);
  job.out.height = int(height);
  job.out.channels = png_get_channels(png, info);
  job.out.bytes_per_sample = png_get_bit_depth(png, info) == 16 ? 2 : 1;
  const size_t row_bytes =
      size_t(width) * size_t(job.out.channels) * size_t(job.out.bytes_per_sample);
  if (png_get_rowbytes(png, info) != row_bytes) png_error(png, "unexpected row layout");
  try {
    job.out.data = (*job.alloc)(job.out.nbytes());
  } catch (...) {
    job.alloc_error = std::current_exception();
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  job.rows = static_cast<png_bytep*>(std::malloc(sizeof(png_bytep) * height));
  if (!job.rows) png_error(png, "out of memory");
  for (png_uint_32 y = 0; y < height; ++y) job.rows[y] = job.out.data + size_t(y) * row_bytes;
  png_read_image(png, job.rows);
  // Reading up to IEND checks the last CRCs (a file cut after its pixel rows is an error too)
  // and picks up an eXIf chunk stored after the image data.
  png_read_end(png, info);
  if (job.read_exif) {
    png_uint_32 n = 0;
    png_bytep exif = nullptr;
    if (png_get_eXIf_1(png, info, &n, &exif) != 0)
      job.out.exif_orientation = exif_orientation(exif, n);
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

struct PngEncodeJob {
  const RowSource* rows;
  int height, width, channels, bytes_per_sample, level;
  std::vector<uint8_t> out;
  char message[256] = {0};
};

void write_bytes(png_structp png, png_bytep src, png_size_t n) {
  auto* job = static_cast<PngEncodeJob*>(png_get_io_ptr(png));
  try {
    job->out.insert(job->out.end(), src, src + n);
  } catch (...) {
    png_error(png, "out of memory");
  }
}
void flush_bytes(png_structp) {}

bool run_encode(PngEncodeJob& job) {
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, job.message, on_png_error, on_png_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    return false;
  }
  static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(png, &job, write_bytes, flush_bytes);
  png_set_IHDR(png, info, png_uint_32(job.width), png_uint_32(job.height), job.bytes_per_sample * 8,
               color_types[job.channels - 1], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, job.level);
  png_write_info(png, info);
  if (job.bytes_per_sample == 2) {
    const uint16_t probe = 1;
    if (*reinterpret_cast<const uint8_t*>(&probe) == 1) png_set_swap(png);
  }
  for (int y = 0; y < job.height; ++y) png_write_row(png, const_cast<png_bytep>((*job.rows)(y)));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

DecodedImage decode_png(const uint8_t* data, size_t size, ImageReadMode mode, bool read_exif,
                        const Allocator& alloc) {
  if (size == 0) throw DecodeError("decode_png: the input is empty (0 bytes)");
  if (size < 8 || png_sig_cmp(data, 0, 8) != 0)
    throw DecodeError("decode_png: not a PNG file (the 8-byte PNG signature is missing)");
  PngDecodeJob job{data, size, 0, mode, read_exif, &alloc, {}, nullptr};
  bool ok = run_decode(job);
  std::free(job.rows);
  if (job.alloc_error) std::rethrow_exception(job.alloc_error);
  if (!ok) throw DecodeError(std::string("decode_png: corrupt or unsupported PNG: ") + job.message);
  return job.out;
}

std::vector<uint8_t> encode_png(const RowSource& rows, int height, int width, int channels,
                                int bytes_per_sample, int compression_level) {
  TC_CHECK(channels >= 1 && channels <= 4,
           "encode_png: expected an image with 1 to 4 channels, got ", channels);
  TC_CHECK(bytes_per_sample == 1 || bytes_per_sample == 2,
           "encode_png: expected uint8 or uint16 samples");
  TC_CHECK(compression_level >= 0 && compression_level <= 9,
           "encode_png: compression_level must be in [0, 9], got ", compression_level);
  TC_CHECK(height > 0 && width > 0, "encode_png: expected a non-empty image, got ", height, "x",
           width);
  PngEncodeJob job{&rows, height, width, channels, bytes_per_sample, compression_level, {}};
  bool ok = run_encode(job);
  if (!ok) throw Error(std::string("encode_png: ") + job.message);
  return std::move(job.out);
}

}  // namespace tc::io::codec
