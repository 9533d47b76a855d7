#include "tensorcore/serialize/pt_format.h"

#include <map>

#include "tensorcore/serialize/pickle_reader.h"
#include "tensorcore/serialize/zip_reader.h"

namespace tc::serialize {

// ---- value-tree helpers ----

int64_t PtTensorRecord::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // the reader already proved the extent fits in storage
  return n;
}

bool PtTensorRecord::is_contiguous() const {
  int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

const PtValue* PtValue::find(std::string_view key) const {
  const auto* d = std::get_if<PtDict>(&value);
  if (!d) return nullptr;
  for (const auto& [k, v] : d->items) {
    if (const auto* s = std::get_if<std::string>(&k.value); s && *s == key) return &v;
  }
  return nullptr;
}

std::string_view PtValue::type_name() const {
  return std::visit([](const auto& v) { return detail::pt_type_name<std::decay_t<decltype(v)>>(); },
                    value);
}

namespace detail {
void throw_pt_type_error(std::string_view expected, std::string_view actual) {
  throw FormatError("pt: expected a " + std::string(expected) + " value but found " +
                    std::string(actual));
}
}  // namespace detail

namespace {

void collect(const PtValue& v, const std::string& path,
             std::vector<std::pair<std::string, const PtTensorRecord*>>& out) {
  auto join = [&](const std::string& part) { return path.empty() ? part : path + "." + part; };
  if (const auto* t = std::get_if<PtTensorRecord>(&v.value)) {
    out.emplace_back(path, t);
  } else if (const auto* d = std::get_if<PtDict>(&v.value)) {
    for (const auto& [k, item] : d->items) {
      std::string part;
      if (const auto* s = std::get_if<std::string>(&k.value))
        part = *s;
      else if (const auto* i = std::get_if<int64_t>(&k.value))
        part = std::to_string(*i);
      else
        part.append("<").append(k.type_name()).append(" key>");
      collect(item, join(part), out);
    }
  } else {
    const std::vector<PtValue>* items = nullptr;
    if (const auto* l = std::get_if<PtList>(&v.value)) items = &l->items;
    if (const auto* tup = std::get_if<PtTuple>(&v.value)) items = &tup->items;
    if (!items) return;
    for (std::size_t i = 0; i < items->size(); ++i)
      collect((*items)[i], join(std::to_string(i)), out);
  }
}

[[noreturn]] void fail(const std::string& what) { throw FormatError("pt: " + what); }

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Recognizes what a non-zip file probably is, for a helpful message.
void reject_non_zip(const detail::ByteSource& src) {
  const std::string head =
      src.read_string(0, static_cast<std::size_t>(std::min<uint64_t>(src.size(), 512)));
  if (starts_with(head, "PK")) return;
  const bool pickle_start = !head.empty() && static_cast<unsigned char>(head[0]) == 0x80;
  const bool tar = head.size() >= 262 && head.compare(257, 5, "ustar") == 0;
  if (pickle_start || tar) {
    fail(
        "legacy (pre-1.6) torch.save format is not supported; re-save with "
        "torch.save(obj, path, _use_new_zipfile_serialization=True)");
  }
  fail("not a torch.save checkpoint (no ZIP signature)");
}

PtValue read_pt_from(const detail::ByteSource& src, const PtReadOptions& options) {
  reject_non_zip(src);
  const detail::ZipReader zip(src);

  // torch.save puts every record under one top-level folder, whose name varies
  // ("archive", or the file's stem in older versions).
  const detail::ZipEntry* pkl = nullptr;
  std::string prefix;
  for (const auto& e : zip.entries()) {
    const std::size_t slash = e.name.find('/');
    if (slash != std::string::npos && slash > 0 &&
        e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      pkl = &e;
      prefix = e.name.substr(0, slash + 1);
      break;
    }
  }
  if (!pkl) fail("archive has no '<folder>/data.pkl' record (not a torch.save checkpoint)");
  for (const auto& e : zip.entries()) {
    if (e.name == prefix + "constants.pkl" || starts_with(e.name, prefix + "code/")) {
      fail(
          "this is a TorchScript archive (torch.jit.save), which is not supported; "
          "save a state_dict with torch.save instead");
    }
  }
  if (const auto* bo = zip.find(prefix + "byteorder")) {
    const std::string order = zip.read(*bo);
    if (order != "little") fail("unsupported byteorder " + detail::quote_for_message(order));
  }

  const std::string pickle = zip.read(*pkl, /*verify_crc=*/true);

  // Storages are loaded on first reference and shared by every tensor that views them.
  std::map<std::string, std::shared_ptr<const std::string>> cache;
  const detail::StorageLoader loader = [&](const std::string& key, const std::string& dtype,
                                           int64_t numel) {
    auto it = cache.find(key);
    if (it == cache.end()) {
      const std::string name = prefix + "data/" + key;
      const detail::ZipEntry* entry = zip.find(name);
      if (!entry) {
        fail("storage " + detail::quote_for_message(key) +
             " referenced by data.pkl is missing (no entry " + detail::quote_for_message(name) +
             ")");
      }
      it = cache
               // Non-const object: tensors built from it may be written in place later.
               .emplace(key,
                        std::make_shared<std::string>(zip.read(*entry, options.verify_storage_crc)))
               .first;
    }
    uint64_t nbytes = 0;
    if (!detail::checked_mul(static_cast<uint64_t>(numel), dtype_itemsize(dtype), nbytes) ||
        nbytes != it->second->size()) {
      fail("storage " + detail::quote_for_message(key) + " has " +
           std::to_string(it->second->size()) + " bytes but data.pkl declares " +
           std::to_string(numel) + " elements of " + dtype);
    }
    return it->second;
  };
  return detail::unpickle_torch(pickle, loader);
}

}  // namespace

std::vector<std::pair<std::string, const PtTensorRecord*>> collect_pt_tensors(const PtValue& root) {
  std::vector<std::pair<std::string, const PtTensorRecord*>> out;
  collect(root, "", out);
  return out;
}

PtValue read_pt(std::string_view bytes, const PtReadOptions& options) {
  const detail::MemorySource src(bytes);
  return read_pt_from(src, options);
}

PtValue read_pt_file(const std::filesystem::path& path, const PtReadOptions& options) {
  const detail::FileSource src(path);
  try {
    return read_pt_from(src, options);
  } catch (const FormatError& e) {
    throw FormatError(std::string(e.what()) + " (in '" + path.string() + "')");
  }
}

}  // namespace tc::serialize
