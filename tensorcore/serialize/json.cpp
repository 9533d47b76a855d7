#include "tensorcore/serialize/json.h"

#include <unordered_set>

#include "tensorcore/serialize/common.h"

namespace tc::serialize::json {

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& [k, v] : object) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::optional<uint64_t> Value::as_uint64() const {
  if (kind != Kind::kNumber || text.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (!detail::checked_mul(v, 10, v) || !detail::checked_add(v, uint64_t(c - '0'), v)) {
      return std::nullopt;
    }
  }
  return v;
}

std::string_view kind_name(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBool:
      return "boolean";
    case Value::Kind::kNumber:
      return "number";
    case Value::Kind::kString:
      return "string";
    case Value::Kind::kArray:
      return "array";
    case Value::Kind::kObject:
      return "object";
  }
  return "?";
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, std::size_t max_depth) : s_(text), max_depth_(max_depth) {}

  Value parse_document() {
    skip_ws();
    Value v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected trailing data");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError("invalid JSON: " + what + " at byte " + std::to_string(pos_));
  }

  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void expect_literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) != lit) fail("invalid literal");
    pos_ += lit.size();
  }

  Value parse_value(std::size_t depth) {
    if (at_end()) fail("unexpected end of input");
    Value v;
    switch (peek()) {
      case '{':
        parse_object(v, depth + 1);
        break;
      case '[':
        parse_array(v, depth + 1);
        break;
      case '"':
        v.kind = Value::Kind::kString;
        v.text = parse_string();
        break;
      case 't':
        expect_literal("true");
        v.kind = Value::Kind::kBool;
        v.boolean = true;
        break;
      case 'f':
        expect_literal("false");
        v.kind = Value::Kind::kBool;
        break;
      case 'n':
        expect_literal("null");
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          v.kind = Value::Kind::kNumber;
          v.text = parse_number();
        } else {
          fail(std::string("unexpected character ") +
               detail::quote_for_message(s_.substr(pos_, 1)));
        }
    }
    return v;
  }

  void check_depth(std::size_t depth) const {
    if (depth > max_depth_) fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
  }

  void parse_object(Value& v, std::size_t depth) {
    check_depth(depth);
    v.kind = Value::Kind::kObject;
    ++pos_;  // '{'
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    std::unordered_set<std::string> seen;
    for (;;) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = parse_string();
      if (!seen.insert(key).second) fail("duplicate key " + detail::quote_for_message(key));
      skip_ws();
      if (peek() != ':') fail("expected ':'");
      ++pos_;
      skip_ws();
      Value member = parse_value(depth);
      v.object.push_back(Member{std::move(key), std::move(member)});
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail("expected ',' or '}'");
    }
  }

  void parse_array(Value& v, std::size_t depth) {
    check_depth(depth);
    v.kind = Value::Kind::kArray;
    ++pos_;  // '['
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      v.array.push_back(parse_value(depth));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail("expected ',' or ']'");
    }
  }

  std::string parse_number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t d0 = pos_;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
      return pos_ - d0;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;  // no leading zeros allowed, so a lone 0 ends the integer part
    } else if (digits() == 0) {
      fail("invalid number");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail("invalid number: digits expected after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail("invalid number: digits expected in exponent");
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  uint32_t parse_hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= uint32_t(c - 'A' + 10);
      else
        fail("invalid hex digit in \\u escape");
    }
    return v;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string parse_string() {
    const std::size_t start = pos_;
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (at_end()) {
        pos_ = start;
        fail("unterminated string");
      }
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c < 0x20) fail("unescaped control character in string");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) fail("truncated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = parse_hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // A high surrogate must be followed by an escaped low surrogate.
            if (s_.substr(pos_, 2) != "\\u") fail("unpaired high surrogate in \\u escape");
            pos_ += 2;
            const uint32_t lo = parse_hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail("invalid escape sequence");
      }
    }
    if (!detail::is_valid_utf8(out)) {
      pos_ = start;
      fail("string is not valid UTF-8");
    }
    return out;
  }

  std::string_view s_;
  std::size_t max_depth_;
  std::size_t pos_ = 0;
};

}  // namespace

Value parse(std::string_view text, std::size_t max_depth) {
  return Parser(text, max_depth).parse_document();
}

void append_quoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;  // UTF-8 passes through unescaped
        }
    }
  }
  out += '"';
}

}  // namespace tc::serialize::json
