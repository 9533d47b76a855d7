#pragma once
// Shared pybind11 glue: type casters for Tensor (identity-preserving: the Python object for a
// TensorImpl is reused, so `x.grad is x.grad` and Parameter subclasses survive round trips),
// DType and Device (singleton Python objects), plus the registry each binding file adds to.
#include <pybind11/complex.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>

#include "tensorcore/tensorcore.h"

namespace py = pybind11;

namespace tc::python {

using TensorClass = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;

// Each area registers a function that adds its bindings: static Registrar r(bind_foo);
using BindFn = void (*)(py::module_& m, TensorClass& cls);
std::vector<BindFn>& registry();
struct Registrar {
  explicit Registrar(BindFn fn) { registry().push_back(fn); }
};

// A Python DType object (tensorcore.float32 ...).
struct DTypeObject {
  DType value;
};
struct DeviceObject {
  Device value;
};
py::object dtype_object(DType d);
py::object device_object(Device d);

// int / float / bool / complex / Tensor / numpy scalar -> Tensor (numbers become wrapped 0-dim).
Tensor to_tensor(py::handle obj, const char* op = "");
bool is_tensor(py::handle obj);
Scalar to_scalar(py::handle obj, const char* op = "");
// None -> {}, int -> {i}, sequence -> list.
DimList to_dims(py::handle obj);
Shape to_shape(py::args args);  // f(2, 3) or f((2, 3)) or f([2, 3])
// Optional size / ratio arguments of the nn bindings (torch's `int or tuple`, `float or
// tuple`): None -> {}, a number -> {v}, a sequence -> its values; a string is `op`'s TypeError
// naming `what`.
inline std::vector<int64_t> opt_int_list(const py::object& o, const char* op, const char* what) {
  if (o.is_none()) return {};
  TC_CHECK_TYPE(!py::isinstance<py::str>(o), op, ": ", what, " must be an int or a tuple of ints");
  DimList d = to_dims(o);
  return std::vector<int64_t>(d.begin(), d.end());
}
inline std::vector<double> opt_double_list(const py::object& o, const char* op, const char* what) {
  if (o.is_none()) return {};
  if (py::isinstance<py::float_>(o) || py::isinstance<py::int_>(o)) return {o.cast<double>()};
  TC_CHECK_TYPE(py::isinstance<py::sequence>(o) && !py::isinstance<py::str>(o), op, ": ", what,
                " must be a float or a tuple of floats");
  std::vector<double> out;
  for (py::handle item : o) out.push_back(item.cast<double>());
  return out;
}
py::object scalar_to_py(const Scalar& s);

// Binds fn both as tc.name(input, ...) and as Tensor.name(...). `extra` annotates the
// arguments after the tensor (the function form names the first one "input").
template <typename Fn>
struct unary_fn : std::false_type {};
template <typename R, typename A>
struct unary_fn<R(A)> : std::true_type {};

template <typename Fn, typename... Extra>
void def_fn_and_method(py::module_& m, TensorClass& cls, const char* name, Fn&& fn,
                       const Extra&... extra) {
  if constexpr (sizeof...(Extra) == 0) {
    // A one-tensor op: tc.exp(input=x) works as in torch (and the docs name it `input`).
    if constexpr (unary_fn<pybind11::detail::function_signature_t<std::decay_t<Fn>>>::value)
      m.def(name, fn, py::arg("input"));
    else
      m.def(name, fn);
  } else {
    m.def(name, fn, py::arg("input"), extra...);
  }
  cls.def(name, fn, extra...);
}

}  // namespace tc::python

namespace pybind11::detail {

template <>
struct type_caster<tc::Tensor> {
  PYBIND11_TYPE_CASTER(tc::Tensor, const_name("Tensor"));
  bool load(handle src, bool convert) {
    copyable_holder_caster<tc::TensorImpl, std::shared_ptr<tc::TensorImpl>> inner;
    if (src.is_none()) {
      value = tc::Tensor();
      return true;
    }
    if (!inner.load(src, convert)) return false;
    value = tc::Tensor(static_cast<std::shared_ptr<tc::TensorImpl>>(inner));
    return true;
  }
  static handle cast(const tc::Tensor& t, return_value_policy, handle) {
    if (!t.defined()) return none().release();
    return copyable_holder_caster<tc::TensorImpl, std::shared_ptr<tc::TensorImpl>>::cast(
        t.impl_ptr(), return_value_policy::take_ownership, handle());
  }
};

template <>
struct type_caster<tc::DType> {
  PYBIND11_TYPE_CASTER(tc::DType, const_name("dtype"));
  bool load(handle src, bool);
  static handle cast(tc::DType d, return_value_policy, handle) {
    return tc::python::dtype_object(d).release();
  }
};

template <>
struct type_caster<tc::Device> {
  PYBIND11_TYPE_CASTER(tc::Device, const_name("device"));
  bool load(handle src, bool);
  static handle cast(const tc::Device& d, return_value_policy, handle) {
    return tc::python::device_object(d).release();
  }
};

template <>
struct type_caster<tc::Scalar> {
  PYBIND11_TYPE_CASTER(tc::Scalar, const_name("Number"));
  bool load(handle src, bool);
  static handle cast(const tc::Scalar& s, return_value_policy, handle) {
    return tc::python::scalar_to_py(s).release();
  }
};

}  // namespace pybind11::detail
