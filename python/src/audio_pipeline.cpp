// Binding for the C++ audio transforms runtime (tc::audio::transforms::Pipeline), in the private
// submodule tensorcore._C._audio_pipeline: Python tests load saved pipelines through it.
#include "audio/pipeline.h"
#include "bind.h"
#include "pipeline_binding.h"

namespace tc::python {
namespace {

void bind_audio_pipeline(py::module_& m, TensorClass&) {
  py::module_ a = m.def_submodule("_audio_pipeline", "C++ runtime for saved audio transforms");
  bind_deploy_pipeline<tc::audio::transforms::Pipeline>(a, "waveform");
  a.def(
      "apply_pipeline",
      [](const std::string& json, const Tensor& waveform) {
        py::gil_scoped_release nogil;
        return tc::audio::transforms::apply_pipeline(json, waveform);
      },
      py::arg("json"), py::arg("waveform"));
}

static Registrar r(bind_audio_pipeline);

}  // namespace
}  // namespace tc::python
