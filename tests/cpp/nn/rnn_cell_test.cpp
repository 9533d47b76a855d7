// RNNCell / LSTMCell / GRUCell modules against the recurrences written out here.
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;

namespace {
// x @ w^T + b for [N, I] x and [G, I] w.
Tensor affine(const Tensor& x, const Tensor& w, const Tensor& b) {
  return add(matmul(x, transpose(w, 0, 1)), b);
}
}  // namespace

TEST(NnCppCells, MatchHandWrittenRecurrences) {
  manual_seed(9);
  const int64_t N = 3, I = 4, H = 5;
  Tensor x = randn({N, I}, {}, DType::Float64), h = randn({N, H}, {}, DType::Float64),
         c = randn({N, H}, {}, DType::Float64);

  nn::RNNCell rnn(I, H, true, "relu");
  rnn->to(DType::Float64);
  Tensor ref =
      relu(add(affine(x, rnn->weight_ih, rnn->bias_ih), affine(h, rnn->weight_hh, rnn->bias_hh)));
  EXPECT_TRUE(allclose(rnn(x, h), ref, 1e-12, 1e-12));

  nn::LSTMCell lstm(I, H);
  lstm->to(DType::Float64);
  Tensor gates =
      add(affine(x, lstm->weight_ih, lstm->bias_ih), affine(h, lstm->weight_hh, lstm->bias_hh));
  Tensor i = sigmoid(narrow(gates, 1, 0, H)), f = sigmoid(narrow(gates, 1, H, H)),
         g = tanh(narrow(gates, 1, 2 * H, H)), o = sigmoid(narrow(gates, 1, 3 * H, H));
  Tensor c1 = add(mul(f, c), mul(i, g)), h1 = mul(o, tanh(c1));
  auto [hh, cc] = lstm(x, h, c);
  EXPECT_TRUE(allclose(hh, h1, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(cc, c1, 1e-12, 1e-12));

  nn::GRUCell gru(I, H);
  gru->to(DType::Float64);
  Tensor gi = affine(x, gru->weight_ih, gru->bias_ih), gh = affine(h, gru->weight_hh, gru->bias_hh);
  Tensor r = sigmoid(add(narrow(gi, 1, 0, H), narrow(gh, 1, 0, H)));
  Tensor z = sigmoid(add(narrow(gi, 1, H, H), narrow(gh, 1, H, H)));
  Tensor n = tanh(add(narrow(gi, 1, 2 * H, H), mul(r, narrow(gh, 1, 2 * H, H))));
  Tensor want = add(mul(rsub(z, 1.0), n), mul(z, h));
  EXPECT_TRUE(allclose(gru(x, h), want, 1e-12, 1e-12));

  // Unbatched input, zero default state, keys, clone, errors.
  EXPECT_EQ(gru(select(x, 0, 0)).sizes(), (Shape{H}));
  std::vector<std::string> keys;
  for (auto& [k, t] : lstm->state_dict()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  nn::LSTMCell copy = lstm.clone();
  EXPECT_TRUE(allclose(copy(x, h, c).first, hh, 0, 0));
  EXPECT_THROW(gru(randn({N, I + 1})), ValueError);
  EXPECT_THROW(gru(x, randn({N, H + 1}, {}, DType::Float64)), ValueError);
  EXPECT_THROW(nn::RNNCell(I, H, true, "sigmoid"), ValueError);
  nn::RNNCell nobias(I, H, false);
  EXPECT_EQ(nobias->parameters().size(), 2u);
}
