// Bindings for tc.backends.cudnn (private submodule _C._cudnn; python/tensorcore/backends/cudnn.py
// wraps it with torch.backends.cudnn's attribute names).
#include "tensorcore/cudnn/cudnn.h"
#include "bind.h"

namespace tc::python {
namespace {

void bind_cudnn(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_cudnn", "cuDNN settings (use tensorcore.backends.cudnn)");
  m.def("is_compiled", &cudnn::is_compiled);
  m.def("is_available", &cudnn::is_available);
  m.def("version", &cudnn::version);
  m.def("enabled", &cudnn::enabled);
  m.def("set_enabled", &cudnn::set_enabled, py::arg("on"));
  m.def("benchmark", &cudnn::benchmark);
  m.def("set_benchmark", &cudnn::set_benchmark, py::arg("on"));
  m.def("deterministic", &cudnn::deterministic);
  m.def("set_deterministic", &cudnn::set_deterministic, py::arg("on"));
  m.def("allow_tf32", &cudnn::allow_tf32);
  m.def("set_allow_tf32", &cudnn::set_allow_tf32, py::arg("on"));
  m.def("clear_algorithm_cache", &cudnn::clear_algorithm_cache);
  m.def("algorithm_cache_size", &cudnn::algorithm_cache_size);
}

Registrar r(bind_cudnn);

}  // namespace
}  // namespace tc::python
