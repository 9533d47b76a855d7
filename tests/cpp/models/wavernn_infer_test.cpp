// C++ tests for tc::models::audio (WaveRNN's native sampling loop), no Python involved.
#include "models/audio/wavernn_infer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tensorcore/core/error.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/shape.h"

namespace ma = tc::models::audio;

namespace {

constexpr int64_t kFreq = 6, kAux = 2, kRnn = 12, kFc = 10, kClasses = 16;

tc::Tensor rnd(const tc::Shape& s, double scale = 0.3) {
  return tc::mul(tc::randn(s, {}, tc::TensorOptions(tc::DType::Float32)), scale);
}

ma::WaveRNNWeights random_weights() {
  ma::WaveRNNWeights w;
  w.fc_weight = rnd({kRnn, 1 + kFreq + kAux});
  w.fc_bias = rnd({kRnn});
  w.rnn1_weight_ih = rnd({3 * kRnn, kRnn});
  w.rnn1_weight_hh = rnd({3 * kRnn, kRnn});
  w.rnn1_bias_ih = rnd({3 * kRnn});
  w.rnn1_bias_hh = rnd({3 * kRnn});
  w.rnn2_weight_ih = rnd({3 * kRnn, kRnn + kAux});
  w.rnn2_weight_hh = rnd({3 * kRnn, kRnn});
  w.rnn2_bias_ih = rnd({3 * kRnn});
  w.rnn2_bias_hh = rnd({3 * kRnn});
  w.fc1_weight = rnd({kFc, kRnn + kAux});
  w.fc1_bias = rnd({kFc});
  w.fc2_weight = rnd({kFc, kFc + kAux});
  w.fc2_bias = rnd({kFc});
  w.fc3_weight = rnd({kClasses, kFc});
  w.fc3_bias = rnd({kClasses});
  return w;
}

std::vector<float> values(const tc::Tensor& t) {
  tc::Tensor c = tc::contiguous(t);
  const float* p = c.data<float>();
  return std::vector<float>(p, p + c.numel());
}

}  // namespace

TEST(ModelsAudio, SmallBatchLinearMatchesMatmul) {
  tc::manual_seed(1);
  for (int64_t m : {1, 2, 3, 4, 5, 9, 13}) {
    for (int64_t k : {7, 8, 37}) {
      tc::Tensor x = rnd({m, k}, 1.0), w = rnd({11, k}, 1.0);
      tc::Tensor got = ma::small_batch_linear(x, w);
      tc::Tensor expected = tc::matmul(x, tc::t(w));
      EXPECT_TRUE(tc::allclose(got, expected, 1e-5, 1e-5)) << "m=" << m << " k=" << k;
    }
  }
  EXPECT_THROW(ma::small_batch_linear(rnd({2, 3}), rnd({4, 5})), tc::ValueError);
}

TEST(ModelsAudio, FoldKeepsTheUnfoldedTimeline) {
  // Samples that depend only on the conditioning (no recurrence, no feedback of x, one class
  // with probability 1) must come out identical folded and unfolded.
  tc::manual_seed(2);
  ma::WaveRNNWeights w = random_weights();
  for (tc::Tensor* t : {&w.rnn1_weight_ih, &w.rnn1_weight_hh, &w.rnn1_bias_ih, &w.rnn1_bias_hh,
                        &w.rnn2_weight_ih, &w.rnn2_weight_hh, &w.rnn2_bias_ih, &w.rnn2_bias_hh})
    *t = tc::zeros(t->sizes());
  w.fc_weight = tc::contiguous(w.fc_weight);
  for (int64_t r = 0; r < kRnn; ++r) w.fc_weight.data<float>()[r * (1 + kFreq + kAux)] = 0.0f;
  w.fc3_weight = tc::mul(w.fc3_weight, 1e6);
  w.fc3_bias = tc::mul(w.fc3_bias, 1e6);  // steps where relu zeroes y2 are peaked too
  const int64_t time = 200;
  tc::Tensor spec = rnd({2, kFreq, time}, 3.0), aux = rnd({2, 4 * kAux, time}, 3.0);
  ma::WaveRNNInferOptions plain;
  const std::vector<int64_t> lengths = {200, 77};
  std::vector<float> u = values(ma::wavernn_infer(w, spec, aux, lengths, plain));
  int changes = 0;
  for (size_t i = 1; i < 200; ++i) changes += u[i] != u[i - 1];
  EXPECT_GT(changes, 20);
  for (auto [target, overlap] : {std::pair<int64_t, int64_t>{30, 10}, {41, 7}, {50, 0}, {25, 25}}) {
    ma::WaveRNNInferOptions fold;
    fold.fold_target = target;
    fold.fold_overlap = overlap;
    std::vector<float> f = values(ma::wavernn_infer(w, spec, aux, lengths, fold));
    ASSERT_EQ(f.size(), u.size());
    for (size_t i = 0; i < u.size(); ++i) ASSERT_NEAR(f[i], u[i], 2e-7) << "sample " << i;
  }
  for (size_t i = 77; i < 200; ++i) EXPECT_EQ(u[200 + i], 0.0f);
}

TEST(ModelsAudio, StreamsAreReproducible) {
  tc::manual_seed(3);
  ma::WaveRNNWeights w = random_weights();
  tc::Tensor spec = rnd({3, kFreq, 50}), aux = rnd({3, 4 * kAux, 50});
  ma::WaveRNNInferOptions a, b;
  a.torch_seed = 7;
  b.torch_seed = 7;
  EXPECT_EQ(values(ma::wavernn_infer(w, spec, aux, {}, a)),
            values(ma::wavernn_infer(w, spec, aux, {}, b)));
  ma::WaveRNNInferOptions g1, g2;
  g1.generator = std::make_shared<tc::Generator>();
  g2.generator = std::make_shared<tc::Generator>();
  g1.generator->manual_seed(5);
  g2.generator->manual_seed(5);
  std::vector<float> s1 = values(ma::wavernn_infer(w, spec, aux, {}, g1));
  EXPECT_EQ(s1, values(ma::wavernn_infer(w, spec, aux, {}, g2)));
  EXPECT_NE(s1, values(ma::wavernn_infer(w, spec, aux, {}, g1)));  // the generator advanced
  for (float v : s1) EXPECT_TRUE(v >= -1.0f && v <= 1.0f);
}

TEST(ModelsAudio, BadInputIsRejected) {
  ma::WaveRNNWeights w = random_weights();
  tc::Tensor spec = rnd({1, kFreq, 10}), aux = rnd({1, 4 * kAux, 10});
  ma::WaveRNNInferOptions o;
  EXPECT_THROW(ma::wavernn_infer(w, spec, aux, {11}, o), tc::ValueError);
  EXPECT_THROW(ma::wavernn_infer(w, spec, rnd({1, 3, 10}), {}, o), tc::ValueError);
  ma::WaveRNNWeights bad = w;
  bad.fc2_weight = rnd({kFc, kFc});
  EXPECT_THROW(ma::wavernn_infer(bad, spec, aux, {}, o), tc::ValueError);
  o.fold_target = 5;
  o.fold_overlap = 6;
  EXPECT_THROW(ma::wavernn_infer(w, spec, aux, {}, o), tc::ValueError);
}
