// Layers of the C++ frontend against naive references computed here.
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;
using nn::IntList;

namespace {

std::vector<double> vals(const Tensor& t) {
  Tensor d = contiguous(to_dtype(t.detach(), DType::Float64));
  const double* p = d.data<double>();
  return std::vector<double>(p, p + d.numel());
}

void expect_close(const Tensor& a, const std::vector<double>& b, double tol = 1e-4) {
  auto va = vals(a);
  ASSERT_EQ(va.size(), b.size());
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_NEAR(va[i], b[i], tol * (1 + std::abs(b[i]))) << "at " << i;
}

}  // namespace

TEST(NnCppLayers, LinearForwardAndInit) {
  manual_seed(1);
  nn::Linear lin(50, 40);
  Tensor x = randn({3, 50});
  auto w = vals(lin->weight), b = vals(lin->bias), xv = vals(x);
  std::vector<double> ref(3 * 40);
  for (int n = 0; n < 3; ++n)
    for (int o = 0; o < 40; ++o) {
      double acc = b[o];
      for (int i = 0; i < 50; ++i) acc += xv[n * 50 + i] * w[o * 50 + i];
      ref[n * 40 + o] = acc;
    }
  expect_close(lin(x), ref);
  // 3-d input goes through matmul.
  EXPECT_EQ(lin(randn({2, 3, 50})).sizes(), (Shape{2, 3, 40}));
  // kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(50), 1/sqrt(50)), variance bound^2/3.
  double bound = 1 / std::sqrt(50.0), sum2 = 0;
  for (double v : w) {
    EXPECT_LE(std::abs(v), bound);
    sum2 += v * v;
  }
  EXPECT_NEAR(sum2 / w.size(), bound * bound / 3, bound * bound / 3 * 0.15);
  for (double v : b) EXPECT_LE(std::abs(v), bound);
  try {
    lin(randn({3, 49}));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Linear: expected input with last dimension 50 "
                                         "(in_features), but got input of size [3, 49]"),
              std::string::npos)
        << e.what();
  }
}

TEST(NnCppLayers, Conv2dMatchesNaiveLoop) {
  manual_seed(2);
  nn::Conv2d conv(3, 4, /*kernel=*/3, /*stride=*/2, /*padding=*/1);
  Tensor x = randn({2, 3, 7, 6});
  Tensor y = conv(x);
  ASSERT_EQ(y.sizes(), (Shape{2, 4, 4, 3}));
  auto xv = vals(x), w = vals(conv->weight), b = vals(conv->bias);
  std::vector<double> ref;
  for (int n = 0; n < 2; ++n)
    for (int o = 0; o < 4; ++o)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) {
          double acc = b[o];
          for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k)
              for (int l = 0; l < 3; ++l) {
                int ih = i * 2 - 1 + k, iw = j * 2 - 1 + l;
                if (ih < 0 || iw < 0 || ih >= 7 || iw >= 6) continue;
                acc += xv[((n * 3 + c) * 7 + ih) * 6 + iw] * w[((o * 3 + c) * 3 + k) * 3 + l];
              }
          ref.push_back(acc);
        }
  expect_close(y, ref);
  double bound = 1 / std::sqrt(27.0);
  for (double v : w) EXPECT_LE(std::abs(v), bound);
  EXPECT_THROW(conv(randn({2, 4, 7, 6})), ValueError);
  EXPECT_THROW(nn::Conv2d(3, 4, 3, 1, 0, 1, /*groups=*/2), ValueError);
}

TEST(NnCppLayers, Conv1dAndTransposeAdjoint) {
  manual_seed(3);
  nn::Conv1d c1(2, 3, 3);
  Tensor x1 = randn({1, 2, 5});
  auto xv = vals(x1), w = vals(c1->weight), b = vals(c1->bias);
  std::vector<double> ref;
  for (int o = 0; o < 3; ++o)
    for (int t = 0; t < 3; ++t) {
      double acc = b[o];
      for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 3; ++k) acc += xv[c * 5 + t + k] * w[(o * 2 + c) * 3 + k];
      ref.push_back(acc);
    }
  expect_close(c1(x1), ref);

  // ConvTranspose2d without bias is the adjoint of Conv2d with the same weight:
  // <convT(u), v> == <u, conv(v)>.
  nn::ConvTranspose2d ct(4, 3, 3, /*stride=*/2, /*padding=*/1, /*output_padding=*/1, 1,
                         /*bias=*/false);
  ASSERT_EQ(ct->weight.sizes(), (Shape{4, 3, 3, 3}));
  Tensor u = randn({2, 4, 5, 5});
  Tensor out = ct(u);
  ASSERT_EQ(out.sizes(), (Shape{2, 3, 10, 10}));
  Tensor v = randn(out.sizes());
  Tensor conv_v = nn::functional::conv2d(v, ct->weight, {}, {2}, {1});
  EXPECT_NEAR(sum(mul(out, v)).item<double>(), sum(mul(u, conv_v)).item<double>(), 1e-3);
}

TEST(NnCppLayers, BatchNormTrainEval) {
  manual_seed(4);
  nn::BatchNorm2d bn(3);
  Tensor x = add(mul(randn({4, 3, 5, 5}), 2.0), 1.0);
  Tensor y = bn(x);
  auto xv = vals(x), yv = vals(y);
  auto rm = vals(bn->running_mean), rv = vals(bn->running_var);
  for (int c = 0; c < 3; ++c) {
    double s = 0, s2 = 0;
    int n = 0;
    for (int b = 0; b < 4; ++b)
      for (int k = 0; k < 25; ++k) {
        double v = xv[(b * 3 + c) * 25 + k];
        s += v;
        s2 += v * v;
        ++n;
      }
    double mean = s / n, var = s2 / n - mean * mean;
    for (int b = 0; b < 4; ++b)
      for (int k = 0; k < 25; ++k) {
        int idx = (b * 3 + c) * 25 + k;
        ASSERT_NEAR(yv[idx], (xv[idx] - mean) / std::sqrt(var + 1e-5), 1e-4);
      }
    EXPECT_NEAR(rm[c], 0.1 * mean, 1e-5);
    EXPECT_NEAR(rv[c], 0.9 + 0.1 * var * n / (n - 1), 1e-4);
  }
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  Tensor z = bn(x);
  auto zv = vals(z);
  EXPECT_NEAR(zv[0], (xv[0] - rm[0]) / std::sqrt(rv[0] + 1e-5), 1e-4);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  EXPECT_THROW(bn(randn({4, 2, 5, 5})), ValueError);
  nn::BatchNorm1d bn1(6);
  EXPECT_EQ(bn1(randn({4, 6})).sizes(), (Shape{4, 6}));
  EXPECT_EQ(bn1(randn({4, 6, 3})).sizes(), (Shape{4, 6, 3}));
}

TEST(NnCppLayers, LayerNormGroupNorm) {
  manual_seed(5);
  nn::LayerNorm ln(IntList{6});
  nn::GroupNorm gn(2, 4);
  {
    autograd::NoGradGuard g;
    uniform_(ln->weight, 0.5, 1.5);
    uniform_(gn->bias, -1, 1);
  }
  Tensor x = randn({3, 6});
  auto xv = vals(x), w = vals(ln->weight);
  std::vector<double> ref;
  for (int r = 0; r < 3; ++r) {
    double m = 0, v = 0;
    for (int j = 0; j < 6; ++j) m += xv[r * 6 + j] / 6;
    for (int j = 0; j < 6; ++j) v += (xv[r * 6 + j] - m) * (xv[r * 6 + j] - m) / 6;
    for (int j = 0; j < 6; ++j) ref.push_back((xv[r * 6 + j] - m) / std::sqrt(v + 1e-5) * w[j]);
  }
  expect_close(ln(x), ref);
  Tensor g = randn({2, 4, 3});
  auto gv = vals(g), gb = vals(gn->bias);
  std::vector<double> gref(24);
  for (int n = 0; n < 2; ++n)
    for (int grp = 0; grp < 2; ++grp) {
      double m = 0, v = 0;
      for (int k = 0; k < 6; ++k) m += gv[n * 12 + grp * 6 + k] / 6;
      for (int k = 0; k < 6; ++k) v += std::pow(gv[n * 12 + grp * 6 + k] - m, 2) / 6;
      for (int k = 0; k < 6; ++k) {
        int idx = n * 12 + grp * 6 + k;
        gref[idx] = (gv[idx] - m) / std::sqrt(v + 1e-5) + gb[grp * 2 + k / 3];
      }
    }
  expect_close(gn(g), gref);
}

TEST(NnCppLayers, EmbeddingDropoutPoolingActivations) {
  manual_seed(6);
  nn::Embedding emb(10, 4, /*padding_idx=*/0);
  EXPECT_EQ(sum(abs(select(emb->weight, 0, 0))).item<double>(), 0.0);
  Tensor idx = tensor<int64_t>({3, 0, 9});
  Tensor e = emb(idx);
  EXPECT_TRUE(equal(select(e, 0, 2), select(emb->weight, 0, 9)));
  EXPECT_THROW(emb(randn({3})), TypeError);

  nn::Dropout drop(0.5);
  Tensor ones_in = ones({10000});
  Tensor d = drop(ones_in);
  double zeros_frac = 1 - count_nonzero(d).item<double>() / 10000.0;
  EXPECT_NEAR(zeros_frac, 0.5, 0.03);
  EXPECT_NEAR(amax(d).item<double>(), 2.0, 1e-6);
  drop->eval();
  EXPECT_TRUE(equal(drop(ones_in), ones_in));

  Tensor x = reshape(arange(0, 16, 1, DType::Float32), {1, 1, 4, 4});
  expect_close(nn::MaxPool2d(2)(x), {5, 7, 13, 15});
  expect_close(nn::AvgPool2d(2)(x), {2.5, 4.5, 10.5, 12.5});
  expect_close(nn::AdaptiveAvgPool2d(1)(x), {7.5});
  EXPECT_EQ(nn::Flatten()(randn({2, 3, 4})).sizes(), (Shape{2, 12}));

  Tensor a = tensor<float>({-2.f, -0.5f, 0.f, 1.5f});
  std::vector<double> relu_ref, silu_ref, gelu_ref, tanh_ref, sig_ref;
  for (double v : {-2.0, -0.5, 0.0, 1.5}) {
    relu_ref.push_back(v > 0 ? v : 0);
    sig_ref.push_back(1 / (1 + std::exp(-v)));
    silu_ref.push_back(v / (1 + std::exp(-v)));
    gelu_ref.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    tanh_ref.push_back(std::tanh(v));
  }
  expect_close(nn::ReLU()(a), relu_ref);
  expect_close(nn::Sigmoid()(a), sig_ref);
  expect_close(nn::SiLU()(a), silu_ref);
  expect_close(nn::GELU()(a), gelu_ref);
  expect_close(nn::Tanh()(a), tanh_ref);
  double z = std::exp(-2.0) + std::exp(-0.5) + 1 + std::exp(1.5);
  expect_close(nn::Softmax(0)(a),
               {std::exp(-2.0) / z, std::exp(-0.5) / z, 1 / z, std::exp(1.5) / z});
  expect_close(nn::LogSoftmax(0)(a),
               {-2 - std::log(z), -0.5 - std::log(z), -std::log(z), 1.5 - std::log(z)});
}

TEST(NnCppLayers, LstmGruMatchManualRecurrence) {
  manual_seed(7);
  const int64_t T = 4, N = 2, I = 3, H = 5;
  nn::LSTM lstm(I, H);
  Tensor x = randn({T, N, I});
  auto [out, state] = lstm(x);
  auto [hn, cn] = state;
  ASSERT_EQ(out.sizes(), (Shape{T, N, H}));
  // Reference: gates = x W_ih^T + b_ih + h W_hh^T + b_hh, order (i, f, g, o).
  Tensor h = zeros({N, H}), c = zeros({N, H});
  TensorList steps;
  {
    autograd::NoGradGuard g;
    for (int64_t t = 0; t < T; ++t) {
      Tensor gates = add(
          add(matmul(select(x, 0, t), nn::functional::linear(eye(I), lstm->param("weight_ih_l0"))),
              lstm->param("bias_ih_l0")),
          add(matmul(h, tc::t(lstm->param("weight_hh_l0"))), lstm->param("bias_hh_l0")));
      auto gs = chunk(gates, 4, 1);
      Tensor i = sigmoid(gs[0]), f = sigmoid(gs[1]), gg = tanh(gs[2]), o = sigmoid(gs[3]);
      c = add(mul(f, c), mul(i, gg));
      h = mul(o, tanh(c));
      steps.push_back(h);
    }
  }
  EXPECT_TRUE(allclose(out, stack(steps, 0), 1e-4, 1e-5));
  EXPECT_TRUE(allclose(select(hn, 0, 0), h, 1e-4, 1e-5));
  EXPECT_TRUE(allclose(select(cn, 0, 0), c, 1e-4, 1e-5));
  double bound = 1 / std::sqrt(double(H));
  EXPECT_LE(amax(abs(lstm->param("weight_hh_l0"))).item<double>(), bound);

  // GRU, one step, gates (r, z, n): n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
  nn::GRU gru(I, H);
  Tensor x1 = randn({1, N, I}), h0 = randn({1, N, H});
  auto [gout, ghn] = gru(x1, h0);
  {
    autograd::NoGradGuard g;
    Tensor gi =
        add(matmul(select(x1, 0, 0), tc::t(gru->param("weight_ih_l0"))), gru->param("bias_ih_l0"));
    Tensor gh =
        add(matmul(select(h0, 0, 0), tc::t(gru->param("weight_hh_l0"))), gru->param("bias_hh_l0"));
    auto a = chunk(gi, 3, 1), b = chunk(gh, 3, 1);
    Tensor r = sigmoid(add(a[0], b[0])), z = sigmoid(add(a[1], b[1]));
    Tensor n = tanh(add(a[2], mul(r, b[2])));
    Tensor hnew = add(mul(rsub(z, 1.0), n), mul(z, select(h0, 0, 0)));
    EXPECT_TRUE(allclose(select(gout, 0, 0), hnew, 1e-4, 1e-5));
  }

  // Multi-layer, bidirectional, batch_first: shapes, names, and h_n of the forward direction.
  nn::LSTM deep(nn::RNNOptions{I, H, 2, true, /*batch_first=*/true, 0.0, /*bidirectional=*/true});
  auto [dout, dstate] = deep(randn({N, T, I}));
  EXPECT_EQ(dout.sizes(), (Shape{N, T, 2 * H}));
  EXPECT_EQ(std::get<0>(dstate).sizes(), (Shape{4, N, H}));
  EXPECT_TRUE(allclose(select(std::get<0>(dstate), 0, 2), narrow(select(dout, 1, T - 1), 1, 0, H)));
  EXPECT_EQ(deep->named_parameters()[4].first, "weight_ih_l0_reverse");
  EXPECT_EQ(deep->param("weight_ih_l1").sizes(), (Shape{4 * H, 2 * H}));
  EXPECT_THROW(deep(randn({N, T, I + 1})), ValueError);
  EXPECT_THROW(lstm(x, randn({2, N, H})), ValueError);
}

TEST(NnCppLayers, MultiheadAttentionAndEncoder) {
  manual_seed(8);
  const int64_t L = 3, S = 4, N = 2, E = 6;
  nn::MultiheadAttention mha(E, 1);
  Tensor q = randn({L, N, E}), k = randn({S, N, E}), v = randn({S, N, E});
  auto [out, w] = mha(q, k, v);
  ASSERT_EQ(out.sizes(), (Shape{L, N, E}));
  ASSERT_EQ(w.sizes(), (Shape{N, L, S}));
  {
    autograd::NoGradGuard g;
    // Single head, batch 0, computed directly.
    Tensor W = mha->in_proj_weight, B = mha->in_proj_bias;
    auto lin = [&](const Tensor& x, int i) {
      return add(matmul(x, tc::t(narrow(W, 0, i * E, E))), narrow(B, 0, i * E, E));
    };
    Tensor qq = lin(select(q, 1, 0), 0), kk = lin(select(k, 1, 0), 1), vv = lin(select(v, 1, 0), 2);
    Tensor att = nn::functional::softmax(div(matmul(qq, tc::t(kk)), std::sqrt(double(E))), 1);
    Tensor ref = mha->out_proj(matmul(att, vv));
    EXPECT_TRUE(allclose(select(out, 1, 0), ref, 1e-4, 1e-5));
    EXPECT_TRUE(allclose(select(w, 0, 0), att, 1e-4, 1e-5));
  }
  // Padding mask: masked keys get zero weight; rows still sum to one.
  nn::MultiheadAttention mh2(E, 2);
  Tensor kpm = zeros({N, S}, DType::Bool);
  {
    Tensor col = select(kpm, 1, 3);
    fill_(col, true);
  }
  auto [o2, w2] = mh2(q, k, v, kpm);
  EXPECT_LT(amax(abs(select(w2, 2, 3))).item<double>(), 1e-7);
  EXPECT_TRUE(allclose(sum(w2, {2}), ones({N, L}), 1e-5, 1e-5));
  EXPECT_THROW(mh2(q, k, v, zeros({N, S + 1}, DType::Bool)), ValueError);

  nn::TransformerEncoder enc(nn::TransformerEncoderLayerOptions{E, 2, 16, 0.1}, 2,
                             /*final_norm=*/true);
  std::vector<std::string> names;
  for (auto& [n, t] : enc->state_dict()) names.push_back(n);
  std::vector<std::string> expect_l0 = {"layers.0.self_attn.in_proj_weight",
                                        "layers.0.self_attn.in_proj_bias",
                                        "layers.0.self_attn.out_proj.weight",
                                        "layers.0.self_attn.out_proj.bias",
                                        "layers.0.linear1.weight",
                                        "layers.0.linear1.bias",
                                        "layers.0.linear2.weight",
                                        "layers.0.linear2.bias",
                                        "layers.0.norm1.weight",
                                        "layers.0.norm1.bias",
                                        "layers.0.norm2.weight",
                                        "layers.0.norm2.bias"};
  ASSERT_EQ(names.size(), 26u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 12), expect_l0);
  EXPECT_EQ(names.back(), "norm.bias");
  enc->eval();
  Tensor src = randn({5, N, E});
  Tensor y1 = enc(src), y2 = enc(src);
  EXPECT_EQ(y1.sizes(), src.sizes());
  EXPECT_TRUE(equal(y1, y2));
  // Final LayerNorm: each position is normalized.
  EXPECT_LT(amax(abs(mean(y1, {2}))).item<double>(), 1e-5);
}

TEST(NnCppLayers, Losses) {
  manual_seed(9);
  Tensor logits = randn({4, 3});
  Tensor target = tensor<int64_t>({0, 2, 1, 2});
  auto lv = vals(logits);
  std::vector<double> nll(4);
  std::vector<std::vector<double>> lp(4, std::vector<double>(3));
  for (int n = 0; n < 4; ++n) {
    double z = 0;
    for (int c = 0; c < 3; ++c) z += std::exp(lv[n * 3 + c]);
    for (int c = 0; c < 3; ++c) lp[n][c] = lv[n * 3 + c] - std::log(z);
  }
  int64_t t[4] = {0, 2, 1, 2};
  double mean_ref = 0;
  for (int n = 0; n < 4; ++n) mean_ref += -lp[n][t[n]] / 4;
  EXPECT_NEAR(nn::CrossEntropyLoss()(logits, target).item<double>(), mean_ref, 1e-5);
  // weight + ignore_index: weighted mean over the kept samples.
  Tensor weight = tensor<float>({1.f, 2.f, 0.5f});
  Tensor tgt_ign = tensor<int64_t>({0, 2, -100, 2});
  double wsum = 1 + 0.5 + 0.5, num = -lp[0][0] * 1 - lp[1][2] * 0.5 - lp[3][2] * 0.5;
  EXPECT_NEAR(nn::CrossEntropyLoss(weight)(logits, tgt_ign).item<double>(), num / wsum, 1e-5);
  // label smoothing 0.1: (1-e) * nll + e/C * sum_c(-lp_c), averaged.
  double ls_ref = 0;
  for (int n = 0; n < 4; ++n) {
    double s = 0;
    for (int c = 0; c < 3; ++c) s += -lp[n][c];
    ls_ref += (0.9 * -lp[n][t[n]] + 0.1 / 3 * s) / 4;
  }
  EXPECT_NEAR(nn::CrossEntropyLoss(Tensor(), -100, "mean", 0.1)(logits, target).item<double>(),
              ls_ref, 1e-5);
  Tensor none = nn::functional::cross_entropy(logits, target, {}, -100, "none");
  EXPECT_NEAR(vals(none)[1], -lp[1][2], 1e-5);
  EXPECT_NEAR(nn::NLLLoss()(nn::functional::log_softmax(logits, 1), target).item<double>(),
              mean_ref, 1e-5);
  // Spatial targets [N, C, H, W] / [N, H, W].
  Tensor img = randn({2, 3, 2, 2});
  Tensor imt = randint(0, 3, {2, 2, 2});
  Tensor flat =
      nn::functional::cross_entropy(reshape(movedim(img, {1}, {-1}), {-1, 3}), reshape(imt, {-1}));
  EXPECT_NEAR(nn::functional::cross_entropy(img, imt).item<double>(), flat.item<double>(), 1e-5);
  EXPECT_THROW(nn::CrossEntropyLoss()(logits, tensor<int64_t>({0, 3, 1, 2})), IndexError);
  EXPECT_THROW(nn::CrossEntropyLoss()(logits, tensor<int64_t>({0, 1})), ValueError);

  Tensor a = randn({5}), b = randn({5});
  auto av = vals(a), bv = vals(b);
  double mse = 0;
  for (int i = 0; i < 5; ++i) mse += (av[i] - bv[i]) * (av[i] - bv[i]) / 5;
  EXPECT_NEAR(nn::MSELoss()(a, b).item<double>(), mse, 1e-5);

  Tensor y = tensor<float>({0.f, 1.f, 1.f, 0.f, 1.f});
  Tensor pw = full({5}, 3.0);
  double bce = 0;
  for (int i = 0; i < 5; ++i) {
    double yi = vals(y)[i], s = 1 / (1 + std::exp(-av[i]));
    bce += -(3 * yi * std::log(s) + (1 - yi) * std::log(1 - s)) / 5;
  }
  EXPECT_NEAR(nn::BCEWithLogitsLoss(Tensor(), "mean", pw)(a, y).item<double>(), bce, 1e-5);

  // CTCLoss module forwards to the kernel.
  Tensor lps = nn::functional::log_softmax(randn({6, 2, 4}), 2);
  Tensor targets = tensor<int64_t>({1, 2, 3, 1});
  Tensor il = tensor<int64_t>({6, 5}), tl = tensor<int64_t>({2, 2});
  EXPECT_NEAR(nn::CTCLoss()(lps, targets, il, tl).item<double>(),
              nn::functional::ctc_loss(lps, targets, il, tl).item<double>(), 1e-6);
}
