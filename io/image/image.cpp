// Tensor layer over the codecs: byte tensors in, C x H x W views out, files, batching.
#include "io/image.h"

#include <omp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"

namespace tc::io {

namespace {

using codec::DecodedImage;

// The bytes of a 1-D uint8 CPU tensor, made contiguous if needed (kept alive in `holder`).
const uint8_t* byte_view(const Tensor& data, const char* op, Tensor& holder) {
  TC_CHECK(data.defined(), op, ": expected a 1-D uint8 tensor of encoded bytes, got None");
  TC_CHECK_TYPE(data.dtype() == DType::UInt8, op,
                ": expected a uint8 tensor of encoded bytes, got dtype ", dtype_name(data.dtype()));
  TC_CHECK(data.dim() == 1, op, ": expected a 1-D tensor of encoded bytes, got shape ",
           shape_str(data.sizes()));
  TC_CHECK(data.is_cpu(), op, ": expected a CPU tensor of encoded bytes");
  holder = data.is_contiguous() ? data : contiguous(data);
  return static_cast<const uint8_t*>(holder.data_ptr());
}

using DecodeFn = DecodedImage (*)(const uint8_t*, size_t, ImageReadMode, bool,
                                  const codec::Allocator&);

Tensor decode_with(DecodeFn fn, const Tensor& data, ImageReadMode mode, bool exif, const char* op) {
  Tensor holder;
  const uint8_t* bytes = byte_view(data, op, holder);
  Storage storage;
  codec::Allocator alloc = [&storage](size_t n) {
    storage = make_storage(n, Device());
    return static_cast<uint8_t*>(storage->data());
  };
  DecodedImage img = fn(bytes, size_t(data.numel()), mode, exif, alloc);
  if (exif && img.exif_orientation > 1) {
    Storage decoded = storage;  // alloc() replaces `storage`; keep the source alive meanwhile
    img = codec::apply_orientation(img, alloc);
  }
  const int64_t c = img.channels, h = img.height, w = img.width;
  return make_tensor(std::move(storage), {c, h, w}, {1, w * c, c}, 0,
                     img.bytes_per_sample == 2 ? DType::UInt16 : DType::UInt8);
}

DecodedImage decode_any(const uint8_t* data, size_t size, ImageReadMode mode, bool exif,
                        const codec::Allocator& alloc) {
  switch (codec::detect_format(data, size)) {
    case codec::ImageFormat::JPEG:
      return codec::decode_jpeg(data, size, mode, exif, alloc);
    case codec::ImageFormat::PNG:
      return codec::decode_png(data, size, mode, exif, alloc);
    default:
      break;
  }
  if (size == 0) throw DecodeError("decode_image: the input is empty (0 bytes)");
  char head[40];
  int n = 0;
  for (size_t i = 0; i < std::min<size_t>(size, 8); ++i)
    n += std::snprintf(head + n, sizeof head - size_t(n), "%s%02X", i ? " " : "", data[i]);
  throw DecodeError(std::string("decode_image: unsupported image format (expected JPEG or PNG "
                                "magic bytes, the data starts with ") +
                    head + ")");
}

TensorList decode_batch(DecodeFn fn, const TensorList& data, ImageReadMode mode, bool exif,
                        int num_threads, const char* op) {
  const int64_t n = int64_t(data.size());
  TensorList out(data.size());
  std::exception_ptr first_error;
  int64_t first_index = n;
  int threads = num_threads > 0 ? num_threads : get_num_threads();
  threads = int(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  // Dynamic scheduling: images differ in size, so hand them out one at a time.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) {
    try {
      out[size_t(i)] = decode_with(fn, data[size_t(i)], mode, exif, op);
    } catch (...) {
#pragma omp critical(tc_io_decode_batch)
      if (i < first_index) {
        first_index = i;
        first_error = std::current_exception();
      }
    }
  }
  if (first_error) {
    try {
      std::rethrow_exception(first_error);
    } catch (const DecodeError& e) {
      throw DecodeError(detail::concat(op, ": image ", first_index, " of ", n, ": ", e.what()));
    } catch (const TypeError& e) {
      throw TypeError(detail::concat(op, ": image ", first_index, " of ", n, ": ", e.what()));
    } catch (const ValueError& e) {
      throw ValueError(detail::concat(op, ": image ", first_index, " of ", n, ": ", e.what()));
    }
  }
  return out;
}

template <typename T>
void gather_row(const T* src, const Shape& st, int64_t c, int64_t w, T* dst) {
  for (int64_t k = 0; k < c; ++k) {
    const T* s = src + k * st[0];
    for (int64_t x = 0; x < w; ++x) dst[x * c + k] = s[x * st[2]];
  }
}

// Rows of a C x H x W tensor (any strides) as interleaved samples: pointers into the tensor
// when it is already H x W x C in memory, else each row is gathered into `row_buffer`.
codec::RowSource interleaved_rows(const Tensor& image, std::vector<uint8_t>& row_buffer) {
  const int64_t c = image.size(0), w = image.size(2);
  const Shape st = image.strides();
  const auto* base = static_cast<const uint8_t*>(image.data_ptr());
  const size_t item = image.itemsize();
  if (st[0] == 1 && st[2] == c && st[1] == w * c)
    return codec::interleaved_rows(base, int(w), int(c), int(item));
  row_buffer.resize(size_t(c * w) * item);
  return [=, &row_buffer](int y) -> const uint8_t* {
    if (item == 2) {
      gather_row(reinterpret_cast<const uint16_t*>(base) + y * st[1], st, c, w,
                 reinterpret_cast<uint16_t*>(row_buffer.data()));
    } else {
      gather_row(base + y * st[1], st, c, w, row_buffer.data());
    }
    return row_buffer.data();
  };
}

void check_image(const Tensor& image, const char* op, bool allow_uint16) {
  TC_CHECK(image.defined(), op, ": expected a C x H x W image tensor, got None");
  TC_CHECK_TYPE(image.dtype() == DType::UInt8 || (allow_uint16 && image.dtype() == DType::UInt16),
                op, ": expected a ", allow_uint16 ? "uint8 or uint16" : "uint8",
                " image tensor, got dtype ", dtype_name(image.dtype()));
  TC_CHECK(image.dim() == 3, op, ": expected a C x H x W image tensor, got shape ",
           shape_str(image.sizes()));
  TC_CHECK(image.is_cpu(), op, ": expected a CPU image tensor");
}

Tensor bytes_tensor(const std::vector<uint8_t>& bytes) {
  Storage s = make_storage(bytes.size(), Device());
  if (!bytes.empty()) std::memcpy(s->data(), bytes.data(), bytes.size());
  return make_tensor(std::move(s), {int64_t(bytes.size())}, {1}, 0, DType::UInt8);
}

}  // namespace

Tensor read_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f)
    throw Error(detail::concat("read_file: cannot open '", path, "': ", std::strerror(errno)));
  if (std::fseek(f.get(), 0, SEEK_END) != 0)
    throw Error(detail::concat("read_file: cannot seek in '", path, "'"));
  long size = std::ftell(f.get());
  if (size < 0) throw Error(detail::concat("read_file: '", path, "' is not a regular file"));
  std::rewind(f.get());
  Storage s = make_storage(size_t(size), Device());
  if (size > 0 && std::fread(s->data(), 1, size_t(size), f.get()) != size_t(size))
    throw Error(detail::concat("read_file: short read from '", path, "'"));
  return make_tensor(std::move(s), {int64_t(size)}, {1}, 0, DType::UInt8);
}

void write_file(const std::string& path, const Tensor& data) {
  Tensor holder;
  const uint8_t* bytes = byte_view(data, "write_file", holder);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!f)
    throw Error(detail::concat("write_file: cannot open '", path, "': ", std::strerror(errno)));
  size_t n = size_t(data.numel());
  if (n > 0 && std::fwrite(bytes, 1, n, f.get()) != n)
    throw Error(detail::concat("write_file: short write to '", path, "'"));
  if (std::fclose(f.release()) != 0)
    throw Error(detail::concat("write_file: cannot finish writing '", path, "'"));
}

Tensor decode_jpeg(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation) {
  return decode_with(codec::decode_jpeg, data, mode, apply_exif_orientation, "decode_jpeg");
}
Tensor decode_png(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation) {
  return decode_with(codec::decode_png, data, mode, apply_exif_orientation, "decode_png");
}
Tensor decode_image(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation) {
  return decode_with(decode_any, data, mode, apply_exif_orientation, "decode_image");
}
Tensor read_image(const std::string& path, ImageReadMode mode, bool apply_exif_orientation) {
  return decode_image(read_file(path), mode, apply_exif_orientation);
}

TensorList decode_jpeg(const TensorList& data, ImageReadMode mode, bool apply_exif_orientation,
                       int num_threads) {
  return decode_batch(codec::decode_jpeg, data, mode, apply_exif_orientation, num_threads,
                      "decode_jpeg");
}
TensorList decode_image(const TensorList& data, ImageReadMode mode, bool apply_exif_orientation,
                        int num_threads) {
  return decode_batch(decode_any, data, mode, apply_exif_orientation, num_threads, "decode_image");
}

Tensor encode_jpeg(const Tensor& image, int quality) {
  check_image(image, "encode_jpeg", false);
  std::vector<uint8_t> row_buffer;
  return bytes_tensor(codec::encode_jpeg(interleaved_rows(image, row_buffer), int(image.size(1)),
                                         int(image.size(2)), int(image.size(0)), quality));
}

Tensor encode_png(const Tensor& image, int compression_level) {
  check_image(image, "encode_png", true);
  std::vector<uint8_t> row_buffer;
  return bytes_tensor(codec::encode_png(interleaved_rows(image, row_buffer), int(image.size(1)),
                                        int(image.size(2)), int(image.size(0)),
                                        int(image.itemsize()), compression_level));
}

void write_jpeg(const Tensor& image, const std::string& path, int quality) {
  write_file(path, encode_jpeg(image, quality));
}
void write_png(const Tensor& image, const std::string& path, int compression_level) {
  write_file(path, encode_png(image, compression_level));
}

}  // namespace tc::io
