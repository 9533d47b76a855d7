#pragma once
// Read-only ZIP archive access for torch.save checkpoints: parses the central directory
// (including zip64 records) and extracts *stored* (uncompressed) entries, which is all
// torch.save produces. Reads go through ByteSource so a multi-GB checkpoint on disk is never
// loaded whole: only the central directory and the requested entries are read.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace tc::serialize::detail {

// Random-access bytes. read() throws FormatError when [offset, offset+n) is out of range.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  virtual void read(uint64_t offset, std::size_t n, char* out) const = 0;
  std::string read_string(uint64_t offset, std::size_t n) const;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  uint64_t size() const override { return data_.size(); }
  void read(uint64_t offset, std::size_t n, char* out) const override;

 private:
  std::string_view data_;
};

// Reads lazily from a file. Throws IoError if the file cannot be opened.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& path);
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, std::size_t n, char* out) const override;

 private:
  std::filesystem::path path_;
  mutable std::ifstream in_;
  uint64_t size_ = 0;
};

struct ZipEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;  // 0 = stored, 8 = deflate, ...
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
};

// CRC-32 (IEEE 802.3, as used by ZIP), continuing from `crc` (0 to start).
uint32_t crc32(std::string_view data, uint32_t crc = 0);

class ZipReader {
 public:
  // Parses the central directory; throws FormatError if `source` is not a sound ZIP archive.
  // `source` must outlive the reader.
  explicit ZipReader(const ByteSource& source);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  // First entry with exactly this name, or nullptr.
  const ZipEntry* find(std::string_view name) const;
  // Contents of a stored entry; FormatError for compressed/encrypted entries, bad local
  // headers, out-of-range data, or (when verify_crc) a CRC-32 mismatch.
  std::string read(const ZipEntry& entry, bool verify_crc = true) const;

 private:
  const ByteSource& src_;
  std::vector<ZipEntry> entries_;
};

}  // namespace tc::serialize::detail
