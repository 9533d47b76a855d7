// The whole-layer RNN node over packed batches and with LSTM projections (rnn_layer.cpp) against
// the per-step path (layer_steps) from C++: outputs, final states and every input's gradient, for
// LSTM (with and without projection), GRU and the Elman RNN, both directions.
#include <gtest/gtest.h>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/nn/rnn_internal.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;
namespace D = tc::nn::detail;

namespace {

Tensor leaf(const Shape& s) { return mul(randn(s, {}, DType::Float64), 0.5).requires_grad_(true); }

struct Case {
  D::CellKind kind;
  int64_t P;  // projection size, 0 for none
};

// Runs fn on fresh leaves copied from `base`, backpropagates a fixed weighted sum of the outputs,
// and returns outputs then gradients.
template <typename Fn>
TensorList run(const TensorList& base, const TensorList& gouts, Fn&& fn) {
  TensorList in;
  for (const Tensor& t : base)
    in.push_back(t.defined() ? clone(t).detach().requires_grad_(true) : Tensor());
  auto [o, h, c] = fn(in);
  Tensor loss = sum(mul(o, gouts[0]));
  loss = add(loss, sum(mul(h, gouts[1])));
  if (c.defined()) loss = add(loss, sum(mul(c, gouts[2])));
  loss.backward();
  TensorList r{o, h, c};
  for (const Tensor& t : in) r.push_back(t.defined() ? t.grad() : Tensor());
  return r;
}

}  // namespace

TEST(RnnPacked, FusedMatchesPerStepPathOnPackedBatches) {
  manual_seed(7);
  const std::vector<int64_t> bs = {5, 5, 4, 2, 2, 1};  // lengths 6, 5, 3, 3, 2
  D::RowLayout L = D::RowLayout::packed(bs);
  ASSERT_EQ(L.total, 19);
  ASSERT_FALSE(L.uniform);
  const int64_t N = 5, I = 3, H = 4;
  for (Case k : {Case{D::CellKind::LSTM, 0}, Case{D::CellKind::LSTM, 2}, Case{D::CellKind::GRU, 0},
                 Case{D::CellKind::RNNTanh, 0}, Case{D::CellKind::RNNRelu, 0}})
    for (bool reverse : {false, true}) {
      const bool lstm = k.kind == D::CellKind::LSTM;
      const int64_t G = lstm ? 4 : k.kind == D::CellKind::GRU ? 3 : 1, P = k.P ? k.P : H;
      TensorList base = {leaf({L.total, I}),
                         leaf({N, P}),
                         lstm ? leaf({N, H}) : Tensor(),
                         leaf({G * H, I}),
                         leaf({G * H, P}),
                         leaf({G * H}),
                         leaf({G * H}),
                         k.P ? leaf({P, H}) : Tensor()};
      TensorList gouts = {randn({L.total, P}, {}, DType::Float64),
                          randn({N, P}, {}, DType::Float64), randn({N, H}, {}, DType::Float64)};
      auto call = [&](bool fused) {
        return [&, fused](const TensorList& a) {
          D::LayerWeights w{a[3], a[4], a[5], a[6], a[7]};
          return fused ? D::layer_fused(k.kind, a[0], L, a[1], a[2], w, reverse)
                       : D::layer_steps(k.kind, a[0], L, a[1], a[2], w, reverse);
        };
      };
      ASSERT_TRUE(D::rnn_layer_fusable(base));
      TensorList f = run(base, gouts, call(true)), s = run(base, gouts, call(false));
      ASSERT_EQ(f.size(), s.size());
      for (size_t i = 0; i < f.size(); ++i) {
        ASSERT_EQ(f[i].defined(), s[i].defined()) << i;
        if (f[i].defined()) {
          EXPECT_TRUE(allclose(f[i], s[i], 1e-11, 1e-12))
              << "kind " << int(k.kind) << " P " << k.P << " reverse " << reverse << " entry " << i;
        }
      }
    }
}

// h_n of a packed batch is each sequence's state after its own last step.
TEST(RnnPacked, FinalStatesAreEachSequencesLastStep) {
  manual_seed(8);
  const std::vector<int64_t> bs = {3, 2, 2, 1};
  Tensor x = randn({8, 2}, {}, DType::Float64), w = randn({3 * 4, 2}, {}, DType::Float64);
  Tensor u = randn({3 * 4, 4}, {}, DType::Float64);
  auto [out, hn] = F::gru_layer_packed(x, bs, Tensor(), w, u);
  // Sequence 0 ends at step 3 (row 7), sequence 1 at step 2 (row 6), sequence 2 at step 0 (row 2).
  EXPECT_TRUE(allclose(select(hn, 0, 0), select(out, 0, 7)));
  EXPECT_TRUE(allclose(select(hn, 0, 1), select(out, 0, 6)));
  EXPECT_TRUE(allclose(select(hn, 0, 2), select(out, 0, 2)));
  auto [rout, rhn] = F::gru_layer_packed(x, bs, Tensor(), w, u, Tensor(), Tensor(), true);
  EXPECT_TRUE(allclose(rhn, narrow(rout, 0, 0, 3)));
  EXPECT_THROW(F::gru_layer_packed(x, {3, 2, 2}, Tensor(), w, u), ValueError);
  EXPECT_THROW(F::gru_layer_packed(x, {2, 3, 2, 1}, Tensor(), w, u), ValueError);
}

TEST(RnnPacked, LstmProjectionMatchesPerStepPathPadded) {
  manual_seed(9);
  const int64_t T = 5, N = 2, I = 3, H = 4, P = 2;
  TensorList base = {leaf({T, N, I}),  leaf({N, P}),  leaf({N, H}), leaf({4 * H, I}),
                     leaf({4 * H, P}), leaf({4 * H}), Tensor(),     leaf({P, H})};
  TensorList gouts = {randn({T, N, P}, {}, DType::Float64), randn({N, P}, {}, DType::Float64),
                      randn({N, H}, {}, DType::Float64)};
  for (bool reverse : {false, true}) {
    TensorList f = run(base, gouts, [&](const TensorList& a) {
      return F::lstm_layer(a[0], a[1], a[2], a[3], a[4], a[5], Tensor(), reverse, a[7]);
    });
    TensorList s = run(base, gouts, [&](const TensorList& a) {
      return D::layer_steps(D::CellKind::LSTM, a[0], D::RowLayout::padded(T, N), a[1], a[2],
                            D::LayerWeights{a[3], a[4], a[5], Tensor(), a[7]}, reverse);
    });
    for (size_t i = 0; i < f.size(); ++i) {
      ASSERT_EQ(f[i].defined(), s[i].defined()) << i;
      if (f[i].defined()) {
        EXPECT_TRUE(allclose(f[i], s[i], 1e-11, 1e-12)) << "reverse " << reverse << " entry " << i;
      }
    }
  }
}

// The C++ frontend's LSTM with proj_size: torch's parameter names and shapes, and a 2-layer
// bidirectional packed run equal to composing the layer ops by hand.
TEST(RnnPacked, FrontendLstmProjSize) {
  manual_seed(10);
  const int64_t I = 3, H = 5, P = 2;
  nn::RNNOptions o{I, H, 2, true, false, 0.0, true};
  o.proj_size = P;
  nn::LSTM lstm(o);
  std::vector<std::string> names;
  for (const auto& kv : lstm->named_parameters()) names.push_back(kv.first);
  ASSERT_EQ(names.size(), 20u);
  EXPECT_EQ(names[4], "weight_hr_l0");
  EXPECT_EQ(names[9], "weight_hr_l0_reverse");
  TensorList w10 = lstm->layer_weights(1, 0);
  EXPECT_EQ(w10[0].sizes(), (Shape{4 * H, 2 * P}));
  EXPECT_EQ(w10[1].sizes(), (Shape{4 * H, P}));
  EXPECT_EQ(w10[4].sizes(), (Shape{P, H}));

  const std::vector<int64_t> lengths = {4, 2, 3};
  Tensor x = randn({4, 3, I});
  nn::PackedSequence packed = nn::pack_padded_sequence(x, lengths, false, false);
  auto [out, st] = lstm(packed);
  EXPECT_EQ(out.data.sizes(), (Shape{9, 2 * P}));
  EXPECT_EQ(std::get<0>(st).sizes(), (Shape{4, 3, P}));
  EXPECT_EQ(std::get<1>(st).sizes(), (Shape{4, 3, H}));
  // By hand: layer 0 both directions, then layer 1 on their concatenation.
  std::vector<int64_t> bs = packed.sizes();
  Tensor in = packed.data;
  TensorList hs;
  for (int64_t l = 0; l < 2; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < 2; ++d) {
      TensorList w = lstm->layer_weights(l, d);
      auto [po, h, c] =
          F::lstm_layer_packed(in, bs, Tensor(), Tensor(), w[0], w[1], w[2], w[3], d == 1, w[4]);
      outs.push_back(po);
      hs.push_back(h);
    }
    in = cat(outs, 1);
  }
  EXPECT_TRUE(allclose(out.data, in, 1e-6, 1e-6));
  Tensor hn = index_select(stack(hs, 0), 1, packed.unsorted_indices);
  EXPECT_TRUE(allclose(std::get<0>(st), hn, 1e-6, 1e-6));
  // Padded input gives the same per-sequence results.
  auto [pout, pst] = lstm(x);
  EXPECT_EQ(pout.sizes(), (Shape{4, 3, 2 * P}));
  o.proj_size = H;
  EXPECT_THROW(nn::LSTM{o}, ValueError);
  o.proj_size = 1;
  EXPECT_THROW(nn::GRU{o}, ValueError);
}
