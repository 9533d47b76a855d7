// The _C extension: Tensor, dtype and device types, exception mapping, and the registry that
// the per-area binding files (elementwise.cpp, reduce.cpp, ...) add to.
#include <pybind11/numpy.h>
#include <cstring>

#include <array>

#include "bind.h"
#include "tensorcore/core/cpu_cache.h"
#include "tensorcore/core/deterministic.h"

namespace tc::python {

std::vector<BindFn>& registry() {
  static std::vector<BindFn> fns;
  return fns;
}

namespace {
// Leaked so they outlive interpreter shutdown.
std::array<py::object, kNumDTypes>& dtype_objects() {
  static auto* objs = new std::array<py::object, kNumDTypes>();
  return *objs;
}
py::object& device_type() {
  static auto* obj = new py::object();
  return *obj;
}
}  // namespace

py::object dtype_object(DType d) { return dtype_objects()[size_t(d)]; }
py::object device_object(Device d) { return device_type()(d.str()); }

py::object size_object(const Shape& s) {
  static auto* size_type = new py::object(py::module_::import("tensorcore._size").attr("Size"));
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  return (*size_type)(t);
}

bool is_tensor(py::handle obj) {
  static py::handle tensor_type = py::detail::get_type_handle(typeid(TensorImpl), true);
  return PyObject_IsInstance(obj.ptr(), tensor_type.ptr()) == 1;
}

Scalar to_scalar(py::handle obj, const char* op) {
  if (PyBool_Check(obj.ptr())) return Scalar(obj.ptr() == Py_True);
  if (PyLong_Check(obj.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    TC_CHECK_AS(Error, !overflow, op, ": Python integer ", std::string(py::str(obj)),
                " is too large for int64");
    return Scalar(int64_t(v));
  }
  if (PyFloat_Check(obj.ptr())) return Scalar(PyFloat_AS_DOUBLE(obj.ptr()));
  if (PyComplex_Check(obj.ptr()))
    return Scalar(
        std::complex<double>(PyComplex_RealAsDouble(obj.ptr()), PyComplex_ImagAsDouble(obj.ptr())));
  if (is_tensor(obj)) return obj.cast<Tensor>().item();
  // NumPy scalars and anything with __index__/__float__.
  if (py::hasattr(obj, "dtype") && py::hasattr(obj, "item"))
    return to_scalar(obj.attr("item")(), op);
  if (PyIndex_Check(obj.ptr()))
    return Scalar(int64_t(py::int_(py::reinterpret_borrow<py::object>(obj))));
  throw TypeError(detail::concat(op, ": expected a number or Tensor, but got ",
                                 std::string(py::str(obj.get_type().attr("__name__")))));
}

py::object scalar_to_py(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return py::bool_(s.to<bool>());
    case Scalar::Kind::Int:
      return py::int_(s.to_int());
    case Scalar::Kind::Float:
      return py::float_(s.to_double());
    default:
      return py::cast(s.to_complex());
  }
}

Tensor to_tensor(py::handle obj, const char* op) {
  if (is_tensor(obj)) return obj.cast<Tensor>();
  return scalar_tensor(to_scalar(obj, op), {}, Device(), /*wrapped=*/true);
}

DimList to_dims(py::handle obj) {
  if (obj.is_none()) return {};
  if (PyLong_Check(obj.ptr())) return {obj.cast<int64_t>()};
  DimList dims;
  for (auto d : obj) dims.push_back(d.cast<int64_t>());
  return dims;
}

Shape to_shape(py::args args) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) {
    Shape s;
    for (auto d : args[0]) s.push_back(d.cast<int64_t>());
    return s;
  }
  Shape s;
  for (auto d : args) s.push_back(d.cast<int64_t>());
  return s;
}

namespace {

py::dtype numpy_dtype(DType d) {
  switch (d) {
    case DType::Bool:
      return py::dtype("bool");
    case DType::UInt8:
      return py::dtype("uint8");
    case DType::Int8:
      return py::dtype("int8");
    case DType::Int16:
      return py::dtype("int16");
    case DType::UInt16:
      return py::dtype("uint16");
    case DType::Int32:
      return py::dtype("int32");
    case DType::Int64:
      return py::dtype("int64");
    case DType::Float16:
      return py::dtype("float16");
    case DType::Float32:
      return py::dtype("float32");
    case DType::Float64:
      return py::dtype("float64");
    case DType::Complex64:
      return py::dtype("complex64");
    case DType::Complex128:
      return py::dtype("complex128");
    default:
      throw TypeError(detail::concat("numpy() does not support dtype ", dtype_name(d),
                                     " (NumPy has no such type); convert with .float() first"));
  }
}

DType dtype_from_numpy(const py::dtype& dt) {
  char kind = dt.kind();
  size_t size = size_t(dt.itemsize());
  // A big-endian array was read as native bytes: from_numpy(np.arange(3, dtype='>f4')) gave
  // [0, 4.6e-41, 9e-44]. Refused as torch does (convert with
  // arr.astype(arr.dtype.newbyteorder('=')))
  TC_CHECK_TYPE(size <= 1 || dt.attr("isnative").cast<bool>(),
                "given numpy array has byte order different from the native byte order (dtype ",
                std::string(py::str(py::object(dt))),
                "); convert it first with "
                "arr.astype(arr.dtype.newbyteorder('='))");
  if (kind == 'b') return DType::Bool;
  if (kind == 'u' && size == 1) return DType::UInt8;
  if (kind == 'u' && size == 2) return DType::UInt16;
  if (kind == 'i') {
    if (size == 1) return DType::Int8;
    if (size == 2) return DType::Int16;
    if (size == 4) return DType::Int32;
    if (size == 8) return DType::Int64;
  }
  if (kind == 'f') {
    if (size == 2) return DType::Float16;
    if (size == 4) return DType::Float32;
    if (size == 8) return DType::Float64;
  }
  if (kind == 'c') {
    if (size == 8) return DType::Complex64;
    if (size == 16) return DType::Complex128;
  }
  throw TypeError(detail::concat("can't convert np.ndarray of type ",
                                 std::string(py::str(py::object(dt))),
                                 ". The only supported types are: float64, float32, float16, "
                                 "complex64, complex128, int64, int32, int16, int8, uint16, "
                                 "uint8, and bool."));
}

py::array to_numpy(const Tensor& t) {
  TC_CHECK_AS(Error, !t.requires_grad(),
              "Can't call numpy() on Tensor that requires grad. Use "
              "tensor.detach().numpy() instead.");
  TC_CHECK_AS(TypeError, t.is_cpu(), "can't convert ", t.device().str(),
              " device type tensor to "
              "numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end()), strides;
  for (int64_t s : t.strides()) strides.push_back(s * py::ssize_t(t.itemsize()));
  // The capsule keeps the storage alive as long as the array lives.
  auto* keep = new Storage(t.storage());
  py::capsule base(keep, [](void* p) { delete static_cast<Storage*>(p); });
  return py::array(numpy_dtype(t.dtype()), shape, strides, t.data_ptr(), base);
}

Tensor from_numpy(py::array arr) {
  DType dt = dtype_from_numpy(arr.dtype());
  size_t item = itemsize(dt);
  Shape sizes, strides;
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    sizes.push_back(arr.shape(i));
    py::ssize_t st = arr.strides(i);
    TC_CHECK(st >= 0 && st % py::ssize_t(item) == 0,
             "from_numpy: at least one stride in the "
             "given numpy array is negative or not a multiple of the element size (got strides ",
             std::string(py::str(arr.attr("strides"))), "); make a copy with arr.copy() first");
    strides.push_back(st / py::ssize_t(item));
  }
  int64_t span = 1;
  for (size_t i = 0; i < sizes.size(); ++i) span += sizes[i] > 0 ? (sizes[i] - 1) * strides[i] : 0;
  py::object ref = py::reinterpret_borrow<py::object>(arr);
  auto* holder = new py::object(ref);
  Storage st =
      storage_from_blob(const_cast<void*>(arr.data()), size_t(span) * item, Device(), [holder] {
        py::gil_scoped_acquire gil;
        delete holder;
      });
  return make_tensor(st, sizes, strides, 0, dt);
}

// tc::Error subclasses map to ValueError/IndexError/TypeError/NotImplementedError; the rest to
// RuntimeError subclasses (TensorcoreError, DecodeError). The objects are leaked on purpose:
// destroying Python objects after interpreter shutdown crashes.
PyObject* g_tc_error = nullptr;
PyObject* g_decode_error = nullptr;

void translate_exceptions(py::module_& m) {
  g_tc_error = PyErr_NewException("tensorcore._C.TensorcoreError", PyExc_RuntimeError, nullptr);
  g_decode_error = PyErr_NewException("tensorcore._C.DecodeError", g_tc_error, nullptr);
  m.attr("TensorcoreError") = py::handle(g_tc_error);
  m.attr("DecodeError") = py::handle(g_decode_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const DecodeError& e) {
      PyErr_SetString(g_decode_error, e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(g_tc_error, e.what());
    }
  });
}

}  // namespace

void harden_bindings(py::module_& m);

void bind_module(py::module_& m) {
  translate_exceptions(m);

  py::class_<DTypeObject>(m, "dtype")
      .def_property_readonly("is_floating_point",
                             [](const DTypeObject& d) { return is_floating(d.value); })
      .def_property_readonly("is_complex", [](const DTypeObject& d) { return is_complex(d.value); })
      .def_property_readonly("is_signed", [](const DTypeObject& d) { return is_signed(d.value); })
      .def_property_readonly("itemsize", [](const DTypeObject& d) { return itemsize(d.value); })
      .def("to_real", [](const DTypeObject& d) { return to_real(d.value); })
      .def("to_complex", [](const DTypeObject& d) { return to_complex(d.value); })
      .def("__repr__",
           [](const DTypeObject& d) { return std::string("tensorcore.") + dtype_name(d.value); })
      .def("__reduce__", [](const DTypeObject& d) { return std::string(dtype_name(d.value)); });
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = DType(i);
    dtype_objects()[size_t(i)] = py::cast(DTypeObject{d});
    m.attr(dtype_name(d)) = dtype_objects()[size_t(i)];
  }
  for (const char* alias : {"float", "double", "half", "long", "int", "short", "cfloat", "cdouble"})
    m.attr(alias) = dtype_object(dtype_from_name(alias));
  m.def("promote_types", &promote_types);
  m.def("can_cast", &can_cast);
  m.def("get_default_dtype", &get_default_dtype);
  m.def("set_default_dtype", &set_default_dtype);

  TensorClass cls(m, "Tensor", py::dynamic_attr());
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return size_object(t.sizes());
            return py::int_(t.size(dim.cast<int64_t>()));
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return py::tuple(py::cast(t.strides()));  // a tuple, as torch
            return py::int_(t.stride(dim.cast<int64_t>()));
          },
          py::arg("dim") = py::none())
      .def("dim", [](const Tensor& t) { return t.dim(); })
      .def("ndimension", [](const Tensor& t) { return t.dim(); })
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dim(); })
      .def("numel", [](const Tensor& t) { return t.numel(); })
      .def("nelement", [](const Tensor& t) { return t.numel(); })
      .def("element_size", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("itemsize", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.nbytes(); })
      .def_property_readonly("dtype", [](const Tensor& t) { return t.dtype(); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device(); })
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.is_cuda(); })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.is_cpu(); })
      .def("storage_offset", [](const Tensor& t) { return t.storage_offset(); })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("untyped_storage_ptr",
           [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.storage()->data()); })
      .def("_storage_nbytes", [](const Tensor& t) { return t.storage()->nbytes; })
      // share_memory_(): copies the storage's bytes into `dest` (a CPU byte tensor over shared
      // memory) and then exchanges the two memory blocks, so this tensor and every view of its
      // storage now live in the shared block; `dest` keeps the old block until it dies.
      .def("_move_storage_into",
           [](const Tensor& t, const Tensor& dest) {
             const Storage& mine = t.storage();
             const Storage& theirs = dest.storage();
             TC_CHECK(t.is_cpu() && dest.is_cpu(), "share_memory_: CPU tensors only");
             TC_CHECK(theirs->nbytes == mine->nbytes, "share_memory_: the shared block holds ",
                      theirs->nbytes, " bytes, the storage ", mine->nbytes);
             if (mine.get() == theirs.get()) return;
             if (mine->nbytes) std::memcpy(theirs->data(), mine->data(), mine->nbytes);
             std::swap(mine->mem, theirs->mem);
           })
      .def(
          "is_contiguous", [](const Tensor& t, py::object) { return t.is_contiguous(); },
          py::arg("memory_format") = py::none())
      .def("is_floating_point", [](const Tensor& t) { return t.is_floating_point(); })
      .def("is_complex", [](const Tensor& t) { return t.is_complex(); })
      .def_property_readonly("_version", [](const Tensor& t) { return t.version(); })
      .def("item", [](const Tensor& t) { return scalar_to_py(t.item()); })
      .def("__len__",
           [](const Tensor& t) {
             TC_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
             return t.size(0);
           })
      // autograd
      .def_property(
          "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
          [](Tensor& t, bool r) { t.requires_grad_(r); })
      .def(
          "requires_grad_",
          [](Tensor& t, bool r) {
            t.requires_grad_(r);
            return t;
          },
          py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) { return t.grad(); },
          [](const Tensor& t, const Tensor& g) { t.set_grad(g); })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return t.is_leaf(); })
      .def_property_readonly("grad_fn",
                             [](const Tensor& t) -> py::object {
                               auto fn = t.grad_fn();
                               if (!fn) return py::none();
                               return py::cast(fn);
                             })
      .def(
          "backward",
          [](const Tensor& t, const Tensor& gradient, std::optional<bool> retain_graph,
             bool create_graph, py::object inputs) {
            TensorList in;
            if (!inputs.is_none()) {
              if (is_tensor(inputs))
                in.push_back(inputs.cast<Tensor>());
              else
                for (auto x : inputs) in.push_back(x.cast<Tensor>());
            }
            py::gil_scoped_release release;
            t.backward(gradient, retain_graph.value_or(create_graph), create_graph, in);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
          py::arg("create_graph") = false, py::arg("inputs") = py::none())
      .def("detach", [](const Tensor& t) { return t.detach(); })
      .def("detach_",
           [](Tensor& t) {
             t.detach_();
             return t;
           })
      .def("retain_grad", [](const Tensor& t) { return t.retain_grad(); })
      .def_property_readonly("retains_grad", [](const Tensor& t) { return t.retains_grad(); })
      .def("_register_hook",
           [](const Tensor& t, py::function fn) {
             return t.register_hook([fn](const Tensor& g) -> Tensor {
               py::gil_scoped_acquire gil;
               py::object r = fn(g);
               return r.is_none() ? Tensor() : r.cast<Tensor>();
             });
           })
      .def(
          "numpy",
          [](const Tensor& t, bool force) {
            return to_numpy(force ? to_device(t.detach(), Device()) : t);
          },
          py::arg("force") = false)
      .def(
          "__array__",
          [](const Tensor& t, py::object dtype) {
            py::array a = to_numpy(to_device(t.detach(), Device()));
            return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
          },
          py::arg("dtype") = py::none())
      .def("_str_cpp", [](const Tensor& t) { return t.str(); });

  py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "Node")
      .def("name", &autograd::Node::name)
      .def("__repr__", [](const autograd::Node& n) { return "<" + n.name() + ">"; })
      .def_property_readonly(
          "next_functions",
          [](const autograd::Node& n) {
            py::list out;
            for (auto& e : n.next_edges)
              out.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
            return py::tuple(out);
          })
      .def("register_hook", [](autograd::Node& n, py::function fn) {
        (void)n;
        (void)fn;
        throw NotImplementedError("Node.register_hook is not supported; use Tensor.register_hook");
      });

  m.def("from_numpy", &from_numpy, py::arg("ndarray"));
  m.def("_wrap_number", [](py::handle obj) { return to_tensor(obj, "tensor"); });

  // Devices: a tiny Python-visible class with type and index.
  py::class_<DeviceObject>(m, "device")
      .def(py::init([](py::object spec, py::object index) {
             if (py::isinstance<DeviceObject>(spec)) return spec.cast<DeviceObject>();
             Device d(spec.cast<std::string>());
             if (!index.is_none()) d.index = int8_t(index.cast<int>());
             return DeviceObject{d};
           }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly(
          "type", [](const DeviceObject& d) { return std::string(device_type_name(d.value.type)); })
      .def_property_readonly("index",
                             [](const DeviceObject& d) -> py::object {
                               if (d.value.index < 0) return py::none();
                               return py::int_(int(d.value.index));
                             })
      .def("__eq__",
           [](const DeviceObject& a, py::object b) {
             try {
               return a.value == b.cast<Device>();
             } catch (...) {
               return false;
             }
           })
      .def("__hash__",
           [](const DeviceObject& d) { return std::hash<std::string>()(d.value.str()); })
      .def("__str__", [](const DeviceObject& d) { return d.value.str(); })
      .def("__repr__", [](const DeviceObject& d) {
        std::string s = "device(type='" + std::string(device_type_name(d.value.type)) + "'";
        if (d.value.index >= 0) s += ", index=" + std::to_string(d.value.index);
        return s + ")";
      });
  device_type() = m.attr("device");
  m.def("_cuda_compiled", &cuda_compiled);
  m.def("get_num_threads", &get_num_threads);
  m.def("set_num_threads", &set_num_threads);
  m.def("_cpu_memory_allocated", &cpu_memory_allocated);
  m.def("_cpu_memory_cached", &cpu_memory_cached);
  m.def("_cpu_empty_cache", &cpu_empty_cache);
  m.def("use_deterministic_algorithms", &use_deterministic_algorithms, py::arg("mode"),
        py::kw_only(), py::arg("warn_only") = false);
  m.def("are_deterministic_algorithms_enabled", &deterministic_algorithms_enabled);
  m.def("is_deterministic_algorithms_warn_only_enabled", &deterministic_algorithms_warn_only);
  m.def("set_deterministic", [](bool d) { use_deterministic_algorithms(d, false); });
  m.def("is_deterministic", &deterministic_algorithms_enabled);
  m.def("_alert_not_deterministic",
        [](const std::string& op) { alert_not_deterministic(op.c_str()); });

  for (BindFn fn : registry()) fn(m, cls);
  harden_bindings(m);  // arg_guard.cpp: runs last, over every binding
}

}  // namespace tc::python

namespace pybind11::detail {

bool type_caster<tc::DType>::load(handle src, bool) {
  if (isinstance<tc::python::DTypeObject>(src)) {
    value = src.cast<tc::python::DTypeObject>().value;
    return true;
  }
  // Python builtin types as dtypes: float -> default float, int -> int64, bool, complex.
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
    value = tc::get_default_dtype();
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
    value = tc::DType::Int64;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
    value = tc::DType::Bool;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) {
    value = tc::DType::Complex64;
    return true;
  }
  if (PyUnicode_Check(src.ptr())) {
    value = tc::dtype_from_name(src.cast<std::string>());
    return true;
  }
  return false;
}

bool type_caster<tc::Device>::load(handle src, bool) {
  if (isinstance<tc::python::DeviceObject>(src)) {
    value = src.cast<tc::python::DeviceObject>().value;
    return true;
  }
  if (PyUnicode_Check(src.ptr())) {
    value = tc::Device(src.cast<std::string>());
    return true;
  }
  if (PyLong_Check(src.ptr())) {  // torch accepts an int for cuda:N
    value = tc::Device(tc::DeviceType::CUDA, src.cast<int>());
    return true;
  }
  return false;
}

bool type_caster<tc::Scalar>::load(handle src, bool) {
  if (!(PyBool_Check(src.ptr()) || PyLong_Check(src.ptr()) || PyFloat_Check(src.ptr()) ||
        PyComplex_Check(src.ptr()) || (py::hasattr(src, "dtype") && py::hasattr(src, "item"))))
    return false;
  value = tc::python::to_scalar(src);
  return true;
}

}  // namespace pybind11::detail

PYBIND11_MODULE(_C, m) {
  m.doc() = "tensorcore native extension";
  tc::python::bind_module(m);
}
