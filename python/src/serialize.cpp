// tc.save / tc.load and safetensors: Python objects <-> the .pt value tree. Only data is
// serialized (tensors, numbers, strings, None, and lists/tuples/dicts of them), never code, so
// loading an untrusted checkpoint cannot execute anything.
#include <pybind11/stl/filesystem.h>

#include "bind.h"
#include "tensorcore/serialize/tensors/tensor_io.h"

namespace tc::python {
namespace {

using namespace tc::serialize;

class ToValue {
 public:
  PtValue convert(py::handle obj, int depth = 0) {
    if (depth > 500) throw ValueError("tc.save: object nests more than 500 levels deep");
    if (obj.is_none()) return PtValue();
    if (py::isinstance<py::bool_>(obj)) return PtValue(obj.cast<bool>());
    if (py::isinstance<py::int_>(obj)) {
      try {
        return PtValue(obj.cast<int64_t>());
      } catch (const py::cast_error&) {
        throw ValueError("tc.save: integer " + py::str(obj).cast<std::string>() +
                         " does not fit in 64 bits");
      }
    }
    if (py::isinstance<py::float_>(obj)) return PtValue(obj.cast<double>());
    if (py::isinstance<py::str>(obj)) return PtValue(obj.cast<std::string>());
    if (is_tensor(obj)) return PtValue(records_.make(obj.cast<Tensor>()));
    if (py::isinstance<py::dict>(obj)) {
      PtDict d;
      for (auto item : obj.cast<py::dict>()) {
        d.items.emplace_back(convert(item.first, depth + 1), convert(item.second, depth + 1));
      }
      return PtValue(std::move(d));
    }
    if (py::isinstance<py::tuple>(obj)) {
      PtTuple t;
      for (auto item : obj) t.items.push_back(convert(item, depth + 1));
      return PtValue(std::move(t));
    }
    if (py::isinstance<py::list>(obj)) {
      PtList l;
      for (auto item : obj) l.items.push_back(convert(item, depth + 1));
      return PtValue(std::move(l));
    }
    // NumPy scalars and other number-likes.
    if (py::hasattr(obj, "__index__")) return PtValue(obj.attr("__index__")().cast<int64_t>());
    if (py::hasattr(obj, "__float__") && !py::hasattr(obj, "__len__"))
      return PtValue(obj.attr("__float__")().cast<double>());
    throw TypeError("tc.save: cannot serialize an object of type '" +
                    py::str(obj.get_type().attr("__qualname__")).cast<std::string>() +
                    "' (supported: Tensor, int, float, bool, str, None, and lists, tuples and "
                    "dicts of these; save a module's state_dict() rather than the module)");
  }

 private:
  PtRecordMaker records_;
};

class ToPython {
 public:
  explicit ToPython(py::object restore) : restore_(std::move(restore)) {}

  py::object convert(const PtValue& v) {
    return std::visit([this](const auto& x) { return from(x); }, v.value);
  }

 private:
  TensorMaker tensors_;
  py::object restore_;

  py::object from(const std::monostate&) { return py::none(); }
  py::object from(bool b) { return py::bool_(b); }
  py::object from(int64_t i) { return py::int_(i); }
  py::object from(double d) { return py::float_(d); }
  py::object from(const std::string& s) { return py::str(s); }
  py::object from(const PtList& l) {
    py::list out;
    for (const auto& x : l.items) out.append(convert(x));
    return out;
  }
  py::object from(const PtTuple& t) {
    py::tuple out(t.items.size());
    for (std::size_t i = 0; i < t.items.size(); ++i) out[i] = convert(t.items[i]);
    return out;
  }
  py::object from(const PtDict& d) {
    py::dict out;
    for (const auto& [k, x] : d.items) out[convert(k)] = convert(x);
    return out;
  }
  py::object from(const PtTensorRecord& r) {
    py::object t = py::cast(tensors_.make(r));
    if (!restore_.is_none()) return restore_(t, r.device.empty() ? "cpu" : r.device);
    return t;
  }
};

void bind_serialize(py::module_& m, TensorClass&) {
  py::module_ s = m.def_submodule("_serialize", "checkpoint files (tc.save / tc.load)");
  py::register_exception<IoError>(s, "SerializeIOError", PyExc_OSError);
  s.def("dumps", [](py::handle obj) {
    const PtValue v = ToValue().convert(obj);
    std::string bytes;
    {
      py::gil_scoped_release nogil;
      bytes = write_pt(v);
    }
    return py::bytes(bytes);
  });
  s.def("dump_file", [](py::handle obj, const std::filesystem::path& path) {
    const PtValue v = ToValue().convert(obj);
    py::gil_scoped_release nogil;
    write_pt_file(path, v);
  });
  s.def(
      "loads",
      [](const py::bytes& data, py::object restore) {
        const std::string_view view(data);
        PtValue v;
        {
          py::gil_scoped_release nogil;
          v = read_pt(view);
        }
        return ToPython(std::move(restore)).convert(v);
      },
      py::arg("data"), py::arg("restore") = py::none());
  s.def(
      "load_file",
      [](const std::filesystem::path& path, py::object restore) {
        PtValue v;
        {
          py::gil_scoped_release nogil;
          v = read_pt_file(path);
        }
        return ToPython(std::move(restore)).convert(v);
      },
      py::arg("path"), py::arg("restore") = py::none());
  s.def(
      "save_safetensors",
      [](const NamedTensors& tensors, const std::filesystem::path& path,
         const std::map<std::string, std::string>& metadata) {
        py::gil_scoped_release nogil;
        save_safetensors(tensors, path, metadata);
      },
      py::arg("tensors"), py::arg("path"),
      py::arg("metadata") = std::map<std::string, std::string>{});
  s.def("dumps_safetensors",
        [](const NamedTensors& tensors, const std::map<std::string, std::string>& metadata) {
          std::string bytes;
          {
            py::gil_scoped_release nogil;
            bytes = safetensors_bytes(tensors, metadata);
          }
          return py::bytes(bytes);
        });
  s.def("loads_safetensors", [](const py::bytes& data) {
    const std::string_view view(data);
    SafetensorsFile file;
    NamedTensors tensors;
    {
      py::gil_scoped_release nogil;
      file = read_safetensors(view);
      tensors = tensors_from_safetensors(file);
    }
    py::dict d;
    for (auto& [name, t] : tensors) d[py::str(name)] = py::cast(t);
    return py::make_tuple(d, file.metadata);
  });
  s.def("load_safetensors", [](const std::filesystem::path& path) {
    NamedTensors out;
    {
      py::gil_scoped_release nogil;
      out = load_safetensors(path);
    }
    py::dict d;
    for (auto& [name, t] : out) d[py::str(name)] = py::cast(t);
    return d;
  });
  s.def("safetensors_metadata",
        [](const std::filesystem::path& path) { return read_safetensors_file(path).metadata; });
}

Registrar registrar(bind_serialize);

}  // namespace
}  // namespace tc::python
