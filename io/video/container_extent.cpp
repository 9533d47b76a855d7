#include "io/video/container_extent.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace tc::io::detail {

namespace {

// Random access to the first bytes of a file or of in-memory input.
class ByteSource {
 public:
  explicit ByteSource(const MediaSource& source) {
    if (source.is_memory()) {
      bytes_ = source.bytes().get();
      size_ = int64_t(bytes_->size());
      return;
    }
    std::error_code ec;
    const std::filesystem::path path(source.path());
    if (!std::filesystem::is_regular_file(path, ec) || ec) return;  // pipes, devices: unknown
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return;
    file_.open(path, std::ios::binary);
    if (file_) size_ = int64_t(size);
  }

  int64_t size() const { return size_; }

  // Reads n bytes at pos; false when fewer are available.
  bool read(int64_t pos, uint8_t* out, size_t n) {
    if (pos < 0 || size_ < 0 || pos + int64_t(n) > size_) return false;
    if (bytes_) {
      std::memcpy(out, bytes_->data() + pos, n);
      return true;
    }
    file_.clear();
    file_.seekg(pos);
    file_.read(reinterpret_cast<char*>(out), std::streamsize(n));
    return file_.gcount() == std::streamsize(n);
  }

 private:
  const std::string* bytes_ = nullptr;
  std::ifstream file_;
  int64_t size_ = -1;
};

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
uint32_t le32(const uint8_t* p) {
  return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | p[0];
}

// Top-level elements are walked up to this many: a larger count means a damaged or hostile
// header, which FFmpeg reports better.
constexpr int kMaxElements = 1 << 20;

// ISO BMFF: top-level boxes (size, type[, 64-bit size]) chained to the end of the file.
std::optional<int64_t> iso_bmff_end(ByteSource& in) {
  int64_t pos = 0;
  for (int i = 0; i < kMaxElements && pos < in.size(); ++i) {
    uint8_t head[16];
    if (!in.read(pos, head, 8)) return pos + 8;  // a box header cut in two
    int64_t size = be32(head);
    if (size == 0) return in.size();  // the last box runs to the end of the file
    if (size == 1) {
      if (!in.read(pos + 8, head + 8, 8)) return pos + 16;
      uint64_t large = 0;
      for (int b = 8; b < 16; ++b) large = large << 8 | head[b];
      if (large > uint64_t(INT64_MAX / 2)) return std::nullopt;
      size = int64_t(large);
      if (size < 16) return std::nullopt;
    } else if (size < 8) {
      return std::nullopt;
    }
    pos += size;
  }
  return pos;
}

// RIFF (AVI, WAV): chunks "RIFF"/"LIST"/... of (id, little-endian size, data, pad to even).
std::optional<int64_t> riff_end(ByteSource& in) {
  int64_t pos = 0;
  for (int i = 0; i < kMaxElements && pos < in.size(); ++i) {
    uint8_t head[8];
    if (!in.read(pos, head, 8)) return pos + 8;
    const uint32_t size = le32(head + 4);
    // 0 (a writer that never finished) and 0xFFFFFFFF (RF64) declare no size.
    if (size == 0 || size == 0xFFFFFFFFu) return std::nullopt;
    pos += 8 + int64_t(size);
    // The pad byte after an odd-sized last chunk is often left out: do not count it there.
    if ((size & 1) && pos < in.size()) ++pos;
  }
  return pos;
}

// EBML variable-length integer at pos: its length in bytes and value (marker bit removed for
// sizes). nullopt when unreadable; value -1 for the reserved "unknown size".
struct VarInt {
  int length;
  int64_t value;
};
std::optional<VarInt> ebml_varint(ByteSource& in, int64_t pos, bool strip_marker) {
  uint8_t first;
  if (!in.read(pos, &first, 1) || first == 0) return std::nullopt;
  int length = 1;
  while (!(first & (0x80 >> (length - 1)))) ++length;
  uint8_t rest[8];
  if (length > 1 && !in.read(pos + 1, rest, size_t(length - 1))) return std::nullopt;
  uint64_t value = strip_marker ? (first & (0xFF >> length)) : first;
  bool all_ones = value == uint64_t(0xFF >> length);
  for (int b = 0; b < length - 1; ++b) {
    value = value << 8 | rest[b];
    all_ones = all_ones && rest[b] == 0xFF;
  }
  if (strip_marker && all_ones) return VarInt{length, -1};
  if (value > uint64_t(INT64_MAX / 2)) return std::nullopt;
  return VarInt{length, int64_t(value)};
}

// Matroska/WebM: top-level EBML elements (the EBML header, then the Segment) of declared size.
std::optional<int64_t> ebml_end(ByteSource& in) {
  int64_t pos = 0;
  for (int i = 0; i < kMaxElements && pos < in.size(); ++i) {
    const auto id = ebml_varint(in, pos, false);
    if (!id) return std::nullopt;
    const auto size = ebml_varint(in, pos + id->length, true);
    if (!size) return pos + id->length + 1;    // the header ends with the input
    if (size->value < 0) return std::nullopt;  // unknown size: a live stream
    pos += id->length + size->length + size->value;
  }
  return pos;
}

bool is_iso_bmff_box(const uint8_t* type) {
  static const char* const kTopLevel[] = {"ftyp", "moov", "mdat", "free", "skip",
                                          "wide", "pnot", "styp", "sidx", "moof"};
  for (const char* t : kTopLevel)
    if (std::memcmp(type, t, 4) == 0) return true;
  return false;
}

}  // namespace

std::optional<ContainerExtent> container_extent(const MediaSource& source) {
  ByteSource in(source);
  uint8_t head[12];
  if (in.size() < 12 || !in.read(0, head, 12)) return std::nullopt;
  ContainerExtent out;
  out.actual = in.size();
  std::optional<int64_t> end;
  if (std::memcmp(head, "\x1A\x45\xDF\xA3", 4) == 0) {
    end = ebml_end(in);
    out.format = "Matroska/WebM";
  } else if (std::memcmp(head, "RIFF", 4) == 0) {
    end = riff_end(in);
    out.format = "RIFF";
  } else if (is_iso_bmff_box(head + 4)) {
    end = iso_bmff_end(in);
    out.format = "MP4/MOV";
  }
  if (!end) return std::nullopt;
  out.declared = *end;
  return out;
}

}  // namespace tc::io::detail
