#pragma once
// Reading PyTorch checkpoints written by torch.save (the zip-based format used since 1.6):
//   <prefix>/data.pkl     pickle of the saved object; tensors refer to storages by key
//   <prefix>/data/<key>   raw little-endian bytes of each storage (stored, uncompressed)
//   <prefix>/version, <prefix>/byteorder, ...
// The pickle is interpreted by a restricted unpickler that only understands the handful of
// globals torch.save emits for tensors and containers; anything else is a FormatError, so a
// malicious checkpoint can never run code. The result is a plain value tree (PtValue).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tensorcore/serialize/common.h"

namespace tc::serialize {

// A tensor as torch describes it: a strided view into a (possibly shared) storage.
struct PtTensorRecord {
  std::string dtype;  // safetensors-style: "F32", "I64", "BF16", "C64", "BOOL", ...
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  int64_t storage_offset = 0;    // in elements
  // Raw storage bytes (numel * itemsize). Tensors that share a storage in the checkpoint
  // (views, tied weights) share this pointer.
  std::shared_ptr<const std::string> storage;
  std::string storage_key;  // the archive's key for the storage ("0", "1", ...)
  std::string device;       // location it was saved from, e.g. "cpu", "cuda:0"
  bool requires_grad = false;

  int64_t numel() const;
  // True if shape/strides describe a dense row-major layout.
  bool is_contiguous() const;
};

struct PtValue;
struct PtList {
  std::vector<PtValue> items;
};
struct PtTuple {
  std::vector<PtValue> items;
};
// dict / OrderedDict, in insertion order. Keys are scalars or tuples of scalars (as Python
// requires hashable keys); state dicts use strings, optimizer state uses ints.
struct PtDict {
  std::vector<std::pair<PtValue, PtValue>> items;
};

struct PtValue {
  using Variant =
      std::variant<std::monostate,  // None
                   bool, int64_t, double, std::string, PtList, PtTuple, PtDict, PtTensorRecord>;
  Variant value;

  PtValue() = default;
  template <typename T, typename = std::enable_if_t<std::is_constructible_v<Variant, T&&>>>
  PtValue(T&& v) : value(std::forward<T>(v)) {}  // NOLINT(google-explicit-constructor)

  bool is_none() const { return std::holds_alternative<std::monostate>(value); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(value);
  }
  // Throws FormatError naming the expected and actual types on mismatch.
  template <typename T>
  const T& as() const;

  // For dicts: the value under string key `key`, or nullptr (also if not a dict).
  const PtValue* find(std::string_view key) const;
  // "None", "bool", "int", "float", "str", "list", "tuple", "dict", "tensor".
  std::string_view type_name() const;
};

// Options for read_pt / read_pt_file.
struct PtReadOptions {
  // Check each storage's CRC-32 (data.pkl is always checked). Costs about one extra pass
  // over the bytes; turn off for very large trusted checkpoints.
  bool verify_storage_crc = true;
};

// Parses a torch.save checkpoint from memory. Storages are copied out, so `bytes` need not
// outlive the result. Throws FormatError for corrupt/unsupported input, including the legacy
// (pre-1.6) non-zip format and TorchScript archives.
PtValue read_pt(std::string_view bytes, const PtReadOptions& options = {});
// Same, reading only the needed parts of the file. Throws IoError or FormatError.
PtValue read_pt_file(const std::filesystem::path& path, const PtReadOptions& options = {});

// Writes a value tree in torch.save's zip format (pickle protocol 2, one stored entry per
// storage), loadable by torch.load and read_pt. Tensors whose `storage` pointers are equal
// share one storage in the archive (views and tied weights stay shared); storage_key and
// device are ignored (storages are numbered in order, location "cpu"). Dicts are written as
// plain dicts. Throws FormatError for dtypes torch has no storage for (U16, U32, U64, F8_*)
// and for archives over 4 GiB.
std::string write_pt(const PtValue& root);
void write_pt_file(const std::filesystem::path& path, const PtValue& root);

// All tensors in a value tree with dotted paths built from dict keys and list/tuple indices,
// e.g. {"model": {"fc.weight": t}} -> ("model.fc.weight", t). Depth-first, in order.
std::vector<std::pair<std::string, const PtTensorRecord*>> collect_pt_tensors(const PtValue& root);

// ---- implementation of the small templates ----
namespace detail {
[[noreturn]] void throw_pt_type_error(std::string_view expected, std::string_view actual);
template <typename T>
constexpr std::string_view pt_type_name() {
  if constexpr (std::is_same_v<T, std::monostate>)
    return "None";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "int";
  else if constexpr (std::is_same_v<T, double>)
    return "float";
  else if constexpr (std::is_same_v<T, std::string>)
    return "str";
  else if constexpr (std::is_same_v<T, PtList>)
    return "list";
  else if constexpr (std::is_same_v<T, PtTuple>)
    return "tuple";
  else if constexpr (std::is_same_v<T, PtDict>)
    return "dict";
  else
    return "tensor";
}
}  // namespace detail

template <typename T>
const T& PtValue::as() const {
  if (const T* p = std::get_if<T>(&value)) return *p;
  detail::throw_pt_type_error(detail::pt_type_name<T>(), type_name());
}

}  // namespace tc::serialize
