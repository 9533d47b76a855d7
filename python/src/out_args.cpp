// Tensor.resize_, the copy behind the `out=` keyword, and the C-level wrapper that adds `out=`
// to the module functions listed in python/tensorcore/_out.py.
//
// The wrapper is a vectorcall object: a call without `out` is forwarded as is (argument vector
// and keyword names untouched) to the pybind11 function, so the common call pays a scan of the
// keyword names and nothing else; the rare call with `out` goes to _out._write_out (checks,
// resize, cast-copy), except for the single-kernel elementwise ops (_out._DIRECT): their
// TensorIter writes into `out` directly (OutputHintGuard) with no Python frame, and only a
// result that did not land in `out` goes through _out._finish_out. One wrapper around each function
// keeps pybind11's overload resolution of the wrapped function intact (no extra overload that could
// capture a call meant for another).
#include "bind.h"
#include "tensorcore/core/tensor_iter.h"

namespace tc::python {
namespace {

// Grows the storage in place (same StorageImpl, so every view of it sees the new memory),
// keeping the old bytes. Never shrinks, as torch.
void grow_storage(const Tensor& t, size_t nbytes) {
  const Storage& st = t.storage();
  if (nbytes <= st->nbytes) return;
  Storage fresh = make_storage(nbytes, st->device);
  if (st->nbytes > 0) {
    autograd::NoGradGuard ng;
    Tensor dst = make_tensor(fresh, {int64_t(st->nbytes)}, {1}, 0, DType::UInt8);
    copy_(dst, make_tensor(st, {int64_t(st->nbytes)}, {1}, 0, DType::UInt8));
  }
  std::swap(st->mem, fresh->mem);
  std::swap(st->nbytes, fresh->nbytes);
}

// torch's Tensor.resize_: contiguous strides at the current storage offset; the contents of
// the first min(old, new) elements are kept when the tensor was contiguous.
Tensor resize(const Tensor& t, const Shape& sizes) {
  TC_CHECK_AS(Error, !t.requires_grad() || !autograd::grad_enabled(),
              "resize_(): cannot resize variables that require grad");
  for (int64_t s : sizes)
    TC_CHECK_AS(Error, s >= 0, "resize_(): trying to create tensor with negative dimension ", s,
                ": ", shape_str(sizes));
  int64_t numel = shape_numel(sizes);
  int64_t nbytes = 0;  // overflow-checked: a wrapped count grew the storage too little (abort)
  TC_CHECK(!__builtin_add_overflow(t.storage_offset(), numel, &nbytes) &&
               !__builtin_mul_overflow(nbytes, int64_t(t.itemsize()), &nbytes),
           "resize_(): shape ", shape_str(sizes), " is too large (more than 2^63 bytes)");
  if (numel > 0) grow_storage(t, size_t(nbytes));
  TensorImpl* impl = t.impl();
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->refresh_numel();
  return t;
}

struct OutFn {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* fn;          // the wrapped pybind11 function
  PyObject* name;        // str, the op's name for error messages
  PyObject* write_out;   // _out._write_out(name, fn, args, kwargs, out)
  PyObject* finish_out;  // _out._finish_out(name, result, out), or null: no direct path
};

// Runs fn with the output hint on `out`; true when the result is `out`'s memory and layout.
bool call_with_hint(PyObject* fn, PyObject* const* args, size_t nargs, PyObject* kwnames,
                    const Tensor& out, PyObject** result) {
  {
    OutputHintGuard guard(out);
    *result = PyObject_Vectorcall(fn, args, nargs, kwnames);
  }
  if (!*result) return false;
  // The op may hand back another Tensor on the same memory (its own TensorImpl).
  py::handle res(*result);
  if (!py::isinstance<TensorImpl>(res)) return false;  // the Python class binds TensorImpl
  Tensor r = res.cast<Tensor>();
  return r.data_ptr() == out.data_ptr() && r.device() == out.device() && r.sizes() == out.sizes() &&
         r.strides() == out.strides() && r.dtype() == out.dtype();
}

// The direct out= path without a Python frame, for a single `out` tensor when autograd cannot
// be involved (grad mode off, or no tensor argument requiring grad; lists of tensors and other
// doubtful cases go to the Python path, which raises where torch does). Returns null with no
// error set when the call should take the Python path instead.
PyObject* out_fn_direct_call(OutFn* self, PyObject* const* args, size_t nargs, PyObject* kwnames,
                             Py_ssize_t out_index) {
  PyObject* out_obj = args[nargs + size_t(out_index)];
  if (!self->finish_out || !py::isinstance<TensorImpl>(py::handle(out_obj))) return nullptr;
  Tensor out = py::handle(out_obj).cast<Tensor>();
  Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  const bool grad = autograd::grad_enabled();
  if (grad && out.requires_grad()) return nullptr;
  for (size_t i = 0; i < nargs + size_t(nkw); ++i) {
    if (i == nargs + size_t(out_index)) continue;
    py::handle a(args[i]);
    if (PyList_Check(args[i]) || PyTuple_Check(args[i])) return nullptr;
    if (grad && py::isinstance<TensorImpl>(a) && a.cast<Tensor>().requires_grad()) return nullptr;
  }
  // The arguments without `out`.
  std::vector<PyObject*> argv(args, args + nargs);
  PyObject* names = nullptr;
  if (nkw > 1) {
    names = PyTuple_New(nkw - 1);
    if (!names) return nullptr;
    for (Py_ssize_t k = 0, j = 0; k < nkw; ++k) {
      if (k == out_index) continue;
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      Py_INCREF(key);
      PyTuple_SET_ITEM(names, j++, key);
      argv.push_back(args[nargs + size_t(k)]);
    }
  }
  PyObject* result = nullptr;
  bool direct = call_with_hint(self->fn, argv.data(), nargs, names, out, &result);
  Py_XDECREF(names);
  if (!result) return nullptr;  // the op raised: the error is set
  if (direct) {
    out.bump_version();
    Py_DECREF(result);
    Py_INCREF(out_obj);
    return out_obj;
  }
  PyObject* done =
      PyObject_CallFunctionObjArgs(self->finish_out, self->name, result, out_obj, nullptr);
  Py_DECREF(result);
  return done;
}

PyObject* out_fn_slow_call(OutFn* self, PyObject* const* args, size_t nargs, PyObject* kwnames,
                           Py_ssize_t out_index) {
  PyObject* pos = PyTuple_New(Py_ssize_t(nargs));
  if (!pos) return nullptr;
  for (size_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(pos, Py_ssize_t(i), args[i]);
  }
  PyObject* kwargs = PyDict_New();
  if (!kwargs) {
    Py_DECREF(pos);
    return nullptr;
  }
  Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    if (k == out_index) continue;
    if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k), args[nargs + size_t(k)]) < 0) {
      Py_DECREF(pos);
      Py_DECREF(kwargs);
      return nullptr;
    }
  }
  PyObject* out = args[nargs + size_t(out_index)];
  PyObject* result = out == Py_None
                         ? PyObject_Call(self->fn, pos, kwargs)
                         : PyObject_CallFunctionObjArgs(self->write_out, self->name, self->fn, pos,
                                                        kwargs, out, nullptr);
  Py_DECREF(pos);
  Py_DECREF(kwargs);
  return result;
}

PyObject* out_fn_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf,
                            PyObject* kwnames) {
  auto* self = reinterpret_cast<OutFn*>(callable);
  if (kwnames) {
    size_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      if (PyUnicode_CompareWithASCIIString(key, "out") == 0) {
        if (PyObject* r = out_fn_direct_call(self, args, nargs, kwnames, k)) return r;
        if (PyErr_Occurred()) return nullptr;
        return out_fn_slow_call(self, args, nargs, kwnames, k);
      }
    }
  }
  return PyObject_Vectorcall(self->fn, args, nargsf, kwnames);
}

void out_fn_dealloc(PyObject* obj) {
  auto* self = reinterpret_cast<OutFn*>(obj);
  PyObject_GC_UnTrack(obj);
  Py_CLEAR(self->fn);
  Py_CLEAR(self->name);
  Py_CLEAR(self->write_out);
  Py_CLEAR(self->finish_out);
  PyObject_GC_Del(obj);
}

int out_fn_traverse(PyObject* obj, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<OutFn*>(obj);
  Py_VISIT(self->fn);
  Py_VISIT(self->name);
  Py_VISIT(self->write_out);
  Py_VISIT(self->finish_out);
  return 0;
}

// __name__, __doc__, __module__, ... are the wrapped function's.
PyObject* out_fn_getattro(PyObject* obj, PyObject* attr) {
  auto* self = reinterpret_cast<OutFn*>(obj);
  if (PyUnicode_CompareWithASCIIString(attr, "_tc_out") == 0) Py_RETURN_TRUE;
  if (PyUnicode_CompareWithASCIIString(attr, "__wrapped__") == 0) {
    Py_INCREF(self->fn);
    return self->fn;
  }
  if (PyUnicode_CompareWithASCIIString(attr, "__class__") == 0)
    return PyObject_GenericGetAttr(obj, attr);
  return PyObject_GetAttr(self->fn, attr);
}

PyObject* out_fn_repr(PyObject* obj) { return PyObject_Repr(reinterpret_cast<OutFn*>(obj)->fn); }

// pydoc and inspect read __doc__ from the type's dict (object.__getattribute__), not through
// tp_getattro: a getset forwards it, so help(tc.add) shows the op's docstring.
PyObject* out_fn_get_doc(PyObject* obj, void*) {
  return PyObject_GetAttrString(reinterpret_cast<OutFn*>(obj)->fn, "__doc__");
}

PyGetSetDef out_fn_getset[] = {{"__doc__", out_fn_get_doc, nullptr, nullptr, nullptr},
                               {nullptr, nullptr, nullptr, nullptr, nullptr}};

// A descriptor that binds to nothing (returns itself), as builtin functions behave when stored
// on a class; it makes inspect.isroutine true, so pydoc documents the wrapper as a function.
PyObject* out_fn_descr_get(PyObject* obj, PyObject*, PyObject*) {
  Py_INCREF(obj);
  return obj;
}

PyTypeObject out_fn_type = [] {
  PyTypeObject t{};                 // zeroed; PyType_Ready sets ob_type
  t.ob_base.ob_base.ob_refcnt = 1;  // static: never freed
  t.tp_name = "tensorcore._C.builtin_function_with_out";
  t.tp_basicsize = sizeof(OutFn);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  t.tp_vectorcall_offset = offsetof(OutFn, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_dealloc = out_fn_dealloc;
  t.tp_traverse = out_fn_traverse;
  t.tp_getattro = out_fn_getattro;
  t.tp_repr = out_fn_repr;
  t.tp_getset = out_fn_getset;
  t.tp_descr_get = out_fn_descr_get;
  return t;
}();

py::object make_out_fn(py::str name, py::object fn, py::object write_out, py::object finish_out) {
  if (PyType_Ready(&out_fn_type) < 0) throw py::error_already_set();
  auto* self = PyObject_GC_New(OutFn, &out_fn_type);
  if (!self) throw py::error_already_set();
  self->vectorcall = out_fn_vectorcall;
  self->fn = fn.release().ptr();
  self->name = name.release().ptr();
  self->write_out = write_out.release().ptr();
  self->finish_out = finish_out.is_none() ? nullptr : finish_out.release().ptr();
  PyObject_GC_Track(reinterpret_cast<PyObject*>(self));
  return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(self));
}

void bind_out_args(py::module_& m, TensorClass& cls) {
  m.def("_with_out", &make_out_fn, py::arg("name"), py::arg("fn"), py::arg("write_out"),
        py::arg("finish_out") = py::none());
  cls.def("resize_", [](const Tensor& t, py::args size) { return resize(t, to_shape(size)); });
  cls.def(
      "resize_", [](const Tensor& t, const Shape& size) { return resize(t, size); },
      py::arg("size"));
  cls.def(
      "resize_as_", [](const Tensor& t, const Tensor& other) { return resize(t, other.sizes()); },
      py::arg("the_template"));
  // Runs fn(*args, **kwargs) letting its output TensorIter write straight into `out` (see
  // OutputHintGuard): returns (result, True) when it did, and then bumps out's version as the
  // copy would have; (result, False) otherwise, and the caller copies.
  m.def("_call_into_out", [](py::object fn, py::tuple args, py::dict kwargs, Tensor& out) {
    // fn(*args, **kwargs) through the vectorcall protocol with the hint on `out`.
    std::vector<PyObject*> argv;
    for (py::handle a : args) argv.push_back(a.ptr());
    py::tuple names(kwargs.size());
    size_t k = 0;
    for (auto item : kwargs) {
      names[k++] = item.first;
      argv.push_back(item.second.ptr());
    }
    PyObject* result = nullptr;
    bool direct = call_with_hint(fn.ptr(), argv.data(), args.size(),
                                 kwargs.size() ? names.ptr() : nullptr, out, &result);
    if (!result) throw py::error_already_set();
    if (direct) out.bump_version();
    return py::make_tuple(py::reinterpret_steal<py::object>(result), direct);
  });
  // The write into out: a plain copy (casting), outside autograd, bumping out's version.
  m.def("_copy_out", [](Tensor& out, const Tensor& result) {
    autograd::NoGradGuard ng;
    copy_(out, result);
  });
}

static Registrar r(bind_out_args);

}  // namespace
}  // namespace tc::python
