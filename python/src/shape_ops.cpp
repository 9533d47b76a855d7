// Bindings for joining/splitting/rearranging ops: cat, stack, split, chunk, flip, roll, repeat,
// tile, movedim, diagonal, tril/triu, unflatten, squeeze(tuple).
#include "bind.h"

namespace tc::python {
namespace {

py::tuple to_tuple(const TensorList& ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) out[i] = py::cast(ts[i]);
  return out;
}

TensorList tensors_arg(py::handle seq, const char* op) {
  TC_CHECK_TYPE(!is_tensor(seq) && PySequence_Check(seq.ptr()), op,
                "(): argument 'tensors' must be a tuple or list of Tensors");
  TensorList out;
  for (auto it : seq) {
    TC_CHECK_TYPE(is_tensor(it), op, "(): expected Tensor as element ", out.size(),
                  " in argument 'tensors', but got ",
                  std::string(py::str(it.get_type().attr("__name__"))));
    out.push_back(it.cast<Tensor>());
  }
  return out;
}

Shape dims_from_args(py::args args) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return to_dims(args[0]);
  Shape s;
  for (auto d : args) s.push_back(d.cast<int64_t>());
  return s;
}

void bind_shape_ops(py::module_& m, TensorClass& cls) {
  auto cat_fn = [](py::handle tensors, int64_t dim) {
    return cat(tensors_arg(tensors, "cat"), dim);
  };
  m.def("cat", cat_fn, py::arg("tensors"), py::arg("dim") = 0);
  m.def("concat", cat_fn, py::arg("tensors"), py::arg("dim") = 0);
  m.def("concatenate", cat_fn, py::arg("tensors"), py::arg("axis") = 0);
  m.def(
      "stack",
      [](py::handle tensors, int64_t dim) { return stack(tensors_arg(tensors, "stack"), dim); },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "hstack", [](py::handle tensors) { return hstack(tensors_arg(tensors, "hstack")); },
      py::arg("tensors"));
  m.def(
      "vstack", [](py::handle tensors) { return vstack(tensors_arg(tensors, "vstack")); },
      py::arg("tensors"));
  m.def(
      "atleast_1d", [](const Tensor& a) { return atleast_1d(a); }, py::arg("input"));
  m.def(
      "atleast_2d", [](const Tensor& a) { return atleast_2d(a); }, py::arg("input"));

  auto split_fn = [](const Tensor& a, py::object split, int64_t dim) {
    if (PyLong_Check(split.ptr())) return to_tuple(tc::split(a, split.cast<int64_t>(), dim));
    return to_tuple(split_with_sizes(a, to_dims(split), dim));
  };
  // torch names the argument split_size_or_sections in tc.split and split_size in Tensor.split.
  m.def("split", split_fn, py::arg("tensor"), py::arg("split_size_or_sections"),
        py::arg("dim") = 0);
  cls.def("split", split_fn, py::arg("split_size"), py::arg("dim") = 0);
  def_fn_and_method(
      m, cls, "split_with_sizes",
      [](const Tensor& a, const Shape& sizes, int64_t dim) {
        return to_tuple(split_with_sizes(a, sizes, dim));
      },
      py::arg("split_sizes"), py::arg("dim") = 0);
  def_fn_and_method(
      m, cls, "chunk",
      [](const Tensor& a, int64_t chunks, int64_t dim) { return to_tuple(chunk(a, chunks, dim)); },
      py::arg("chunks"), py::arg("dim") = 0);
  def_fn_and_method(
      m, cls, "unbind", [](const Tensor& a, int64_t dim) { return to_tuple(unbind(a, dim)); },
      py::arg("dim") = 0);

  cls.def("flip", [](const Tensor& a, py::args dims) { return flip(a, dims_from_args(dims)); });
  cls.def(
      "flip", [](const Tensor& a, py::object dims) { return flip(a, to_dims(dims)); },
      py::arg("dims"));
  m.def(
      "flip", [](const Tensor& a, py::object dims) { return flip(a, to_dims(dims)); },
      py::arg("input"), py::arg("dims"));
  def_fn_and_method(m, cls, "fliplr", [](const Tensor& a) { return fliplr(a); });
  def_fn_and_method(m, cls, "flipud", [](const Tensor& a) { return flipud(a); });
  def_fn_and_method(
      m, cls, "roll",
      [](const Tensor& a, py::object shifts, py::object dims) {
        return roll(a, to_dims(shifts), to_dims(dims));
      },
      py::arg("shifts"), py::arg("dims") = py::none());
  cls.def("repeat",
          [](const Tensor& a, py::args sizes) { return repeat(a, dims_from_args(sizes)); });
  cls.def(
      "repeat", [](const Tensor& a, py::object sizes) { return repeat(a, to_dims(sizes)); },
      py::arg("repeats"));
  cls.def("tile", [](const Tensor& a, py::args dims) { return tile(a, dims_from_args(dims)); });
  cls.def(
      "tile", [](const Tensor& a, py::object dims) { return tile(a, to_dims(dims)); },
      py::arg("dims"));
  m.def(
      "tile", [](const Tensor& a, py::object dims) { return tile(a, to_dims(dims)); },
      py::arg("input"), py::arg("dims"));
  auto movedim_fn = [](const Tensor& a, py::object s, py::object d) {
    return movedim(a, to_dims(s), to_dims(d));
  };
  def_fn_and_method(m, cls, "movedim", movedim_fn, py::arg("source"), py::arg("destination"));
  def_fn_and_method(m, cls, "moveaxis", movedim_fn, py::arg("source"), py::arg("destination"));
  def_fn_and_method(
      m, cls, "diagonal",
      [](const Tensor& a, int64_t offset, int64_t d1, int64_t d2) {
        return diagonal(a, offset, d1, d2);
      },
      py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1);
  def_fn_and_method(
      m, cls, "diag", [](const Tensor& a, int64_t k) { return diag(a, k); },
      py::arg("diagonal") = 0);
  def_fn_and_method(
      m, cls, "tril", [](const Tensor& a, int64_t k) { return tril(a, k); },
      py::arg("diagonal") = 0);
  def_fn_and_method(
      m, cls, "triu", [](const Tensor& a, int64_t k) { return triu(a, k); },
      py::arg("diagonal") = 0);
  cls.def(
      "tril_", [](Tensor& a, int64_t k) -> Tensor& { return copy_(a, tril(a, k)); },
      py::arg("diagonal") = 0);
  cls.def(
      "triu_", [](Tensor& a, int64_t k) -> Tensor& { return copy_(a, triu(a, k)); },
      py::arg("diagonal") = 0);
  def_fn_and_method(
      m, cls, "unflatten",
      [](const Tensor& a, int64_t dim, const Shape& sizes) { return unflatten(a, dim, sizes); },
      py::arg("dim"), py::arg("sizes"));

  // squeeze with a tuple of dims. Replaces (not overloads) the int-only binding from
  // core_ops.cpp, which registers earlier (files register in name order).
  auto squeeze_fn = [](const Tensor& a, py::object d) {
    if (d.is_none()) return squeeze(a);
    if (PyLong_Check(d.ptr())) return squeeze(a, d.cast<int64_t>());
    return squeeze(a, to_dims(d));
  };
  m.attr("squeeze") = py::cpp_function(squeeze_fn, py::name("squeeze"), py::arg("input"),
                                       py::arg("dim") = py::none());
  cls.attr("squeeze") = py::cpp_function(squeeze_fn, py::name("squeeze"), py::is_method(cls),
                                         py::arg("dim") = py::none());
}

Registrar registrar(bind_shape_ops);

}  // namespace
}  // namespace tc::python
