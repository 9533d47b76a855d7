// JPEG over libjpeg-turbo's libjpeg API. libjpeg reports errors through error_exit, which by
// default calls exit(); ours longjmps back to the caller, which turns the message into a
// DecodeError. The functions holding a setjmp keep only trivially destructible locals, so the
// longjmp never skips a C++ destructor.
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <jerror.h>
#include <jpeglib.h>

#include "io/image/codec.h"

namespace tc::io::codec {

namespace {

// A progressive file can hold thousands of tiny scans, each a full pass over the coefficient
// buffer: a few bytes of input would cost minutes. libjpeg-turbo's own tools cap scans at 500.
constexpr int kMaxScans = 500;

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  if (cinfo->err->msg_code == JERR_NO_BACKING_STORE) {
    std::snprintf(err->message, sizeof err->message,
                  "the header's image size needs far more working memory than a file of this "
                  "size can fill (forged or corrupt header)");
    std::longjmp(err->jump, 1);
  }
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings are ignored (libjpeg recovers from them) except running out of data: libjpeg would
// pad a truncated file with gray and report success.
void on_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) on_error(cinfo);
}

void silent(j_common_ptr) {}

void check_scan_count(j_common_ptr cinfo) {
  if (cinfo->is_decompressor &&
      reinterpret_cast<j_decompress_ptr>(cinfo)->input_scan_number > kMaxScans) {
    auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
    std::snprintf(err->message, sizeof err->message, "more than %d scans (corrupt or hostile file)",
                  kMaxScans);
    std::longjmp(err->jump, 1);
  }
}

void install(ErrorManager& err) {
  jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = on_message;
  err.pub.output_message = silent;
  err.message[0] = 0;
}

// PIL's CMYK -> RGB. libjpeg returns Adobe-inverted CMYK (what Photoshop and libjpeg itself
// write), which PIL undoes ("CMYK;I") before r = (255 - k) - (255 - k) * c / 255.
inline uint8_t cmyk_channel(uint8_t raw_c, uint8_t raw_k) {
  int c = 255 - raw_c, nk = raw_k;
  int t = c * nk + 128;
  return uint8_t(nk - (((t >> 8) + t) >> 8));
}
// PIL's ITU-R 601-2 luma ("L" from "RGB"), fixed point.
inline uint8_t pil_luma(int r, int g, int b) {
  return uint8_t((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
}

// `keep_cmyk`: the 4 samples in PIL's convention (its "CMYK" mode: libjpeg's Adobe-inverted
// samples un-inverted), as ImageReadMode::Unchanged returns them.
void convert_cmyk_row(const uint8_t* in, uint8_t* out, int width, int channels, bool keep_cmyk) {
  if (keep_cmyk) {
    for (int i = 0; i < width * 4; ++i) out[i] = uint8_t(255 - in[i]);
    return;
  }
  for (int x = 0; x < width; ++x, in += 4, out += channels) {
    uint8_t r = cmyk_channel(in[0], in[3]), g = cmyk_channel(in[1], in[3]),
            b = cmyk_channel(in[2], in[3]);
    if (channels <= 2) {
      out[0] = pil_luma(r, g, b);
      if (channels == 2) out[1] = 255;
    } else {
      out[0] = r, out[1] = g, out[2] = b;
      if (channels == 4) out[3] = 255;
    }
  }
}

struct DecodeJob {
  const uint8_t* data;
  size_t size;
  ImageReadMode mode;
  bool read_exif;
  const Allocator* alloc;
  DecodedImage out;
  std::exception_ptr alloc_error;
  // Scratch owned here, outside the setjmp frame.
  uint8_t* cmyk_row = nullptr;
  ErrorManager err;
};

uint8_t* try_alloc(DecodeJob& job, size_t n) {
  try {
    return (*job.alloc)(n);
  } catch (...) {
    job.alloc_error = std::current_exception();
    return nullptr;
  }
}

// Returns false with job.err.message (or job.alloc_error) set on failure.
bool run_decode(DecodeJob& job) {
  jpeg_decompress_struct cinfo;
  jpeg_progress_mgr progress;
  install(job.err);
  cinfo.err = &job.err.pub;
  if (setjmp(job.err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  // Progressive and multi-scan files keep the whole image's DCT coefficients in memory (zeroed
  // up front), sized by the header alone: a 300-byte file claiming 65500 x 65500 would clear
  // 25 GB. Real files hold at least ~0.05 bit per pixel against 2 bytes per coefficient, so a
  // working set beyond 1024x the input (and 512 MB) can only come from a forged header; past
  // it libjpeg needs a backing store, which Debian's build lacks, and stops with an error.
  cinfo.mem->max_memory_to_use = long(std::max<size_t>(size_t(512) << 20, job.size * 1024));
  progress.progress_monitor = check_scan_count;
  cinfo.progress = &progress;
  jpeg_mem_src(&cinfo, job.data, static_cast<unsigned long>(job.size));
  if (job.read_exif) jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
  if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) {
    std::snprintf(job.err.message, sizeof job.err.message, "the stream holds tables but no image");
    std::longjmp(job.err.jump, 1);
  }
  if (job.read_exif) {
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next) {
      if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 &&
          std::memcmp(m->data, "Exif\0\0", 6) == 0) {
        job.out.exif_orientation = exif_orientation(m->data, m->data_length);
        break;
      }
    }
  }

  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  const bool gray_source = cinfo.jpeg_color_space == JCS_GRAYSCALE;
  int channels = 0;
  switch (job.mode) {
    case ImageReadMode::Unchanged:
      channels = gray_source ? 1 : cmyk ? 4 : 3;
      break;
    case ImageReadMode::Gray:
      channels = 1;
      break;
    case ImageReadMode::GrayAlpha:
      channels = 2;
      break;
    case ImageReadMode::RGB:
      channels = 3;
      break;
    case ImageReadMode::RGBAlpha:
      channels = 4;
      break;
  }
  if (cmyk) {
    cinfo.out_color_space = JCS_CMYK;
  } else if (cinfo.num_components != 1 && cinfo.num_components != 3) {
    std::snprintf(job.err.message, sizeof job.err.message,
                  "unsupported color space (%d components)", cinfo.num_components);
    std::longjmp(job.err.jump, 1);
  } else if (channels <= 2) {
    cinfo.out_color_space = JCS_GRAYSCALE;  // GrayAlpha: decode gray, then widen in place
  } else {
    cinfo.out_color_space = channels == 4 ? JCS_EXT_RGBA : JCS_RGB;
  }
  jpeg_start_decompress(&cinfo);

  const int width = int(cinfo.output_width), height = int(cinfo.output_height);
  job.out.width = width;
  job.out.height = height;
  job.out.channels = channels;
  job.out.data = try_alloc(job, job.out.nbytes());
  if (!job.out.data) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  const size_t row_bytes = size_t(width) * size_t(channels);
  if (cmyk) {
    job.cmyk_row = static_cast<uint8_t*>(std::malloc(size_t(width) * 4));
    if (!job.cmyk_row) {
      std::snprintf(job.err.message, sizeof job.err.message, "out of memory");
      std::longjmp(job.err.jump, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
      uint8_t* dst = job.out.data + size_t(cinfo.output_scanline) * row_bytes;
      JSAMPROW row = job.cmyk_row;
      jpeg_read_scanlines(&cinfo, &row, 1);
      convert_cmyk_row(job.cmyk_row, dst, width, channels, job.mode == ImageReadMode::Unchanged);
    }
  } else {
    // Gray rows for GrayAlpha land packed at the front and are widened afterwards.
    const size_t decoded_row = channels == 2 ? size_t(width) : row_bytes;
    JSAMPROW rows[16];
    while (cinfo.output_scanline < cinfo.output_height) {
      int n = std::min<int>(16, int(cinfo.output_height - cinfo.output_scanline));
      for (int i = 0; i < n; ++i)
        rows[i] = job.out.data + size_t(cinfo.output_scanline + i) * decoded_row;
      jpeg_read_scanlines(&cinfo, rows, JDIMENSION(n));
    }
    if (channels == 2) {
      uint8_t* p = job.out.data;
      for (size_t i = size_t(width) * size_t(height); i-- > 0;) {
        p[2 * i + 1] = 255;
        p[2 * i] = p[i];
      }
    }
  }
  // Damage after the last scan (an unknown marker, a missing EOI) shows only here; djpeg, PIL
  // and torchvision reject such files, so the decoder is finished and its verdict kept.
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

struct EncodeJob {
  const RowSource* rows;
  int height, width, channels, quality;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  ErrorManager err;
};

bool run_encode(EncodeJob& job) {
  jpeg_compress_struct cinfo;
  install(job.err);
  cinfo.err = &job.err.pub;
  if (setjmp(job.err.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &job.buffer, &job.size);
  cinfo.image_width = JDIMENSION(job.width);
  cinfo.image_height = JDIMENSION(job.height);
  cinfo.input_components = job.channels;
  cinfo.in_color_space = job.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, job.quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    // The row source must not throw here (a longjmp frame): the tensor layer's cannot.
    JSAMPROW row = const_cast<uint8_t*>((*job.rows)(int(cinfo.next_scanline)));
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

ImageFormat detect_format(const uint8_t* data, size_t size) {
  static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return ImageFormat::JPEG;
  if (size >= 8 && std::memcmp(data, png_sig, 8) == 0) return ImageFormat::PNG;
  return ImageFormat::Unknown;
}

DecodedImage decode_jpeg(const uint8_t* data, size_t size, ImageReadMode mode, bool read_exif,
                         const Allocator& alloc) {
  if (size == 0) throw DecodeError("decode_jpeg: the input is empty (0 bytes)");
  if (size < 3 || data[0] != 0xFF || data[1] != 0xD8)
    throw DecodeError("decode_jpeg: not a JPEG file (it does not start with the SOI marker FF D8)");
  DecodeJob job;
  job.data = data;
  job.size = size;
  job.mode = mode;
  job.read_exif = read_exif;
  job.alloc = &alloc;
  bool ok = run_decode(job);
  std::free(job.cmyk_row);
  if (job.alloc_error) std::rethrow_exception(job.alloc_error);
  if (!ok)
    throw DecodeError(
        detail::concat("decode_jpeg: corrupt or unsupported JPEG: ", job.err.message));
  return job.out;
}

RowSource interleaved_rows(const uint8_t* image, int width, int channels, int bytes_per_sample) {
  const size_t row_bytes = size_t(width) * size_t(channels) * size_t(bytes_per_sample);
  return [image, row_bytes](int y) { return image + size_t(y) * row_bytes; };
}

std::vector<uint8_t> encode_jpeg(const RowSource& rows, int height, int width, int channels,
                                 int quality) {
  TC_CHECK(channels == 1 || channels == 3,
           "encode_jpeg: expected an image with 1 or 3 channels, got ", channels);
  TC_CHECK(quality >= 1 && quality <= 100, "encode_jpeg: quality must be in [1, 100], got ",
           quality);
  TC_CHECK(height > 0 && width > 0, "encode_jpeg: expected a non-empty image, got ", height, "x",
           width);
  EncodeJob job;
  job.rows = &rows;
  job.height = height;
  job.width = width;
  job.channels = channels;
  job.quality = quality;
  bool ok = run_encode(job);
  std::vector<uint8_t> out;
  if (ok) out.assign(job.buffer, job.buffer + job.size);
  std::free(job.buffer);
  if (!ok) throw Error(detail::concat("encode_jpeg: ", job.err.message));
  return out;
}

}  // namespace tc::io::codec
