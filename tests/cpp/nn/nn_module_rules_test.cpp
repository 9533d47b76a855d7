// The module rules that moved to C++ as the one implementation (issue #26 item 1): torch 1.13's
// messages for nn::init and the recurrent options, the flat weight layout of rnn_stack.h, the
// seeded initialisation order, and multi_head_attention_forward's extra arguments.
#include <gtest/gtest.h>

#include <string>

#include "tensorcore/nn/attention.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/nn/rnn_stack.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {

template <typename Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no ValueError)";
}

TEST(NnModuleRules, InitMessagesAreTorchs) {
  namespace I = nn::init;
  EXPECT_EQ(message_of([] { I::calculate_gain("convfoo"); }), "Unsupported nonlinearity convfoo");
  EXPECT_EQ(message_of([] {
              I::kaiming_uniform_(empty({3, 3}), 0, "fan_avg");
            }),
            "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']");
  EXPECT_EQ(message_of([] { I::xavier_normal_(empty({4})); }),
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  EXPECT_EQ(message_of([] {
              I::dirac_(empty({3, 2, 3}), 2);
            }),
            "dim 0 must be divisible by groups");
  EXPECT_DOUBLE_EQ(I::calculate_gain("conv_transpose3d"), 1.0);
  EXPECT_DOUBLE_EQ(I::calculate_gain("leaky_relu"), std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_EQ(I::calculate_correct_fan(empty({5, 3, 2}), "FAN_OUT"), 10);
}

TEST(NnModuleRules, InitValues) {
  namespace I = nn::init;
  Tensor q = I::orthogonal_(empty({3, 6}));
  EXPECT_TRUE(allclose(matmul(q, transpose(q, 0, 1)), eye(3), 1e-5, 1e-6));
  Tensor s = I::sparse_(empty({10, 3}), 0.35);
  for (int64_t c = 0; c < 3; ++c)
    EXPECT_EQ(10 - count_nonzero(select(s, 1, c)).item<int64_t>(), 4);  // ceil(0.35 * 10)
  Tensor d = I::dirac_(empty({4, 2, 3}), 2);
  EXPECT_EQ(sum(d).item<float>(), 4.0f);
  EXPECT_EQ(select(select(select(d, 0, 1), 0, 1), 0, 1).item<float>(), 1.0f);
  Tensor t = I::trunc_normal_(empty({1000}), 0, 1, -0.5, 0.25);
  EXPECT_GE(min(t).item<float>(), -0.5f);
  EXPECT_LE(max(t).item<float>(), 0.25f);
  EXPECT_TRUE(I::trunc_normal_mean_far(5, 1, -2, 2));
  EXPECT_FALSE(I::trunc_normal_mean_far(3.5, 1, -2, 2));
}

TEST(NnModuleRules, RecurrentOptionsAndLayout) {
  nn::RNNOptions o{3, 4, 2};
  o.proj_size = 4;
  EXPECT_EQ(message_of([&] { nn::LSTM{o}; }), "proj_size has to be smaller than hidden_size");
  o.proj_size = 2;
  EXPECT_EQ(message_of([&] { nn::GRU{o}; }),
            "proj_size argument is only supported for LSTM, not RNN or GRU");
  o.proj_size = 0;
  o.dropout = 1.5;
  EXPECT_EQ(message_of([&] { nn::GRU{o}; }),
            "dropout should be a number in range [0, 1] representing the probability of an "
            "element being zeroed");
  o.dropout = 0;
  o.nonlinearity = "gelu";
  EXPECT_EQ(message_of([&] { nn::RNN{o}; }), "Unknown nonlinearity 'gelu'");

  nn::RNNOptions p{3, 5, 2};
  p.bidirectional = true;
  p.proj_size = 2;
  auto shapes = nn::rnn_flat_weight_shapes(nn::RNNMode::LSTM, p);
  ASSERT_EQ(shapes.size(), 20u);
  EXPECT_EQ(shapes[0].first, "weight_ih_l0");
  EXPECT_EQ(shapes[0].second, Shape({20, 3}));
  EXPECT_EQ(shapes[1].second, Shape({20, 2}));  // weight_hh takes the projected state
  EXPECT_EQ(shapes[4].first, "weight_hr_l0");
  EXPECT_EQ(shapes[5].first, "weight_ih_l0_reverse");
  EXPECT_EQ(shapes[10].second, Shape({20, 4}));  // layer 1 input: 2 directions x proj_size
}

TEST(NnModuleRules, RecurrentForwardMessages) {
  nn::LSTM m(nn::RNNOptions{3, 4, 1});
  EXPECT_EQ(message_of([&] {
              m->forward(zeros({5, 2, 4}));
            }),
            "LSTM: input.size(-1) must be equal to input_size. Expected 3, got 4");
  EXPECT_EQ(message_of([&] {
              m->forward(zeros({5, 2, 3}), zeros({1, 3, 4}));
            }),
            "LSTM: Expected hidden size (1, 2, 4), got (1, 3, 4) for hx");
}

TEST(NnModuleRules, AttentionExtras) {
  namespace F = nn::functional;
  manual_seed(3);
  const int64_t L = 3, S = 4, N = 2, E = 8, H = 2;
  Tensor q = randn({L, N, E}), k = randn({S, N, E}), w = randn({3 * E, E}), wo = randn({E, E});
  Tensor bk = randn({1, 1, E}), bv = randn({1, 1, E});
  auto [out, attn] =
      F::multi_head_attention_forward(q, k, k, E, H, w, Tensor(), bk, bv, true, 0.0, wo, Tensor());
  EXPECT_EQ(out.sizes(), Shape({L, N, E}));
  EXPECT_EQ(attn.sizes(), Shape({N, L, S + 2}));  // bias_k and the zero key add two positions
  EXPECT_TRUE(allclose(sum(attn, {-1}), ones({N, L}), 1e-5, 1e-6));
  EXPECT_EQ(message_of([&] {
              F::multi_head_attention_forward(q, k, k, E, H, w, Tensor(), Tensor(), Tensor(), false,
                                              0.0, wo, Tensor(), true, Tensor(), true,
                                              zeros({L, S + 1}));
            }),
            "MultiheadAttention: the shape of the 2D attn_mask is (3, 5), but should be (3, 4).");
  // Unbatched self-attention equals the batched call on a batch of one.
  Tensor x = randn({L, E});
  auto [u, uw] = F::multi_head_attention_forward(x, x, x, E, H, w, Tensor(), Tensor(), Tensor(),
                                                 false, 0.0, wo, Tensor());
  Tensor xb = unsqueeze(x, 1);
  auto [b, bw] = F::multi_head_attention_forward(xb, xb, xb, E, H, w, Tensor(), Tensor(), Tensor(),
                                                 false, 0.0, wo, Tensor());
  EXPECT_TRUE(allclose(u, squeeze(b, 1), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(uw, squeeze(bw, 0), 1e-5, 1e-6));
}

}  // namespace
