// Tensor.__getitem__ / __setitem__ (parsed here into tc::IndexList; the semantics live in
// tensorcore/ops/indexing.cpp) and the index ops: index_select, gather, scatter*, index_*,
// masked_*, nonzero, take.
#include <limits>

#include "bind.h"
#include "mem_overlap.h"

namespace tc::python {
namespace {

std::optional<int64_t> slice_part(PyObject* o) {
  if (o == Py_None) return std::nullopt;
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
      return overflow > 0 ? std::numeric_limits<int64_t>::max()
                          : std::numeric_limits<int64_t>::min();
    return int64_t(v);
  }
  py::handle h(o);
  if (is_tensor(h) || PyIndex_Check(o))
    return py::int_(py::reinterpret_borrow<py::object>(h)).cast<int64_t>();
  throw TypeError("slice indices must be integers or None or have an __index__ method");
}

Tensor seq_to_tensor(py::handle obj) {
  static py::object as_tensor = py::module_::import("tensorcore").attr("as_tensor");
  Tensor t = as_tensor(obj).cast<Tensor>();
  if (t.numel() == 0 && !is_integral(t.dtype(), true)) t = to_dtype(t, DType::Int64);
  return t;
}

[[noreturn]] void bad_index(py::handle obj) {
  throw IndexError(
      detail::concat("only integers, slices (`:`), ellipsis (`...`), None and long "
                     "or byte Variables are valid indices (got ",
                     std::string(py::str(obj.get_type().attr("__name__"))), ")"));
}

TensorIndex to_index(py::handle obj) {
  PyObject* p = obj.ptr();
  if (p == Py_None) return None;
  if (p == Py_Ellipsis) return Ellipsis;
  if (PyBool_Check(p)) return p == Py_True;
  if (PyLong_Check(p)) return *slice_part(p);
  if (PySlice_Check(p)) {
    auto* s = reinterpret_cast<PySliceObject*>(p);
    return Slice(slice_part(s->start), slice_part(s->stop), slice_part(s->step));
  }
  if (is_tensor(obj)) {
    Tensor t = obj.cast<Tensor>();
    // A 0-dim integer tensor indexes like a Python int (a view), as in torch.
    if (t.dim() == 0 && is_integral(t.dtype()) && !t.requires_grad()) return t.item().to_int();
    return t;
  }
  if (py::hasattr(obj, "dtype") && !PySequence_Check(p)) {  // NumPy scalar
    std::string kind = py::str(obj.attr("dtype").attr("kind"));
    if (kind == "b") return obj.attr("item")().cast<bool>();
    if (kind == "i" || kind == "u") return obj.attr("item")().cast<int64_t>();
    bad_index(obj);
  }
  if (PySequence_Check(p) && !PyUnicode_Check(p)) return seq_to_tensor(obj);
  bad_index(obj);
}

// torch's treatSequenceAsTuple: a short list holding tensors/sequences/slices/None/... is a tuple.
bool sequence_as_tuple(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyTuple_Check(p)) return true;
  if (is_tensor(obj) || !PyList_Check(p)) return false;
  Py_ssize_t n = PyList_GET_SIZE(p);
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyList_GET_ITEM(p, i);
    py::handle h(it);
    if (is_tensor(h) || (PySequence_Check(it) && !PyUnicode_Check(it)) || PySlice_Check(it) ||
        it == Py_Ellipsis || it == Py_None)
      return true;
  }
  return false;
}

IndexList to_index_list(py::handle obj) {
  IndexList out;
  if (sequence_as_tuple(obj)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    out.reserve(seq.size());
    for (auto it : seq) out.push_back(to_index(it));
  } else {
    out.push_back(to_index(obj));
  }
  return out;
}

Tensor value_tensor(const Tensor& self, py::handle value) {
  if (is_tensor(value)) return value.cast<Tensor>();
  if (PySequence_Check(value.ptr()) || py::hasattr(value, "__array__")) {
    static py::object tensor_fn = py::module_::import("tensorcore").attr("tensor");
    return tensor_fn(value, py::arg("dtype") = dtype_object(self.dtype())).cast<Tensor>();
  }
  return scalar_tensor(to_scalar(value, "__setitem__"), self.dtype(), self.device());
}

Tensor getitem(const Tensor& self, py::handle idx) {
  PyObject* p = idx.ptr();
  if (PyLong_Check(p) && !PyBool_Check(p)) {  // fast paths
    TC_CHECK_INDEX(self.dim() > 0,
                   "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                   "Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    return select(self, 0, *slice_part(p));
  }
  if (PySlice_Check(p) && self.dim() > 0) {
    auto* s = reinterpret_cast<PySliceObject*>(p);
    int64_t step = slice_part(s->step).value_or(1);
    TC_CHECK(step > 0, "step must be greater than zero");
    return slice(self, 0, slice_part(s->start).value_or(0),
                 slice_part(s->stop).value_or(std::numeric_limits<int64_t>::max()), step);
  }
  return index(self, to_index_list(idx));
}

// torch 1.13 on an expanded `self`: a basic index (ints, slices, ...) whose target still has
// aliasing elements accepts a number or 0-dim value (a fill) but raises for a tensor value (a
// copy_, applied once per alias); an advanced index warns (index_put_). Only reached when `self`
// overlaps itself, so the common __setitem__ pays one stride scan.
void check_setitem_overlap(const Tensor& self, py::handle idx, const Tensor& value) {
  Tensor target = getitem(self, idx);
  if (target.storage().get() != self.storage().get()) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "Use of index_put_ on expanded tensors is deprecated. Please clone() the "
                     "tensor before performing this operation. This also applies to advanced "
                     "indexing e.g. tensor[mask] = scalar",
                     1) < 0)
      throw py::error_already_set();
    return;
  }
  TC_CHECK_AS(Error, value.dim() == 0 || !has_internal_overlap(target),
              "__setitem__: ", kInternalOverlapMessage);
}

TensorList tensor_list(py::handle seq) {
  TensorList out;
  for (auto it : seq) out.push_back(it.is_none() ? Tensor() : it.cast<Tensor>());
  return out;
}

void bind_indexing(py::module_& m, TensorClass& cls) {
  cls.def("__getitem__", &getitem);
  cls.def("__setitem__", [](Tensor& self, py::handle idx, py::handle value) {
    Tensor v = value_tensor(self, idx.ptr() == nullptr ? value : value);
    if (has_internal_overlap(self)) check_setitem_overlap(self, idx, v);
    index_put_(self, to_index_list(idx), v);
  });

  def_fn_and_method(
      m, cls, "index_select",
      [](const Tensor& a, int64_t dim, const Tensor& index) { return index_select(a, dim, index); },
      py::arg("dim"), py::arg("index"));
  def_fn_and_method(
      m, cls, "gather",
      [](const Tensor& a, int64_t dim, const Tensor& index, bool) { return gather(a, dim, index); },
      py::arg("dim"), py::arg("index"), py::kw_only(), py::arg("sparse_grad") = false);

  auto scatter_fn = [](const Tensor& a, int64_t dim, const Tensor& index, py::object src,
                       py::object value, std::optional<std::string> reduce) {
    py::object s = src.is_none() ? value : src;
    TC_CHECK_TYPE(!s.is_none(), "scatter(): expected src or value");
    if (is_tensor(s)) return scatter(a, dim, index, s.cast<Tensor>(), reduce.value_or(""));
    return scatter(a, dim, index, to_scalar(s, "scatter"), reduce.value_or(""));
  };
  def_fn_and_method(m, cls, "scatter", scatter_fn, py::arg("dim"), py::arg("index"),
                    py::arg("src") = py::none(), py::kw_only(), py::arg("value") = py::none(),
                    py::arg("reduce") = py::none());
  cls.def(
      "scatter_",
      [](Tensor& a, int64_t dim, const Tensor& index, py::object src, py::object value,
         std::optional<std::string> reduce) -> Tensor& {
        py::object s = src.is_none() ? value : src;
        TC_CHECK_TYPE(!s.is_none(), "scatter_(): expected src or value");
        if (is_tensor(s)) return scatter_(a, dim, index, s.cast<Tensor>(), reduce.value_or(""));
        return scatter_(a, dim, index, to_scalar(s, "scatter_"), reduce.value_or(""));
      },
      py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(),
      py::arg("value") = py::none(), py::arg("reduce") = py::none());
  def_fn_and_method(
      m, cls, "scatter_add",
      [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) {
        return scatter_add(a, dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def(
      "scatter_add_",
      [](Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) -> Tensor& {
        return scatter_add_(a, dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  def_fn_and_method(
      m, cls, "scatter_reduce",
      [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src,
         const std::string& reduce,
         bool include_self) { return scatter_reduce(a, dim, index, src, reduce, include_self); },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);
  cls.def(
      "scatter_reduce_",
      [](Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
         bool include_self) -> Tensor& {
        return scatter_reduce_(a, dim, index, src, reduce, include_self);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);
  def_fn_and_method(
      m, cls, "index_add",
      [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source,
         py::object alpha) {
        return index_add(a, dim, index, source, to_scalar(alpha, "index_add"));
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  cls.def(
      "index_add_",
      [](Tensor& a, int64_t dim, const Tensor& index, const Tensor& source, py::object alpha)
          -> Tensor& { return index_add_(a, dim, index, source, to_scalar(alpha, "index_add_")); },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  def_fn_and_method(
      m, cls, "index_copy",
      [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source) {
        return index_copy(a, dim, index, source);
      },
      py::arg("dim"), py::arg("index"), py::arg("source"));
  cls.def(
      "index_copy_",
      [](Tensor& a, int64_t dim, const Tensor& index, const Tensor& source) -> Tensor& {
        return index_copy_(a, dim, index, source);
      },
      py::arg("dim"), py::arg("index"), py::arg("source"));
  def_fn_and_method(
      m, cls, "index_fill",
      [](const Tensor& a, int64_t dim, const Tensor& index, py::object value) {
        return index_fill(a, dim, index, to_scalar(value, "index_fill"));
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));
  cls.def(
      "index_fill_",
      [](Tensor& a, int64_t dim, const Tensor& index, py::object value) -> Tensor& {
        return index_fill_(a, dim, index, to_scalar(value, "index_fill_"));
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));
  def_fn_and_method(
      m, cls, "index_put",
      [](const Tensor& a, py::object indices, const Tensor& values, bool acc) {
        return advanced_index_put(a, tensor_list(indices), values, acc);
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  cls.def(
      "index_put_",
      [](Tensor& a, py::object indices, const Tensor& values, bool acc) -> Tensor& {
        return advanced_index_put_(a, tensor_list(indices), values, acc);
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);

  def_fn_and_method(
      m, cls, "masked_fill",
      [](const Tensor& a, const Tensor& mask, py::object value) {
        if (is_tensor(value)) return masked_fill(a, mask, value.cast<Tensor>());
        return masked_fill(a, mask, to_scalar(value, "masked_fill"));
      },
      py::arg("mask"), py::arg("value"));
  cls.def(
      "masked_fill_",
      [](Tensor& a, const Tensor& mask, py::object value) -> Tensor& {
        if (is_tensor(value)) return masked_fill_(a, mask, value.cast<Tensor>());
        return masked_fill_(a, mask, to_scalar(value, "masked_fill_"));
      },
      py::arg("mask"), py::arg("value"));
  def_fn_and_method(
      m, cls, "masked_select",
      [](const Tensor& a, const Tensor& mask) { return masked_select(a, mask); }, py::arg("mask"));
  def_fn_and_method(
      m, cls, "masked_scatter",
      [](const Tensor& a, const Tensor& mask, const Tensor& src) {
        return masked_scatter(a, mask, src);
      },
      py::arg("mask"), py::arg("source"));
  def_fn_and_method(
      m, cls, "nonzero",
      [](const Tensor& a, bool as_tuple) -> py::object {
        if (as_tuple) return py::tuple(py::cast(nonzero_tuple(a)));
        return py::cast(nonzero(a));
      },
      py::kw_only(), py::arg("as_tuple") = false);
  def_fn_and_method(m, cls, "argwhere", [](const Tensor& a) { return argwhere(a); });
  def_fn_and_method(
      m, cls, "take", [](const Tensor& a, const Tensor& index) { return take(a, index); },
      py::arg("index"));
  def_fn_and_method(
      m, cls, "take_along_dim",
      [](const Tensor& a, const Tensor& indices, std::optional<int64_t> dim) {
        return take_along_dim(a, indices, dim);
      },
      py::arg("indices"), py::arg("dim") = py::none());
}

Registrar registrar(bind_indexing);

}  // namespace
}  // namespace tc::python
