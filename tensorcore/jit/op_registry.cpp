#include "tensorcore/jit/op_registry.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "tensorcore/core/error.h"
#include "tensorcore/ops/creation.h"

namespace tc::jit {
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, OpFn> ops;
};
Registry& registry() {
  static auto* r = new Registry();  // never destroyed: static initializers of other libs use it
  return *r;
}

}  // namespace

void register_op(const std::string& name, OpFn fn) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.ops[name] = std::move(fn);
}

const OpFn* find_op(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : &it->second;  // entries are never erased
}

std::vector<std::string> registered_ops() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& kv : r.ops) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

const IValue& OpArgs::operator[](size_t i) const {
  TC_CHECK_TYPE(i < values_.size(), op_, "(): expected at least ", i + 1, " arguments, got ",
                values_.size());
  return values_[i];
}

template <typename F>
auto OpArgs::convert(size_t i, const char* what, F&& f) const
    -> decltype(f(std::declval<IValue>())) {
  const IValue& v = (*this)[i];
  try {
    return f(v);
  } catch (const TypeError& e) {
    throw TypeError(
        detail::concat(op_, "(): argument ", i, " must be ", what, " (", e.what(), ")"));
  }
}

Tensor OpArgs::tensor(size_t i) const {
  return convert(i, "a Tensor", [](const IValue& v) { return v.to_tensor(); });
}
Tensor OpArgs::opt_tensor(size_t i) const {
  if (!has(i)) return Tensor();
  return tensor(i);
}
Tensor OpArgs::tensor_or_number(size_t i) const {
  return convert(i, "a Tensor or a number", [](const IValue& v) {
    if (v.is_tensor()) return v.to_tensor();
    return scalar_tensor(v.to_scalar(), {}, Device(), /*wrapped=*/true);
  });
}
Scalar OpArgs::scalar(size_t i) const {
  return convert(i, "a number", [](const IValue& v) { return v.to_scalar(); });
}
std::optional<Scalar> OpArgs::opt_scalar(size_t i) const {
  if (!has(i)) return std::nullopt;
  return scalar(i);
}
int64_t OpArgs::int_(size_t i) const {
  return convert(i, "an int", [](const IValue& v) { return v.to_int(); });
}
std::optional<int64_t> OpArgs::opt_int(size_t i) const {
  if (!has(i)) return std::nullopt;
  return int_(i);
}
double OpArgs::double_(size_t i) const {
  return convert(i, "a float", [](const IValue& v) { return v.to_double(); });
}
std::optional<double> OpArgs::opt_double(size_t i) const {
  if (!has(i)) return std::nullopt;
  return double_(i);
}
bool OpArgs::bool_(size_t i) const {
  return convert(i, "a bool", [](const IValue& v) { return v.to_bool(); });
}
std::string OpArgs::str(size_t i) const {
  return convert(i, "a str", [](const IValue& v) { return v.to_string(); });
}
std::vector<int64_t> OpArgs::ints(size_t i) const {
  return convert(i, "an int or a tuple of ints", [](const IValue& v) { return v.to_ints(); });
}
std::vector<int64_t> OpArgs::opt_ints(size_t i) const {
  if (!has(i)) return {};
  return ints(i);
}
std::vector<int64_t> OpArgs::shape(size_t i) const {
  return convert(i, "a shape", [](const IValue& v) {
    const IValueList& items = v.items();
    if (items.size() == 1 && !items[0].is_int()) return items[0].to_ints();
    return v.to_ints();
  });
}
std::optional<DType> OpArgs::opt_dtype(size_t i) const {
  if (!has(i)) return std::nullopt;
  return convert(i, "a dtype", [](const IValue& v) { return v.to_dtype(); });
}
std::vector<Tensor> OpArgs::tensors(size_t i) const {
  return convert(i, "a sequence of Tensors", [](const IValue& v) { return v.to_tensors(); });
}

std::pair<int64_t, int64_t> OpArgs::int_pair(size_t i) const {
  std::vector<int64_t> v = ints(i);
  TC_CHECK(v.size() == 2, op_, "(): argument ", i, " must be a pair of ints");
  return {v[0], v[1]};
}
std::vector<double> OpArgs::doubles(size_t i) const {
  return convert(i, "a sequence of numbers", [](const IValue& v) {
    std::vector<double> out;
    for (const IValue& x : v.items()) out.push_back(x.to_double());
    return out;
  });
}

}  // namespace tc::jit
