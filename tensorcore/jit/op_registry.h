#pragma once
// The boxed op registry the graph runtime calls: op name -> adapter that unpacks IValues and
// calls the same C++ function the eager path (and its Python binding) calls. An op's name is the
// binding it was traced through ("_C.add", "Tensor.add_", "_C._nn.conv2d"), so the tracer and
// the runtime agree by construction; tests check every registered name against the bindings.
//
// Each library registers its own ops from a static initializer (core in tensorcore/jit/ops_*.cpp,
// io/vision/audio in their own jit_ops.cpp), so linking a library makes its ops available.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/jit/ivalue.h"

namespace tc::jit {

// The arguments of one call. Accessors convert like the Python bindings do (a number where a
// tensor is expected becomes a wrapped 0-d tensor; an int stands for a one-element int list)
// and throw tc::TypeError naming the argument position on a mismatch.
class OpArgs {
 public:
  OpArgs(const std::string& op, const IValueList& values) : op_(op), values_(values) {}
  size_t size() const { return values_.size(); }
  bool has(size_t i) const { return i < values_.size() && !values_[i].is_none(); }
  const IValue& operator[](size_t i) const;

  Tensor tensor(size_t i) const;
  Tensor opt_tensor(size_t i) const;        // None -> undefined tensor
  Tensor tensor_or_number(size_t i) const;  // number -> wrapped 0-d tensor (Python's rule)
  Scalar scalar(size_t i) const;
  std::optional<Scalar> opt_scalar(size_t i) const;
  int64_t int_(size_t i) const;
  std::optional<int64_t> opt_int(size_t i) const;
  double double_(size_t i) const;
  std::optional<double> opt_double(size_t i) const;
  bool bool_(size_t i) const;
  std::string str(size_t i) const;
  std::vector<int64_t> ints(size_t i) const;      // int or sequence of ints
  std::vector<int64_t> opt_ints(size_t i) const;  // None -> {}
  // A `*size` argument recorded as a tuple: f(2, 3) or f((2, 3)).
  std::vector<int64_t> shape(size_t i) const;
  std::optional<DType> opt_dtype(size_t i) const;
  std::vector<Tensor> tensors(size_t i) const;
  std::pair<int64_t, int64_t> int_pair(size_t i) const;  // exactly two ints
  std::vector<double> doubles(size_t i) const;           // a sequence of numbers

  const std::string& op() const { return op_; }

 private:
  template <typename F>
  auto convert(size_t i, const char* what, F&& f) const -> decltype(f(std::declval<IValue>()));
  const std::string& op_;
  const IValueList& values_;
};

using OpFn = std::function<IValue(const OpArgs&)>;

void register_op(const std::string& name, OpFn fn);
// Null when no library linked into the process registered `name`.
const OpFn* find_op(const std::string& name);
std::vector<std::string> registered_ops();

// Registers a batch of ops at load time: static OpRegistrar r({{"_C.add", fn}, ...});
struct OpRegistrar {
  OpRegistrar(std::initializer_list<std::pair<const char*, OpFn>> ops) {
    for (const auto& [name, fn] : ops) register_op(name, fn);
  }
};

}  // namespace tc::jit
