#pragma once
// Shared pieces of the serialization layer: error types, the dtype-string table, and
// small helpers (checked arithmetic, UTF-8 validation, whole-file I/O). Deliberately free
// of any dependency on the Tensor class so the formats can be tested and fuzzed alone.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tc::serialize {

// Malformed, truncated or unsupported serialized data. The message names what was wrong.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file could not be opened, read or written (the message includes the path).
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes per element of a safetensors-style dtype string: BOOL U8 I8 I16 U16 I32 U32 I64 U64
// F8_E4M3 F8_E5M2 F16 BF16 F32 F64 C64 C128. Returns 0 for anything else.
std::size_t dtype_itemsize(std::string_view dtype) noexcept;

namespace detail {

// a * b and a + b, returning false on uint64 overflow instead of wrapping.
inline bool checked_mul(uint64_t a, uint64_t b, uint64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}
inline bool checked_add(uint64_t a, uint64_t b, uint64_t& out) {
  return !__builtin_add_overflow(a, b, &out);
}

// numel(shape) * itemsize; false if a dim is negative or the product overflows uint64.
bool checked_nbytes(const std::vector<int64_t>& shape, std::size_t itemsize, uint64_t& out);

// Strict UTF-8 check (no overlongs, no surrogates, max U+10FFFF).
bool is_valid_utf8(std::string_view s) noexcept;

// "[2, 3]" for error messages.
std::string format_shape(const std::vector<int64_t>& shape);

// Quote a name for an error message, escaping control/non-ASCII bytes and truncating
// very long names so a hostile file cannot produce megabyte-sized messages.
std::string quote_for_message(std::string_view s);

// Read a whole file; throws IoError.
std::string read_whole_file(const std::filesystem::path& path);

// Write via `fill` into "<path>.tmp" then rename over `path`, so a crash or error never
// leaves a half-written file under the final name. Throws IoError.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& fill);

}  // namespace detail
}  // namespace tc::serialize
