// tensorcore._C._nncpp, continued: the C++ frontend's loss modules (tc::nn::CrossEntropyLoss ...
// GaussianNLLLoss, CTCLoss, the margin family but TripletMarginWithDistanceLoss, whose distance
// function is C++) with torch's constructor arguments, callable from Python with their
// tensor arguments (forward dispatch through the shared table of nncpp.h).
#include <optional>
#include <utility>

#include "nncpp.h"

namespace tc::python {
namespace {

using ModulePtr = nn::ModulePtr;

// forward(t0, ..., t{N-1}) of a loss taking N tensors; None entries are undefined tensors.
template <typename Impl, size_t... I>
py::object call_loss(nn::Module& m, const py::args& a, std::index_sequence<I...>) {
  constexpr size_t n = sizeof...(I);
  TC_CHECK_TYPE(a.size() == n, m.name(), ".forward: expected ", n, " tensor arguments, got ",
                a.size());
  std::array<Tensor, n> t{arg_tensor(a, I)...};
  Tensor y;
  {
    py::gil_scoped_release release;
    y = nn::call(static_cast<Impl&>(m), t[I]...);
  }
  return py::cast(y);
}
template <typename Impl, size_t N>
void add_loss_forward() {
  forwards()[std::type_index(typeid(Impl))] = [](nn::Module& m, const py::args& a) {
    return call_loss<Impl>(m, a, std::make_index_sequence<N>());
  };
}

// torch's deprecated size_average / reduce flags map to a reduction string, in C++ once
// (nn::functional::legacy_reduction), as for tensorcore.nn.functional.
std::string legacy(const py::object& size_average, const py::object& reduce,
                   const std::string& reduction) {
  auto flag = [](const py::object& o) -> std::optional<bool> {
    if (o.is_none()) return std::nullopt;
    return bool(py::bool_(o));
  };
  return nn::functional::legacy_reduction(flag(size_average), flag(reduce), reduction);
}

// The three constructor shapes most losses share: torch's (size_average, reduce, reduction)
// triple alone, after a margin, or after a class weight.
template <typename Impl, size_t N>
void def_reduction_loss(py::module_& sub, const char* name) {
  add_loss_forward<Impl, N>();
  sub.def(
      name,
      [](py::object sa, py::object rd, std::string r) -> ModulePtr {
        return std::make_shared<Impl>(legacy(sa, rd, r));
      },
      py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
      py::arg("reduction") = "mean");
}
template <typename Impl, size_t N>
void def_margin_loss(py::module_& sub, const char* name, double margin) {
  add_loss_forward<Impl, N>();
  sub.def(
      name,
      [](double margin, py::object sa, py::object rd, std::string r) -> ModulePtr {
        return std::make_shared<Impl>(margin, legacy(sa, rd, r));
      },
      py::arg("margin") = margin, py::arg("size_average") = py::none(),
      py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
}
template <typename Impl, size_t N>
void def_weighted_loss(py::module_& sub, const char* name) {
  add_loss_forward<Impl, N>();
  sub.def(
      name,
      [](Tensor w, py::object sa, py::object rd, std::string r) -> ModulePtr {
        return std::make_shared<Impl>(w, legacy(sa, rd, r));
      },
      py::arg("weight") = py::none(), py::arg("size_average") = py::none(),
      py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
}

void bind_nncpp_losses(py::module_& m, TensorClass&) {
  auto sub = m.def_submodule("_nncpp");
  const auto none = py::none();

  add_loss_forward<nn::CrossEntropyLossImpl, 2>();
  sub.def(
      "CrossEntropyLoss",
      [](Tensor w, py::object sa, int64_t ii, py::object rd, std::string r,
         double ls) -> ModulePtr {
        return std::make_shared<nn::CrossEntropyLossImpl>(w, ii, legacy(sa, rd, r), ls);
      },
      py::arg("weight") = none, py::arg("size_average") = none, py::arg("ignore_index") = -100,
      py::arg("reduce") = none, py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0);
  add_loss_forward<nn::NLLLossImpl, 2>();
  sub.def(
      "NLLLoss",
      [](Tensor w, py::object sa, int64_t ii, py::object rd, std::string r) -> ModulePtr {
        return std::make_shared<nn::NLLLossImpl>(w, ii, legacy(sa, rd, r));
      },
      py::arg("weight") = none, py::arg("size_average") = none, py::arg("ignore_index") = -100,
      py::arg("reduce") = none, py::arg("reduction") = "mean");
  add_loss_forward<nn::BCEWithLogitsLossImpl, 2>();
  sub.def(
      "BCEWithLogitsLoss",
      [](Tensor w, py::object sa, py::object rd, std::string r, Tensor pw) -> ModulePtr {
        return std::make_shared<nn::BCEWithLogitsLossImpl>(w, legacy(sa, rd, r), pw);
      },
      py::arg("weight") = none, py::arg("size_average") = none, py::arg("reduce") = none,
      py::arg("reduction") = "mean", py::arg("pos_weight") = none);
  def_weighted_loss<nn::BCELossImpl, 2>(sub, "BCELoss");
  add_loss_forward<nn::CTCLossImpl, 4>();
  sub.def(
      "CTCLoss",
      [](int64_t blank, std::string r, bool zi) -> ModulePtr {
        return std::make_shared<nn::CTCLossImpl>(blank, r, zi);
      },
      py::arg("blank") = 0, py::arg("reduction") = "mean", py::arg("zero_infinity") = false);

  // reduction-only losses.
  def_reduction_loss<nn::MSELossImpl, 2>(sub, "MSELoss");
  def_reduction_loss<nn::L1LossImpl, 2>(sub, "L1Loss");
  add_loss_forward<nn::SmoothL1LossImpl, 2>();
  sub.def(
      "SmoothL1Loss",
      [](py::object sa, py::object rd, std::string r, double beta) -> ModulePtr {
        return std::make_shared<nn::SmoothL1LossImpl>(legacy(sa, rd, r), beta);
      },
      py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean",
      py::arg("beta") = 1.0);
  add_loss_forward<nn::HuberLossImpl, 2>();
  sub.def(
      "HuberLoss",
      [](std::string r, double delta) -> ModulePtr {
        return std::make_shared<nn::HuberLossImpl>(r, delta);
      },
      py::arg("reduction") = "mean", py::arg("delta") = 1.0);
  add_loss_forward<nn::KLDivLossImpl, 2>();
  sub.def(
      "KLDivLoss",
      [](py::object sa, py::object rd, std::string r, bool lt) -> ModulePtr {
        return std::make_shared<nn::KLDivLossImpl>(legacy(sa, rd, r), lt);
      },
      py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean",
      py::arg("log_target") = false);
  def_margin_loss<nn::MarginRankingLossImpl, 3>(sub, "MarginRankingLoss", 0.0);
  def_margin_loss<nn::CosineEmbeddingLossImpl, 3>(sub, "CosineEmbeddingLoss", 0.0);
  add_loss_forward<nn::TripletMarginLossImpl, 3>();
  sub.def(
      "TripletMarginLoss",
      [](double margin, double p, double eps, bool swap, py::object sa, py::object rd,
         std::string r) -> ModulePtr {
        return std::make_shared<nn::TripletMarginLossImpl>(margin, p, eps, swap, legacy(sa, rd, r));
      },
      py::arg("margin") = 1.0, py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("swap") = false,
      py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  add_loss_forward<nn::PoissonNLLLossImpl, 2>();
  sub.def(
      "PoissonNLLLoss",
      [](bool log_input, bool full, py::object sa, double eps, py::object rd,
         std::string r) -> ModulePtr {
        return std::make_shared<nn::PoissonNLLLossImpl>(log_input, full, eps, legacy(sa, rd, r));
      },
      py::arg("log_input") = true, py::arg("full") = false, py::arg("size_average") = none,
      py::arg("eps") = 1e-8, py::arg("reduce") = none, py::arg("reduction") = "mean");
  add_loss_forward<nn::GaussianNLLLossImpl, 3>();
  sub.def(
      "GaussianNLLLoss",
      [](bool full, double eps, std::string r) -> ModulePtr {
        return std::make_shared<nn::GaussianNLLLossImpl>(full, eps, r);
      },
      py::arg("full") = false, py::arg("eps") = 1e-6, py::arg("reduction") = "mean");
  def_margin_loss<nn::HingeEmbeddingLossImpl, 2>(sub, "HingeEmbeddingLoss", 1.0);
  def_reduction_loss<nn::SoftMarginLossImpl, 2>(sub, "SoftMarginLoss");
  def_weighted_loss<nn::MultiLabelSoftMarginLossImpl, 2>(sub, "MultiLabelSoftMarginLoss");
  add_loss_forward<nn::MultiMarginLossImpl, 2>();
  sub.def(
      "MultiMarginLoss",
      [](int64_t p, double margin, Tensor w, py::object sa, py::object rd,
         std::string r) -> ModulePtr {
        return std::make_shared<nn::MultiMarginLossImpl>(p, margin, w, legacy(sa, rd, r));
      },
      py::arg("p") = 1, py::arg("margin") = 1.0, py::arg("weight") = none,
      py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  def_reduction_loss<nn::MultiLabelMarginLossImpl, 2>(sub, "MultiLabelMarginLoss");
}

Registrar registrar(bind_nncpp_losses);

}  // namespace
}  // namespace tc::python
