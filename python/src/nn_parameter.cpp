// Python-side nn support: constructing Tensor subclasses (nn.Parameter, buffers) that alias an
// existing tensor, and swapping a tensor's data in place (Module.to / .float keep Parameter
// identity, as torch's `param.data = ...` does).
#include "bind.h"

namespace tc::python {
namespace {

void bind_nn_parameter(py::module_& m, TensorClass& cls) {
  // Used as Tensor.__init__(self, data, requires_grad) by Python subclasses: the new object is a
  // detached alias of `data` (shares storage and version counter), like torch's _make_subclass.
  cls.def(py::init([](const Tensor& data, bool requires_grad) {
            TC_CHECK_AS(TypeError, data.defined(), "Parameter(): expected a Tensor, got None");
            Tensor alias = data.detach();
            if (requires_grad) {
              TC_CHECK_AS(TypeError, is_floating(alias.dtype()) || alias.is_complex(),
                          "Parameter(): only floating point or complex tensors can require "
                          "gradients, got dtype ",
                          dtype_name(alias.dtype()));
              alias.requires_grad_(true);
            }
            return alias.impl_ptr();
          }),
          py::arg("data"), py::arg("requires_grad") = false);

  auto nn = m.def_submodule("_nn_py", "Python-side nn helpers");
  // Points `self` at `data`'s storage, sizes, strides and dtype; keeps self's autograd state.
  nn.def("set_data", [](const Tensor& self, const Tensor& data) {
    TC_CHECK_AS(TypeError, self.defined() && data.defined(), "set_data: expected two tensors");
    TensorImpl* dst = self.impl();
    TensorImpl* src = data.impl();
    dst->storage = src->storage;
    dst->sizes = src->sizes;
    dst->strides = src->strides;
    dst->offset = src->offset;
    dst->dtype = src->dtype;
    dst->refresh_numel();
  });
}

Registrar registrar(bind_nn_parameter);

}  // namespace
}  // namespace tc::python
