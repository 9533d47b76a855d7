// Bindings of tc::nn::functional's fractional max pooling (nn/fractional_pool.h) into
// tensorcore._C._nn, with torch.nn.functional's argument names.
#include "bind.h"
#include "tensorcore/nn/fractional_pool.h"

namespace tc::python {
namespace {

namespace F = tc::nn::functional;
using py::arg;

void bind_fractional(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_nn", "native kernels behind tensorcore.nn.functional");
#define TC_BIND_FRACTIONAL(name)                                                            \
  m.def(                                                                                    \
      #name,                                                                                \
      [](const Tensor& input, const py::object& kernel_size, const py::object& output_size, \
         const py::object& output_ratio, const std::optional<Tensor>& samples) {            \
        return F::name(input, opt_int_list(kernel_size, #name, "kernel_size"),              \
                       opt_int_list(output_size, #name, "output_size"),                     \
                       opt_double_list(output_ratio, #name, "output_ratio"),                \
                       samples.value_or(Tensor()));                                         \
      },                                                                                    \
      arg("input"), arg("kernel_size"), arg("output_size") = py::none(),                    \
      arg("output_ratio") = py::none(), arg("_random_samples") = py::none())
  TC_BIND_FRACTIONAL(fractional_max_pool2d_with_indices);
  TC_BIND_FRACTIONAL(fractional_max_pool3d_with_indices);
#undef TC_BIND_FRACTIONAL
}

Registrar r(bind_fractional);

}  // namespace
}  // namespace tc::python
