// Bindings of tc::nn::functional's non-loss ops (activations, softmax family, linear maps,
// dropout variants, distances, encodings, interpolate, lp pooling) into tensorcore._C._nn, with
// torch.nn.functional's argument names and defaults. tensorcore.nn.functional calls them from
// thin Python functions that keep torch's Python signatures; all computation, argument checks
// and error messages are the C++ functions'.
#include <cmath>

#include "bind.h"
#include "tensorcore/nn/functional.h"

namespace tc::python {
namespace {

namespace F = tc::nn::functional;

// torch's dim=None for the softmax family.
int64_t softmax_dim(const Tensor& x, const py::object& dim) {
  return dim.is_none() ? F::legacy_softmax_dim(x.dim()) : dim.cast<int64_t>();
}

void warn(const std::string& msg) {
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 2) < 0) throw py::error_already_set();
}

Tensor interpolate(const Tensor& input, const py::object& size, const py::object& scale_factor,
                   const std::string& mode, std::optional<bool> align_corners,
                   std::optional<bool> recompute_scale_factor, bool antialias) {
  return F::interpolate(input, opt_int_list(size, "interpolate", "size"),
                        opt_double_list(scale_factor, "interpolate", "scale_factor"), mode,
                        align_corners, recompute_scale_factor.value_or(false), antialias);
}

void bind_activations(py::module_& m) {
  using py::arg;
  m.def("relu", &F::relu, arg("input"), arg("inplace") = false);
  m.def("relu6", &F::relu6, arg("input"), arg("inplace") = false);
  m.def("threshold", &F::threshold, arg("input"), arg("threshold"), arg("value"),
        arg("inplace") = false);
  m.def("hardtanh", &F::hardtanh, arg("input"), arg("min_val") = -1.0, arg("max_val") = 1.0,
        arg("inplace") = false);
  m.def("leaky_relu", &F::leaky_relu, arg("input"), arg("negative_slope") = 0.01,
        arg("inplace") = false);
  m.def("elu", &F::elu, arg("input"), arg("alpha") = 1.0, arg("inplace") = false);
  m.def("selu", &F::selu, arg("input"), arg("inplace") = false);
  m.def("celu", &F::celu, arg("input"), arg("alpha") = 1.0, arg("inplace") = false);
  m.def("rrelu", &F::rrelu, arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3,
        arg("training") = false, arg("inplace") = false);
  m.def("silu", &F::silu, arg("input"), arg("inplace") = false);
  m.def("mish", &F::mish, arg("input"), arg("inplace") = false);
  m.def("hardswish", &F::hardswish, arg("input"), arg("inplace") = false);
  m.def("hardsigmoid", &F::hardsigmoid, arg("input"), arg("inplace") = false);
  m.def("gelu", &F::gelu, arg("input"), arg("approximate") = "none");
  m.def("prelu", &F::prelu, arg("input"), arg("weight"));
  m.def("softplus", &F::softplus, arg("input"), arg("beta") = 1.0, arg("threshold") = 20.0);
  m.def("softsign", &F::softsign, arg("input"));
  m.def("tanhshrink", &F::tanhshrink, arg("input"));
  m.def("hardshrink", &F::hardshrink, arg("input"), arg("lambd") = 0.5);
  m.def("softshrink", &F::softshrink, arg("input"), arg("lambd") = 0.5);
  m.def("logsigmoid", &F::logsigmoid, arg("input"));
  m.def("glu", &F::glu, arg("input"), arg("dim") = -1);
#define TC_BIND_SOFTMAX(name)                                                               \
  m.def(                                                                                    \
      #name,                                                                                \
      [](const Tensor& input, const py::object& dim, int64_t, std::optional<DType> dtype) { \
        return F::name(input, softmax_dim(input, dim), dtype);                              \
      },                                                                                    \
      arg("input"), arg("dim") = py::none(), arg("_stacklevel") = 3, arg("dtype") = py::none())
  TC_BIND_SOFTMAX(softmax);
  TC_BIND_SOFTMAX(log_softmax);
  TC_BIND_SOFTMAX(softmin);
#undef TC_BIND_SOFTMAX
  m.def(
      "gumbel_softmax",
      [](const Tensor& logits, double tau, bool hard, double eps, int64_t dim) {
        if (eps != 1e-10) warn("`eps` parameter is deprecated and has no effect.");
        return F::gumbel_softmax(logits, tau, hard, eps, dim);
      },
      arg("logits"), arg("tau") = 1.0, arg("hard") = false, arg("eps") = 1e-10, arg("dim") = -1);
}

void bind_dropout_variants(py::module_& m) {
  using py::arg;
  m.def("dropout1d", &F::dropout1d, arg("input"), arg("p") = 0.5, arg("training") = true,
        arg("inplace") = false);
  // torch 1.13's deprecation warnings (tc::nn has no warning channel; the C++ function has the
  // same behaviour without them).
  m.def(
      "dropout2d",
      [](const Tensor& input, double p, bool training, bool inplace) {
        const int64_t nd = input.defined() ? input.dim() : 0;
        if (input.defined() && nd != 3 && nd != 4)
          warn("dropout2d: Received a " + std::to_string(nd) +
               "-D input to dropout2d, which is deprecated and will result in an error in a "
               "future release. To retain the behavior and silence this warning, please use "
               "dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
               "inputs with 2 spatial dimensions, a channel dimension, and an optional batch "
               "dimension (i.e. 3D or 4D inputs).");
        if (nd == 3)
          warn(
              "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
              "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
              "the channel dim. This behavior will change in a future release to interpret the "
              "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
              "channel-wise dropout behavior, please switch to using dropout1d instead.");
        return F::dropout2d(input, p, training, inplace);
      },
      arg("input"), arg("p") = 0.5, arg("training") = true, arg("inplace") = false);
  m.def(
      "dropout3d",
      [](const Tensor& input, double p, bool training, bool inplace) {
        const int64_t nd = input.defined() ? input.dim() : 0;
        if (input.defined() && nd != 4 && nd != 5)
          warn("dropout3d: Received a " + std::to_string(nd) +
               "-D input to dropout3d, which is deprecated and will result in an error in a "
               "future release. To retain the behavior and silence this warning, please use "
               "dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
               "inputs with 3 spatial dimensions, a channel dimension, and an optional batch "
               "dimension (i.e. 4D or 5D inputs).");
        return F::dropout3d(input, p, training, inplace);
      },
      arg("input"), arg("p") = 0.5, arg("training") = true, arg("inplace") = false);
}

void bind_maps_and_distances(py::module_& m) {
  using py::arg;
  m.def("linear", &F::linear, arg("input"), arg("weight"), arg("bias") = py::none());
  m.def("bilinear", &F::bilinear, arg("input1"), arg("input2"), arg("weight"),
        arg("bias") = py::none());
  m.def("one_hot", &F::one_hot, arg("tensor"), arg("num_classes") = -1);
  m.def(
      "normalize",
      [](const Tensor& input, double p, int64_t dim, double eps, const Tensor& out) {
        Tensor r = F::normalize(input, p, dim, eps);
        if (!out.defined()) return r;
        Tensor dst = out;
        copy_(dst, r);
        return dst;
      },
      arg("input"), arg("p") = 2.0, arg("dim") = 1, arg("eps") = 1e-12, arg("out") = py::none());
  m.def("cosine_similarity", &F::cosine_similarity, arg("x1"), arg("x2"), arg("dim") = 1,
        arg("eps") = 1e-8);
  m.def("pairwise_distance", &F::pairwise_distance, arg("x1"), arg("x2"), arg("p") = 2.0,
        arg("eps") = 1e-6, arg("keepdim") = false);
  m.def("pdist", &F::pdist, arg("input"), arg("p") = 2.0);
  m.def("channel_shuffle", &F::channel_shuffle, arg("input"), arg("groups"));
  m.def("interpolate", &interpolate, arg("input"), arg("size") = py::none(),
        arg("scale_factor") = py::none(), arg("mode") = "nearest",
        arg("align_corners") = py::none(), arg("recompute_scale_factor") = py::none(),
        arg("antialias") = false);
#define TC_BIND_LP_POOL(name)                                                                   \
  m.def(                                                                                        \
      #name,                                                                                    \
      [](const Tensor& input, double norm_type, const py::object& kernel_size,                  \
         const py::object& stride, bool ceil_mode) {                                            \
        TC_CHECK_TYPE(!kernel_size.is_none(), #name ": kernel_size must be an int or a tuple"); \
        return F::name(input, norm_type, opt_int_list(kernel_size, #name, "kernel_size"),       \
                       opt_int_list(stride, #name, "stride"), ceil_mode);                       \
      },                                                                                        \
      arg("input"), arg("norm_type"), arg("kernel_size"), arg("stride") = py::none(),           \
      arg("ceil_mode") = false)
  TC_BIND_LP_POOL(lp_pool1d);
  TC_BIND_LP_POOL(lp_pool2d);
#undef TC_BIND_LP_POOL
}

void bind_nn_functional(py::module_& root, TensorClass&) {
  // def_submodule returns the existing _nn module when python/src/nn.cpp registered first.
  py::module_ m = root.def_submodule("_nn", "native kernels behind tensorcore.nn.functional");
  bind_activations(m);
  bind_dropout_variants(m);
  bind_maps_and_distances(m);
}

Registrar r(bind_nn_functional);

}  // namespace
}  // namespace tc::python
