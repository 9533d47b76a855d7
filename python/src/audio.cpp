// Bindings for audio IO, SoX effects and the C++ audio kernels, in the private submodule
// tensorcore._C._audio (the public API is python/tensorcore/audio). IO releases the GIL.
#include "audio/features.h"
#include "audio/lfilter.h"
#include "audio/resample.h"
#include "bind.h"
#include "io/audio/audio_io.h"
#include "io/audio/sox_effects.h"

namespace tc::python {
namespace {

// f() with the GIL released: the codecs touch no Python object.
template <typename F>
auto nogil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

std::string_view bytes_view(const py::bytes& b) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0) throw py::error_already_set();
  return {data, size_t(size)};
}

py::tuple meta_tuple(const audio::AudioMetaData& m) {
  return py::make_tuple(m.sample_rate, m.num_frames, m.num_channels, m.bits_per_sample, m.encoding);
}

py::tuple result_tuple(const audio::LoadResult& r) {
  return py::make_tuple(r.waveform, r.sample_rate);
}

audio::LoadOptions load_options(int64_t frame_offset, int64_t num_frames, bool normalize,
                                bool channels_first, const std::string& format) {
  audio::LoadOptions o;
  o.frame_offset = frame_offset;
  o.num_frames = num_frames;
  o.normalize = normalize;
  o.channels_first = channels_first;
  o.format = format;
  return o;
}

audio::SaveOptions save_options(bool channels_first, const std::string& format,
                                const std::string& encoding, int64_t bits,
                                std::optional<double> compression) {
  audio::SaveOptions o;
  o.channels_first = channels_first;
  o.format = format;
  o.encoding = encoding;
  o.bits_per_sample = bits;
  o.compression = compression;
  return o;
}

void bind_audio(py::module_& m, TensorClass&) {
  py::module_ a = m.def_submodule("_audio", "SoX-backed audio IO and audio kernels");
  a.def(
      "info",
      [](const std::string& path, const std::string& format) {
        return meta_tuple(nogil([&] { return audio::info(path, format); }));
      },
      py::arg("path"), py::arg("format") = "");
  a.def(
      "info_bytes",
      [](const py::bytes& data, const std::string& format) {
        std::string_view v = bytes_view(data);
        return meta_tuple(nogil([&] { return audio::info_bytes(v, format); }));
      },
      py::arg("data"), py::arg("format") = "");
  a.def(
      "load",
      [](const std::string& path, int64_t frame_offset, int64_t num_frames, bool normalize,
         bool channels_first, const std::string& format) {
        return result_tuple(nogil([&] {
          return audio::load(
              path, load_options(frame_offset, num_frames, normalize, channels_first, format));
        }));
      },
      py::arg("path"), py::arg("frame_offset") = 0, py::arg("num_frames") = -1,
      py::arg("normalize") = true, py::arg("channels_first") = true, py::arg("format") = "");
  a.def(
      "load_bytes",
      [](const py::bytes& data, int64_t frame_offset, int64_t num_frames, bool normalize,
         bool channels_first, const std::string& format) {
        std::string_view v = bytes_view(data);
        return result_tuple(nogil([&] {
          return audio::load_bytes(
              v, load_options(frame_offset, num_frames, normalize, channels_first, format));
        }));
      },
      py::arg("data"), py::arg("frame_offset") = 0, py::arg("num_frames") = -1,
      py::arg("normalize") = true, py::arg("channels_first") = true, py::arg("format") = "");
  a.def(
      "decode_audio",
      [](const Tensor& data, bool normalize, bool channels_first, const std::string& format) {
        return result_tuple(nogil([&] {
          return audio::decode_audio(data, load_options(0, -1, normalize, channels_first, format));
        }));
      },
      py::arg("data"), py::arg("normalize") = true, py::arg("channels_first") = true,
      py::arg("format") = "");
  a.def(
      "save",
      [](const std::string& path, const Tensor& src, int64_t sample_rate, bool channels_first,
         const std::string& format, const std::string& encoding, int64_t bits,
         std::optional<double> compression) {
        py::gil_scoped_release nogil;
        audio::save(path, src, sample_rate,
                    save_options(channels_first, format, encoding, bits, compression));
      },
      py::arg("path"), py::arg("src"), py::arg("sample_rate"), py::arg("channels_first") = true,
      py::arg("format") = "", py::arg("encoding") = "", py::arg("bits_per_sample") = 0,
      py::arg("compression") = py::none());
  a.def(
      "save_bytes",
      [](const Tensor& src, int64_t sample_rate, bool channels_first, const std::string& format,
         const std::string& encoding, int64_t bits, std::optional<double> compression) {
        return py::bytes(nogil([&] {
          return audio::save_bytes(
              src, sample_rate, save_options(channels_first, format, encoding, bits, compression));
        }));
      },
      py::arg("src"), py::arg("sample_rate"), py::arg("channels_first") = true,
      py::arg("format") = "", py::arg("encoding") = "", py::arg("bits_per_sample") = 0,
      py::arg("compression") = py::none());

  a.def(
      "apply_effects_tensor",
      [](const Tensor& x, int64_t sample_rate, const audio::EffectChain& effects,
         bool channels_first) {
        return result_tuple(nogil(
            [&] { return audio::apply_effects_tensor(x, sample_rate, effects, channels_first); }));
      },
      py::arg("tensor"), py::arg("sample_rate"), py::arg("effects"),
      py::arg("channels_first") = true);
  a.def(
      "apply_effects_file",
      [](const std::string& path, const audio::EffectChain& effects, bool normalize,
         bool channels_first, const std::string& format) {
        return result_tuple(nogil([&] {
          return audio::apply_effects_file(path, effects, normalize, channels_first, format);
        }));
      },
      py::arg("path"), py::arg("effects"), py::arg("normalize") = true,
      py::arg("channels_first") = true, py::arg("format") = "");
  a.def(
      "apply_effects_bytes",
      [](const py::bytes& data, const audio::EffectChain& effects, bool normalize,
         bool channels_first, const std::string& format) {
        std::string_view v = bytes_view(data);
        return result_tuple(nogil([&] {
          return audio::apply_effects_bytes(v, effects, normalize, channels_first, format);
        }));
      },
      py::arg("data"), py::arg("effects"), py::arg("normalize") = true,
      py::arg("channels_first") = true, py::arg("format") = "");
  a.def("effect_names", &audio::effect_names);

  a.def(
      "lfilter_iir",
      [](const Tensor& u, const Tensor& a) {
        py::gil_scoped_release nogil;
        return audio::lfilter_iir(u, a);
      },
      py::arg("u"), py::arg("a"));
  a.def(
      "resample",
      [](const Tensor& x, int64_t orig, int64_t new_freq, int64_t lpw, double rolloff,
         const std::string& method, std::optional<double> beta) {
        py::gil_scoped_release nogil;
        return audio::resample(x, orig, new_freq, lpw, rolloff, method, beta);
      },
      py::arg("waveform"), py::arg("orig_freq"), py::arg("new_freq"),
      py::arg("lowpass_filter_width") = 6, py::arg("rolloff") = 0.99,
      py::arg("resampling_method") = "sinc_interpolation", py::arg("beta") = py::none());
  // MFCC / LFCC in one pass (audio/features.h); None where that path does not apply.
  a.def(
      "cepstral_features",
      [](const Tensor& waveform, const Tensor& window, int64_t n_fft, int64_t hop_length,
         const Tensor& filterbank, const Tensor& dct, bool use_log, double log_offset,
         double multiplier, double amin, double db_multiplier,
         std::optional<double> top_db) -> std::optional<Tensor> {
        audio::CepstralOptions o;
        o.n_fft = n_fft;
        o.hop_length = hop_length;
        o.window = window;
        o.filterbank = filterbank;
        o.dct = dct;
        o.use_log = use_log;
        o.log_offset = log_offset;
        o.multiplier = multiplier;
        o.amin = amin;
        o.db_multiplier = db_multiplier;
        o.top_db = top_db;
        if (!audio::cepstral_features_apply(waveform, o)) return std::nullopt;
        py::gil_scoped_release nogil;
        return audio::cepstral_features(waveform, o);
      },
      py::arg("waveform"), py::arg("window"), py::arg("n_fft"), py::arg("hop_length"),
      py::arg("filterbank"), py::arg("dct"), py::arg("use_log"), py::arg("log_offset"),
      py::arg("multiplier"), py::arg("amin"), py::arg("db_multiplier"), py::arg("top_db"));
}

static Registrar r(bind_audio);

}  // namespace
}  // namespace tc::python
