// Python bindings for tensorcore.fft (submodule _C._fft, re-exported by python/tensorcore/fft).
#include "tensorcore/fft/fft.h"
#include "bind.h"
#include "tensorcore/fft/engine.h"
#include "tensorcore/fft/spectral.h"

namespace tc::python {
namespace {

std::optional<int64_t> opt_int(const py::object& o) {
  if (o.is_none()) return {};
  return o.cast<int64_t>();
}

fft::OptDims opt_dims(const py::object& o) {
  if (o.is_none()) return {};
  return to_dims(o);
}

TensorOptions freq_options(const py::object& dtype, const py::object& device, bool requires_grad) {
  TensorOptions o(dtype.is_none() ? get_default_dtype() : dtype.cast<DType>());
  if (!device.is_none()) o = o.device(device.cast<Device>());
  return o.requires_grad(requires_grad);
}

void bind_fft(py::module_& m, TensorClass& cls) {
  py::module_ f = m.def_submodule("_fft", "FFT functions (tensorcore.fft)");
  using Fn1 = Tensor (*)(const Tensor&, fft::OptInt, int64_t, const fft::OptNorm&);
  auto def1 = [&](const char* name, Fn1 fn) {
    f.def(
        name,
        [fn](const Tensor& x, py::object n, int64_t dim, std::optional<std::string> norm) {
          auto len = opt_int(n);
          py::gil_scoped_release release;  // pure C++ from here: other Python threads may run
          return fn(x, len, dim, norm);
        },
        py::arg("input"), py::arg("n") = py::none(), py::arg("dim") = -1,
        py::arg("norm") = py::none());
  };
  def1("fft", fft::fft);
  def1("ifft", fft::ifft);
  def1("rfft", fft::rfft);
  def1("irfft", fft::irfft);
  def1("hfft", fft::hfft);
  def1("ihfft", fft::ihfft);

  using FnN = Tensor (*)(const Tensor&, fft::OptDims, fft::OptDims, const fft::OptNorm&);
  auto defn = [&](const char* name, FnN fn) {
    f.def(
        name,
        [fn](const Tensor& x, py::object s, py::object dim, std::optional<std::string> norm) {
          auto shape = opt_dims(s);
          auto dims = opt_dims(dim);
          py::gil_scoped_release release;
          return fn(x, shape, dims, norm);
        },
        py::arg("input"), py::arg("s") = py::none(), py::arg("dim") = py::none(),
        py::arg("norm") = py::none());
  };
  using Fn2 = Tensor (*)(const Tensor&, fft::OptDims, std::vector<int64_t>, const fft::OptNorm&);
  auto def2 = [&](const char* name, Fn2 fn) {
    f.def(
        name,
        [fn](const Tensor& x, py::object s, py::object dim, std::optional<std::string> norm) {
          auto shape = opt_dims(s);
          auto dims = to_dims(dim);
          py::gil_scoped_release release;
          return fn(x, shape, dims, norm);
        },
        py::arg("input"), py::arg("s") = py::none(), py::arg("dim") = py::make_tuple(-2, -1),
        py::arg("norm") = py::none());
  };
  def2("fft2", fft::fft2);
  def2("ifft2", fft::ifft2);
  def2("rfft2", fft::rfft2);
  def2("irfft2", fft::irfft2);
  def2("hfft2", fft::hfft2);
  def2("ihfft2", fft::ihfft2);
  defn("hfftn", fft::hfftn);
  defn("ihfftn", fft::ihfftn);
  defn("fftn", fft::fftn);
  defn("ifftn", fft::ifftn);
  defn("rfftn", fft::rfftn);
  defn("irfftn", fft::irfftn);

  using FreqFn = Tensor (*)(int64_t, double, TensorOptions);
  auto def_freq = [&](const char* name, FreqFn fn) {
    f.def(
        name,
        [fn](int64_t n, double d, py::object dtype, py::object, py::object device, bool rg) {
          return fn(n, d, freq_options(dtype, device, rg));
        },
        py::arg("n"), py::arg("d") = 1.0, py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("layout") = py::none(), py::arg("device") = py::none(),
        py::arg("requires_grad") = false);
  };
  def_freq("fftfreq", fft::fftfreq);
  def_freq("rfftfreq", fft::rfftfreq);
  using ShiftFn = Tensor (*)(const Tensor&, const std::vector<int64_t>&);
  auto def_shift = [&](const char* name, ShiftFn fn) {
    f.def(
        name, [fn](const Tensor& x, py::object dim) { return fn(x, to_dims(dim)); },
        py::arg("input"), py::arg("dim") = py::none());
  };
  def_shift("fftshift", fft::fftshift);
  def_shift("ifftshift", fft::ifftshift);

  // torch.stft / torch.istft and the window functions live at the top level (tc.stft, ...).
  def_fn_and_method(
      m, cls, "stft",
      [](const Tensor& x, int64_t n_fft, py::object hop, py::object win, const Tensor& window,
         bool center, const std::string& pad_mode, bool normalized, std::optional<bool> onesided,
         std::optional<bool> return_complex) {
        auto hop_len = opt_int(hop), win_len = opt_int(win);
        py::gil_scoped_release release;
        return stft(x, n_fft, hop_len, win_len, window, center, pad_mode, normalized, onesided,
                    return_complex);
      },
      py::arg("n_fft"), py::arg("hop_length") = py::none(), py::arg("win_length") = py::none(),
      py::arg("window") = py::none(), py::arg("center") = true, py::arg("pad_mode") = "reflect",
      py::arg("normalized") = false, py::arg("onesided") = py::none(),
      py::arg("return_complex") = py::none());
  def_fn_and_method(
      m, cls, "istft",
      [](const Tensor& x, int64_t n_fft, py::object hop, py::object win, const Tensor& window,
         bool center, bool normalized, std::optional<bool> onesided, py::object length,
         bool return_complex) {
        auto hop_len = opt_int(hop), win_len = opt_int(win), len = opt_int(length);
        py::gil_scoped_release release;
        return istft(x, n_fft, hop_len, win_len, window, center, normalized, onesided, len,
                     return_complex);
      },
      py::arg("n_fft"), py::arg("hop_length") = py::none(), py::arg("win_length") = py::none(),
      py::arg("window") = py::none(), py::arg("center") = true, py::arg("normalized") = false,
      py::arg("onesided") = py::none(), py::arg("length") = py::none(),
      py::arg("return_complex") = false);
#define TC_DEF_WINDOW(name, call)                                                              \
  m.def(                                                                                       \
      #name,                                                                                   \
      [](int64_t n, bool periodic, py::object dtype, py::object, py::object device, bool rg) { \
        TensorOptions o = freq_options(dtype, device, rg);                                     \
        return call;                                                                           \
      },                                                                                       \
      py::arg("window_length"), py::arg("periodic") = true, py::kw_only(),                     \
      py::arg("dtype") = py::none(), py::arg("layout") = py::none(),                           \
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  TC_DEF_WINDOW(hann_window, hann_window(n, periodic, o))
  TC_DEF_WINDOW(blackman_window, blackman_window(n, periodic, o))
  TC_DEF_WINDOW(bartlett_window, bartlett_window(n, periodic, o))
#undef TC_DEF_WINDOW
  m.def(
      "hamming_window",
      [](int64_t n, bool periodic, double alpha, double beta, py::object dtype, py::object,
         py::object device, bool rg) {
        return hamming_window(n, periodic, alpha, beta, freq_options(dtype, device, rg));
      },
      py::arg("window_length"), py::arg("periodic") = true, py::arg("alpha") = 0.54,
      py::arg("beta") = 0.46, py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("layout") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
  m.def(
      "kaiser_window",
      [](int64_t n, bool periodic, double beta, py::object dtype, py::object, py::object device,
         bool rg) { return kaiser_window(n, periodic, beta, freq_options(dtype, device, rg)); },
      py::arg("window_length"), py::arg("periodic") = true, py::arg("beta") = 12.0, py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("layout") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);

  f.def("_plan_cache_size", &fft::plan_cache_size);
  f.def("_clear_plan_cache", &fft::clear_plan_cache);
  f.def("next_fast_len", &fft::next_fast_len, py::arg("n"));
  f.def("_plan_algorithm", &fft::plan_algorithm, py::arg("n"));
  f.def("_bluestein_length", &fft::bluestein_length, py::arg("n"));
}

static Registrar r(bind_fft);

}  // namespace
}  // namespace tc::python
