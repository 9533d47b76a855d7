// Packed sequences in the C++ frontend: packing utilities and LSTM/GRU over packed batches,
// checked against running every sequence on its own (no padding involved).
#include <gtest/gtest.h>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;

namespace {
std::vector<int64_t> ints(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t, DType::Int64));
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}
}  // namespace

TEST(NnCppPacked, PackAndPadRoundTrip) {
  // [T=4, N=3, 2], lengths 4, 2, 3 (unsorted).
  Tensor x = reshape(arange(24, DType::Float32), {4, 3, 2});
  EXPECT_THROW(nn::pack_padded_sequence(x, {4, 2, 3}), ValueError);  // enforce_sorted
  nn::PackedSequence p = nn::pack_padded_sequence(x, {4, 2, 3}, false, false);
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{3, 3, 2, 1}));
  EXPECT_EQ(ints(p.sorted_indices), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(ints(p.unsorted_indices), (std::vector<int64_t>{0, 2, 1}));
  // Step 0 holds sequences 0, 2, 1; step 2 sequences 0, 2; step 3 sequence 0.
  EXPECT_TRUE(
      allclose(narrow(p.data, 0, 0, 3), index_select(select(x, 0, 0), 0, p.sorted_indices)));
  EXPECT_TRUE(allclose(narrow(p.data, 0, 6, 2),
                       index_select(select(x, 0, 2), 0, from_vector<int64_t>({0, 2}, {2}))));
  EXPECT_TRUE(allclose(narrow(p.data, 0, 8, 1), narrow(select(x, 0, 3), 0, 0, 1)));

  auto [padded, lengths] = nn::pad_packed_sequence(p, true, -1.0, 5);
  EXPECT_EQ(padded.sizes(), (Shape{3, 5, 2}));
  EXPECT_EQ(ints(lengths), (std::vector<int64_t>{4, 2, 3}));
  Tensor xb = transpose(x, 0, 1);
  EXPECT_TRUE(allclose(narrow(select(padded, 0, 0), 0, 0, 4), select(xb, 0, 0)));
  EXPECT_TRUE(allclose(narrow(select(padded, 0, 1), 0, 0, 2), narrow(select(xb, 0, 1), 0, 0, 2)));
  EXPECT_EQ(sum(narrow(select(padded, 0, 1), 0, 2, 3)).item<double>(),
            -6.0);  // 3 steps x 2 features of -1
  EXPECT_THROW(nn::pad_packed_sequence(p, false, 0.0, 3), ValueError);  // total_length < longest

  // pack_sequence / pad_sequence, batch_first input and bad lengths.
  Tensor a = randn({3, 2}), b = randn({1, 2});
  Tensor ps = nn::pad_sequence({a, b}, true);
  EXPECT_EQ(ps.sizes(), (Shape{2, 3, 2}));
  nn::PackedSequence q = nn::pack_sequence({a, b});
  EXPECT_EQ(q.sizes(), (std::vector<int64_t>{2, 1, 1}));
  nn::PackedSequence qb = nn::pack_padded_sequence(ps, from_vector<int64_t>({3, 1}, {2}), true);
  EXPECT_TRUE(allclose(qb.data, q.data));
  EXPECT_THROW(nn::pack_padded_sequence(x, {4, 0, 3}, false, false), ValueError);
  EXPECT_THROW(nn::pack_padded_sequence(x, {5, 2, 3}, false, false), ValueError);
  EXPECT_THROW(nn::pack_padded_sequence(x, {4, 2}, false, false), ValueError);
}

// LSTM/GRU over a packed batch equal each sequence run alone: outputs at real steps and h_n
// (the state after each sequence's own last step; for the reverse direction, after step 0).
TEST(NnCppPacked, RnnMatchesPerSequenceRuns) {
  manual_seed(5);
  const std::vector<int64_t> lengths = {2, 5, 3, 5};
  const int64_t N = 4, T = 5, I = 3, H = 4;
  for (bool bidirectional : {false, true})
    for (bool lstm_kind : {true, false}) {
      nn::RNNOptions o{I, H, 2, true, true, 0.0, bidirectional};
      nn::LSTM lstm(o);
      nn::GRU gru(o);
      const int64_t D = bidirectional ? 2 : 1;
      Tensor x = randn({N, T, I}, {}, DType::Float64).requires_grad_();
      Tensor h0 = randn({2 * D, N, H}, {}, DType::Float64),
             c0 = randn({2 * D, N, H}, {}, DType::Float64);
      lstm->to(DType::Float64);
      gru->to(DType::Float64);
      nn::PackedSequence packed = nn::pack_padded_sequence(x, lengths, true, false);
      Tensor out, hn, cn;
      if (lstm_kind) {
        auto [po, st] = lstm(packed, h0, c0);
        out = nn::pad_packed_sequence(po, true).first;
        hn = std::get<0>(st);
        cn = std::get<1>(st);
      } else {
        auto [po, h] = gru(packed, h0);
        out = nn::pad_packed_sequence(po, true).first;
        hn = h;
      }
      ASSERT_EQ(out.sizes(), (Shape{N, T, D * H}));
      for (int64_t i = 0; i < N; ++i) {
        Tensor xi = narrow(select(x, 0, i), 0, 0, lengths[size_t(i)]);  // unbatched [L, I]
        Tensor hi = select(h0, 1, i), ci = select(c0, 1, i);
        Tensor oi, hni, cni;
        if (lstm_kind) {
          auto [o1, s1] = lstm(xi, hi, ci);
          oi = o1;
          hni = std::get<0>(s1);
          cni = std::get<1>(s1);
        } else {
          auto [o1, h1] = gru(xi, hi);
          oi = o1;
          hni = h1;
        }
        std::string what = std::string(lstm_kind ? "LSTM" : "GRU") +
                           (bidirectional ? " bidirectional" : "") + " sequence " +
                           std::to_string(i);
        EXPECT_TRUE(allclose(narrow(select(out, 0, i), 0, 0, lengths[size_t(i)]), oi, 1e-10, 1e-12))
            << what;
        if (lengths[size_t(i)] < T) {
          EXPECT_EQ(
              sum(abs(narrow(select(out, 0, i), 0, lengths[size_t(i)], T - lengths[size_t(i)])))
                  .item<double>(),
              0.0)
              << what;
        }
        EXPECT_TRUE(allclose(select(hn, 1, i), hni, 1e-10, 1e-12)) << what;
        if (lstm_kind) {
          EXPECT_TRUE(allclose(select(cn, 1, i), cni, 1e-10, 1e-12)) << what;
        }
      }
      // Gradients reach the input only at real steps.
      sum(out).backward();
      Tensor gx = x.grad();
      EXPECT_EQ(sum(abs(narrow(select(gx, 0, 0), 0, 2, 3))).item<double>(), 0.0);
      EXPECT_GT(sum(abs(narrow(select(gx, 0, 0), 0, 0, 2))).item<double>(), 0.0);
    }
  nn::LSTM small(3, 4);
  nn::PackedSequence bad = nn::pack_sequence({randn({2, 5})});
  EXPECT_THROW(small(bad), ValueError);
}
