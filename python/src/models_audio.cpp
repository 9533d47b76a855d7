// Bindings for the native parts of the audio models (tensorcore::models), in the private
// submodule tensorcore._C._models_audio; the public API is python/tensorcore/audio/models.
#include "bind.h"
#include "models/audio/conv_tasnet.h"
#include "models/audio/wavernn_infer.h"

namespace tc::python {
namespace {

namespace ma = tc::models::audio;

// Weights by their torchaudio state-dict names.
ma::WaveRNNWeights wavernn_weights(const py::dict& sd) {
  auto get = [&](const char* key) -> Tensor {
    TC_CHECK(sd.contains(key), "wavernn_infer: weights has no entry '", key, "'");
    return sd[key].cast<Tensor>();
  };
  ma::WaveRNNWeights w;
  w.fc_weight = get("fc.weight");
  w.fc_bias = get("fc.bias");
  w.rnn1_weight_ih = get("rnn1.weight_ih_l0");
  w.rnn1_weight_hh = get("rnn1.weight_hh_l0");
  w.rnn1_bias_ih = get("rnn1.bias_ih_l0");
  w.rnn1_bias_hh = get("rnn1.bias_hh_l0");
  w.rnn2_weight_ih = get("rnn2.weight_ih_l0");
  w.rnn2_weight_hh = get("rnn2.weight_hh_l0");
  w.rnn2_bias_ih = get("rnn2.bias_ih_l0");
  w.rnn2_bias_hh = get("rnn2.bias_hh_l0");
  w.fc1_weight = get("fc1.weight");
  w.fc1_bias = get("fc1.bias");
  w.fc2_weight = get("fc2.weight");
  w.fc2_bias = get("fc2.bias");
  w.fc3_weight = get("fc3.weight");
  w.fc3_bias = get("fc3.bias");
  return w;
}

void bind_models_audio(py::module_& m, TensorClass&) {
  py::module_ a = m.def_submodule("_models_audio", "native parts of tensorcore.audio.models");
  a.def(
      "wavernn_infer",
      [](const py::dict& weights, const Tensor& specgram, const Tensor& aux,
         std::vector<int64_t> lengths, py::object generator, std::optional<uint64_t> torch_seed,
         bool mulaw, int64_t fold_target, int64_t fold_overlap) {
        ma::WaveRNNInferOptions o;
        if (!generator.is_none()) o.generator = generator.cast<GeneratorPtr>();
        o.torch_seed = torch_seed;
        o.mulaw = mulaw;
        o.fold_target = fold_target;
        o.fold_overlap = fold_overlap;
        ma::WaveRNNWeights w = wavernn_weights(weights);
        py::gil_scoped_release nogil;
        return ma::wavernn_infer(w, specgram, aux, lengths, o);
      },
      py::arg("weights"), py::arg("specgram"), py::arg("aux"),
      py::arg("lengths") = std::vector<int64_t>(), py::arg("generator") = py::none(),
      py::arg("torch_seed") = py::none(), py::arg("mulaw") = false, py::arg("fold_target") = 0,
      py::arg("fold_overlap") = 0);
  a.def("conv_tasnet_pad", &ma::conv_tasnet_pad, py::arg("input"), py::arg("enc_kernel_size"),
        py::arg("enc_stride"));
  a.def("conv_tasnet_unpad", &ma::conv_tasnet_unpad, py::arg("output"), py::arg("input"));
  a.def(
      "small_batch_linear",
      [](const Tensor& x, const Tensor& weight) {
        py::gil_scoped_release nogil;
        return ma::small_batch_linear(x, weight);
      },
      py::arg("x"), py::arg("weight"));
}

static Registrar r(bind_models_audio);

}  // namespace
}  // namespace tc::python
