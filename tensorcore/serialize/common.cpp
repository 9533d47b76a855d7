#include "tensorcore/serialize/common.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace tc::serialize {

std::size_t dtype_itemsize(std::string_view dtype) noexcept {
  struct Entry {
    std::string_view name;
    std::size_t size;
  };
  static constexpr std::array<Entry, 17> kTable{{
      {"BOOL", 1},
      {"U8", 1},
      {"I8", 1},
      {"F8_E4M3", 1},
      {"F8_E5M2", 1},
      {"I16", 2},
      {"U16", 2},
      {"F16", 2},
      {"BF16", 2},
      {"I32", 4},
      {"U32", 4},
      {"F32", 4},
      {"I64", 8},
      {"U64", 8},
      {"F64", 8},
      {"C64", 8},
      {"C128", 16},
  }};
  for (const Entry& e : kTable) {
    if (e.name == dtype) return e.size;
  }
  return 0;
}

namespace detail {

bool checked_nbytes(const std::vector<int64_t>& shape, std::size_t itemsize, uint64_t& out) {
  uint64_t total = itemsize;
  for (int64_t d : shape) {
    if (d < 0 || !checked_mul(total, static_cast<uint64_t>(d), total)) return false;
  }
  out = total;
  return true;
}

bool is_valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07u;
    } else {
      return false;  // continuation byte in lead position, or 0xC0/0xC1/0xF5+ lead
    }
    if (n - i < len) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0u) != 0x80u) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    // Reject overlong encodings, UTF-16 surrogates and code points past U+10FFFF.
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

std::string format_shape(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  out += "]";
  return out;
}

std::string quote_for_message(std::string_view s) {
  constexpr std::size_t kMaxShown = 80;
  std::string out = "'";
  const std::size_t shown = s.size() > kMaxShown ? kMaxShown : s.size();
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  if (shown < s.size()) out += "...";
  out += "'";
  return out;
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw IoError("cannot open '" + path.string() + "' for reading: " + std::strerror(errno));
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::string data;
  if (!ec) {
    data.resize(static_cast<std::size_t>(size));
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    if (static_cast<std::size_t>(in.gcount()) != data.size()) {
      throw IoError("short read from '" + path.string() + "'");
    }
    return data;
  }
  // Not a regular file (e.g. a pipe): fall back to reading until EOF.
  char chunk[1 << 16];
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
    data.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw IoError("error reading '" + path.string() + "'");
  return data;
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& fill) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw IoError("cannot open '" + tmp.string() + "' for writing: " + std::strerror(errno));
    }
    try {
      fill(out);
      out.flush();
    } catch (...) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw;
    }
    if (!out) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw IoError("error writing '" + tmp.string() + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw IoError("cannot rename '" + tmp.string() + "' to '" + path.string() +
                  "': " + ec.message());
  }
}

}  // namespace detail
}  // namespace tc::serialize
