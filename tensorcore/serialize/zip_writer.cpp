#include "tensorcore/serialize/zip_writer.h"

#include <limits>

#include "tensorcore/serialize/common.h"
#include "tensorcore/serialize/zip_reader.h"

namespace tc::serialize::detail {
namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndOfCentralDirSig = 0x06054b50;
constexpr uint16_t kVersionNeeded = 20;
constexpr uint16_t kPaddingExtraId = 0x4246;  // "FB": the id PyTorch uses for alignment padding
constexpr uint64_t kAlignment = 64;
constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();

void put16(std::string& s, uint16_t v) {
  s.push_back(char(v & 0xFF));
  s.push_back(char(v >> 8));
}
void put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(char((v >> (8 * i)) & 0xFF));
}

}  // namespace

void ZipWriter::write_bytes(const void* p, std::size_t n) {
  out_.write(static_cast<const char*>(p), std::streamsize(n));
  if (!out_) throw IoError("zip writer: write failed");
  pos_ += n;
}

void ZipWriter::add(std::string_view name, std::string_view data) {
  if (finished_) throw FormatError("zip writer: add() after finish()");
  if (name.size() > 0xFFFF) throw FormatError("zip writer: entry name too long");
  const uint64_t header_size = 30 + name.size();
  // Extra field: 4-byte header plus padding so the data starts on a 64-byte boundary.
  uint64_t pad = (kAlignment - (pos_ + header_size + 4) % kAlignment) % kAlignment;
  const uint64_t end = pos_ + header_size + 4 + pad + data.size();
  if (end > kMax32 || pos_ > kMax32)
    throw FormatError("zip writer: archives larger than 4 GiB are not supported (entry '" +
                      std::string(name) + "' of " + std::to_string(data.size()) + " bytes)");
  const uint32_t crc = crc32(data);
  std::string h;
  put32(h, kLocalHeaderSig);
  put16(h, kVersionNeeded);
  put16(h, 0);     // flags
  put16(h, 0);     // method: stored
  put16(h, 0);     // mod time
  put16(h, 0x21);  // mod date: 1980-01-01, fixed so archives are reproducible
  put32(h, crc);
  put32(h, uint32_t(data.size()));
  put32(h, uint32_t(data.size()));
  put16(h, uint16_t(name.size()));
  put16(h, uint16_t(4 + pad));
  h.append(name);
  put16(h, kPaddingExtraId);
  put16(h, uint16_t(pad));
  h.append(pad, 'Z');
  const uint32_t offset = uint32_t(pos_);
  write_bytes(h.data(), h.size());
  write_bytes(data.data(), data.size());
  written_.push_back({std::string(name), crc, uint32_t(data.size()), offset});
}

void ZipWriter::finish() {
  if (finished_) return;
  finished_ = true;
  if (written_.size() > 0xFFFF) throw FormatError("zip writer: more than 65535 entries");
  const uint64_t cd_offset = pos_;
  std::string cd;
  for (const Written& w : written_) {
    put32(cd, kCentralHeaderSig);
    put16(cd, kVersionNeeded);  // version made by
    put16(cd, kVersionNeeded);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0x21);
    put32(cd, w.crc);
    put32(cd, w.size);
    put32(cd, w.size);
    put16(cd, uint16_t(w.name.size()));
    put16(cd, 0);  // extra
    put16(cd, 0);  // comment
    put16(cd, 0);  // disk
    put16(cd, 0);  // internal attributes
    put32(cd, 0);  // external attributes
    put32(cd, w.offset);
    cd.append(w.name);
  }
  if (cd_offset + cd.size() > kMax32)
    throw FormatError("zip writer: archives larger than 4 GiB are not supported");
  put32(cd, kEndOfCentralDirSig);
  put16(cd, 0);
  put16(cd, 0);
  put16(cd, uint16_t(written_.size()));
  put16(cd, uint16_t(written_.size()));
  put32(cd, uint32_t(cd.size() - 0));  // placeholder fixed below
  put32(cd, uint32_t(cd_offset));
  put16(cd, 0);
  // The directory size excludes the 22-byte end record itself.
  const uint32_t cd_size = uint32_t(cd.size() - 22);
  for (int i = 0; i < 4; ++i) cd[cd.size() - 10 + i] = char((cd_size >> (8 * i)) & 0xFF);
  write_bytes(cd.data(), cd.size());
  out_.flush();
}

}  // namespace tc::serialize::detail
