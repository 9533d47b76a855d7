// Python access to the internal-overlap test and its message (mem_overlap.h), for the out= wrapper
// (_out.py).
#include "mem_overlap.h"

namespace tc::python {
namespace {

void bind_mem_overlap(py::module_& m, TensorClass&) {
  m.def(
      "_has_internal_overlap", [](const Tensor& t) { return has_internal_overlap(t); },
      py::arg("tensor"));
  m.attr("_INTERNAL_OVERLAP_MESSAGE") = kInternalOverlapMessage;
}

Registrar registrar(bind_mem_overlap);

}  // namespace
}  // namespace tc::python
