// tc.profiler's native side: the session API (_C._profiler), the op names and the op span.
//
// Every binding's implementation already runs through one function, guarded_impl
// (arg_guard.cpp), which wraps it after all bindings exist. That is the op hook: an OpSpan
// there checks one relaxed flag (tc::profiler::enabled()) and, when the profiler is on, records
// the call as a span named after the op (aten::add, aten::conv2d, torchvision::nms) with its
// inputs' shapes and dtypes and, with with_stack, the calling Python frames. The names are
// computed once per binding (profiled_op_name); queries and settings (size, is_*, set_*) are
// not ops and are not recorded.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "profiler_hook.h"

namespace tc::python {
namespace {

namespace prof = tc::profiler;

// The values of an int or a sequence of ints (conv strides ...; used for FLOP counts).
std::vector<int64_t> int_values(py::handle a) {
  std::vector<int64_t> out;
  if (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr())) {
    out.push_back(PyLong_AsLongLong(a.ptr()));
  } else if (PyList_Check(a.ptr()) || PyTuple_Check(a.ptr())) {
    Py_ssize_t len = PySequence_Fast_GET_SIZE(a.ptr());
    for (Py_ssize_t i = 0; i < len && i < 8; ++i) {
      PyObject* x = PySequence_Fast_GET_ITEM(a.ptr(), i);
      if (!PyLong_Check(x)) return {};
      out.push_back(PyLong_AsLongLong(x));
    }
  }
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return {};
  }
  return out;
}

void record_inputs(uint64_t token, const std::vector<py::handle>& args) {
  std::vector<std::vector<int64_t>> shapes, ints;
  std::vector<std::string> dtypes;
  shapes.reserve(args.size());
  dtypes.reserve(args.size());
  ints.reserve(args.size());
  for (py::handle a : args) {
    ints.push_back(int_values(a));
    if (py::isinstance<TensorImpl>(a)) {
      Tensor t = a.cast<Tensor>();
      shapes.push_back(t.sizes());
      dtypes.emplace_back(dtype_name(t.dtype()));
    } else if (PyList_Check(a.ptr()) || PyTuple_Check(a.ptr())) {
      // A tensor list (cat, stack): its first tensor's shape; the dtype marks the list.
      PyObject* seq = a.ptr();
      Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
      py::handle first = len > 0 ? py::handle(PySequence_Fast_GET_ITEM(seq, 0)) : py::handle();
      if (first && py::isinstance<TensorImpl>(first)) {
        Tensor t = first.cast<Tensor>();
        shapes.push_back(t.sizes());
        dtypes.emplace_back(std::string("TensorList[") + dtype_name(t.dtype()) + "]");
      } else {
        shapes.emplace_back();
        dtypes.emplace_back("ScalarList");
      }
    } else {
      shapes.emplace_back();
      dtypes.emplace_back(a.is_none() ? "" : "Scalar");
    }
  }
  prof::set_inputs(token, std::move(shapes), std::move(dtypes), std::move(ints));
}

// Names that are queries or settings, not ops.
bool is_query(const std::string& name) {
  static const std::unordered_set<std::string> skip = {"size",
                                                       "stride",
                                                       "dim",
                                                       "ndimension",
                                                       "numel",
                                                       "nelement",
                                                       "element_size",
                                                       "data_ptr",
                                                       "storage_offset",
                                                       "get_device",
                                                       "tolist",
                                                       "numpy",
                                                       "register_hook",
                                                       "retain_grad",
                                                       "requires_grad_",
                                                       "backward",
                                                       "manual_seed",
                                                       "seed",
                                                       "initial_seed",
                                                       "promote_types",
                                                       "can_cast",
                                                       "use_deterministic_algorithms",
                                                       "are_deterministic_algorithms_enabled",
                                                       "autocast_increment_nesting",
                                                       "autocast_decrement_nesting",
                                                       "clear_autocast_cache",
                                                       "effect_names",
                                                       "next_fast_len",
                                                       "type",
                                                       "storage",
                                                       "untyped_storage",
                                                       "share_memory_",
                                                       "pin_memory",
                                                       "__repr__",
                                                       "__str__",
                                                       "__len__",
                                                       "__hash__",
                                                       "__bool__",
                                                       "__index__",
                                                       "__int__",
                                                       "__float__",
                                                       "__complex__",
                                                       "__format__",
                                                       "__iter__",
                                                       "__contains__",
                                                       "__array__",
                                                       "__dlpack__",
                                                       "__dlpack_device__",
                                                       "__reduce__",
                                                       "__reduce_ex__",
                                                       "__getstate__",
                                                       "__setstate__",
                                                       "__deepcopy__",
                                                       "__copy__",
                                                       "__init__",
                                                       "__new__",
                                                       "__sizeof__"};
  if (skip.count(name)) return true;
  if (name.rfind("is_", 0) == 0 || name.rfind("get_", 0) == 0 || name.rfind("set_", 0) == 0)
    return true;
  return name[0] >= 'A' && name[0] <= 'Z';  // classes and constructors
}

bool is_dunder(const std::string& name) {
  return name.size() > 4 && name.rfind("__", 0) == 0 && name.compare(name.size() - 2, 2, "__") == 0;
}

// torch's op name for a Python-visible name: __add__/__radd__ -> add, __iadd__ -> add_,
// __getitem__ -> index, __setitem__ -> index_put_.
std::string torch_name(const std::string& name) {
  if (!is_dunder(name)) return name;
  std::string core = name.substr(2, name.size() - 4);
  if (core == "getitem") return "index";
  if (core == "setitem") return "index_put_";
  static const std::unordered_set<std::string> binary = {
      "add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
      "pow", "and", "or",  "xor",    "lshift",  "rshift"};
  bool inplace = false;
  if (core.size() > 1 && core[0] == 'r' && binary.count(core.substr(1))) {
    core = core.substr(1);
  } else if (core.size() > 1 && core[0] == 'i' && binary.count(core.substr(1))) {
    core = core.substr(1);
    inplace = true;
  }
  static const std::unordered_map<std::string, std::string> renamed = {
      {"truediv", "div"},
      {"floordiv", "floor_divide"},
      {"mod", "remainder"},
      {"and", "bitwise_and"},
      {"or", "bitwise_or"},
      {"xor", "bitwise_xor"},
      {"invert", "bitwise_not"},
      {"lshift", "bitwise_left_shift"},
      {"rshift", "bitwise_right_shift"},
      {"pos", "positive"}};
  if (auto it = renamed.find(core); it != renamed.end()) core = it->second;
  return inplace ? core + "_" : core;
}

// The namespace prefix of a binding's scope; empty: the scope holds no ops.
std::string scope_prefix(const py::detail::function_record& rec) {
  if (!rec.scope) return "";
  if (rec.is_method) return rec.scope.ptr() == py::type::of<TensorImpl>().ptr() ? "aten::" : "";
  if (!PyModule_Check(rec.scope.ptr())) return "";
  const char* mod = PyModule_GetName(rec.scope.ptr());
  if (!mod) {
    PyErr_Clear();
    return "";
  }
  const std::string m = mod;
  if (m == "tensorcore._C" || m == "tensorcore._C._nn" || m == "tensorcore._C._nnfused" ||
      m == "tensorcore._C._optim" || m == "tensorcore._C._models_audio")
    return "aten::";
  if (m == "tensorcore._C._fft") return "aten::fft_";
  if (m == "tensorcore._C._vision") return "torchvision::";
  if (m == "tensorcore._C._audio") return "torchaudio::";
  return "";
}

// with_stack: the Python frames of the calling thread, innermost first ("file(line): name").
std::vector<std::string> python_stack() {
  std::vector<std::string> frames;
  if (!PyGILState_Check()) return frames;  // a C++ thread: no Python caller
  PyFrameObject* f = PyEval_GetFrame();    // borrowed
  Py_XINCREF(f);
  while (f && frames.size() < 128) {
    PyCodeObject* code = PyFrame_GetCode(f);  // new reference
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const char* fname = PyUnicode_AsUTF8(code->co_name);
    frames.push_back(std::string(file ? file : "?") + "(" +
                     std::to_string(PyFrame_GetLineNumber(f)) + "): " + (fname ? fname : "?"));
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(f);  // new reference
    Py_DECREF(f);
    f = back;
  }
  Py_XDECREF(f);
  return frames;
}

py::tuple device_event_tuple(const prof::DeviceEvent& d) {
  return py::make_tuple(d.name, d.device, d.stream, d.start_ns, d.end_ns, d.correlation, d.op_id,
                        d.tid, d.launch_start_ns, d.launch_end_ns);
}

py::tuple event_tuple(const prof::Event& e) {
  return py::make_tuple(e.name, e.start_ns, e.end_ns, e.tid, e.id, e.parent_id, e.sequence_nr,
                        int(e.type), e.shapes, e.dtypes, e.stack, e.int_args);
}

void bind_profiler(py::module_& m, TensorClass&) {
  py::module_ p = m.def_submodule("_profiler", "tc.profiler's native recorder");
  prof::set_stack_provider(&python_stack);
  p.def(
      "_start",
      [](bool record_shapes, bool profile_memory, bool with_stack, bool cuda) {
        prof::start({record_shapes, profile_memory, with_stack, cuda});
      },
      py::arg("record_shapes") = false, py::arg("profile_memory") = false,
      py::arg("with_stack") = false, py::arg("cuda") = false);
  p.def("_stop", [] {
    prof::Result r;
    {
      py::gil_scoped_release release;  // other threads may be finishing a span
      r = prof::stop();
    }
    py::list events;
    for (const prof::Event& e : r.events) events.append(event_tuple(e));
    py::list memory;
    for (const prof::MemoryEvent& mm : r.memory)
      memory.append(py::make_tuple(mm.ts_ns, mm.bytes, mm.total_allocated, mm.addr, mm.tid,
                                   mm.event_id, int(mm.device_type), int(mm.device_index),
                                   mm.total_reserved));
    py::list device;
    for (const prof::DeviceEvent& d : r.device_events) device.append(device_event_tuple(d));
    return py::make_tuple(events, memory, r.start_ns, r.end_ns, device);
  });
  // Whether CUDA kernels can be timed (a CUDA build registered its event timer).
  p.def("_has_device_timer", [] { return prof::device_timer() != nullptr; });
  // The recorder's assembly of device events from kernel calls and their read-back event times
  // (what stop() does with the CUDA timer's results); the tests feed it known times.
  // pending: (name, op_id, correlation, tid, launch_start_ns, launch_end_ns, mark) tuples;
  // marks: (device, stream, ref_cpu_ns, start_ms, end_ms, ok) tuples.
  p.def("_assemble_device_events",
        [](const std::vector<std::tuple<std::string, int64_t, int64_t, uint64_t, int64_t, int64_t,
                                        int64_t>>& pending,
           const std::vector<std::tuple<int, uint64_t, int64_t, double, double, bool>>& marks) {
          std::vector<std::string> names;
          names.reserve(pending.size());  // stable addresses for PendingKernel::name
          std::vector<prof::PendingKernel> ks;
          for (const auto& [name, op, corr, tid, ls, le, mark] : pending) {
            names.push_back(name);
            prof::PendingKernel& k = ks.emplace_back();
            k.name = &names.back();
            k.op_id = op;
            k.correlation = corr;
            k.tid = tid;
            k.launch_start_ns = ls;
            k.launch_end_ns = le;
            k.mark = mark;
          }
          std::vector<prof::ResolvedMark> ms;
          for (const auto& [dev, stream, ref, a, b, ok] : marks)
            ms.push_back({dev, stream, ref, a, b, ok});
          py::list out;
          for (const prof::DeviceEvent& d : prof::assemble_device_events(ks, ms))
            out.append(device_event_tuple(d));
          return out;
        });
  p.def("_is_enabled", [] { return prof::enabled(); });
  p.def("_now_ns", &prof::now_ns);
  p.def(
      "_begin",
      [](const std::string& name, int type) {
        return prof::enabled() ? prof::begin(name, prof::EventType(type)) : uint64_t(0);
      },
      py::arg("name"), py::arg("type") = int(prof::EventType::UserAnnotation));
  p.def("_end", [](uint64_t token) {
    if (token) prof::end(token);
  });
  p.def("_add_external", [](const std::string& name, int64_t start, int64_t end, uint64_t tid) {
    prof::add_external(name, start, end, tid);
  });
}

Registrar r(bind_profiler);

}  // namespace

const std::string* profiled_op_name(const py::detail::function_record& rec) {
  if (!rec.name) return nullptr;
  std::string name = rec.name;
  if (name == "_interpolate" || name == "_copy_out") name = name.substr(1);
  if (is_query(name) || (name[0] == '_' && !is_dunder(name))) return nullptr;
  const std::string prefix = scope_prefix(rec);
  if (prefix.empty()) return nullptr;
  return new std::string(prefix + torch_name(name));  // one per binding, kept for the process
}

uint64_t OpSpan::begin_op(const std::string& name, const py::detail::function_call& call) {
  const uint64_t token = prof::begin_static(&name, prof::EventType::Op);
  if (token && (prof::state() & prof::detail::kShapes)) {
    try {
      record_inputs(token, call.args);
    } catch (...) {  // shapes are best effort: the op itself must run
    }
  }
  return token;
}

}  // namespace tc::python
