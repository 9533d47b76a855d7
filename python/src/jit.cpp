// tc.jit: the tracer (records bound calls as graph nodes while a trace runs on this thread) and
// the bindings of the C++ runtime (tensorcore/jit), which runs saved graphs here as it does in a
// plain C++ program.
#include <unordered_map>
#include <unordered_set>

#include "jit_hook.h"
#include "tensorcore/jit.h"

namespace tc::python {

thread_local JitTrace* tl_jit_trace = nullptr;

namespace jit = tc::jit;
using jit::Arg;

struct JitTrace {
  jit::Graph graph;
  std::unordered_map<const TensorImpl*, int64_t> value_of;  // current graph value of a tensor
  std::unordered_map<const TensorImpl*, int64_t> constant_of;
  std::unordered_map<const TensorImpl*, std::string> param_names;
  std::unordered_set<const void*> traced_storages;
  std::vector<Tensor> keep_alive;  // traced tensors stay alive so their addresses stay unique
  std::vector<Tensor> constants;
  int depth = 0;

  int64_t new_value(const Tensor& t) {
    const int64_t id = graph.num_values++;
    value_of[t.impl()] = id;
    traced_storages.insert(static_cast<const void*>(t.storage().get()));
    keep_alive.push_back(t);
    return id;
  }

  Arg tensor_arg(const Tensor& t, const std::string& op) {
    if (!t.defined()) return Arg::lit(jit::None{});
    if (auto it = value_of.find(t.impl()); it != value_of.end()) return Arg::value(it->second);
    if (auto it = constant_of.find(t.impl()); it != constant_of.end())
      return Arg::constant(it->second);
    auto name = param_names.find(t.impl());
    if (name == param_names.end() &&
        traced_storages.count(static_cast<const void*>(t.storage().get())))
      throw TypeError(
          "jit.trace: " + op +
          " received a tensor that views a traced value but was not made by a traceable op "
          "(a property such as .T, .data or .real, or a NumPy round trip); use the method form "
          "(.t(), .detach(), ...) so the graph records it");
    const int64_t index = int64_t(constants.size());
    constant_of[t.impl()] = index;
    constants.push_back(t.detach());
    graph.constant_names.push_back(name != param_names.end() ? name->second
                                                             : "constant." + std::to_string(index));
    return Arg::constant(index);
  }

  Arg to_arg(py::handle h, const std::string& op) {
    PyObject* p = h.ptr();
    if (p == Py_None) return Arg::lit(jit::None{});
    if (p == Py_Ellipsis) return Arg::lit(jit::Ellipsis{});
    if (PyBool_Check(p)) return Arg::lit(p == Py_True);
    if (PyLong_Check(p)) return Arg::lit(h.cast<int64_t>());
    if (PyFloat_Check(p)) return Arg::lit(PyFloat_AS_DOUBLE(p));
    if (PyUnicode_Check(p)) return Arg::lit(h.cast<std::string>());
    if (is_tensor(h)) return tensor_arg(h.cast<Tensor>(), op);
    if (py::isinstance<DTypeObject>(h)) return Arg::lit(h.cast<DTypeObject&>().value);
    if (py::isinstance<DeviceObject>(h)) return Arg::lit(h.cast<DeviceObject&>().value);
    if (PySlice_Check(p)) {
      auto* s = reinterpret_cast<PySliceObject*>(p);
      auto part = [&](PyObject* o) -> std::optional<int64_t> {
        if (o == Py_None) return std::nullopt;
        return py::int_(py::reinterpret_borrow<py::object>(o)).cast<int64_t>();
      };
      return Arg::lit(jit::Slice{part(s->start), part(s->stop), part(s->step)});
    }
    if (PyTuple_Check(p) || PyList_Check(p)) {
      std::vector<Arg> items;
      for (py::handle x : py::reinterpret_borrow<py::sequence>(h)) items.push_back(to_arg(x, op));
      return Arg::seq(PyTuple_Check(p) ? Arg::Kind::Tuple : Arg::Kind::List, std::move(items));
    }
    if (PyDict_Check(p)) {
      Arg a = Arg::seq(Arg::Kind::Dict, {});
      for (auto kv : py::reinterpret_borrow<py::dict>(h)) {
        TC_CHECK_TYPE(PyUnicode_Check(kv.first.ptr()), "jit.trace: ", op,
                      " got a dict with a non-string key; only string keys can be traced");
        a.keys.push_back(kv.first.cast<std::string>());
        a.items.push_back(to_arg(kv.second, op));
      }
      return a;
    }
    if (py::hasattr(h, "dtype") && py::hasattr(h, "item") && !py::hasattr(h, "__len__"))
      return to_arg(h.attr("item")(), op);  // a NumPy scalar
    throw TypeError("jit.trace: " + op + " received an argument of type " +
                    std::string(py::str(h.get_type().attr("__name__"))) +
                    ", which a graph cannot hold (tensors, numbers, strings, dtypes, devices, "
                    "slices and sequences/dicts of them can)");
  }

  // The pattern binding a call's result: tensors get new values, anything else is ignored.
  Arg out_pattern(py::handle h) {
    if (is_tensor(h)) return Arg::value(new_value(h.cast<Tensor>()));
    if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
      std::vector<Arg> items;
      for (py::handle x : py::reinterpret_borrow<py::sequence>(h)) items.push_back(out_pattern(x));
      return Arg::seq(PyTuple_Check(h.ptr()) ? Arg::Kind::Tuple : Arg::Kind::List,
                      std::move(items));
    }
    return Arg::lit(jit::None{});
  }
};

bool tl_jit_tracing_active() { return tl_jit_trace != nullptr; }

namespace {

bool holds_tensor(py::handle h) {
  if (is_tensor(h)) return true;
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()))
    for (py::handle x : py::reinterpret_borrow<py::sequence>(h))
      if (holds_tensor(x)) return true;
  return false;
}

// "_C._nn.conv2d", "Tensor.add_": the binding's module (without "tensorcore.") or "Tensor".
const std::string& trace_name(const py::detail::function_record& rec) {
  static std::unordered_map<const py::detail::function_record*, std::string> cache;
  auto it = cache.find(&rec);
  if (it != cache.end()) return it->second;
  std::string scope;
  if (rec.is_method && rec.scope.ptr() == py::type::of<TensorImpl>().ptr()) {
    scope = "Tensor";
  } else if (rec.scope && PyModule_Check(rec.scope.ptr())) {
    const char* mod = PyModule_GetName(rec.scope.ptr());
    scope = mod ? mod : "";
    if (scope.rfind("tensorcore.", 0) == 0) scope = scope.substr(11);
  } else if (rec.scope) {
    scope = py::str(rec.scope.attr("__name__")).cast<std::string>();
  }
  return cache.emplace(&rec, scope + "." + (rec.name ? rec.name : "?")).first->second;
}

bool mutates(const std::string& name) {
  if (name.rfind("Tensor.", 0) != 0) return false;  // only Tensor methods work in place
  const std::string n = name.substr(7);
  static const std::unordered_set<std::string> inplace_dunders = {
      "__setitem__",   "__iadd__",    "__isub__",    "__imul__",   "__itruediv__",
      "__ifloordiv__", "__imod__",    "__ipow__",    "__iand__",   "__ior__",
      "__ixor__",      "__ilshift__", "__irshift__", "__imatmul__"};
  return inplace_dunders.count(n) || (n.size() > 1 && n.back() == '_' && n.front() != '_');
}

}  // namespace

py::handle jit_traced_call(BoundImpl impl, py::detail::function_call& call) {
  JitTrace& tr = *tl_jit_trace;
  ++tr.depth;
  py::handle raw;
  try {
    raw = impl(call);
  } catch (...) {
    --tr.depth;
    throw;
  }
  --tr.depth;
  if (tr.depth > 0 || !raw || raw.ptr() == PYBIND11_TRY_NEXT_OVERLOAD) return raw;
  py::object result = py::reinterpret_steal<py::object>(raw);
  const std::string& name = trace_name(call.func);
  if (!holds_tensor(result) && !mutates(name)) return result.release();
  if (!jit::find_op(name))
    throw NotImplementedError("jit.trace: " + name +
                              " has no graph runtime kernel yet, so a traced program cannot call "
                              "it (see docs/jit.md for the supported ops)");
  jit::Node node;
  node.op = name;
  for (py::handle a : call.args) node.args.push_back(tr.to_arg(a, name));
  node.out = tr.out_pattern(result);
  tr.graph.nodes.push_back(std::move(node));
  return result.release();
}

namespace {

jit::IValue to_ivalue(py::handle h) {
  PyObject* p = h.ptr();
  if (p == Py_None) return {};
  if (PyBool_Check(p)) return p == Py_True;
  if (PyLong_Check(p)) return h.cast<int64_t>();
  if (PyFloat_Check(p)) return PyFloat_AS_DOUBLE(p);
  if (PyUnicode_Check(p)) return h.cast<std::string>();
  if (is_tensor(h)) return h.cast<Tensor>();
  if (py::isinstance<DTypeObject>(h)) return h.cast<DTypeObject&>().value;
  if (py::isinstance<DeviceObject>(h)) return h.cast<DeviceObject&>().value;
  if (PyTuple_Check(p) || PyList_Check(p)) {
    jit::IValueList items;
    for (py::handle x : py::reinterpret_borrow<py::sequence>(h)) items.push_back(to_ivalue(x));
    return PyTuple_Check(p) ? jit::IValue::tuple(std::move(items))
                            : jit::IValue::list(std::move(items));
  }
  if (PyDict_Check(p)) {
    jit::IValueDict items;
    for (auto kv : py::reinterpret_borrow<py::dict>(h))
      items.emplace_back(py::str(kv.first).cast<std::string>(), to_ivalue(kv.second));
    return jit::IValue::dict(std::move(items));
  }
  throw TypeError("forward: an input of type " +
                  std::string(py::str(h.get_type().attr("__name__"))) +
                  " cannot be passed to a traced module");
}

py::object from_ivalue(const jit::IValue& v) {
  if (v.is_none()) return py::none();
  if (v.is_bool()) return py::bool_(v.to_bool());
  if (v.is_int()) return py::int_(v.to_int());
  if (v.is_double()) return py::float_(v.to_double());
  if (v.is_string()) return py::str(v.to_string());
  if (v.is_tensor()) return py::cast(v.to_tensor());
  if (v.is_dtype()) return dtype_object(v.to_dtype());
  if (v.is_device()) return device_object(v.to_device());
  if (v.is_sequence()) {
    py::list items;
    for (const jit::IValue& x : v.items()) items.append(from_ivalue(x));
    if (v.is_tuple()) return py::tuple(items);
    return std::move(items);
  }
  if (v.is_dict()) {
    py::dict d;
    for (const auto& [k, x] : v.dict_items()) d[py::str(k)] = from_ivalue(x);
    return std::move(d);
  }
  throw TypeError(std::string("a traced module returned a ") + v.kind_name());
}

// Owns the thread's trace while a Python `with` block runs the traced function.
class Tracer {
 public:
  explicit Tracer(const py::dict& param_names) {
    for (auto kv : param_names)
      trace_.param_names[kv.second.cast<Tensor>().impl()] = kv.first.cast<std::string>();
  }
  void start() {
    TC_CHECK(!tl_jit_trace, "jit.trace: a trace is already running on this thread");
    tl_jit_trace = &trace_;
  }
  void stop() {
    if (tl_jit_trace == &trace_) tl_jit_trace = nullptr;
  }
  void add_input(py::handle x, const std::string& name) {
    Arg pattern = input_pattern(x);
    trace_.graph.inputs.push_back(pattern);
    jit::InputSpec spec;
    spec.name = name;
    if (is_tensor(x)) {
      Tensor t = x.cast<Tensor>();
      spec.dtype = dtype_name(t.dtype());
      spec.rank = t.dim();
    }
    trace_.graph.input_specs.push_back(spec);
  }
  jit::Module finish(py::handle output, const std::map<std::string, std::string>& meta) {
    stop();
    trace_.graph.output = trace_.to_arg(output, "the traced function's result");
    return jit::Module(trace_.graph, trace_.constants, meta);
  }

 private:
  Arg input_pattern(py::handle x) {
    if (is_tensor(x)) return Arg::value(trace_.new_value(x.cast<Tensor>()));
    if (PyTuple_Check(x.ptr()) || PyList_Check(x.ptr())) {
      std::vector<Arg> items;
      for (py::handle e : py::reinterpret_borrow<py::sequence>(x))
        items.push_back(input_pattern(e));
      return Arg::seq(PyTuple_Check(x.ptr()) ? Arg::Kind::Tuple : Arg::Kind::List,
                      std::move(items));
    }
    if (PyDict_Check(x.ptr())) {
      Arg a = Arg::seq(Arg::Kind::Dict, {});
      for (auto kv : py::reinterpret_borrow<py::dict>(x)) {
        a.keys.push_back(py::str(kv.first).cast<std::string>());
        a.items.push_back(input_pattern(kv.second));
      }
      return a;
    }
    throw TypeError(
        "jit.trace: example inputs must be tensors or lists/tuples/dicts of tensors, "
        "got " +
        std::string(py::str(x.get_type().attr("__name__"))));
  }
  JitTrace trace_;
};

void bind_jit(py::module_& m, TensorClass&) {
  py::module_ j = m.def_submodule("_jit", "tc.jit: tracer and graph runtime");
  py::class_<Tracer>(j, "Tracer")
      .def(py::init<const py::dict&>(), py::arg("param_names"))
      .def("start", &Tracer::start)
      .def("stop", &Tracer::stop)
      .def("add_input", &Tracer::add_input, py::arg("x"), py::arg("name") = "")
      .def("finish", &Tracer::finish, py::arg("output"), py::arg("metadata"));
  py::class_<jit::Module>(j, "Module")
      .def("forward",
           [](const jit::Module& mod, const py::args& args) {
             jit::IValueList inputs;
             for (py::handle a : args) inputs.push_back(to_ivalue(a));
             jit::IValue out;
             {
               py::gil_scoped_release nogil;  // concurrent requests run in parallel
               out = mod.forward(inputs);
             }
             return from_ivalue(out);
           })
      .def("save", [](const jit::Module& mod, const std::string& path) { mod.save(path); })
      .def("save_to_bytes", [](const jit::Module& mod) { return py::bytes(mod.save_to_bytes()); })
      .def("freeze", &jit::Module::freeze)
      .def("to", &jit::Module::to)
      .def_property_readonly("graph", [](const jit::Module& mod) { return mod.graph().str(); })
      .def_property_readonly("graph_json",
                             [](const jit::Module& mod) { return mod.graph().json_text(2); })
      .def_property_readonly("num_nodes",
                             [](const jit::Module& mod) { return mod.graph().nodes.size(); })
      .def_property_readonly("ops",
                             [](const jit::Module& mod) {
                               std::vector<std::string> ops;
                               for (const auto& n : mod.graph().nodes) ops.push_back(n.op);
                               return ops;
                             })
      .def("named_constants", &jit::Module::named_constants)
      .def_property_readonly("metadata", &jit::Module::metadata);
  j.def(
      "load",
      [](const std::string& path, std::optional<Device> device) {
        return jit::Module::load(path, device);
      },
      py::arg("path"), py::arg("map_location") = py::none());
  j.def(
      "load_from_bytes",
      [](const py::bytes& data, std::optional<Device> device) {
        return jit::Module::load_from_bytes(std::string(data), device);
      },
      py::arg("data"), py::arg("map_location") = py::none());
  j.def("registered_ops", &jit::registered_ops);
  m.def("_jit_tracing", [] { return tl_jit_tracing_active(); });
}

Registrar registrar(bind_jit);

}  // namespace
}  // namespace tc::python
