// Bindings for matrix products (matmul, mm, bmm, ..., einsum, tensordot, kron).
#include "tensorcore/ops/linalg.h"
#include "bind.h"

namespace tc::python {
namespace {

void bind_linalg(py::module_& m, TensorClass& cls) {
  def_fn_and_method(
      m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
      py::arg("other"));
  cls.def(
      "__matmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_tensor(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        return py::cast(matmul(a, b.cast<Tensor>()));
      },
      py::is_operator());
  cls.def(
      "__rmatmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_tensor(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        return py::cast(matmul(b.cast<Tensor>(), a));
      },
      py::is_operator());
  def_fn_and_method(
      m, cls, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, py::arg("mat2"));
  def_fn_and_method(
      m, cls, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, py::arg("mat2"));
  def_fn_and_method(
      m, cls, "mv", [](const Tensor& a, const Tensor& b) { return mv(a, b); }, py::arg("vec"));
  def_fn_and_method(
      m, cls, "dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); }, py::arg("tensor"));
  def_fn_and_method(
      m, cls, "vdot", [](const Tensor& a, const Tensor& b) { return vdot(a, b); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "inner", [](const Tensor& a, const Tensor& b) { return inner(a, b); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); },
      py::arg("vec2"));
  def_fn_and_method(
      m, cls, "ger", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, py::arg("vec2"));
  auto add3 =
      [&](const char* name,
          Tensor (*fn)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&),
          const char* a1, const char* a2) {
        def_fn_and_method(
            m, cls, name,
            [fn](const Tensor& s, const Tensor& x, const Tensor& y, py::object beta,
                 py::object alpha) { return fn(s, x, y, to_scalar(beta), to_scalar(alpha)); },
            py::arg(a1), py::arg(a2), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1);
      };
  add3("addmm", &addmm, "mat1", "mat2");
  add3("addmv", &addmv, "mat", "vec");
  add3("addr", &addr, "vec1", "vec2");
  add3("baddbmm", &baddbmm, "batch1", "batch2");
  m.def(
      "einsum",
      [](const std::string& eq, py::args args) {
        TensorList ops;
        if (args.size() == 1 && !is_tensor(args[0])) {
          for (auto x : args[0]) ops.push_back(x.cast<Tensor>());
        } else {
          for (auto x : args) ops.push_back(x.cast<Tensor>());
        }
        return einsum(eq, ops);
      },
      py::arg("equation"));
  def_fn_and_method(
      m, cls, "tensordot",
      [](const Tensor& a, const Tensor& b, py::object dims) {
        if (PyLong_Check(dims.ptr())) return tensordot(a, b, dims.cast<int64_t>());
        if (is_tensor(dims)) {
          Tensor d = dims.cast<Tensor>();
          if (d.dim() == 0) return tensordot(a, b, d.item<int64_t>());
          dims = py::module_::import("tensorcore").attr("Tensor").attr("tolist")(dims);
        }
        py::sequence seq = dims.cast<py::sequence>();
        TC_CHECK(seq.size() == 2,
                 "tensordot: dims must be an int or a pair of lists of dimensions");
        return tensordot(a, b, to_dims(seq[0]), to_dims(seq[1]));
      },
      py::arg("other"), py::arg("dims") = 2);
  def_fn_and_method(
      m, cls, "kron", [](const Tensor& a, const Tensor& b) { return kron(a, b); },
      py::arg("other"));
}

Registrar registrar(bind_linalg);

}  // namespace
}  // namespace tc::python
