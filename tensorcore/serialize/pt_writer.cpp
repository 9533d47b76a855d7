// torch.save-compatible writer: a protocol-2 pickle that rebuilds tensors with
// torch._utils._rebuild_tensor_v2 from persistent storage ids, plus one zip entry per storage.
#include <array>
#include <cstring>
#include <map>
#include <sstream>

#include "tensorcore/serialize/common.h"
#include "tensorcore/serialize/pt_format.h"
#include "tensorcore/serialize/zip_writer.h"

namespace tc::serialize {
namespace {

std::string_view storage_class_for(const std::string& dtype) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kClasses{{
      {"F32", "FloatStorage"},
      {"F64", "DoubleStorage"},
      {"F16", "HalfStorage"},
      {"BF16", "BFloat16Storage"},
      {"I64", "LongStorage"},
      {"I32", "IntStorage"},
      {"I16", "ShortStorage"},
      {"I8", "CharStorage"},
      {"U8", "ByteStorage"},
      {"BOOL", "BoolStorage"},
      {"C64", "ComplexFloatStorage"},
      {"C128", "ComplexDoubleStorage"},
  }};
  for (const auto& [code, cls] : kClasses)
    if (code == dtype) return cls;
  throw FormatError("pt writer: dtype " + detail::quote_for_message(dtype) +
                    " has no torch storage type, so it cannot be saved in the .pt format "
                    "(use safetensors)");
}

class PickleWriter {
 public:
  std::string out;
  // Storages in order of first use; tensors sharing a storage pointer share the entry.
  std::vector<std::shared_ptr<const std::string>> storages;

  void value(const PtValue& v) {
    std::visit([this](const auto& x) { write(x); }, v.value);
  }

 private:
  std::map<const std::string*, std::size_t> storage_index_;

  void op(char c) { out.push_back(c); }
  void raw32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
  }
  void global(std::string_view module, std::string_view name) {
    op('c');
    out.append(module);
    out.push_back('\n');
    out.append(name);
    out.push_back('\n');
  }

  void write(const std::monostate&) { op('N'); }
  void write(bool b) { op(b ? '\x88' : '\x89'); }
  void write(int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');  // BININT
      raw32(uint32_t(int32_t(v)));
      return;
    }
    op('\x8a');  // LONG1: little-endian two's complement
    out.push_back(char(8));
    for (int i = 0; i < 8; ++i) out.push_back(char((uint64_t(v) >> (8 * i)) & 0xFF));
  }
  void write(double d) {
    op('G');  // BINFLOAT is big-endian
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    for (int i = 7; i >= 0; --i) out.push_back(char((bits >> (8 * i)) & 0xFF));
  }
  void write(const std::string& s) {
    if (!detail::is_valid_utf8(s)) throw FormatError("pt writer: string is not valid UTF-8");
    if (s.size() > UINT32_MAX) throw FormatError("pt writer: string too long");
    op('X');
    raw32(uint32_t(s.size()));
    out.append(s);
  }
  void items(const std::vector<PtValue>& xs) {
    for (const PtValue& x : xs) value(x);
  }
  void write(const PtList& l) {
    op(']');
    if (l.items.empty()) return;
    op('(');
    items(l.items);
    op('e');  // APPENDS
  }
  void write(const PtTuple& t) {
    op('(');
    items(t.items);
    op('t');
  }
  void write(const PtDict& d) {
    op('}');
    if (d.items.empty()) return;
    op('(');
    for (const auto& [k, v] : d.items) {
      value(k);
      value(v);
    }
    op('u');  // SETITEMS
  }
  void ints(const std::vector<int64_t>& xs) {
    op('(');
    for (int64_t x : xs) write(x);
    op('t');
  }
  void write(const PtTensorRecord& t) {
    if (!t.storage) throw FormatError("pt writer: tensor has no storage bytes");
    const std::size_t itemsize = dtype_itemsize(t.dtype);
    const std::string_view cls = storage_class_for(t.dtype);
    if (t.shape.size() != t.strides.size())
      throw FormatError("pt writer: tensor shape and strides differ in length");
    if (t.storage->size() % itemsize != 0)
      throw FormatError("pt writer: storage size is not a multiple of the element size");
    auto [it, inserted] = storage_index_.emplace(t.storage.get(), storages.size());
    if (inserted) storages.push_back(t.storage);

    global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    op('(');  // persistent id: ('storage', storage_type, key, location, numel)
    write(std::string("storage"));
    global("torch", cls);
    write(std::to_string(it->second));
    write(std::string("cpu"));
    write(int64_t(t.storage->size() / itemsize));
    op('t');
    op('Q');  // BINPERSID
    write(t.storage_offset);
    ints(t.shape);
    ints(t.strides);
    write(t.requires_grad);
    global("collections", "OrderedDict");  // backward hooks: always empty
    op(')');
    op('R');
    op('t');
    op('R');
  }
};

void write_archive(std::ostream& os, const PtValue& root) {
  PickleWriter pickler;
  pickler.out = "\x80\x02";  // PROTO 2
  pickler.value(root);
  pickler.out.push_back('.');
  detail::ZipWriter zip(os);
  zip.add("archive/data.pkl", pickler.out);
  zip.add("archive/byteorder", "little");
  for (std::size_t i = 0; i < pickler.storages.size(); ++i)
    zip.add("archive/data/" + std::to_string(i), *pickler.storages[i]);
  zip.add("archive/version", "3\n");
  zip.finish();
}

}  // namespace

std::string write_pt(const PtValue& root) {
  std::ostringstream os;
  write_archive(os, root);
  return std::move(os).str();
}

void write_pt_file(const std::filesystem::path& path, const PtValue& root) {
  detail::write_file_atomically(path, [&](std::ostream& os) { write_archive(os, root); });
}

}  // namespace tc::serialize
