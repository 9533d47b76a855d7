// The torch 1.13 behaviours the C++ losses took over from the former Python copies: broadcasting
// pointwise losses warn, the legacy size_average/reduce mapping, BCE's finite gradient at 0 and 1,
// integer class targets of any width, and the losses that only Python had.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tensorcore/core/warning.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;

namespace {
struct CollectWarnings {
  std::vector<std::string> seen;
  CollectWarnings() {
    tc::set_warning_handler([this](const std::string& m) { seen.push_back(m); });
  }
  ~CollectWarnings() { tc::set_warning_handler({}); }
};
}  // namespace

TEST(LossSemantics, PointwiseLossesBroadcastWithAWarning) {
  CollectWarnings w;
  Tensor x = reshape(tensor<double>({1.0, 2.0, 3.0, 4.0}), {2, 2});
  Tensor t = tensor<double>({1.0, 0.0});
  EXPECT_NEAR(F::mse_loss(x, t, "sum").item<double>(), 0 + 4 + 4 + 16, 1e-12);
  EXPECT_NEAR(F::l1_loss(x, t, "sum").item<double>(), 0 + 2 + 2 + 4, 1e-12);
  F::smooth_l1_loss(x, t);
  F::huber_loss(x, t);
  ASSERT_EQ(w.seen.size(), 4u);
  EXPECT_EQ(w.seen[0],
            "mse_loss: Using a target size ([2]) that is different to the input size ([2, 2]). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they "
            "have the same size.");
  F::mse_loss(x, x);
  EXPECT_EQ(w.seen.size(), 4u);  // same shape: no warning
  // BCE keeps torch's hard error.
  EXPECT_THROW(F::binary_cross_entropy(full({2, 2}, 0.5), full({2}, 0.5)), ValueError);
}

TEST(LossSemantics, LegacyReduction) {
  EXPECT_EQ(F::legacy_reduction(std::nullopt, std::nullopt, "sum"), "sum");
  EXPECT_EQ(F::legacy_reduction(false, std::nullopt), "sum");
  EXPECT_EQ(F::legacy_reduction(true, std::nullopt, "none"), "mean");
  EXPECT_EQ(F::legacy_reduction(std::nullopt, false), "none");
  EXPECT_EQ(F::legacy_reduction(true, true), "mean");
}

TEST(LossSemantics, BinaryCrossEntropyGradientIsFiniteAtZeroAndOne) {
  Tensor x = tensor<double>({0.0, 1.0, 0.25});
  x.requires_grad_();
  Tensor y = tensor<double>({1.0, 0.0, 1.0});
  Tensor loss = F::binary_cross_entropy(x, y, {}, "sum");
  EXPECT_NEAR(loss.item<double>(), 200 - std::log(0.25), 1e-9);
  Tensor g = autograd::grad({loss}, {x})[0];
  EXPECT_NEAR(g.data<double>()[0], -1e12, 1);
  EXPECT_NEAR(g.data<double>()[1], 1e12, 1);
  EXPECT_NEAR(g.data<double>()[2], -4.0, 1e-12);
}

TEST(LossSemantics, IntegerTargetsOfAnyWidth) {
  Tensor x = to_dtype(randn({3, 4}), DType::Float64);
  Tensor t64 = tensor<int64_t>({0, 3, 1});
  Tensor t32 = to_dtype(t64, DType::Int32);
  EXPECT_EQ(F::cross_entropy(x, t32).item<double>(), F::cross_entropy(x, t64).item<double>());
  EXPECT_EQ(F::nll_loss(x, t32).item<double>(), F::nll_loss(x, t64).item<double>());
  EXPECT_THROW(F::nll_loss(x, to_dtype(t64, DType::Float64)), TypeError);
  EXPECT_THROW(F::nll_loss(x, tensor<int64_t>({0, 4, 1})), IndexError);
}

TEST(LossSemantics, MarginLossesHandValues) {
  // hinge: target 1 -> x, -1 -> max(0, m - x), anything else -> both (torch's rule).
  Tensor x = tensor<double>({0.5, 2.0, 0.25});
  Tensor y = tensor<double>({1.0, -1.0, 0.0});
  Tensor h = F::hinge_embedding_loss(x, y, 1.0, "none");
  EXPECT_NEAR(h.data<double>()[0], 0.5, 1e-12);
  EXPECT_NEAR(h.data<double>()[1], 0.0, 1e-12);
  EXPECT_NEAR(h.data<double>()[2], 0.75 + 0.25, 1e-12);
  EXPECT_NEAR(F::soft_margin_loss(tensor<double>({0.0}), tensor<double>({1.0})).item<double>(),
              std::log(2.0), 1e-12);
  // multi_margin: x = [0.1, 0.2, 0.4], y = 1: (max(0, 1 - 0.2 + 0.1) + max(0, 1 - 0.2 + 0.4)) / 3
  Tensor xm = tensor<double>({0.1, 0.2, 0.4});
  EXPECT_NEAR(F::multi_margin_loss(xm, scalar_tensor(int64_t(1), DType::Int64)).item<double>(),
              (0.9 + 1.2) / 3, 1e-12);
  // multilabel_margin: labels {3, 0} of x = [0.1, 0.2, 0.4, 0.8], non-targets {1, 2}.
  Tensor xl = tensor<double>({0.1, 0.2, 0.4, 0.8});
  Tensor tl = tensor<int64_t>({3, 0, -1, 1});
  const double expect =
      ((1 - (0.8 - 0.2)) + (1 - (0.8 - 0.4)) + (1 - (0.1 - 0.2)) + (1 - (0.1 - 0.4))) / 4;
  EXPECT_NEAR(F::multilabel_margin_loss(xl, tl).item<double>(), expect, 1e-12);
  EXPECT_THROW(F::multi_margin_loss(xm, scalar_tensor(int64_t(1), DType::Int64), 3), ValueError);
  // triplet with a user distance.
  Tensor a = reshape(tensor<double>({0.0, 0.0}), {1, 2}),
         p = reshape(tensor<double>({1.0, 0.0}), {1, 2});
  Tensor n = reshape(tensor<double>({0.0, 3.0}), {1, 2});
  auto l1 = [](const Tensor& u, const Tensor& v) { return sum(abs(sub(u, v)), {-1}); };
  EXPECT_NEAR(F::triplet_margin_with_distance_loss(a, p, n, l1, 2.5).item<double>(), 0.5, 1e-12);
  EXPECT_THROW(F::triplet_margin_with_distance_loss(a, p, n, l1, 0.0), ValueError);
}

TEST(LossSemantics, MarginRankingBroadcastsSameRankInputs) {
  Tensor a = reshape(tensor<double>({1.0, 2.0}), {2, 1});
  Tensor b = reshape(tensor<double>({0.5, 3.0}), {1, 2});
  Tensor y = reshape(tensor<double>({1.0, -1.0}), {2, 1});
  EXPECT_EQ(F::margin_ranking_loss(a, b, y, 0.0, "none").sizes(), (Shape{2, 2}));
  EXPECT_THROW(F::margin_ranking_loss(a, tensor<double>({1.0, 2.0}), y), ValueError);
}
