#pragma once
// Write-only ZIP archives of *stored* (uncompressed) entries, the layout torch.save produces.
// Entry data starts 64-byte aligned (padding goes into the local header's extra field, as
// PyTorch's writer does) so a reader can map tensors straight from the file.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tc::serialize::detail {

class ZipWriter {
 public:
  // `out` must outlive the writer; call finish() once after the last entry.
  explicit ZipWriter(std::ostream& out) : out_(out) {}
  // Adds one entry; throws FormatError if the archive would exceed the non-zip64 limits.
  void add(std::string_view name, std::string_view data);
  void finish();

 private:
  struct Written {
    std::string name;
    uint32_t crc;
    uint32_t size;
    uint32_t offset;
  };
  void write_bytes(const void* p, std::size_t n);
  std::ostream& out_;
  uint64_t pos_ = 0;
  std::vector<Written> written_;
  bool finished_ = false;
};

}  // namespace tc::serialize::detail
