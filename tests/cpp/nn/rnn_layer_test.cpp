// The whole-layer LSTM/GRU node (rnn_layer.cpp) against the per-step path: outputs, final
// states and the gradients of every input, both directions, from C++ with no Python.
#include <gtest/gtest.h>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/nn/rnn_internal.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;
namespace D = tc::nn::detail;

namespace {

TensorList leaves(const std::vector<Shape>& shapes) {
  TensorList t;
  for (const Shape& s : shapes)
    t.push_back(mul(randn(s, {}, DType::Float64), 0.5).requires_grad_(true));
  return t;
}

void expect_close(const TensorList& a, const TensorList& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].defined(), b[i].defined()) << i;
    if (a[i].defined()) {
      EXPECT_TRUE(allclose(a[i], b[i], tol, tol)) << "entry " << i;
    }
  }
}

}  // namespace

TEST(RnnPerfLayer, FusedLstmMatchesPerStepPath) {
  manual_seed(5);
  const int64_t T = 7, N = 3, I = 4, H = 5;
  TensorList p = leaves({{T, N, I}, {N, H}, {N, H}, {4 * H, I}, {4 * H, H}, {4 * H}, {4 * H}});
  TensorList g = {randn({T, N, H}, {}, DType::Float64), randn({N, H}, {}, DType::Float64),
                  randn({N, H}, {}, DType::Float64)};
  for (bool reverse : {false, true}) {
    ASSERT_TRUE(D::rnn_layer_fusable(p));
    auto [o1, h1, c1] = D::lstm_layer_fused(p[0], p[1], p[2], p[3], p[4], p[5], p[6], reverse);
    auto [o2, h2, c2] = D::lstm_layer_steps(p[0], p[1], p[2], p[3], p[4], p[5], p[6], reverse);
    expect_close({o1, h1, c1}, {o2, h2, c2}, 1e-13);
    TensorList g1 = autograd::grad({o1, h1, c1}, p, g);
    TensorList g2 = autograd::grad({o2, h2, c2}, p, g);
    expect_close(g1, g2, 1e-12);
  }
}

TEST(RnnPerfLayer, FusedGruMatchesPerStepPath) {
  manual_seed(6);
  const int64_t T = 6, N = 2, I = 3, H = 4;
  TensorList p = leaves({{T, N, I}, {N, H}, {3 * H, I}, {3 * H, H}, {3 * H}, {3 * H}});
  TensorList g = {randn({T, N, H}, {}, DType::Float64), randn({N, H}, {}, DType::Float64)};
  for (bool reverse : {false, true}) {
    auto [o1, h1] = D::gru_layer_fused(p[0], p[1], p[2], p[3], p[4], p[5], reverse);
    auto [o2, h2] = D::gru_layer_steps(p[0], p[1], p[2], p[3], p[4], p[5], reverse);
    expect_close({o1, h1}, {o2, h2}, 1e-13);
    expect_close(autograd::grad({o1, h1}, p, g), autograd::grad({o2, h2}, p, g), 1e-12);
  }
}

TEST(RnnPerfLayer, FusableOnlyForCpuFloatTensorsOfOneDtype) {
  Tensor x = zeros({2, 1, 3}), w = zeros({8, 3}), u = zeros({8, 2});
  EXPECT_TRUE(D::rnn_layer_fusable({x, Tensor(), w, u}));
  EXPECT_FALSE(D::rnn_layer_fusable({zeros({0, 1, 3}), w, u}));
  EXPECT_FALSE(D::rnn_layer_fusable({x, to_dtype(w, DType::Float64), u}));
  EXPECT_FALSE(D::rnn_layer_fusable({zeros({2, 1, 3}, TensorOptions(DType::Int64)), w, u}));
  // The module path goes through the fused node: one LstmLayerBackward0 per layer and direction.
  nn::LSTM lstm(nn::RNNOptions{3, 2, 2, true, false, 0, true});
  auto out = std::get<0>(lstm(randn({4, 1, 3})));
  EXPECT_EQ(out.sizes(), (Shape{4, 1, 4}));
  ASSERT_TRUE(out.grad_fn() != nullptr);
}

TEST(RnnPerfLayer, ElmanLayerMatchesCellLoop) {
  manual_seed(7);
  const int64_t T = 5, N = 2, I = 3, H = 4;
  TensorList p = leaves({{T, N, I}, {N, H}, {H, I}, {H, H}, {H}, {H}});
  TensorList g = {randn({T, N, H}, {}, DType::Float64), randn({N, H}, {}, DType::Float64)};
  for (const char* nl : {"tanh", "relu"}) {
    for (bool reverse : {false, true}) {
      auto [o1, h1] = F::rnn_layer(p[0], p[1], p[2], p[3], p[4], p[5], nl, reverse);
      Tensor h = p[1];
      TensorList outs(static_cast<size_t>(T));
      for (int64_t s = 0; s < T; ++s) {
        int64_t t = reverse ? T - 1 - s : s;
        h = std::string(nl) == "relu"
                ? F::rnn_relu_cell(select(p[0], 0, t), h, p[2], p[3], p[4], p[5])
                : F::rnn_tanh_cell(select(p[0], 0, t), h, p[2], p[3], p[4], p[5]);
        outs[size_t(t)] = h;
      }
      Tensor o2 = stack(outs, 0);
      expect_close({o1, h1}, {o2, h}, 1e-13);
      expect_close(autograd::grad({o1, h1}, p, g), autograd::grad({o2, h}, p, g), 1e-12);
    }
  }
  EXPECT_THROW(F::rnn_layer(p[0], p[1], p[2], p[3], p[4], p[5], "sigmoid"), ValueError);
}
