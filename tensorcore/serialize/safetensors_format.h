#pragma once
// The safetensors format (https://github.com/huggingface/safetensors):
//   [8-byte little-endian header length N][N bytes of UTF-8 JSON header][byte buffer]
// The header maps tensor names to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the byte buffer) plus an optional "__metadata__" string->string map. Tensors
// must tile the byte buffer exactly: no gaps, no overlaps, no trailing bytes.
//
// This layer only moves bytes: dtype is the format's string ("F32", "BF16", "C64", ...), data
// is raw little-endian element bytes. Mapping to tc::Tensor happens elsewhere.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorcore/serialize/common.h"

namespace tc::serialize {

// One tensor's description plus a view of its bytes. When writing, `bytes` must stay valid
// during the call; when reading, it points into SafetensorsFile::buffer. Note that the view
// carries no alignment guarantee, so consumers should memcpy rather than reinterpret_cast.
struct RawTensor {
  std::string dtype;           // "F32", "I64", "BOOL", "C64", ... (see dtype_itemsize)
  std::vector<int64_t> shape;  // [] for a scalar
  std::string_view bytes;      // numel(shape) * itemsize(dtype) bytes, C-contiguous
};

using NamedRawTensors = std::vector<std::pair<std::string, RawTensor>>;

// A parsed file. `tensors` is in header order and views `buffer`, which keeps the bytes
// alive (copying or moving a SafetensorsFile keeps the views valid).
struct SafetensorsFile {
  NamedRawTensors tensors;
  std::map<std::string, std::string> metadata;
  std::shared_ptr<const std::string> buffer;

  // Lookup by name (nullptr if absent). Linear; fine for the typical few thousand tensors.
  const RawTensor* find(std::string_view name) const;
};

// Headers larger than this are rejected before any parsing (same limit as the reference
// implementation), so a corrupt length field cannot trigger a huge allocation.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;

// Serializes tensors (data laid out in the given order) with optional metadata. The header is
// padded with spaces to a multiple of 8 bytes so the data starts 8-byte aligned in the file.
// Throws FormatError for invalid input: unknown dtype, byte count != numel * itemsize,
// duplicate or reserved ("__metadata__") names, non-UTF-8 names/metadata.
std::string write_safetensors(const NamedRawTensors& tensors,
                              const std::map<std::string, std::string>& metadata = {});

// Same as write_safetensors but streams to `path` (via a temporary file renamed into place).
// Throws FormatError for invalid input and IoError for I/O failures.
void write_safetensors_file(const std::filesystem::path& path, const NamedRawTensors& tensors,
                            const std::map<std::string, std::string>& metadata = {});

// Parses and fully validates a safetensors image without copying it. Throws FormatError.
SafetensorsFile read_safetensors(std::shared_ptr<const std::string> bytes);
// Copies `bytes` into an owned buffer, then parses it.
SafetensorsFile read_safetensors(std::string_view bytes);
// Reads the whole file, then parses it. Throws IoError or FormatError.
SafetensorsFile read_safetensors_file(const std::filesystem::path& path);

}  // namespace tc::serialize
