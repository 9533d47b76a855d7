#pragma once
// Minimal JSON reader/writer used by the safetensors header. It implements the full RFC 8259
// grammar (so any well-formed header parses) but keeps numbers as their literal text: the
// header only needs exact non-negative integers, and this avoids double rounding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tc::serialize::json {

struct Member;

struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;            // kString: decoded UTF-8; kNumber: the literal as written
  std::vector<Value> array;    // kArray elements
  std::vector<Member> object;  // kObject members in file order (keys unique)

  // Member lookup for objects (nullptr if absent or not an object).
  const Value* find(std::string_view key) const;
  // The value of a plain non-negative integer literal ("0", "42"; no sign, fraction or
  // exponent) that fits in uint64; nullopt otherwise.
  std::optional<uint64_t> as_uint64() const;
};

// An object member. (A named struct rather than std::pair, which cannot be instantiated
// while Value is still incomplete.)
struct Member {
  std::string key;
  Value value;
};

// Human-readable kind name for error messages ("object", "string", ...).
std::string_view kind_name(Value::Kind kind);

// Parses exactly one JSON value surrounded by optional whitespace. Rejects duplicate object
// keys, invalid UTF-8 and nesting deeper than `max_depth`. Throws FormatError whose message
// starts with "invalid JSON: " and includes the byte offset.
Value parse(std::string_view text, std::size_t max_depth = 64);

// Appends `s` as a JSON string literal (with quotes). `s` must be valid UTF-8.
void append_quoted(std::string& out, std::string_view s);

}  // namespace tc::serialize::json
