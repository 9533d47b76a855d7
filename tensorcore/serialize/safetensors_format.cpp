#include "tensorcore/serialize/safetensors_format.h"

#include <algorithm>
#include <limits>
#include <ostream>
#include <unordered_set>

#include "tensorcore/serialize/json.h"

namespace tc::serialize {

namespace {

constexpr std::string_view kMetadataKey = "__metadata__";
// The header is tiny and flat; anything deeper than this is garbage.
constexpr std::size_t kMaxJsonDepth = 16;

[[noreturn]] void fail(const std::string& what) { throw FormatError("safetensors: " + what); }

std::string tensor_label(std::string_view name) {
  return "tensor " + detail::quote_for_message(name);
}

void put_u64_le(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

uint64_t get_u64_le(std::string_view s) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[std::size_t(i)]);
  return v;
}

// Builds "<8-byte length><JSON padded with spaces>" and validates the writer's input.
std::string build_header(const NamedRawTensors& tensors,
                         const std::map<std::string, std::string>& metadata) {
  std::string json = "{";
  bool first = true;
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    bool first_meta = true;
    for (const auto& [k, v] : metadata) {
      if (!detail::is_valid_utf8(k) || !detail::is_valid_utf8(v)) {
        fail("metadata entry " + detail::quote_for_message(k) + " is not valid UTF-8");
      }
      if (!first_meta) json += ',';
      first_meta = false;
      json::append_quoted(json, k);
      json += ':';
      json::append_quoted(json, v);
    }
    json += '}';
    first = false;
  }
  std::unordered_set<std::string_view> names;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    const std::string label = tensor_label(name);
    if (name == kMetadataKey) fail("tensor name '__metadata__' is reserved");
    if (!detail::is_valid_utf8(name)) fail(label + ": name is not valid UTF-8");
    if (!names.insert(name).second) fail("duplicate " + label);
    const std::size_t itemsize = dtype_itemsize(t.dtype);
    if (itemsize == 0) fail(label + " has unknown dtype " + detail::quote_for_message(t.dtype));
    uint64_t nbytes = 0;
    if (!detail::checked_nbytes(t.shape, itemsize, nbytes)) {
      fail(label + " has invalid shape " + detail::format_shape(t.shape));
    }
    if (nbytes != t.bytes.size()) {
      fail(label + " has " + std::to_string(t.bytes.size()) + " bytes but shape " +
           detail::format_shape(t.shape) + " of " + t.dtype + " needs " + std::to_string(nbytes));
    }
    const uint64_t begin = offset;
    if (!detail::checked_add(offset, nbytes, offset)) fail("total size overflows");
    if (!first) json += ',';
    first = false;
    json::append_quoted(json, name);
    json += ":{\"dtype\":";
    json::append_quoted(json, t.dtype);
    json += ",\"shape\":[";
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      if (i) json += ',';
      json += std::to_string(t.shape[i]);
    }
    json += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(offset) + "]}";
  }
  json += '}';
  // Pad so that 8 + N is a multiple of 8: the data then starts 8-byte aligned in the file.
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + json.size());
  put_u64_le(out, json.size());
  out += json;
  return out;
}

struct ParsedEntry {
  std::string name;
  RawTensor tensor;
  uint64_t begin = 0;
  uint64_t end = 0;
};

std::map<std::string, std::string> parse_metadata(const json::Value& v) {
  if (v.kind != json::Value::Kind::kObject) {
    fail("'__metadata__' must be an object, got " + std::string(json::kind_name(v.kind)));
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, val] : v.object) {
    if (val.kind != json::Value::Kind::kString) {
      fail("'__metadata__' value for " + detail::quote_for_message(k) + " must be a string, got " +
           std::string(json::kind_name(val.kind)));
    }
    out.emplace(k, val.text);
  }
  return out;
}

ParsedEntry parse_entry(const std::string& name, const json::Value& v) {
  const std::string label = tensor_label(name);
  if (v.kind != json::Value::Kind::kObject) {
    fail(label + " must be an object, got " + std::string(json::kind_name(v.kind)));
  }
  for (const auto& [k, unused] : v.object) {
    if (k != "dtype" && k != "shape" && k != "data_offsets") {
      fail(label + " has unknown field " + detail::quote_for_message(k));
    }
  }
  const json::Value* dtype = v.find("dtype");
  const json::Value* shape = v.find("shape");
  const json::Value* offsets = v.find("data_offsets");
  if (!dtype) fail(label + " is missing 'dtype'");
  if (!shape) fail(label + " is missing 'shape'");
  if (!offsets) fail(label + " is missing 'data_offsets'");

  ParsedEntry e;
  e.name = name;
  if (dtype->kind != json::Value::Kind::kString) fail(label + ": 'dtype' must be a string");
  e.tensor.dtype = dtype->text;
  const std::size_t itemsize = dtype_itemsize(e.tensor.dtype);
  if (itemsize == 0) {
    fail(label + " has unknown dtype " + detail::quote_for_message(e.tensor.dtype));
  }

  if (shape->kind != json::Value::Kind::kArray) fail(label + ": 'shape' must be an array");
  for (const json::Value& d : shape->array) {
    const auto dim = d.as_uint64();
    if (!dim || *dim > uint64_t(std::numeric_limits<int64_t>::max())) {
      fail(label + ": 'shape' entries must be non-negative integers");
    }
    e.tensor.shape.push_back(static_cast<int64_t>(*dim));
  }

  if (offsets->kind != json::Value::Kind::kArray || offsets->array.size() != 2) {
    fail(label + ": 'data_offsets' must be an array of two integers");
  }
  const auto begin = offsets->array[0].as_uint64();
  const auto end = offsets->array[1].as_uint64();
  if (!begin || !end) fail(label + ": 'data_offsets' must be non-negative integers");
  e.begin = *begin;
  e.end = *end;
  const std::string offsets_text =
      "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin) fail(label + " " + offsets_text + " end before they begin");

  uint64_t nbytes = 0;
  if (!detail::checked_nbytes(e.tensor.shape, itemsize, nbytes)) {
    fail(label + " shape " + detail::format_shape(e.tensor.shape) + " is too large");
  }
  if (e.end - e.begin != nbytes) {
    fail(label + " " + offsets_text + " do not match shape " +
         detail::format_shape(e.tensor.shape) + " of " + e.tensor.dtype + " (" +
         std::to_string(nbytes) + " bytes)");
  }
  return e;
}

// The reference format requires the tensors to tile [0, buffer_size) exactly.
void check_layout(std::vector<ParsedEntry>& entries, uint64_t buffer_size) {
  std::vector<const ParsedEntry*> order;
  order.reserve(entries.size());
  for (const auto& e : entries) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const ParsedEntry* a, const ParsedEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t expected = 0;
  const ParsedEntry* prev = nullptr;
  for (const ParsedEntry* e : order) {
    if (e->end > buffer_size) {
      fail(tensor_label(e->name) + " data_offsets [" + std::to_string(e->begin) + ", " +
           std::to_string(e->end) + "] exceed the byte buffer size " + std::to_string(buffer_size));
    }
    if (e->begin < expected) {
      fail(tensor_label(e->name) + " data_offsets [" + std::to_string(e->begin) + ", " +
           std::to_string(e->end) + "] overlap " + tensor_label(prev->name) + " (ends at " +
           std::to_string(prev->end) + ")");
    }
    if (e->begin > expected) {
      fail("byte buffer has a gap [" + std::to_string(expected) + ", " + std::to_string(e->begin) +
           ") before " + tensor_label(e->name));
    }
    expected = e->end;
    prev = e;
  }
  if (expected != buffer_size) {
    fail("byte buffer has " + std::to_string(buffer_size - expected) +
         " trailing bytes not covered by any tensor");
  }
}

}  // namespace

const RawTensor* SafetensorsFile::find(std::string_view name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::string write_safetensors(const NamedRawTensors& tensors,
                              const std::map<std::string, std::string>& metadata) {
  std::string out = build_header(tensors, metadata);
  for (const auto& [name, t] : tensors) out.append(t.bytes.data(), t.bytes.size());
  return out;
}

void write_safetensors_file(const std::filesystem::path& path, const NamedRawTensors& tensors,
                            const std::map<std::string, std::string>& metadata) {
  const std::string header = build_header(tensors, metadata);  // validates before touching disk
  detail::write_file_atomically(path, [&](std::ostream& out) {
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    for (const auto& [name, t] : tensors) {
      out.write(t.bytes.data(), static_cast<std::streamsize>(t.bytes.size()));
    }
  });
}

SafetensorsFile read_safetensors(std::shared_ptr<const std::string> bytes) {
  if (!bytes) fail("null buffer");
  const std::string_view data(*bytes);
  if (data.size() < 8) {
    fail("file too small (" + std::to_string(data.size()) +
         " bytes) to hold the 8-byte header length");
  }
  const uint64_t header_len = get_u64_le(data);
  const uint64_t available = data.size() - 8;
  if (header_len > available) {
    fail("header length " + std::to_string(header_len) + " exceeds the " +
         std::to_string(available) + " bytes after the length field (truncated file?)");
  }
  if (header_len > kMaxSafetensorsHeaderBytes) {
    fail("header length " + std::to_string(header_len) + " exceeds the " +
         std::to_string(kMaxSafetensorsHeaderBytes) + "-byte limit");
  }
  const std::string_view header = data.substr(8, header_len);
  if (header.empty() || header[0] != '{') fail("header must start with a JSON object '{'");

  json::Value root;
  try {
    root = json::parse(header, kMaxJsonDepth);
  } catch (const FormatError& e) {
    fail(std::string("header is not valid: ") + e.what());
  }
  if (root.kind != json::Value::Kind::kObject) fail("header must be a JSON object");

  SafetensorsFile file;
  std::vector<ParsedEntry> entries;
  entries.reserve(root.object.size());
  for (const auto& [name, value] : root.object) {
    if (name == kMetadataKey) {
      file.metadata = parse_metadata(value);
    } else {
      entries.push_back(parse_entry(name, value));
    }
  }
  const std::string_view buffer = data.substr(8 + header_len);
  check_layout(entries, buffer.size());

  file.tensors.reserve(entries.size());
  for (ParsedEntry& e : entries) {
    e.tensor.bytes = buffer.substr(e.begin, e.end - e.begin);
    file.tensors.emplace_back(std::move(e.name), std::move(e.tensor));
  }
  file.buffer = std::move(bytes);
  return file;
}

SafetensorsFile read_safetensors(std::string_view bytes) {
  return read_safetensors(std::make_shared<const std::string>(bytes));
}

SafetensorsFile read_safetensors_file(const std::filesystem::path& path) {
  auto bytes = std::make_shared<const std::string>(detail::read_whole_file(path));
  try {
    return read_safetensors(std::move(bytes));
  } catch (const FormatError& e) {
    throw FormatError(std::string(e.what()) + " (in '" + path.string() + "')");
  }
}

}  // namespace tc::serialize
