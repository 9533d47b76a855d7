// Bindings for tensorcore.vision: detection ops and transform kernels live in the private
// submodule tensorcore._C._vision; the Python package wraps them with torchvision's signatures.
#include "bind.h"
#include "tensorcore/vision/ops/ops.h"

namespace tc::python {
namespace {

void bind_vision(py::module_& m, TensorClass&) {
  py::module_ v = m.def_submodule("_vision", "tensorcore.vision kernels");
  namespace vo = tc::vision::ops;
  v.def("nms", &vo::nms, py::arg("boxes"), py::arg("scores"), py::arg("iou_threshold"));
  v.def("roi_align", &vo::roi_align, py::arg("input"), py::arg("rois"), py::arg("spatial_scale"),
        py::arg("pooled_height"), py::arg("pooled_width"), py::arg("sampling_ratio"),
        py::arg("aligned"));
  v.def("roi_pool", &vo::roi_pool, py::arg("input"), py::arg("rois"), py::arg("spatial_scale"),
        py::arg("pooled_height"), py::arg("pooled_width"));
  v.def("ps_roi_align", &vo::ps_roi_align, py::arg("input"), py::arg("rois"),
        py::arg("spatial_scale"), py::arg("pooled_height"), py::arg("pooled_width"),
        py::arg("sampling_ratio"));
  v.def("ps_roi_pool", &vo::ps_roi_pool, py::arg("input"), py::arg("rois"),
        py::arg("spatial_scale"), py::arg("pooled_height"), py::arg("pooled_width"));
}

static Registrar r(bind_vision);

}  // namespace
}  // namespace tc::python
