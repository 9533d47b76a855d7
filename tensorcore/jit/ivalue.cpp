#include "tensorcore/jit/ivalue.h"

#include "tensorcore/core/error.h"

namespace tc::jit {

IValue::IValue(const Scalar& s) {
  if (s.is_bool()) {
    v_ = s.to<bool>();
  } else if (s.is_integral()) {
    v_ = s.to<int64_t>();
  } else {
    TC_CHECK_TYPE(!s.is_complex(), "jit: complex numbers are not graph constants");
    v_ = s.to<double>();
  }
}

IValue IValue::list(IValueList items) {
  IValue v;
  v.v_ = std::make_shared<const List>(List{std::move(items)});
  return v;
}
IValue IValue::tuple(IValueList items) {
  IValue v;
  v.v_ = std::make_shared<const Tuple>(Tuple{std::move(items)});
  return v;
}
IValue IValue::dict(IValueDict items) {
  IValue v;
  v.v_ = std::make_shared<const Dict>(Dict{std::move(items)});
  return v;
}
IValue IValue::tensors(const std::vector<Tensor>& ts) {
  IValueList items(ts.begin(), ts.end());
  return list(std::move(items));
}

const char* IValue::kind_name() const {
  static const char* names[] = {"None",   "bool", "int",   "float", "str",   "Tensor",  "dtype",
                                "device", "list", "tuple", "dict",  "slice", "Ellipsis"};
  return names[v_.index()];
}

namespace {
[[noreturn]] void wrong_kind(const IValue& v, const char* expected) {
  throw TypeError(detail::concat("expected ", expected, ", got ", v.kind_name()));
}
}  // namespace

bool IValue::to_bool() const {
  if (is_bool()) return std::get<bool>(v_);
  if (is_int()) return std::get<int64_t>(v_) != 0;
  wrong_kind(*this, "a bool");
}
int64_t IValue::to_int() const {
  if (is_int()) return std::get<int64_t>(v_);
  if (is_bool()) return std::get<bool>(v_);
  wrong_kind(*this, "an int");
}
double IValue::to_double() const {
  if (is_double()) return std::get<double>(v_);
  if (is_int()) return double(std::get<int64_t>(v_));
  if (is_bool()) return std::get<bool>(v_);
  wrong_kind(*this, "a float");
}
Scalar IValue::to_scalar() const {
  if (is_bool()) return Scalar(std::get<bool>(v_));
  if (is_int()) return Scalar(std::get<int64_t>(v_));
  if (is_double()) return Scalar(std::get<double>(v_));
  if (is_tensor() && to_tensor().numel() == 1) return to_tensor().item();
  wrong_kind(*this, "a number");
}
const std::string& IValue::to_string() const {
  if (!is_string()) wrong_kind(*this, "a str");
  return std::get<std::string>(v_);
}
const Tensor& IValue::to_tensor() const {
  if (!is_tensor()) wrong_kind(*this, "a Tensor");
  return std::get<Tensor>(v_);
}
DType IValue::to_dtype() const {
  if (!is_dtype()) wrong_kind(*this, "a dtype");
  return std::get<DType>(v_);
}
Device IValue::to_device() const {
  if (is_device()) return std::get<Device>(v_);
  if (is_string()) return Device(std::get<std::string>(v_));
  wrong_kind(*this, "a device");
}
const IValueList& IValue::items() const {
  if (is_list()) return std::get<std::shared_ptr<const List>>(v_)->items;
  if (is_tuple()) return std::get<std::shared_ptr<const Tuple>>(v_)->items;
  wrong_kind(*this, "a list or tuple");
}
const IValueDict& IValue::dict_items() const {
  if (!is_dict()) wrong_kind(*this, "a dict");
  return std::get<std::shared_ptr<const Dict>>(v_)->items;
}
const Slice& IValue::to_slice() const {
  if (!is_slice()) wrong_kind(*this, "a slice");
  return std::get<Slice>(v_);
}
std::vector<int64_t> IValue::to_ints() const {
  if (is_int()) return {std::get<int64_t>(v_)};
  if (!is_sequence()) wrong_kind(*this, "an int or a sequence of ints");
  std::vector<int64_t> out;
  for (const IValue& x : items()) {
    if (x.is_tensor() && x.to_tensor().numel() == 1) {
      out.push_back(x.to_tensor().item().to<int64_t>());
    } else {
      if (!x.is_int()) wrong_kind(x, "an int in the sequence");
      out.push_back(x.to_int());
    }
  }
  return out;
}
std::vector<Tensor> IValue::to_tensors() const {
  std::vector<Tensor> out;
  for (const IValue& x : items()) out.push_back(x.to_tensor());
  return out;
}

}  // namespace tc::jit
