#pragma once
// Shared between the tensorcore._C._nncpp binding files (nncpp.cpp: the module class, containers
// and the first layers; nncpp_layers.cpp: the other layers): the per-type forward tables.
#include <functional>
#include <typeindex>
#include <unordered_map>

#include "bind.h"
#include "tensorcore/nn/nn.h"

namespace tc::python {

namespace nn = tc::nn;

// Tensor -> Tensor modules (callable with one tensor and usable in a Sequential built from Python).
using UnaryTable = std::unordered_map<std::type_index, nn::AnyModule::ErasedForward>;
UnaryTable& unary_table();
// Modules whose forward takes other arguments (the Python positional arguments).
using Forward = std::function<py::object(nn::Module&, const py::args&)>;
using ForwardTable = std::unordered_map<std::type_index, Forward>;
ForwardTable& forwards();

template <typename Impl>
Tensor call_unary(nn::Module& m, const Tensor& x) {
  return nn::call(static_cast<Impl&>(m), x);
}
template <typename Impl>
void add_unary() {
  unary_table()[std::type_index(typeid(Impl))] = call_unary<Impl>;
}

inline Tensor arg_tensor(const py::args& a, size_t i) {
  return i < a.size() && !a[i].is_none() ? a[i].cast<Tensor>() : Tensor();
}

// tensorcore.nn.utils.rnn.PackedSequence <-> tc::nn::PackedSequence (same four fields).
inline bool is_packed(py::handle h) {
  return py::hasattr(h, "batch_sizes") && py::hasattr(h, "data");
}
inline nn::PackedSequence to_packed(py::handle h) {
  return {h.attr("data").cast<Tensor>(), h.attr("batch_sizes").cast<Tensor>(),
          h.attr("sorted_indices").cast<Tensor>(), h.attr("unsorted_indices").cast<Tensor>()};
}
inline py::object from_packed(const nn::PackedSequence& p) {
  py::object cls = py::module_::import("tensorcore.nn.utils.rnn").attr("PackedSequence");
  return cls(p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices);
}

}  // namespace tc::python
