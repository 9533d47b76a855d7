// Runtime adapters for the losses bound in python/src/nn_losses.cpp (tensorcore._C._nn.*_loss),
// taking the arguments in the bindings' order (the tracer records every argument, defaults
// included). triplet_margin_with_distance_loss takes a Python callable and is not replayable.
#include <optional>

#include "tensorcore/jit/op_registry.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/creation.h"

namespace tc::jit {
namespace {

namespace F = tc::nn::functional;

void reg(const char* name, OpFn fn) { register_op(std::string("_C._nn.") + name, std::move(fn)); }

std::optional<bool> flag(const OpArgs& a, size_t i) {
  if (!a.has(i)) return std::nullopt;
  return a.bool_(i);
}

// The reduction from (size_average, reduce, reduction) at positions i, j, k.
std::string reduction(const OpArgs& a, size_t sa, size_t rd, size_t r) {
  return F::legacy_reduction(flag(a, sa), flag(a, rd), a.has(r) ? a.str(r) : "mean");
}

const bool registered = [] {
  reg("nll_loss", [](const OpArgs& a) {
    return IValue(
        F::nll_loss(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.int_(4), reduction(a, 3, 5, 6)));
  });
  reg("cross_entropy", [](const OpArgs& a) {
    return IValue(F::cross_entropy(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.int_(4),
                                   reduction(a, 3, 5, 6), a.double_(7)));
  });
  reg("binary_cross_entropy", [](const OpArgs& a) {
    return IValue(
        F::binary_cross_entropy(a.tensor(0), a.tensor(1), a.opt_tensor(2), reduction(a, 3, 4, 5)));
  });
  reg("binary_cross_entropy_with_logits", [](const OpArgs& a) {
    return IValue(F::binary_cross_entropy_with_logits(a.tensor(0), a.tensor(1), a.opt_tensor(2),
                                                      reduction(a, 3, 4, 5), a.opt_tensor(6)));
  });
  reg("mse_loss", [](const OpArgs& a) {
    return IValue(F::mse_loss(a.tensor(0), a.tensor(1), reduction(a, 2, 3, 4)));
  });
  reg("l1_loss", [](const OpArgs& a) {
    return IValue(F::l1_loss(a.tensor(0), a.tensor(1), reduction(a, 2, 3, 4)));
  });
  reg("soft_margin_loss", [](const OpArgs& a) {
    return IValue(F::soft_margin_loss(a.tensor(0), a.tensor(1), reduction(a, 2, 3, 4)));
  });
  reg("multilabel_margin_loss", [](const OpArgs& a) {
    return IValue(F::multilabel_margin_loss(a.tensor(0), a.tensor(1), reduction(a, 2, 3, 4)));
  });
  reg("smooth_l1_loss", [](const OpArgs& a) {
    return IValue(F::smooth_l1_loss(a.tensor(0), a.tensor(1), reduction(a, 2, 3, 4), a.double_(5)));
  });
  reg("huber_loss", [](const OpArgs& a) {
    return IValue(F::huber_loss(a.tensor(0), a.tensor(1), a.str(2), a.double_(3)));
  });
  reg("kl_div", [](const OpArgs& a) {
    return IValue(F::kl_div(a.tensor(0), a.tensor(1), reduction(a, 2, 3, 4), a.bool_(5)));
  });
  reg("cosine_embedding_loss", [](const OpArgs& a) {
    return IValue(F::cosine_embedding_loss(a.tensor(0), a.tensor(1), a.tensor(2), a.double_(3),
                                           reduction(a, 4, 5, 6)));
  });
  reg("margin_ranking_loss", [](const OpArgs& a) {
    return IValue(F::margin_ranking_loss(a.tensor(0), a.tensor(1), a.tensor(2), a.double_(3),
                                         reduction(a, 4, 5, 6)));
  });
  reg("triplet_margin_loss", [](const OpArgs& a) {
    return IValue(F::triplet_margin_loss(a.tensor(0), a.tensor(1), a.tensor(2), a.double_(3),
                                         a.double_(4), a.double_(5), a.bool_(6),
                                         reduction(a, 7, 8, 9)));
  });
  reg("poisson_nll_loss", [](const OpArgs& a) {
    return IValue(F::poisson_nll_loss(a.tensor(0), a.tensor(1), a.bool_(2), a.bool_(3),
                                      a.double_(5), reduction(a, 4, 6, 7)));
  });
  reg("gaussian_nll_loss", [](const OpArgs& a) {
    Tensor x = a.tensor(0);
    Tensor var = a[2].is_tensor() ? a.tensor(2) : full_like(x, a.scalar(2));
    return IValue(F::gaussian_nll_loss(x, a.tensor(1), var, a.bool_(3), a.double_(4), a.str(5)));
  });
  reg("hinge_embedding_loss", [](const OpArgs& a) {
    return IValue(
        F::hinge_embedding_loss(a.tensor(0), a.tensor(1), a.double_(2), reduction(a, 3, 4, 5)));
  });
  reg("multilabel_soft_margin_loss", [](const OpArgs& a) {
    return IValue(F::multilabel_soft_margin_loss(a.tensor(0), a.tensor(1), a.opt_tensor(2),
                                                 reduction(a, 3, 4, 5)));
  });
  reg("multi_margin_loss", [](const OpArgs& a) {
    return IValue(F::multi_margin_loss(a.tensor(0), a.tensor(1), a.int_(2), a.double_(3),
                                       a.opt_tensor(4), reduction(a, 5, 6, 7)));
  });
  return true;
}();

}  // namespace
}  // namespace tc::jit
