// Behaviours tc::nn::functional gained when it became the one implementation of
// tensorcore.nn.functional (issue #26): inplace=, softmax dtype= and the tensor-op fallbacks,
// rrelu, gumbel_softmax, dropout1d/2d/3d, pdist, 1-d linear weights.
#include <gtest/gtest.h>

#include "tensorcore/core/generator.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;

namespace {
Tensor sample() { return from_vector(std::vector<double>{-2.0, -0.5, 0.0, 0.5, 3.0}, {5}); }
}  // namespace

TEST(NnFunctionalOps, InplaceWritesIntoInputAndKeepsGradient) {
  Tensor leaf = sample();
  leaf.requires_grad_(true);
  Tensor x = mul(leaf, 1.0);
  Tensor y = F::elu(x, 0.7, true);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_TRUE(allclose(y, F::elu(sample(), 0.7)));
  sum(y).backward();
  // d elu / dx: 1 above 0, alpha * exp(x) below (computed from the original values).
  Tensor expect =
      where(gt(sample(), scalar_tensor(0.0)), ones_like(sample()), mul(exp(sample()), 0.7));
  EXPECT_TRUE(allclose(leaf.grad(), expect));
  Tensor z = sample();
  F::hardtanh(z, -1.0, 1.0, true);
  EXPECT_TRUE(allclose(z, clamp(sample(), Scalar(-1.0), Scalar(1.0))));
}

TEST(NnFunctionalOps, GradientsAtZeroAreTorchs) {
  // elu/celu/selu take the negative branch at 0 (d/dx = alpha), softplus has d/dx = 1/2 there.
  Tensor x = zeros({1}, TensorOptions(DType::Float64));
  x.requires_grad_(true);
  sum(F::elu(x, 0.7)).backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 0.7);
  Tensor x2 = zeros({1}, TensorOptions(DType::Float64));
  x2.requires_grad_(true);
  sum(F::softplus(x2)).backward();
  EXPECT_DOUBLE_EQ(x2.grad().item<double>(), 0.5);
}

TEST(NnFunctionalOps, SoftmaxDtypeAndFallbacks) {
  Tensor x = sample();
  Tensor y = F::softmax(x, 0, DType::Float32);
  EXPECT_EQ(y.dtype(), DType::Float32);
  // 0-d inputs and dtypes the fused kernels do not take run the tensor-op formulas.
  EXPECT_DOUBLE_EQ(F::softmax(scalar_tensor(2.5), 0).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(F::log_softmax(scalar_tensor(2.5), 0).item<double>(), 0.0);
  Tensor h = to_dtype(x, DType::BFloat16);
  EXPECT_TRUE(allclose(to_dtype(F::softmax(h, 0), DType::Float64), F::softmax(x, 0), 1e-2, 1e-2));
  EXPECT_TRUE(allclose(to_dtype(F::gelu(h), DType::Float64), F::gelu(x), 2e-2, 2e-2));
  EXPECT_EQ(F::legacy_softmax_dim(3), 0);
  EXPECT_EQ(F::legacy_softmax_dim(4), 1);
}

TEST(NnFunctionalOps, RandomActivations) {
  manual_seed(7);
  Tensor y = F::rrelu(sample(), 0.1, 0.3, true);
  Tensor slope = div(slice(y, 0, 0, 2), slice(sample(), 0, 0, 2));
  EXPECT_TRUE(all(ge(slope, scalar_tensor(0.1))).item<bool>());
  EXPECT_TRUE(all(le(slope, scalar_tensor(0.3))).item<bool>());
  EXPECT_TRUE(allclose(F::rrelu(sample(), 0.1, 0.3, false), F::leaky_relu(sample(), 0.2)));
  EXPECT_THROW(F::rrelu(sample(), 0.5, 0.1, true), ValueError);
  Tensor logits = reshape(arange(Scalar(12), TensorOptions(DType::Float64)), {3, 4});
  Tensor hard = F::gumbel_softmax(logits, 1.0, true);
  EXPECT_TRUE(allclose(sum(hard, {1}), ones({3}, TensorOptions(DType::Float64))));
  EXPECT_TRUE(
      allclose(sum(F::gumbel_softmax(logits), {1}), ones({3}, TensorOptions(DType::Float64))));
}

TEST(NnFunctionalOps, FeatureDropoutRanks) {
  manual_seed(3);
  Tensor x = ones({4, 6}, TensorOptions(DType::Float64));
  Tensor y = F::dropout1d(x, 0.5, true);  // unbatched (C, L): whole rows dropped
  for (int64_t c = 0; c < 4; ++c) {
    Tensor row = select(y, 0, c);
    EXPECT_TRUE(all(eq(row, select(row, 0, 0))).item<bool>());
  }
  EXPECT_THROW(F::dropout1d(ones({2, 2, 2, 2}), 0.5), ValueError);
  EXPECT_THROW(F::dropout2d(ones({3}), 0.5), ValueError);
  EXPECT_EQ(F::dropout3d(ones({2, 2, 2, 2}), 0.5).sizes(), (Shape{2, 2, 2, 2}));
  EXPECT_THROW(F::dropout3d(ones({2, 2, 2, 2}), 1.5), ValueError);
}

TEST(NnFunctionalOps, PdistAndLinearVector) {
  Tensor x = from_vector(std::vector<double>{0, 0, 3, 4, 6, 8}, {3, 2});
  Tensor d = F::pdist(x);
  EXPECT_TRUE(allclose(d, from_vector(std::vector<double>{5, 10, 5}, {3})));
  EXPECT_EQ(F::pdist(ones({1, 3})).numel(), 0);
  EXPECT_THROW(F::pdist(x, -1.0), ValueError);
  EXPECT_THROW(F::pdist(ones({2, 2, 2})), ValueError);
  Tensor w = from_vector(std::vector<double>{1, 2}, {2});
  EXPECT_TRUE(allclose(F::linear(x, w), from_vector(std::vector<double>{0, 11, 22}, {3})));
  EXPECT_THROW(F::linear(sum(x), w), ValueError);
}
