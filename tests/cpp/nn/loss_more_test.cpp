// More C++ losses: hand-computed values and errors here; NnCppLossInterop.Values evaluates every
// loss (each reduction, plus the input gradient) on inputs written by
// tests/python/nn/cpp/test_nncpp_losses.py, which compares the results with torch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "tensorcore/core/warning.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;
namespace F = tc::nn::functional;
using tc::nn::NamedTensors;

TEST(NnCppLossMore, HandValuesAndErrors) {
  Tensor x = tensor<double>({0.0, 2.0, -1.5}), t = tensor<double>({0.5, 0.0, -1.0});
  // |d| = 0.5, 2, 0.5
  EXPECT_NEAR(F::l1_loss(x, t).item<double>(), 1.0, 1e-12);
  EXPECT_NEAR(F::smooth_l1_loss(x, t, "sum").item<double>(), 0.125 + 1.5 + 0.125, 1e-12);
  EXPECT_NEAR(F::huber_loss(x, t, "sum", 0.5).item<double>(), 0.125 + 0.5 * (2 - 0.25) + 0.125,
              1e-12);
  nn::L1Loss l1("sum");
  EXPECT_NEAR(l1(x, t).item<double>(), 3.0, 1e-12);
  // A target of another shape broadcasts (with a warning, tested in loss_semantics_test.cpp).
  tc::set_warning_handler([](const std::string&) {});
  EXPECT_NEAR(F::l1_loss(x, tensor<double>({1.0}), "sum").item<double>(), 1 + 1 + 2.5, 1e-12);
  tc::set_warning_handler({});
  EXPECT_THROW(F::l1_loss(x, t, "avg"), ValueError);
  EXPECT_THROW(F::binary_cross_entropy(tensor<double>({1.5}), tensor<double>({1.0})), ValueError);
  // BCE of an exact 0/1 prediction is finite (logs clamped at -100).
  EXPECT_NEAR(F::binary_cross_entropy(tensor<double>({0.0}), tensor<double>({1.0})).item<double>(),
              100.0, 1e-12);
  EXPECT_THROW(
      F::triplet_margin_with_distance_loss(randn({2, 3}), randn({2, 3}), randn({2, 3}), {}, 0.0),
      ValueError);
  nn::KLDivLoss kl("batchmean");
  nn::KLDivLoss kl2 = kl.clone();
  EXPECT_EQ(kl2->reduction, "batchmean");
}

TEST(NnCppLossInterop, Values) {
  const char* dir_env = std::getenv("NNCPP_LOSS_DIR");
  if (!dir_env)
    GTEST_SKIP() << "NNCPP_LOSS_DIR not set (run by tests/python/nn/cpp/test_nncpp_losses.py)";
  std::filesystem::path dir(dir_env);
  std::map<std::string, Tensor> in;
  for (auto& [k, t] : serialize::load(dir / "inputs.pt")) in[k] = t;
  NamedTensors out;
  auto run = [&](const std::string& name, const std::string& red, auto fn) {
    Tensor x = clone(in["x"]).requires_grad_();
    Tensor loss = fn(x, red);
    Tensor gw =
        loss.dim() == 1 ? select(in["gw"], 1, 0) : in["gw"];  // pairwise losses: first column
    Tensor s = red == "none" ? sum(mul(loss, gw)) : loss;
    s.backward();
    out.emplace_back(name + "." + red, loss.detach());
    out.emplace_back(name + "." + red + ".grad", x.grad());
  };
  for (std::string red : {"none", "mean", "sum"}) {
    run("l1", red,
        [&](const Tensor& x, const std::string& r) { return F::l1_loss(x, in["t"], r); });
    run("smooth_l1", red, [&](const Tensor& x, const std::string& r) {
      return F::smooth_l1_loss(x, in["t"], r, 0.7);
    });
    run("huber", red,
        [&](const Tensor& x, const std::string& r) { return F::huber_loss(x, in["t"], r, 0.6); });
    run("bce", red, [&](const Tensor& x, const std::string& r) {
      return F::binary_cross_entropy(sigmoid(x), in["p"], in["w"], r);
    });
    run("kl", red, [&](const Tensor& x, const std::string& r) { return F::kl_div(x, in["p"], r); });
    run("kl_log", red,
        [&](const Tensor& x, const std::string& r) { return F::kl_div(x, in["logp"], r, true); });
    run("margin_ranking", red, [&](const Tensor& x, const std::string& r) {
      return F::margin_ranking_loss(x, in["t"], in["y"], 0.3, r);
    });
    run("poisson", red, [&](const Tensor& x, const std::string& r) {
      return F::poisson_nll_loss(x, in["c"], true, true, 1e-8, r);
    });
    run("poisson_lin", red, [&](const Tensor& x, const std::string& r) {
      return F::poisson_nll_loss(exp(x), in["c"], false, false, 1e-8, r);
    });
    run("gaussian", red, [&](const Tensor& x, const std::string& r) {
      return F::gaussian_nll_loss(x, in["t"], in["var"], true, 1e-6, r);
    });
    run("gaussian_homo", red, [&](const Tensor& x, const std::string& r) {
      return F::gaussian_nll_loss(x, in["t"], in["var1"], false, 1e-6, r);
    });
    run("cosine", red, [&](const Tensor& x, const std::string& r) {
      return F::cosine_embedding_loss(x, in["t"], in["y1"], 0.2, r);
    });
    run("triplet", red, [&](const Tensor& x, const std::string& r) {
      return F::triplet_margin_loss(x, in["t"], in["n"], 1.0, 2.0, 1e-6, false, r);
    });
    run("triplet_swap_p1", red, [&](const Tensor& x, const std::string& r) {
      return F::triplet_margin_loss(x, in["t"], in["n"], 0.5, 1.0, 1e-6, true, r);
    });
  }
  run("kl", "batchmean",
      [&](const Tensor& x, const std::string& r) { return F::kl_div(x, in["p"], r); });
  serialize::save(out, dir / "cpp_losses.pt");
}

// The margin-family loss modules: options kept, weight a buffer, clone() gives the same type
// with its own copy of the weight and the same result.
TEST(NnCppLossMore, MarginModulesCloneWithTheirOptions) {
  Tensor x = reshape(tensor<double>({0.5, -1.0, 2.0, 0.25, -0.5, 1.5}), {2, 3});
  Tensor cls = tensor<int64_t>({2, 0});
  Tensor w = tensor<double>({1.0, 0.5, 2.0});
  nn::MultiMarginLoss m(2, 0.9, w, "sum");
  EXPECT_EQ(m->named_buffers().size(), 1u);
  auto copy = std::dynamic_pointer_cast<nn::MultiMarginLossImpl>(m->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->p, 2);
  EXPECT_NE(copy->weight.data_ptr(), m->weight.data_ptr());
  EXPECT_TRUE(equal(copy->forward(x, cls), F::multi_margin_loss(x, cls, 2, 0.9, w, "sum")));
  Tensor y = reshape(tensor<double>({1, -1, 1, -1, 1, 1}), {2, 3});
  nn::ModulePtr hinge = nn::HingeEmbeddingLoss(0.8).ptr()->clone();
  EXPECT_TRUE(equal(std::dynamic_pointer_cast<nn::HingeEmbeddingLossImpl>(hinge)->forward(x, y),
                    F::hinge_embedding_loss(x, y, 0.8)));
  auto l1 = [](const Tensor& a, const Tensor& b) { return sum(abs(sub(a, b)), {-1}); };
  nn::TripletMarginWithDistanceLoss t(l1, 2.0, true);
  auto tc2 = std::dynamic_pointer_cast<nn::TripletMarginWithDistanceLossImpl>(t->clone());
  EXPECT_TRUE(equal(tc2->forward(x, y, neg(x)),
                    F::triplet_margin_with_distance_loss(x, y, neg(x), l1, 2.0, true)));
  for (nn::ModulePtr mp :
       {nn::SoftMarginLoss().ptr()->clone(), nn::MultiLabelSoftMarginLoss(w).ptr()->clone(),
        nn::MultiLabelMarginLoss("none").ptr()->clone()})
    EXPECT_FALSE(mp->name().empty());
}
