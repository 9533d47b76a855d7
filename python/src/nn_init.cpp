// tensorcore._C._nn_init: tc::nn::init (tensorcore/nn/init.h), the one implementation of
// torch.nn.init's rules; python/tensorcore/nn/init.py only adds torch's warnings and returns the
// caller's tensor object.
#include "bind.h"
#include "nn_messages.h"
#include "tensorcore/core/generator.h"
#include "tensorcore/nn/init.h"

namespace tc::python {
namespace {

namespace I = tc::nn::init;

GeneratorPtr generator_of(py::handle g) {
  if (g.is_none()) return {};
  return g.cast<GeneratorPtr>();
}

// torch accepts an int or float (not a bool) as leaky_relu's slope; the check is Python's type
// adaptation, the gain formula is C++'s.
std::optional<double> slope_of(const std::string& nonlinearity, py::handle param) {
  if (param.is_none() || nonlinearity != "leaky_relu") return std::nullopt;
  const bool number = !py::isinstance<py::bool_>(param) &&
                      (py::isinstance<py::int_>(param) || py::isinstance<py::float_>(param));
  if (!number)
    throw ValueError("negative_slope " + py::str(param).cast<std::string>() +
                     " not a valid number");
  return param.cast<double>();
}

void bind_nn_init(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_nn_init", "tc::nn::init (torch.nn.init)");
  const auto gen = py::arg("generator") = py::none();
  m.def("calculate_gain", with_torch_messages([](const std::string& nl, py::handle param) {
          return I::calculate_gain(nl, slope_of(nl, param));
        }),
        py::arg("nonlinearity"), py::arg("param") = py::none());
  m.def("calculate_fan_in_and_fan_out", with_torch_messages(&I::calculate_fan_in_and_fan_out),
        py::arg("tensor"));
  m.def("calculate_correct_fan", with_torch_messages(&I::calculate_correct_fan), py::arg("tensor"),
        py::arg("mode"));
  m.def("trunc_normal_mean_far", with_torch_messages(&I::trunc_normal_mean_far), py::arg("mean"),
        py::arg("std"), py::arg("a"), py::arg("b"));
  m.def("uniform_", with_torch_messages([](const Tensor& t, double a, double b, py::handle g) {
          I::uniform_(t, a, b, generator_of(g));
        }),
        py::arg("tensor"), py::arg("a") = 0.0, py::arg("b") = 1.0, gen);
  m.def("normal_", with_torch_messages([](const Tensor& t, double mean, double std, py::handle g) {
          I::normal_(t, mean, std, generator_of(g));
        }),
        py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, gen);
  m.def("trunc_normal_",
        with_torch_messages(
            [](const Tensor& t, double mean, double std, double a, double b, py::handle g) {
              I::trunc_normal_(t, mean, std, a, b, generator_of(g));
            }),
        py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("a") = -2.0,
        py::arg("b") = 2.0, gen);
  m.def("constant_", with_torch_messages([](const Tensor& t, double v) { I::constant_(t, v); }),
        py::arg("tensor"), py::arg("val"));
  m.def("eye_", with_torch_messages([](const Tensor& t) { I::eye_(t); }), py::arg("tensor"));
  m.def("dirac_",
        with_torch_messages([](const Tensor& t, int64_t groups) { I::dirac_(t, groups); }),
        py::arg("tensor"), py::arg("groups") = 1);
  m.def("xavier_uniform_", with_torch_messages([](const Tensor& t, double gain, py::handle g) {
          I::xavier_uniform_(t, gain, generator_of(g));
        }),
        py::arg("tensor"), py::arg("gain") = 1.0, gen);
  m.def("xavier_normal_", with_torch_messages([](const Tensor& t, double gain, py::handle g) {
          I::xavier_normal_(t, gain, generator_of(g));
        }),
        py::arg("tensor"), py::arg("gain") = 1.0, gen);
  m.def("kaiming_uniform_",
        with_torch_messages([](const Tensor& t, py::handle a, const std::string& mode,
                               const std::string& nl, py::handle g) {
          const double slope = slope_of(nl, a).value_or(0.01);
          I::kaiming_uniform_(t, slope, mode, nl, generator_of(g));
        }),
        py::arg("tensor"), py::arg("a") = 0, py::arg("mode") = "fan_in",
        py::arg("nonlinearity") = "leaky_relu", gen);
  m.def("kaiming_normal_",
        with_torch_messages([](const Tensor& t, py::handle a, const std::string& mode,
                               const std::string& nl, py::handle g) {
          const double slope = slope_of(nl, a).value_or(0.01);
          I::kaiming_normal_(t, slope, mode, nl, generator_of(g));
        }),
        py::arg("tensor"), py::arg("a") = 0, py::arg("mode") = "fan_in",
        py::arg("nonlinearity") = "leaky_relu", gen);
  m.def("orthogonal_", with_torch_messages([](const Tensor& t, double gain, py::handle g) {
          I::orthogonal_(t, gain, generator_of(g));
        }),
        py::arg("tensor"), py::arg("gain") = 1.0, gen);
  m.def("sparse_",
        with_torch_messages([](const Tensor& t, double sparsity, double std, py::handle g) {
          I::sparse_(t, sparsity, std, generator_of(g));
        }),
        py::arg("tensor"), py::arg("sparsity"), py::arg("std") = 0.01, gen);
}

static Registrar r(bind_nn_init);

}  // namespace
}  // namespace tc::python
