// tensorcore._C._nn, continued: every loss of tensorcore.nn.functional, bound straight to its one
// implementation in tc::nn::functional (nn/loss.cpp, loss_margin.cpp, cross_entropy.cpp) with
// torch.nn.functional's names, argument order and defaults. Only argument adaptation happens here
// (the deprecated size_average/reduce flags, a number as gaussian_nll_loss's var, a Python
// distance function). Also installs the handler that raises C++ TC_WARN warnings as Python
// UserWarnings.
#include "bind.h"
#include "tensorcore/core/warning.h"
#include "tensorcore/nn/functional.h"

namespace tc::python {
namespace {

namespace F = tc::nn::functional;

// None -> unset; anything else by its truth value (torch's size_average/reduce).
std::optional<bool> opt_flag(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return bool(py::bool_(o));
}

std::string reduction_of(const py::object& size_average, const py::object& reduce,
                         const std::string& reduction) {
  return F::legacy_reduction(opt_flag(size_average), opt_flag(reduce), reduction);
}

void raise_python_warning(const std::string& message) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();
}

void bind_nn_losses(py::module_& root, TensorClass&) {
  tc::set_warning_handler(raise_python_warning);
  // Runs once at interpreter exit, before Python is gone: warnings go back to stderr.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([] { tc::set_warning_handler({}); }));

  py::module_ m = root.def_submodule("_nn", "native kernels behind tensorcore.nn.functional");
  const auto none = py::none();
  m.def(
      "_legacy_reduction",
      [](const py::object& sa, const py::object& rd, const std::string& r) {
        return reduction_of(sa, rd, r);
      },
      py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean",
      "torch's deprecated size_average/reduce flags as a reduction string.");

  m.def(
      "nll_loss",
      [](const Tensor& input, const Tensor& target, const Tensor& weight, const py::object& sa,
         int64_t ignore_index, const py::object& rd, const std::string& r) {
        return F::nll_loss(input, target, weight, ignore_index, reduction_of(sa, rd, r));
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = none, py::arg("size_average") = none,
      py::arg("ignore_index") = -100, py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def(
      "cross_entropy",
      [](const Tensor& input, const Tensor& target, const Tensor& weight, const py::object& sa,
         int64_t ignore_index, const py::object& rd, const std::string& r, double ls) {
        return F::cross_entropy(input, target, weight, ignore_index, reduction_of(sa, rd, r), ls);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = none, py::arg("size_average") = none,
      py::arg("ignore_index") = -100, py::arg("reduce") = none, py::arg("reduction") = "mean",
      py::arg("label_smoothing") = 0.0);
  m.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& input, const Tensor& target, const Tensor& weight, const py::object& sa,
         const py::object& rd, const std::string& r, const Tensor& pos_weight) {
        return F::binary_cross_entropy_with_logits(input, target, weight, reduction_of(sa, rd, r),
                                                   pos_weight);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = none, py::arg("size_average") = none,
      py::arg("reduce") = none, py::arg("reduction") = "mean", py::arg("pos_weight") = none);

  // (input, target, size_average, reduce, reduction) losses.
  using Pointwise = Tensor (*)(const Tensor&, const Tensor&, const std::string&);
  auto def_pointwise = [&](const char* name, Pointwise fn) {
    m.def(
        name,
        [fn](const Tensor& input, const Tensor& target, const py::object& sa, const py::object& rd,
             const std::string& r) { return fn(input, target, reduction_of(sa, rd, r)); },
        py::arg("input"), py::arg("target"), py::arg("size_average") = none,
        py::arg("reduce") = none, py::arg("reduction") = "mean");
  };
  def_pointwise("mse_loss", F::mse_loss);
  def_pointwise("l1_loss", F::l1_loss);
  def_pointwise("soft_margin_loss", F::soft_margin_loss);
  def_pointwise("multilabel_margin_loss", F::multilabel_margin_loss);
  // (input, target, weight, size_average, reduce, reduction) losses.
  using Weighted = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const std::string&);
  auto def_weighted = [&](const char* name, Weighted fn) {
    m.def(
        name,
        [fn](const Tensor& input, const Tensor& target, const Tensor& weight, const py::object& sa,
             const py::object& rd,
             const std::string& r) { return fn(input, target, weight, reduction_of(sa, rd, r)); },
        py::arg("input"), py::arg("target"), py::arg("weight") = none,
        py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  };
  def_weighted("binary_cross_entropy", F::binary_cross_entropy);
  def_weighted("multilabel_soft_margin_loss", F::multilabel_soft_margin_loss);
  // (input1, input2, target, margin, size_average, reduce, reduction) losses.
  using PairMargin =
      Tensor (*)(const Tensor&, const Tensor&, const Tensor&, double, const std::string&);
  auto def_pair_margin = [&](const char* name, PairMargin fn) {
    m.def(
        name,
        [fn](const Tensor& a, const Tensor& b, const Tensor& y, double margin, const py::object& sa,
             const py::object& rd,
             const std::string& r) { return fn(a, b, y, margin, reduction_of(sa, rd, r)); },
        py::arg("input1"), py::arg("input2"), py::arg("target"), py::arg("margin") = 0.0,
        py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  };
  def_pair_margin("cosine_embedding_loss", F::cosine_embedding_loss);
  def_pair_margin("margin_ranking_loss", F::margin_ranking_loss);
  m.def(
      "smooth_l1_loss",
      [](const Tensor& input, const Tensor& target, const py::object& sa, const py::object& rd,
         const std::string& r,
         double beta) { return F::smooth_l1_loss(input, target, reduction_of(sa, rd, r), beta); },
      py::arg("input"), py::arg("target"), py::arg("size_average") = none, py::arg("reduce") = none,
      py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  m.def(
      "huber_loss",
      [](const Tensor& input, const Tensor& target, const std::string& r, double delta) {
        return F::huber_loss(input, target, r, delta);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0);
  m.def(
      "kl_div",
      [](const Tensor& input, const Tensor& target, const py::object& sa, const py::object& rd,
         const std::string& r,
         bool log_target) { return F::kl_div(input, target, reduction_of(sa, rd, r), log_target); },
      py::arg("input"), py::arg("target"), py::arg("size_average") = none, py::arg("reduce") = none,
      py::arg("reduction") = "mean", py::arg("log_target") = false);
  m.def(
      "triplet_margin_loss",
      [](const Tensor& a, const Tensor& p, const Tensor& n, double margin, double norm_p,
         double eps, bool swap, const py::object& sa, const py::object& rd, const std::string& r) {
        return F::triplet_margin_loss(a, p, n, margin, norm_p, eps, swap, reduction_of(sa, rd, r));
      },
      py::arg("anchor"), py::arg("positive"), py::arg("negative"), py::arg("margin") = 1.0,
      py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("swap") = false,
      py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def(
      "triplet_margin_with_distance_loss",
      [](const Tensor& a, const Tensor& p, const Tensor& n, const py::object& distance_function,
         double margin, bool swap, const std::string& r) {
        F::DistanceFunction dist;
        if (!distance_function.is_none()) {
          TC_CHECK_TYPE(
              PyCallable_Check(distance_function.ptr()),
              "triplet_margin_with_distance_loss: distance_function must be callable, "
              "got ",
              py::str(py::type::of(distance_function).attr("__name__")).cast<std::string>());
          dist = [distance_function](const Tensor& u, const Tensor& v) {
            py::object d = distance_function(u, v);
            TC_CHECK_TYPE(is_tensor(d),
                          "triplet_margin_with_distance_loss: distance_function must return a "
                          "Tensor, got ",
                          py::str(py::type::of(d).attr("__name__")).cast<std::string>());
            return d.cast<Tensor>();
          };
        }
        return F::triplet_margin_with_distance_loss(a, p, n, dist, margin, swap, r);
      },
      py::arg("anchor"), py::arg("positive"), py::arg("negative"), py::kw_only(),
      py::arg("distance_function") = none, py::arg("margin") = 1.0, py::arg("swap") = false,
      py::arg("reduction") = "mean");
  m.def(
      "poisson_nll_loss",
      [](const Tensor& input, const Tensor& target, bool log_input, bool full, const py::object& sa,
         double eps, const py::object& rd, const std::string& r) {
        return F::poisson_nll_loss(input, target, log_input, full, eps, reduction_of(sa, rd, r));
      },
      py::arg("input"), py::arg("target"), py::arg("log_input") = true, py::arg("full") = false,
      py::arg("size_average") = none, py::arg("eps") = 1e-8, py::arg("reduce") = none,
      py::arg("reduction") = "mean");
  m.def(
      "gaussian_nll_loss",
      [](const Tensor& input, const Tensor& target, const py::object& var, bool full, double eps,
         const std::string& r) {
        // A number stands for a constant variance of the input's shape.
        Tensor v = is_tensor(var) ? var.cast<Tensor>()
                                  : full_like(input, to_scalar(var, "gaussian_nll_loss"));
        return F::gaussian_nll_loss(input, target, v, full, eps, r);
      },
      py::arg("input"), py::arg("target"), py::arg("var"), py::arg("full") = false,
      py::arg("eps") = 1e-6, py::arg("reduction") = "mean");
  m.def(
      "hinge_embedding_loss",
      [](const Tensor& input, const Tensor& target, double margin, const py::object& sa,
         const py::object& rd, const std::string& r) {
        return F::hinge_embedding_loss(input, target, margin, reduction_of(sa, rd, r));
      },
      py::arg("input"), py::arg("target"), py::arg("margin") = 1.0, py::arg("size_average") = none,
      py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def(
      "multi_margin_loss",
      [](const Tensor& input, const Tensor& target, int64_t p, double margin, const Tensor& weight,
         const py::object& sa, const py::object& rd, const std::string& r) {
        return F::multi_margin_loss(input, target, p, margin, weight, reduction_of(sa, rd, r));
      },
      py::arg("input"), py::arg("target"), py::arg("p") = 1, py::arg("margin") = 1.0,
      py::arg("weight") = none, py::arg("size_average") = none, py::arg("reduce") = none,
      py::arg("reduction") = "mean");
}

Registrar registrar(bind_nn_losses);

}  // namespace
}  // namespace tc::python
