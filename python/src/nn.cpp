// Bindings for the native nn kernels: tensorcore._C._nn, with torch.nn.functional's argument
// names and defaults. tensorcore/nn/_native.py re-exports them for tensorcore.nn.functional.
#include "bind.h"
#include "tensorcore/nn/functional.h"

namespace tc::python {
namespace {

namespace F = tc::nn::functional;

// int or sequence of ints -> list (one value stands for every spatial dim).
F::IntList ints(const py::object& o, const char* op, const char* what) {
  TC_CHECK_TYPE(!o.is_none() && !py::isinstance<py::str>(o), op, "(): ", what,
                " must be an int or a tuple of ints");
  DimList d = to_dims(o);
  return F::IntList(d.begin(), d.end());
}

template <typename Conv, typename ConvStr>
auto conv_binding(const char* name, Conv conv, ConvStr conv_str) {
  return [=](const Tensor& input, const Tensor& weight, const Tensor& bias, const py::object& stride,
             const py::object& padding, const py::object& dilation, int64_t groups) {
    if (py::isinstance<py::str>(padding))
      return conv_str(input, weight, bias, ints(stride, name, "stride"),
                      padding.cast<std::string>(), ints(dilation, name, "dilation"), groups);
    return conv(input, weight, bias, ints(stride, name, "stride"), ints(padding, name, "padding"),
                ints(dilation, name, "dilation"), groups);
  };
}

template <typename ConvT>
auto conv_transpose_binding(const char* name, ConvT conv) {
  return [=](const Tensor& input, const Tensor& weight, const Tensor& bias, const py::object& stride,
             const py::object& padding, const py::object& output_padding, int64_t groups,
             const py::object& dilation) {
    return conv(input, weight, bias, ints(stride, name, "stride"), ints(padding, name, "padding"),
                ints(output_padding, name, "output_padding"), groups,
                ints(dilation, name, "dilation"));
  };
}

void bind_nn(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_nn", "native kernels behind tensorcore.nn.functional");
  using CI = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const F::IntList&,
                        const F::IntList&, const F::IntList&, int64_t);
  using CS = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const F::IntList&,
                        const std::string&, const F::IntList&, int64_t);
#define TC_BIND_CONV(name)                                                                        \
  m.def(#name, conv_binding(#name, static_cast<CI>(&F::name), static_cast<CS>(&F::name)),        \
        py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(),                       \
        py::arg("stride") = 1, py::arg("padding") = 0, py::arg("dilation") = 1,                  \
        py::arg("groups") = 1)
  TC_BIND_CONV(conv1d);
  TC_BIND_CONV(conv2d);
  TC_BIND_CONV(conv3d);
#undef TC_BIND_CONV
#define TC_BIND_CONV_T(name)                                                                      \
  m.def(#name, conv_transpose_binding(#name, &F::name), py::arg("input"), py::arg("weight"),      \
        py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,              \
        py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("dilation") = 1)
  TC_BIND_CONV_T(conv_transpose1d);
  TC_BIND_CONV_T(conv_transpose2d);
  TC_BIND_CONV_T(conv_transpose3d);
#undef TC_BIND_CONV_T
}

static Registrar r(bind_nn);

}  // namespace
}  // namespace tc::python
