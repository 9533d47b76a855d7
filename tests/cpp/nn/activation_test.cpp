// The extra activation modules against their formulas evaluated element by element in double.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;

namespace {
const std::vector<double> kX = {-30.0, -3.5, -1.0, -0.25, 0.0, 0.3, 1.0, 2.9, 6.5, 25.0};

void expect_formula(const char* what, const Tensor& y, const std::function<double(double)>& f) {
  Tensor d = contiguous(to_dtype(y.detach(), DType::Float64));
  ASSERT_EQ(d.numel(), int64_t(kX.size())) << what;
  for (size_t i = 0; i < kX.size(); ++i)
    EXPECT_NEAR(d.data<double>()[i], f(kX[i]), 1e-12 * (1 + std::abs(f(kX[i]))))
        << what << " at " << kX[i];
}
}  // namespace

TEST(NnCppActivations, MatchFormulas) {
  Tensor x = from_vector(kX, {int64_t(kX.size())}, DType::Float64);
  expect_formula("ReLU6", nn::ReLU6()(x), [](double v) { return std::min(std::max(v, 0.0), 6.0); });
  expect_formula("LeakyReLU", nn::LeakyReLU(0.2)(x), [](double v) { return v > 0 ? v : 0.2 * v; });
  expect_formula("ELU", nn::ELU(1.5)(x), [](double v) { return v > 0 ? v : 1.5 * std::expm1(v); });
  const double a = 1.6732632423543772848170429916717, sc = 1.0507009873554804934193349852946;
  expect_formula("SELU", nn::SELU()(x),
                 [&](double v) { return sc * (v > 0 ? v : a * std::expm1(v)); });
  expect_formula("CELU", nn::CELU(0.5)(x),
                 [](double v) { return v > 0 ? v : 0.5 * std::expm1(v / 0.5); });
  expect_formula("Hardtanh", nn::Hardtanh(-2.0, 1.5)(x),
                 [](double v) { return std::min(std::max(v, -2.0), 1.5); });
  expect_formula("Hardsigmoid", nn::Hardsigmoid()(x),
                 [](double v) { return std::min(std::max(v + 3, 0.0), 6.0) / 6; });
  expect_formula("Hardswish", nn::Hardswish()(x),
                 [](double v) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; });
  auto softplus = [](double v, double b, double t) {
    return b * v > t ? v : std::log1p(std::exp(b * v)) / b;
  };
  expect_formula("Softplus", nn::Softplus(2.0, 10.0)(x),
                 [&](double v) { return softplus(v, 2.0, 10.0); });
  expect_formula("Mish", nn::Mish()(x),
                 [&](double v) { return v * std::tanh(softplus(v, 1.0, 20.0)); });
  expect_formula("Softsign", nn::Softsign()(x), [](double v) { return v / (1 + std::abs(v)); });
  expect_formula("Tanhshrink", nn::Tanhshrink()(x), [](double v) { return v - std::tanh(v); });
  expect_formula("Threshold", nn::Threshold(0.5, -7.0)(x),
                 [](double v) { return v > 0.5 ? v : -7.0; });
  expect_formula("Identity", nn::Identity()(x), [](double v) { return v; });

  // PReLU: per-channel slopes and their gradient (sum of x over the negative entries).
  nn::PReLU pr(3);
  pr->to(DType::Float64);
  EXPECT_EQ(pr->weight.sizes(), (Shape{3}));
  Tensor xc =
      reshape(from_vector(std::vector<double>{-1, 2, -3, 4, -5, 6}, {6}, DType::Float64), {2, 3});
  Tensor y = pr(xc);
  EXPECT_EQ(y.sizes(), (Shape{2, 3}));
  sum(y).backward();
  Tensor g = contiguous(pr->weight.grad());
  EXPECT_DOUBLE_EQ(g.data<double>()[0], -1.0);  // x[0,0] = -1 (x[1,0] = 4 positive)
  EXPECT_DOUBLE_EQ(g.data<double>()[1], -5.0);
  EXPECT_DOUBLE_EQ(g.data<double>()[2], -3.0);
  EXPECT_DOUBLE_EQ(contiguous(y).data<double>()[0], -0.25);
  EXPECT_THROW(pr(randn({2, 4}, {}, DType::Float64)), ValueError);

  // ELU's gradient never sees 0 * inf from the unused branch.
  Tensor big =
      from_vector(std::vector<double>{1000.0, -1000.0}, {2}, DType::Float64).requires_grad_();
  sum(nn::functional::elu(big)).backward();
  Tensor gb = contiguous(big.grad());
  EXPECT_EQ(gb.data<double>()[0], 1.0);
  EXPECT_EQ(gb.data<double>()[1], 0.0);
  nn::LeakyReLU lr(0.3);
  nn::LeakyReLU lr2 = lr.clone();
  EXPECT_EQ(lr2->negative_slope, 0.3);
  EXPECT_THROW(nn::Hardtanh(1.0, -1.0), ValueError);
}
