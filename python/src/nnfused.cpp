// Bindings for the fused activation kernels (tensorcore._C._nnfused), used by nn.functional.
#include "bind.h"
#include "tensorcore/nnfused/activation.h"

namespace tc::python {
namespace {

void bind_nnfused(py::module_& m, TensorClass&) {
  auto f = m.def_submodule("_nnfused", "fused activation kernels");
  f.def("softmax", [](const Tensor& x, int64_t dim) { return nnfused::softmax(x, dim); });
  f.def("log_softmax", [](const Tensor& x, int64_t dim) { return nnfused::log_softmax(x, dim); });
  f.def("gelu", [](const Tensor& x, bool tanh_approx) { return nnfused::gelu(x, tanh_approx); });
  f.def("gelu_backward", [](const Tensor& g, const Tensor& x, bool tanh_approx) {
    return nnfused::gelu_backward(g, x, tanh_approx);
  });
  f.def("softmax_backward", [](const Tensor& g, const Tensor& y, int64_t dim) {
    return nnfused::softmax_backward(g, y, dim);
  });
  f.def("log_softmax_backward", [](const Tensor& g, const Tensor& y, int64_t dim) {
    return nnfused::log_softmax_backward(g, y, dim);
  });
}

Registrar registrar(bind_nnfused);

}  // namespace
}  // namespace tc::python
