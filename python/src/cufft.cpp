// Bindings of the cuFFT plan cache (_C._cufft; used by tensorcore.backends.cuda.cufft_plan_cache).
#include "tensorcore/cuda/cufft.h"
#include "bind.h"

namespace tc::python {
namespace {

void bind_cufft(py::module_& m, TensorClass&) {
  py::module_ c = m.def_submodule("_cufft", "cuFFT plan cache (tensorcore.backends.cuda)");
  c.def("is_available", &cuda::cufft_available);
  c.def("plan_cache_size", &cuda::cufft_plan_cache_size, py::arg("device") = -1);
  c.def("plan_cache_max_size", &cuda::cufft_plan_cache_max_size, py::arg("device") = -1);
  c.def("set_plan_cache_max_size", &cuda::set_cufft_plan_cache_max_size, py::arg("max_size"),
        py::arg("device") = -1);
  c.def("clear_plan_cache", &cuda::clear_cufft_plan_cache, py::arg("device") = -1);
}

static Registrar registrar(bind_cufft);

}  // namespace
}  // namespace tc::python
