#pragma once
// The values a traced graph passes between ops, as torch::jit::IValue: None, bool, int, float,
// string, Tensor, dtype, device, lists, tuples, string-keyed dicts, and the slice/Ellipsis
// objects of indexing. Lists and tuples share their elements (cheap copies).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tensorcore/core/device.h"
#include "tensorcore/core/dtype.h"
#include "tensorcore/core/scalar.h"
#include "tensorcore/core/tensor.h"

namespace tc::jit {

class IValue;
using IValueList = std::vector<IValue>;
using IValueDict = std::vector<std::pair<std::string, IValue>>;  // insertion order kept

struct None {};
struct Ellipsis {};
struct Slice {
  std::optional<int64_t> start, stop, step;
};
struct List {
  IValueList items;
};
struct Tuple {
  IValueList items;
};
struct Dict {
  IValueDict items;
};

class IValue {
 public:
  using Storage = std::variant<None, bool, int64_t, double, std::string, Tensor, DType, Device,
                               std::shared_ptr<const List>, std::shared_ptr<const Tuple>,
                               std::shared_ptr<const Dict>, Slice, Ellipsis>;

  IValue() : v_(None{}) {}
  IValue(None) : v_(None{}) {}
  IValue(bool b) : v_(b) {}
  IValue(int v) : v_(int64_t(v)) {}
  IValue(int64_t v) : v_(v) {}
  IValue(double v) : v_(v) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(const char* s) : v_(std::string(s)) {}
  IValue(Tensor t) : v_(std::move(t)) {}
  IValue(DType d) : v_(d) {}
  IValue(Device d) : v_(d) {}
  IValue(Slice s) : v_(s) {}
  IValue(Ellipsis e) : v_(e) {}
  IValue(const Scalar& s);
  static IValue list(IValueList items);
  static IValue tuple(IValueList items);
  static IValue dict(IValueDict items);
  static IValue tensors(const std::vector<Tensor>& ts);  // a list of tensors

  bool is_none() const { return std::holds_alternative<None>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_number() const { return is_bool() || is_int() || is_double(); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_dtype() const { return std::holds_alternative<DType>(v_); }
  bool is_device() const { return std::holds_alternative<Device>(v_); }
  bool is_list() const { return std::holds_alternative<std::shared_ptr<const List>>(v_); }
  bool is_tuple() const { return std::holds_alternative<std::shared_ptr<const Tuple>>(v_); }
  bool is_sequence() const { return is_list() || is_tuple(); }
  bool is_dict() const { return std::holds_alternative<std::shared_ptr<const Dict>>(v_); }
  bool is_slice() const { return std::holds_alternative<Slice>(v_); }
  bool is_ellipsis() const { return std::holds_alternative<Ellipsis>(v_); }

  // Accessors throw tc::TypeError naming the expected and actual kinds.
  bool to_bool() const;
  int64_t to_int() const;    // bool or int
  double to_double() const;  // bool, int or float
  Scalar to_scalar() const;  // any number, or a one-element tensor
  const std::string& to_string() const;
  const Tensor& to_tensor() const;
  DType to_dtype() const;
  Device to_device() const;
  const IValueList& items() const;  // list or tuple
  const IValueDict& dict_items() const;
  const Slice& to_slice() const;
  std::vector<int64_t> to_ints() const;  // an int, or a list/tuple of ints
  std::vector<Tensor> to_tensors() const;

  const char* kind_name() const;  // "int", "Tensor", "list", ...
  const Storage& storage() const { return v_; }

 private:
  Storage v_;
};

}  // namespace tc::jit
