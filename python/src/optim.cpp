// Bindings for the fused optimizer steps (tensorcore._C._optim): one call per param group.
#include "bind.h"
#include "tensorcore/optim/fused.h"

namespace tc::python {
namespace {

void bind_optim(py::module_& m, TensorClass&) {
  auto o = m.def_submodule("_optim", "fused optimizer steps");
  using namespace tc::optim;
  o.def("_force_generic", &set_force_generic, py::arg("on"),
        "test-only: run every optimizer step through the device-generic tensor-op path");
  o.def("_is_generic_forced", &force_generic);
  o.def(
      "sgd_step",
      [](const TensorList& params, const TensorList& bufs, double lr, double momentum,
         double dampening, double weight_decay, bool nesterov, bool maximize) {
        SgdOptions opt{lr, momentum, dampening, weight_decay, nesterov, maximize};
        py::gil_scoped_release release;
        return sgd_step(params, bufs, opt);
      },
      py::arg("params"), py::arg("momentum_buffers"), py::arg("lr"), py::arg("momentum"),
      py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"), py::arg("maximize"));
  o.def(
      "adam_step",
      [](const TensorList& params, const TensorList& m1, const TensorList& m2,
         const TensorList& vmax, const TensorList& steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
        AdamOptions opt{lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled};
        py::gil_scoped_release release;
        adam_step(params, m1, m2, vmax, steps, opt);
      },
      py::arg("params"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"), py::arg("max_exp_avg_sqs"),
      py::arg("steps"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
      py::arg("weight_decay"), py::arg("amsgrad"), py::arg("maximize"),
      py::arg("decoupled_weight_decay"));
  o.def("adagrad_step",
        [](const TensorList& params, const TensorList& sums, const TensorList& steps, double lr,
           double lr_decay, double weight_decay, double eps, bool maximize) {
          AdagradOptions opt{lr, lr_decay, weight_decay, eps, maximize};
          py::gil_scoped_release release;
          adagrad_step(params, sums, steps, opt);
        });
  o.def("rmsprop_step",
        [](const TensorList& params, const TensorList& sq, const TensorList& bufs,
           const TensorList& gavg, const TensorList& steps, double lr, double alpha, double eps,
           double weight_decay, double momentum, bool centered, bool maximize) {
          RmspropOptions opt{lr, alpha, eps, weight_decay, momentum, centered, maximize};
          py::gil_scoped_release release;
          rmsprop_step(params, sq, bufs, gavg, steps, opt);
        });
  o.def("adadelta_step", [](const TensorList& params, const TensorList& sq, const TensorList& acc,
                            const TensorList& steps, double lr, double rho, double eps,
                            double weight_decay, bool maximize) {
    AdadeltaOptions opt{lr, rho, eps, weight_decay, maximize};
    py::gil_scoped_release release;
    adadelta_step(params, sq, acc, steps, opt);
  });
  o.def("adamax_step", [](const TensorList& params, const TensorList& m1, const TensorList& inf,
                          const TensorList& steps, double lr, double beta1, double beta2,
                          double eps, double weight_decay, bool maximize) {
    AdamaxOptions opt{lr, beta1, beta2, eps, weight_decay, maximize};
    py::gil_scoped_release release;
    adamax_step(params, m1, inf, steps, opt);
  });
  o.def("nadam_step", [](const TensorList& params, const TensorList& m1, const TensorList& m2,
                         const TensorList& mu, const TensorList& steps, double lr, double beta1,
                         double beta2, double eps, double weight_decay, double momentum_decay) {
    NadamOptions opt{lr, beta1, beta2, eps, weight_decay, momentum_decay};
    py::gil_scoped_release release;
    nadam_step(params, m1, m2, mu, steps, opt);
  });
  o.def("radam_step", [](const TensorList& params, const TensorList& m1, const TensorList& m2,
                         const TensorList& steps, double lr, double beta1, double beta2, double eps,
                         double weight_decay) {
    RadamOptions opt{lr, beta1, beta2, eps, weight_decay};
    py::gil_scoped_release release;
    radam_step(params, m1, m2, steps, opt);
  });
}

Registrar registrar(bind_optim);

}  // namespace
}  // namespace tc::python
