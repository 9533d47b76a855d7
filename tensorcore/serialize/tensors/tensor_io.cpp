#include "tensorcore/serialize/tensors/tensor_io.h"

#include <array>
#include <cstring>
#include <fstream>

#include "tensorcore/core/error.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/serialize/common.h"

namespace tc::serialize {
namespace {

constexpr std::array<std::pair<DType, const char*>, 13> kCodes{{
    {DType::Bool, "BOOL"},
    {DType::UInt8, "U8"},
    {DType::Int8, "I8"},
    {DType::Int16, "I16"},
    {DType::UInt16, "U16"},
    {DType::Int32, "I32"},
    {DType::Int64, "I64"},
    {DType::Float16, "F16"},
    {DType::BFloat16, "BF16"},
    {DType::Float32, "F32"},
    {DType::Float64, "F64"},
    {DType::Complex64, "C64"},
    {DType::Complex128, "C128"},
}};

Tensor on_cpu(const Tensor& t) { return t.is_cpu() ? t : to_device(t, Device(DeviceType::CPU)); }

}  // namespace

std::string dtype_code(DType dtype) {
  for (const auto& [dt, code] : kCodes)
    if (dt == dtype) return code;
  throw ValueError(std::string("serialize: no file dtype code for ") + dtype_name(dtype));
}

DType dtype_from_code(const std::string& code) {
  for (const auto& [dt, c] : kCodes)
    if (code == c) return dt;
  throw ValueError("serialize: the file's dtype " + detail::quote_for_message(code) +
                   " has no tensorcore equivalent");
}

PtTensorRecord PtRecordMaker::make(const Tensor& t_in) {
  if (t_in.dtype() == DType::UInt16)
    throw ValueError(
        "save: uint16 tensors cannot be stored in the .pt format (torch has no uint16 "
        "storage); convert to int32 or use save_safetensors");
  const Tensor t = on_cpu(t_in);
  PtTensorRecord r;
  r.dtype = dtype_code(t.dtype());
  r.shape = t.sizes();
  r.strides = t.strides();
  r.storage_offset = t.storage_offset();
  r.requires_grad = t_in.requires_grad();
  r.device = "cpu";
  const StorageImpl* s = t.storage().get();
  auto it = bytes_of_.find(s);
  if (it == bytes_of_.end()) {
    auto bytes = std::make_shared<std::string>(s->nbytes, '\0');
    if (s->nbytes) std::memcpy(bytes->data(), s->data(), s->nbytes);
    it = bytes_of_.emplace(s, std::move(bytes)).first;
  }
  r.storage = it->second;
  return r;
}

Tensor TensorMaker::make(const PtTensorRecord& r) {
  const DType dt = dtype_from_code(r.dtype);
  auto it = storage_of_.find(r.storage.get());
  if (it == storage_of_.end()) {
    // The reader created the buffer as a non-const string, and this Storage keeps it alive,
    // so writing through the tensor is sound.
    std::shared_ptr<const std::string> keep = r.storage;
    auto* data = const_cast<char*>(keep->data());
    Storage st = storage_from_blob(data, keep->size(), Device(DeviceType::CPU), [keep] {});
    it = storage_of_.emplace(r.storage.get(), std::move(st)).first;
  }
  Tensor t = make_tensor(it->second, r.shape, r.strides, r.storage_offset, dt);
  if (r.requires_grad && (is_floating(dt) || is_complex(dt))) t.requires_grad_(true);
  return t;
}

void save(const NamedTensors& tensors, const std::filesystem::path& path) {
  PtRecordMaker maker;
  PtDict dict;
  for (const auto& [name, t] : tensors) dict.items.emplace_back(name, maker.make(t));
  write_pt_file(path, PtValue(std::move(dict)));
}

NamedTensors load(const std::filesystem::path& path) {
  char magic[4] = {};
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("load: cannot open " + path.string());
    in.read(magic, 4);
  }
  if (std::memcmp(magic, "PK\x03\x04", 4) != 0) return load_safetensors(path);
  const PtValue root = read_pt_file(path);
  TensorMaker maker;
  NamedTensors out;
  for (const auto& [name, rec] : collect_pt_tensors(root)) out.emplace_back(name, maker.make(*rec));
  return out;
}

namespace {
// Contiguous CPU copies (kept alive while the bytes are written) and their raw views.
struct DenseTensors {
  std::vector<Tensor> keep;
  NamedRawTensors raw;
  explicit DenseTensors(const NamedTensors& tensors) {
    keep.reserve(tensors.size());
    for (const auto& [name, t] : tensors) {
      keep.push_back(contiguous(on_cpu(t)));
      const Tensor& d = keep.back();
      raw.emplace_back(
          name, RawTensor{dtype_code(d.dtype()), d.sizes(),
                          std::string_view(static_cast<const char*>(d.data_ptr()), d.nbytes())});
    }
  }
};
}  // namespace

void save_safetensors(const NamedTensors& tensors, const std::filesystem::path& path,
                      const std::map<std::string, std::string>& metadata) {
  write_safetensors_file(path, DenseTensors(tensors).raw, metadata);
}

std::string safetensors_bytes(const NamedTensors& tensors,
                              const std::map<std::string, std::string>& metadata) {
  return write_safetensors(DenseTensors(tensors).raw, metadata);
}

NamedTensors load_safetensors(const std::filesystem::path& path) {
  return tensors_from_safetensors(read_safetensors_file(path));
}

NamedTensors tensors_from_safetensors(const SafetensorsFile& file, bool share_buffer) {
  NamedTensors out;
  for (const auto& [name, raw] : file.tensors) {
    const DType dt = dtype_from_code(raw.dtype);
    Shape strides(raw.shape.size());
    int64_t stride = 1;
    for (std::size_t i = raw.shape.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= raw.shape[i];
    }
    // The file buffer has no alignment guarantee for each tensor: share it only where aligned.
    const auto addr = reinterpret_cast<uintptr_t>(raw.bytes.data());
    Storage st;
    if (share_buffer && file.buffer && !raw.bytes.empty() && addr % itemsize(dt) == 0) {
      std::shared_ptr<const std::string> keep = file.buffer;
      st = storage_from_blob(const_cast<char*>(raw.bytes.data()), raw.bytes.size(),
                             Device(DeviceType::CPU), [keep] {});
    } else {
      st = make_storage(raw.bytes.size(), Device(DeviceType::CPU));
      if (!raw.bytes.empty()) std::memcpy(st->data(), raw.bytes.data(), raw.bytes.size());
    }
    out.emplace_back(name, make_tensor(st, raw.shape, strides, 0, dt));
  }
  return out;
}

}  // namespace tc::serialize
