// Docstrings for the bound functions: the text lives in python/tensorcore/_docs/ (one Python file
// per area, torch's style) and is attached at import by _C._add_docstr, which replaces the
// docstring of the pybind11 function object (its PyMethodDef's ml_doc, as torch's _add_docstr
// does). Calls are untouched: only the metadata that help() and __doc__ read changes.
// _C._overload_signatures gives the bound signatures, which scripts/gen_stubs.py turns into the
// .pyi stubs and the docs tests compare with the documented signature line.
#include <cstdlib>
#include <cstring>

#include "bind.h"

namespace tc::python {
namespace {

// The pybind11 function record behind a function object, or null for anything else. Instance
// methods (Tensor.add) and the out= wrapper (_C._with_out, which exposes __wrapped__) are
// unwrapped first.
pybind11::detail::function_record* function_record_of(py::handle obj, PyObject** func_out) {
  py::object fn = py::reinterpret_borrow<py::object>(obj);
  if (PyInstanceMethod_Check(fn.ptr()))
    fn = py::reinterpret_borrow<py::object>(PyInstanceMethod_GET_FUNCTION(fn.ptr()));
  if (!PyCFunction_Check(fn.ptr()) && py::hasattr(fn, "_tc_out")) fn = fn.attr("__wrapped__");
  if (!PyCFunction_Check(fn.ptr())) return nullptr;
  PyObject* self = PyCFunction_GET_SELF(fn.ptr());
  if (!self || !PyCapsule_CheckExact(self)) return nullptr;
  auto cap = py::reinterpret_borrow<py::capsule>(self);
  if (!pybind11::detail::is_function_record_capsule(cap)) return nullptr;
  if (func_out) *func_out = fn.ptr();
  return cap.get_pointer<pybind11::detail::function_record>();
}

void add_docstr(py::handle obj, const std::string& doc) {
  PyObject* func = nullptr;
  auto* rec = function_record_of(obj, &func);
  if (!rec)
    throw py::type_error("_add_docstr(): expected a tensorcore._C function, got " +
                         std::string(Py_TYPE(obj.ptr())->tp_name));
  for (auto* it = rec; it; it = it->next)
    if (it->doc && it->doc[0] != '\0')
      throw py::value_error(std::string("_add_docstr(): ") + rec->name +
                            " already has a docstring in its binding; keep one of the two");
  // pybind11 allocated ml_doc with strdup and frees it with free() when the function dies, and
  // rebuilds it (freeing ours) if an overload is added later; the docs attach after all bindings.
  auto* cfunc = reinterpret_cast<PyCFunctionObject*>(func);
  char* copy = strdup(doc.c_str());
  if (!copy) throw std::bad_alloc();
  std::free(const_cast<char*>(cfunc->m_ml->ml_doc));
  cfunc->m_ml->ml_doc = copy;
}

// "name(arg: type = default, ...) -> result" for each overload, in resolution order.
py::list overload_signatures(py::handle obj) {
  auto* rec = function_record_of(obj, nullptr);
  if (!rec)
    throw py::type_error("_overload_signatures(): expected a tensorcore._C function, got " +
                         std::string(Py_TYPE(obj.ptr())->tp_name));
  py::list out;
  for (auto* it = rec; it; it = it->next)
    out.append(std::string(it->name) + (it->signature ? it->signature : "(*args, **kwargs)"));
  return out;
}

void bind_docstrings(py::module_& m, TensorClass&) {
  m.def("_add_docstr", &add_docstr, py::arg("obj"), py::arg("doc"));
  m.def("_overload_signatures", &overload_signatures, py::arg("obj"));
  m.def(
      "_is_bound_function",
      [](py::handle obj) { return function_record_of(obj, nullptr) != nullptr; }, py::arg("obj"));
}

Registrar registrar(bind_docstrings);

}  // namespace
}  // namespace tc::python
