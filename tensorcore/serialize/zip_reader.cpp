#include "tensorcore/serialize/zip_reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "tensorcore/serialize/common.h"

namespace tc::serialize::detail {

namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::size_t kEocdSize = 22;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZip64EocdSize = 56;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kMaxCommentSize = 0xFFFF;

[[noreturn]] void fail(const std::string& what) { throw FormatError("zip: " + what); }

uint64_t le(std::string_view s, std::size_t at, int nbytes) {
  uint64_t v = 0;
  for (int i = nbytes - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(s[at + std::size_t(i)]);
  }
  return v;
}
uint16_t le16(std::string_view s, std::size_t at) { return static_cast<uint16_t>(le(s, at, 2)); }
uint32_t le32(std::string_view s, std::size_t at) { return static_cast<uint32_t>(le(s, at, 4)); }
uint64_t le64(std::string_view s, std::size_t at) { return le(s, at, 8); }

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

std::string method_name(uint16_t method) {
  switch (method) {
    case 8:
      return "deflate";
    case 9:
      return "deflate64";
    case 12:
      return "bzip2";
    case 14:
      return "lzma";
    case 93:
      return "zstd";
    default:
      return "method " + std::to_string(method);
  }
}

// Values that overflowed the 32-bit fields live in the zip64 extra field (id 0x0001), in the
// fixed order: uncompressed size, compressed size, local header offset (only those present).
void apply_zip64_extra(std::string_view extra, ZipEntry& e) {
  const bool need_usize = e.uncompressed_size == 0xFFFFFFFFu;
  const bool need_csize = e.compressed_size == 0xFFFFFFFFu;
  const bool need_offset = e.local_header_offset == 0xFFFFFFFFu;
  if (!need_usize && !need_csize && !need_offset) return;
  std::size_t p = 0;
  while (extra.size() - p >= 4) {
    const uint16_t id = le16(extra, p);
    const uint16_t len = le16(extra, p + 2);
    p += 4;
    if (len > extra.size() - p)
      fail("entry " + quote_for_message(e.name) + " has a truncated extra field");
    if (id == 0x0001) {
      const std::string_view body = extra.substr(p, len);
      std::size_t q = 0;
      auto take = [&](uint64_t& field) {
        if (body.size() - q < 8) {
          fail("entry " + quote_for_message(e.name) + " has a truncated zip64 extra field");
        }
        field = le64(body, q);
        q += 8;
      };
      if (need_usize) take(e.uncompressed_size);
      if (need_csize) take(e.compressed_size);
      if (need_offset) take(e.local_header_offset);
      return;
    }
    p += len;
  }
  fail("entry " + quote_for_message(e.name) + " needs a zip64 extra field but has none");
}

}  // namespace

uint32_t crc32(std::string_view data, uint32_t crc) {
  crc = ~crc;
  for (char ch : data) crc = kCrcTable[(crc ^ static_cast<unsigned char>(ch)) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::string ByteSource::read_string(uint64_t offset, std::size_t n) const {
  // Range-check before allocating so a corrupt size field cannot request a huge buffer.
  if (offset > size() || n > size() - offset) {
    fail("read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
         " is past the end of the " + std::to_string(size()) + "-byte archive (truncated file?)");
  }
  std::string out(n, '\0');
  read(offset, n, out.data());
  return out;
}

void MemorySource::read(uint64_t offset, std::size_t n, char* out) const {
  if (offset > data_.size() || n > data_.size() - offset) fail("read past end of data");
  if (n) std::memcpy(out, data_.data() + offset, n);
}

FileSource::FileSource(const std::filesystem::path& path) : path_(path) {
  in_.open(path, std::ios::binary);
  if (!in_) {
    throw IoError("cannot open '" + path.string() + "' for reading: " + std::strerror(errno));
  }
  in_.seekg(0, std::ios::end);
  const auto end = in_.tellg();
  if (end < 0) throw IoError("cannot determine the size of '" + path.string() + "'");
  size_ = static_cast<uint64_t>(end);
}

void FileSource::read(uint64_t offset, std::size_t n, char* out) const {
  if (offset > size_ || n > size_ - offset) fail("read past end of file");
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(offset));
  in_.read(out, static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in_.gcount()) != n) {
    throw IoError("short read from '" + path_.string() + "' (file changed while reading?)");
  }
}

ZipReader::ZipReader(const ByteSource& source) : src_(source) {
  const uint64_t size = src_.size();
  if (size < kEocdSize)
    fail("file too small (" + std::to_string(size) + " bytes) to be a ZIP archive");

  // The end-of-central-directory record sits at the end, followed only by a comment whose
  // length it records; scan backwards and accept the first self-consistent candidate.
  const std::size_t tail_len =
      static_cast<std::size_t>(std::min<uint64_t>(size, kEocdSize + kMaxCommentSize));
  const uint64_t tail_start = size - tail_len;
  const std::string tail = src_.read_string(tail_start, tail_len);
  std::size_t eocd = std::string::npos;
  for (std::size_t p = tail_len - kEocdSize + 1; p-- > 0;) {
    if (le32(tail, p) == kEocdSig && p + kEocdSize + le16(tail, p + 20) == tail_len) {
      eocd = p;
      break;
    }
  }
  if (eocd == std::string::npos) {
    fail("end of central directory record not found (not a ZIP archive, or truncated)");
  }
  uint64_t entry_count = le16(tail, eocd + 10);
  uint64_t cd_size = le32(tail, eocd + 12);
  uint64_t cd_offset = le32(tail, eocd + 16);
  uint64_t cd_limit = tail_start + eocd;  // the central directory must end before this

  // A zip64 locator right before the EOCD points at the zip64 EOCD with 64-bit fields.
  if (eocd >= kZip64LocatorSize && le32(tail, eocd - kZip64LocatorSize) == kZip64LocatorSig) {
    const uint64_t z64_offset = le64(tail, eocd - kZip64LocatorSize + 8);
    const uint64_t locator_pos = tail_start + eocd - kZip64LocatorSize;
    if (z64_offset > locator_pos || locator_pos - z64_offset < kZip64EocdSize) {
      fail("zip64 end of central directory offset " + std::to_string(z64_offset) + " is invalid");
    }
    const std::string z64 = src_.read_string(z64_offset, kZip64EocdSize);
    if (le32(z64, 0) != kZip64EocdSig) fail("zip64 end of central directory record is corrupt");
    entry_count = le64(z64, 32);
    cd_size = le64(z64, 40);
    cd_offset = le64(z64, 48);
    cd_limit = z64_offset;
  } else if (entry_count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu) {
    fail("archive needs zip64 records but the zip64 locator is missing");
  }

  if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset) {
    fail("central directory [" + std::to_string(cd_offset) + ", +" + std::to_string(cd_size) +
         ") lies outside the archive (truncated file?)");
  }
  if (entry_count > cd_size / kCentralHeaderSize) {
    fail("central directory of " + std::to_string(cd_size) + " bytes cannot hold " +
         std::to_string(entry_count) + " entries");
  }
  const std::string cd = src_.read_string(cd_offset, static_cast<std::size_t>(cd_size));
  std::size_t p = 0;
  entries_.reserve(static_cast<std::size_t>(entry_count));
  for (uint64_t i = 0; i < entry_count; ++i) {
    if (cd.size() - p < kCentralHeaderSize || le32(cd, p) != kCentralHeaderSig) {
      fail("central directory entry " + std::to_string(i) + " is corrupt");
    }
    ZipEntry e;
    e.flags = le16(cd, p + 8);
    e.method = le16(cd, p + 10);
    e.crc32 = le32(cd, p + 16);
    e.compressed_size = le32(cd, p + 20);
    e.uncompressed_size = le32(cd, p + 24);
    const std::size_t name_len = le16(cd, p + 28);
    const std::size_t extra_len = le16(cd, p + 30);
    const std::size_t comment_len = le16(cd, p + 32);
    e.local_header_offset = le32(cd, p + 42);
    if (cd.size() - p - kCentralHeaderSize < name_len + extra_len + comment_len) {
      fail("central directory entry " + std::to_string(i) + " is truncated");
    }
    e.name = cd.substr(p + kCentralHeaderSize, name_len);
    apply_zip64_extra(std::string_view(cd).substr(p + kCentralHeaderSize + name_len, extra_len), e);
    p += kCentralHeaderSize + name_len + extra_len + comment_len;
    entries_.push_back(std::move(e));
  }
  if (p != cd.size())
    fail("central directory has " + std::to_string(cd.size() - p) + " unexpected trailing bytes");
}

const ZipEntry* ZipReader::find(std::string_view name) const {
  for (const ZipEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string ZipReader::read(const ZipEntry& entry, bool verify_crc) const {
  const std::string label = "entry " + quote_for_message(entry.name);
  if (entry.flags & 0x1) fail(label + " is encrypted");
  if (entry.method != 0) {
    fail(label + " is compressed (" + method_name(entry.method) +
         "); only stored (uncompressed) entries are supported, as written by torch.save");
  }
  if (entry.compressed_size != entry.uncompressed_size) {
    fail(label + " is stored but its compressed and uncompressed sizes differ");
  }
  const std::string local = src_.read_string(entry.local_header_offset, kLocalHeaderSize);
  if (le32(local, 0) != kLocalHeaderSig) fail(label + " has a corrupt local header");
  const uint64_t name_len = le16(local, 26);
  const uint64_t extra_len = le16(local, 28);
  if (src_.read_string(entry.local_header_offset + kLocalHeaderSize,
                       static_cast<std::size_t>(name_len)) != entry.name) {
    fail(label + ": local header name does not match the central directory");
  }
  const uint64_t data_offset = entry.local_header_offset + kLocalHeaderSize + name_len + extra_len;
  if (data_offset > src_.size() || entry.uncompressed_size > src_.size() - data_offset) {
    fail(label + " data [" + std::to_string(data_offset) + ", +" +
         std::to_string(entry.uncompressed_size) +
         ") is past the end of the archive (truncated file?)");
  }
  std::string data =
      src_.read_string(data_offset, static_cast<std::size_t>(entry.uncompressed_size));
  if (verify_crc && crc32(data) != entry.crc32)
    fail(label + " fails its CRC-32 check (corrupt data)");
  return data;
}

}  // namespace tc::serialize::detail
