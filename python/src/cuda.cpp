// Bindings for tc.cuda (private submodule _C._cuda; the Python package wraps it) and the CUDA
// Tensor methods (record_stream, pin_memory, is_pinned).
#include "tensorcore/cuda/cuda.h"
#include "bind.h"

namespace tc::python {
namespace {

void bind_cuda(py::module_& root, TensorClass& cls) {
  py::module_ m = root.def_submodule("_cuda", "CUDA runtime bindings (use tensorcore.cuda)");
  m.def("is_compiled", &cuda_compiled);
  m.def("is_available", &cuda::is_available);
  m.def("device_count", &cuda::device_count);
  m.def("current_device", &cuda::current_device);
  m.def("set_device", &cuda::set_device, py::arg("device"));
  m.def("synchronize", &cuda::synchronize, py::arg("device") = -1,
        py::call_guard<py::gil_scoped_release>());
  m.def("get_device_name", &cuda::get_device_name, py::arg("device") = -1);

  py::class_<cuda::DeviceProperties>(m, "_CudaDeviceProperties")
      .def_readonly("name", &cuda::DeviceProperties::name)
      .def_readonly("major", &cuda::DeviceProperties::major)
      .def_readonly("minor", &cuda::DeviceProperties::minor)
      .def_readonly("total_memory", &cuda::DeviceProperties::total_memory)
      .def_readonly("multi_processor_count", &cuda::DeviceProperties::multi_processor_count)
      .def_readonly("max_threads_per_multi_processor",
                    &cuda::DeviceProperties::max_threads_per_multi_processor)
      .def_readonly("warp_size", &cuda::DeviceProperties::warp_size)
      .def_readonly("l2_cache_size", &cuda::DeviceProperties::l2_cache_size)
      .def("__repr__", [](const cuda::DeviceProperties& p) {
        return detail::concat("_CudaDeviceProperties(name='", p.name, "', major=", p.major,
                              ", minor=", p.minor, ", total_memory=", p.total_memory / (1 << 20),
                              "MB, multi_processor_count=", p.multi_processor_count, ")");
      });
  m.def("get_device_properties", &cuda::get_device_properties, py::arg("device") = -1);

  py::class_<cuda::Stream>(m, "_Stream")
      .def_readonly("device_index", &cuda::Stream::device)
      .def_property_readonly("cuda_stream",
                             [](const cuda::Stream& s) { return uintptr_t(s.handle); })
      .def("query", &cuda::Stream::query)
      .def("synchronize", &cuda::Stream::synchronize, py::call_guard<py::gil_scoped_release>())
      .def("__eq__", [](const cuda::Stream& a, const cuda::Stream& b) { return a == b; })
      .def("__hash__",
           [](const cuda::Stream& s) { return py::hash(py::int_(s.id() ^ uint64_t(s.device))); });
  m.def("new_stream", &cuda::new_stream, py::arg("device") = -1, py::arg("priority") = 0);
  m.def("default_stream", &cuda::default_stream, py::arg("device") = -1);
  m.def("current_stream", &cuda::current_stream, py::arg("device") = -1);
  m.def("set_stream", &cuda::set_current_stream, py::arg("stream"));
  m.def("stream_wait_stream", &cuda::stream_wait_stream);

  py::class_<cuda::Event, std::unique_ptr<cuda::Event>>(m, "_Event")
      .def(py::init<bool, bool, bool>(), py::arg("enable_timing") = false,
           py::arg("blocking") = false, py::arg("interprocess") = false)
      .def("record", &cuda::Event::record)
      .def("wait", &cuda::Event::wait)
      .def("query", &cuda::Event::query)
      .def("synchronize", &cuda::Event::synchronize, py::call_guard<py::gil_scoped_release>())
      .def("elapsed_time", &cuda::Event::elapsed_time)
      .def_property_readonly("recorded", &cuda::Event::recorded);

  m.def("memory_allocated", &cuda::memory_allocated, py::arg("device") = -1);
  m.def("max_memory_allocated", &cuda::max_memory_allocated, py::arg("device") = -1);
  m.def("memory_reserved", &cuda::memory_reserved, py::arg("device") = -1);
  m.def("max_memory_reserved", &cuda::max_memory_reserved, py::arg("device") = -1);
  m.def("reset_peak_memory_stats", &cuda::reset_peak_memory_stats, py::arg("device") = -1);
  m.def("empty_cache", &cuda::empty_cache);
  m.def("memory_stats", &cuda::memory_stats, py::arg("device") = -1);
  m.def("memory_summary", &cuda::memory_summary, py::arg("device") = -1);

  m.def("manual_seed", [](py::int_ seed) { cuda::manual_seed(seed.cast<uint64_t>()); });
  m.def("manual_seed_all", [](py::int_ seed) { cuda::manual_seed_all(seed.cast<uint64_t>()); });
  m.def("default_generator", &cuda::default_generator, py::arg("device") = -1);

  m.def("set_allow_tf32", &cuda::set_allow_tf32);
  m.def("allow_tf32", &cuda::allow_tf32);
  m.def("set_allow_reduced_precision_reduction", &cuda::set_allow_reduced_precision_reduction);
  m.def("allow_reduced_precision_reduction", &cuda::allow_reduced_precision_reduction);

  // Accepts tensorcore.cuda.Stream (which wraps a _Stream in `_s`) or a raw _Stream.
  cls.def(
      "record_stream",
      [](const Tensor& t, py::object s) {
        py::object raw = py::hasattr(s, "_s") ? s.attr("_s") : s;
        cuda::record_stream(t, raw.cast<cuda::Stream>());
      },
      py::arg("stream"));
  cls.def("pin_memory", [](const Tensor& t) { return cuda::pin_memory(t); });
  cls.def("is_pinned", [](const Tensor& t) { return cuda::is_pinned(t); });
}

Registrar r(bind_cuda);

}  // namespace
}  // namespace tc::python
