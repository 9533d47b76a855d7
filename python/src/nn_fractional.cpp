// Bindings of tc::nn::functional's fractional max pooling (nn/fractional_pool.h) into
// tensorcore._C._nn, with torch.nn.functional's argument names.
#include "bind.h"
#include "tensorcore/nn/fractional_pool.h"

namespace tc::python {
namespace {

namespace F = tc::nn::functional;
using py::arg;

std::vector<int64_t> int_list(const py::object& o) {
  if (o.is_none()) return {};
  DimList d = to_dims(o);
  return std::vector<int64_t>(d.begin(), d.end());
}

std::vector<double> double_list(const py::object& o) {
  if (o.is_none()) return {};
  if (py::isinstance<py::float_>(o) || py::isinstance<py::int_>(o)) return {o.cast<double>()};
  std::vector<double> out;
  for (py::handle item : o) out.push_back(item.cast<double>());
  return out;
}

void bind_fractional(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_nn", "native kernels behind tensorcore.nn.functional");
#define TC_BIND_FRACTIONAL(name)                                                            \
  m.def(                                                                                    \
      #name,                                                                                \
      [](const Tensor& input, const py::object& kernel_size, const py::object& output_size, \
         const py::object& output_ratio, const std::optional<Tensor>& samples) {            \
        return F::name(input, int_list(kernel_size), int_list(output_size),                 \
                       double_list(output_ratio), samples.value_or(Tensor()));              \
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
