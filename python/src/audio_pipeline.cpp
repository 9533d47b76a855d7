// Binding for the C++ audio transforms runtime (tc::audio::transforms::Pipeline), in the private
// submodule tensorcore._C._audio_pipeline: Python tests load saved pipelines through it.
#include "bind.h"
#include "tensorcore/audio/pipeline.h"

namespace tc::python {
namespace {

void bind_audio_pipeline(py::module_& m, TensorClass&) {
  py::module_ a = m.def_submodule("_audio_pipeline", "C++ runtime for saved audio transforms");
  using tc::audio::transforms::Pipeline;
  py::class_<Pipeline>(a, "Pipeline")
      .def_static("load", &Pipeline::load, py::arg("path"))
      .def_static("from_json", [](const std::string& text) { return Pipeline::from_json(text); })
      .def("names", &Pipeline::names)
      .def("__len__", &Pipeline::size)
      .def(
          "__call__",
          [](const Pipeline& p, const Tensor& waveform, py::object gen) {
            GeneratorPtr g = gen.is_none() ? GeneratorPtr() : gen.cast<GeneratorPtr>();
            py::gil_scoped_release nogil;
            return p(waveform, g);
          },
          py::arg("waveform"), py::arg("generator") = py::none());
}

static Registrar r(bind_audio_pipeline);

}  // namespace
}  // namespace tc::python
