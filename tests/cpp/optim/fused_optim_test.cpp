#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nnfused/activation.h"
#include "tensorcore/optim/fused.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {

Tensor param_with_grad(std::vector<float> values, std::vector<float> grad) {
  Tensor p = zeros({int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) p.data<float>()[i] = values[i];
  p.requires_grad_(true);
  Tensor g = zeros({int64_t(grad.size())});
  for (size_t i = 0; i < grad.size(); ++i) g.data<float>()[i] = grad[i];
  p.set_grad(g);
  return p;
}

}  // namespace

TEST(FusedOptim, AdamMatchesUpdateFormula) {
  Tensor p = param_with_grad({1.0f, -2.0f}, {0.5f, -1.0f});
  Tensor m = zeros({2}), v = zeros({2}), step = zeros({});
  optim::AdamOptions o;
  o.lr = 0.1;
  uint32_t version = p.version();
  optim::adam_step({p}, {m}, {v}, {}, {step}, o);
  optim::adam_step({p}, {m}, {v}, {}, {step}, o);
  EXPECT_GT(p.version(), version);
  EXPECT_FLOAT_EQ(step.item<float>(), 2.0f);
  // Constant gradient: bias-corrected m/sqrt(v) == sign(g), so each step moves by lr.
  EXPECT_NEAR(p.data<float>()[0], 1.0f - 0.2f, 1e-5);
  EXPECT_NEAR(p.data<float>()[1], -2.0f + 0.2f, 1e-5);
}

TEST(FusedOptim, SgdMomentumCreatesBufferAndSkipsParamsWithoutGrad) {
  Tensor p = param_with_grad({1.0f}, {2.0f});
  Tensor q = zeros({1});
  q.requires_grad_(true);
  optim::SgdOptions o;
  o.lr = 0.5;
  o.momentum = 0.9;
  TensorList bufs = optim::sgd_step({p, q}, {Tensor(), Tensor()}, o);
  ASSERT_TRUE(bufs[0].defined());
  EXPECT_FALSE(bufs[1].defined());
  EXPECT_FLOAT_EQ(p.data<float>()[0], 0.0f);
  bufs = optim::sgd_step({p, q}, bufs, o);
  EXPECT_FLOAT_EQ(bufs[0].data<float>()[0], 0.9f * 2.0f + 2.0f);
  EXPECT_FLOAT_EQ(p.data<float>()[0], -0.5f * 3.8f);
}

TEST(FusedOptim, MismatchedStateRaises) {
  Tensor p = param_with_grad({1.0f, 2.0f}, {1.0f, 1.0f});
  Tensor step = zeros({});
  EXPECT_THROW(optim::adam_step({p}, {zeros({3})}, {zeros({2})}, {}, {step}, {}), ValueError);
  Tensor d = zeros({2}, TensorOptions().dtype(DType::Float64));
  EXPECT_THROW(optim::adam_step({p}, {d}, {zeros({2})}, {}, {step}, {}), TypeError);
}

TEST(NnFused, SoftmaxRowsSumToOneAndLogSoftmaxAgrees) {
  Tensor x = randn({4, 7, 3});
  for (int64_t dim : {0, 1, 2}) {
    Tensor s = nnfused::softmax(x, dim);
    Tensor total = sum(s, {dim});
    for (int64_t i = 0; i < total.numel(); ++i) EXPECT_NEAR(total.data<float>()[i], 1.0f, 1e-5);
    Tensor ls = nnfused::log_softmax(x, dim);
    for (int64_t i = 0; i < s.numel(); ++i)
      EXPECT_NEAR(std::log(s.data<float>()[i]), ls.data<float>()[i], 1e-5);
  }
  EXPECT_THROW(nnfused::softmax(x, 3), IndexError);
}
