// The C++ layers beyond the first few (nn/modules/*.h: conv, pooling, normalization, padding,
// dropout, distance, fold; RNN): construction (torch's parameter names, shapes and init bounds),
// clones, forward against references written here, and errors naming the layer and the shapes.
// Values and gradients against torch are in tests/python/nn/cpp/test_nncpp_coverage.py.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;
namespace F = tc::nn::functional;
using nn::IntList;

namespace {

const TensorOptions f64(DType::Float64);

std::vector<std::string> keys(const nn::Module& m) {
  std::vector<std::string> out;
  for (auto& [k, v] : m.state_dict()) out.push_back(k + shape_str(v.sizes()));
  return out;
}

// Runs fn, expects an exception of type E whose message contains every piece.
template <typename E>
void expect_error(const std::function<void()>& fn, std::initializer_list<const char*> pieces) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one mentioning " << *pieces.begin();
  } catch (const E& e) {
    for (const char* p : pieces)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

double maxabs(const Tensor& t) { return amax(abs(t)).item<double>(); }
double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  Tensor v = t;
  for (int64_t i : idx) v = select(v, 0, i);
  return v.item<double>();
}

}  // namespace

TEST(NnCppCoverage, ConvParametersAndClones) {
  nn::Conv3d c3(4, 6, IntList{3, 1, 2}, IntList{1}, IntList{1, 0, 1}, IntList{1}, 2);
  EXPECT_EQ(keys(*c3), (std::vector<std::string>{"weight[6, 2, 3, 1, 2]", "bias[6]"}));
  EXPECT_LE(maxabs(c3->weight), 1 / std::sqrt(2.0 * 3 * 1 * 2) + 1e-7);
  nn::ConvTranspose1d t1(4, 6, 3, 2, 1, 1, 2, false);
  EXPECT_EQ(keys(*t1), (std::vector<std::string>{"weight[4, 3, 3]"}));
  nn::ConvTranspose3d t3(2, 3, 2);
  EXPECT_EQ(keys(*t3), (std::vector<std::string>{"weight[2, 3, 2, 2, 2]", "bias[3]"}));
  EXPECT_EQ(t3(randn({1, 2, 3, 4, 5})).sizes(), (Shape{1, 3, 4, 5, 6}));
  EXPECT_EQ(t1(randn({2, 4, 5})).sizes(), (Shape{2, 6, 10}));  // (5-1)*2 - 2 + 3 + 1
  EXPECT_EQ(c3->str(),
            "Conv3d(4, 6, kernel_size=(3, 1, 2), stride=(1, 1, 1), padding=(1, 0, 1), groups=2)");

  nn::Conv2d same(3, 5, IntList{3, 4}, IntList{1}, nn::kSame, IntList{2, 1}, 1, true, "reflect");
  nn::Conv3d c3copy = c3.clone();
  EXPECT_TRUE(equal(c3copy->weight, c3->weight));
  EXPECT_NE(c3copy->weight.data_ptr(), c3->weight.data_ptr());
  nn::Conv2d same_copy = same.clone();
  EXPECT_EQ(same_copy->padding_mode, "reflect");
  EXPECT_EQ(same_copy->padding_string, "same");
  EXPECT_EQ(same->str(),
            "Conv2d(3, 5, kernel_size=(3, 4), stride=(1, 1), padding=same, dilation=(2, 1), "
            "padding_mode=reflect)");
  nn::ConvTranspose3d t3copy = t3.clone();
  EXPECT_EQ(t3copy->transposed, true);
}

TEST(NnCppCoverage, ConvPaddingModesAndSame) {
  manual_seed(1);
  Tensor x = randn({2, 3, 7, 6}, {}, f64);
  // 'same' with dilation: total padding d*(k-1) = 4 (rows) and 3 (cols, extra element at the end).
  nn::Conv2d same(3, 5, IntList{3, 4}, IntList{1}, nn::kSame, IntList{2, 1});
  same->to(DType::Float64);
  Tensor y = same(x);
  EXPECT_EQ(y.sizes(), (Shape{2, 5, 7, 6}));
  Tensor ref = F::conv2d(F::pad(x, {1, 2, 2, 2}), same->weight, same->bias, IntList{1}, IntList{0},
                         IntList{2, 1});
  EXPECT_TRUE(allclose(y, ref, 1e-12, 1e-12));
  nn::Conv2d valid(3, 5, IntList{3}, IntList{1}, nn::kValid);
  EXPECT_EQ(valid(to_dtype(x, DType::Float32)).sizes(), (Shape{2, 5, 5, 4}));
  for (const char* mode : {"reflect", "replicate", "circular"}) {
    nn::Conv1d c(3, 2, 3, 1, 2, 1, 1, true, mode);
    c->to(DType::Float64);
    Tensor s = randn({2, 3, 9}, {}, f64);
    Tensor expect = F::conv1d(F::pad(s, {2, 2}, mode), c->weight, c->bias);
    EXPECT_TRUE(allclose(c(s), expect, 1e-12, 1e-12)) << mode;
    nn::Conv3d c3(3, 2, 3, 1, nn::kSame, 1, 1, true, mode);
    c3->to(DType::Float64);
    Tensor v = randn({1, 3, 4, 5, 3}, {}, f64);
    EXPECT_TRUE(allclose(
        c3(v), F::conv3d(F::pad(v, {1, 1, 1, 1, 1, 1}, mode), c3->weight, c3->bias), 1e-12, 1e-12));
  }
  // ConvTranspose1d is the adjoint of Conv1d with the same weight: <T(u), v> = <u, C(v)>.
  nn::ConvTranspose1d tr(3, 2, 4, 2, 1, 0, 1, false);
  tr->to(DType::Float64);
  Tensor u = randn({2, 3, 6}, {}, f64);
  Tensor tu = tr(u);
  Tensor v = randn(tu.sizes(), {}, f64);
  Tensor cv = F::conv1d(v, tr->weight, {}, {2}, {1});
  EXPECT_NEAR(sum(mul(tu, v)).item<double>(), sum(mul(u, cv)).item<double>(), 1e-10);
  // output_size picks output_padding: sizes 12 (= (6-1)*2 - 2 + 3 + 1) and 13 are reachable.
  EXPECT_EQ(tu.size(2), 12);
  Tensor t13 = tr(u, IntList{13});
  EXPECT_EQ(t13.size(2), 13);
  EXPECT_TRUE(allclose(narrow(t13, 2, 0, 12), tu, 1e-12, 1e-12));
  expect_error<ValueError>(
      [&] {
        tr(u, IntList{2, 2, 14});
      },
      {"ConvTranspose1d: requested an output size of [2, 2, 14], but valid sizes of spatial dim 0 "
       "range from 12 to 13"});
}

TEST(NnCppCoverage, ConvErrors) {
  nn::Conv3d c3(4, 6, 3);
  expect_error<ValueError>(
      [&] {
        c3(randn({2, 5, 6, 6, 6}));
      },
      {"Conv3d: expected input of shape [N, 4, *] with 3 spatial dims", "[2, 5, 6, 6, 6]"});
  expect_error<ValueError>([&] { c3(randn({2, 4, 6, 6})); }, {"Conv3d", "[2, 4, 6, 6]"});
  expect_error<ValueError>([] { nn::Conv2d(3, 4, IntList{3}, IntList{2}, nn::kSame); },
                           {"Conv2d", "padding='same' is not supported for strided convolutions"});
  expect_error<ValueError>([] { nn::Conv1d(3, 4, 3, 1, 0, 1, 1, true, "mirror"); },
                           {"Conv1d", "padding_mode", "mirror"});
  expect_error<ValueError>([] { nn::ConvTranspose1d(3, 4, 3, 1, 0, 0, 2); },
                           {"ConvTranspose1d", "groups (2)"});
  expect_error<ValueError>(
      [] {
        nn::Conv3d(3, 3, IntList{3, 3});
      },
      {"Conv3d", "kernel_size needs 1 or 3 values, got 2"});
}

TEST(NnCppCoverage, PoolingWithIndicesAndUnpool) {
  Tensor x = tensor<double>({1, 5, 2, 7, 3, 3, 0, 9});
  x = reshape(x, {1, 1, 8});
  nn::MaxPool1d mp(2);
  auto [v, idx] = mp->forward_with_indices(x);
  EXPECT_TRUE(equal(reshape(v, {4}), tensor<double>({5, 7, 3, 9})));
  EXPECT_TRUE(equal(reshape(idx, {4}), tensor<int64_t>({1, 3, 4, 7})));
  EXPECT_TRUE(equal(mp(x), v));
  nn::MaxUnpool1d up(2);
  Tensor back = up(v, idx);
  EXPECT_TRUE(equal(reshape(back, {8}), tensor<double>({0, 5, 0, 7, 3, 0, 0, 9})));
  EXPECT_EQ(up(v, idx, IntList{9}).sizes(), (Shape{1, 1, 9}));

  Tensor img =
      add(abs(randn({2, 3, 6, 8})), 0.1);  // positive, so the unpooled zeros are never maxima
  auto [v2, i2] = nn::MaxPool2d(2)->forward_with_indices(img);
  Tensor back2 = nn::MaxUnpool2d(2)(v2, i2);
  EXPECT_EQ(back2.sizes(), img.sizes());
  EXPECT_TRUE(equal(nn::MaxPool2d(2)(back2), v2));  // the maxima land where they came from
  Tensor vol = add(abs(randn({1, 2, 4, 4, 6})), 0.1);
  auto [v3, i3] = nn::MaxPool3d(2)->forward_with_indices(vol);
  EXPECT_TRUE(equal(nn::MaxPool3d(2)(nn::MaxUnpool3d(2)(v3, i3)), v3));

  Tensor a = reshape(arange(10, DType::Float64), {1, 1, 10});
  EXPECT_TRUE(
      equal(reshape(nn::AvgPool1d(IntList{3}, IntList{3})(a), {3}), tensor<double>({1, 4, 7})));
  EXPECT_TRUE(allclose(reshape(nn::AdaptiveAvgPool1d(2)(a), {2}), tensor<double>({2, 7})));
  auto [am, ai] = nn::AdaptiveMaxPool1d(3)->forward_with_indices(a);
  EXPECT_TRUE(equal(reshape(am, {3}), tensor<double>({3, 6, 9})));
  EXPECT_TRUE(equal(reshape(ai, {3}), tensor<int64_t>({3, 6, 9})));
  EXPECT_EQ(nn::AdaptiveAvgPool3d(IntList{1, -1, 2})(vol).sizes(), (Shape{1, 2, 1, 4, 2}));
  EXPECT_EQ(nn::AdaptiveMaxPool3d(2)(vol).sizes(), (Shape{1, 2, 2, 2, 2}));
  EXPECT_EQ(nn::AvgPool3d(IntList{2}, IntList{}, IntList{0}, false, true, 3)(vol).sizes(),
            (Shape{1, 2, 2, 2, 3}));
  // divisor_override: window sums / 3.
  Tensor ones5 = ones({1, 1, 2, 2, 2}, f64);
  EXPECT_NEAR(
      nn::AvgPool3d(IntList{2}, IntList{}, IntList{0}, false, true, 3)(ones5).item<double>(),
      8.0 / 3, 1e-12);

  nn::AdaptiveMaxPool1d copy = nn::AdaptiveMaxPool1d(3).clone();
  EXPECT_EQ(copy->output_size, IntList{3});
  nn::MaxUnpool2d ucopy = nn::MaxUnpool2d(IntList{2, 3}).clone();
  EXPECT_EQ(ucopy->stride, (IntList{2, 3}));
  EXPECT_EQ(nn::MaxPool1d(IntList{3}, IntList{2}, IntList{1})->str(),
            "MaxPool1d(kernel_size=3, stride=2, padding=1, ceil_mode=false)");
}

TEST(NnCppCoverage, PoolingErrors) {
  expect_error<ValueError>(
      [] {
        nn::MaxPool1d(2)(randn({2, 3, 4, 4}));
      },
      {"MaxPool1d: expected a 2-d or 3-d input", "[2, 3, 4, 4]"});
  expect_error<ValueError>([] { nn::AvgPool3d(2)(randn({2, 3, 4})); }, {"AvgPool3d", "[2, 3, 4]"});
  expect_error<ValueError>([] { nn::MaxPool1d(IntList{2}, IntList{}, IntList{2}); },
                           {"MaxPool1d: padding should be at most half of the kernel size"});
  Tensor v = randn({1, 2, 4});
  expect_error<ValueError>(
      [&] {
        nn::MaxUnpool1d(2)(v, zeros({1, 2, 3}, DType::Int64));
      },
      {"MaxUnpool1d: expected indices of the input's size [1, 2, 4], but got [1, 2, 3]"});
  expect_error<TypeError>(
      [&] {
        nn::MaxUnpool1d(2)(v, zeros({1, 2, 4}));
      },
      {"MaxUnpool1d", "int64"});
  expect_error<ValueError>([] { nn::AdaptiveAvgPool1d(2)(randn({4})); },
                           {"AdaptiveAvgPool1d", "[4]"});
  expect_error<ValueError>(
      [] {
        nn::AdaptiveAvgPool1d(2)->forward_with_indices(randn({1, 4}));
      },
      {"AdaptiveAvgPool1d: forward_with_indices needs a max pool"});
}

TEST(NnCppCoverage, Norms) {
  manual_seed(4);
  nn::BatchNorm3d bn(3);
  EXPECT_EQ(keys(*bn), (std::vector<std::string>{"weight[3]", "bias[3]", "running_mean[3]",
                                                 "running_var[3]", "num_batches_tracked[]"}));
  Tensor x = add(mul(randn({4, 3, 2, 3, 2}, {}, f64), 3.0), 1.0);
  bn->to(DType::Float64);
  Tensor y = bn(x);
  EXPECT_LT(maxabs(mean(y, {0, 2, 3, 4})), 1e-12);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  expect_error<ValueError>(
      [&] {
        bn(randn({4, 3, 2, 3}));
      },
      {"BatchNorm3d: expected input of shape [N, C, D, H, W] with C = 3", "[4, 3, 2, 3]"});
  nn::BatchNorm2d bn2(3);
  expect_error<ValueError>(
      [&] {
        bn2(randn({4, 2, 2, 3}));
      },
      {"BatchNorm2d", "[N, C, H, W] with C = 3", "[4, 2, 2, 3]"});
  nn::SyncBatchNorm sbn(3);
  EXPECT_EQ(sbn(randn({4, 3})).sizes(), (Shape{4, 3}));
  EXPECT_EQ(sbn(randn({2, 3, 2, 2, 2})).sizes(), (Shape{2, 3, 2, 2, 2}));

  nn::InstanceNorm1d in1(3, 1e-5, 0.1, true, true);
  EXPECT_EQ(keys(*in1).size(), 5u);
  in1->to(DType::Float64);
  Tensor s = add(mul(randn({2, 3, 50}, {}, f64), 2.0), 5.0);
  Tensor o = in1(s);
  EXPECT_LT(maxabs(mean(o, {2})), 1e-12);
  EXPECT_LT(maxabs(sub(var(o, {2}, 0), 1.0)), 1e-3);
  EXPECT_EQ(in1(select(s, 0, 0)).sizes(), (Shape{3, 50}));  // unbatched
  expect_error<ValueError>(
      [&] {
        in1(randn({2, 4, 5}, {}, f64));
      },
      {"InstanceNorm1d: expected input of shape [N, 3, *] or [3, *] with 1 spatial dims",
       "[2, 4, 5]"});
  nn::InstanceNorm3d in3(2);
  EXPECT_TRUE(keys(*in3).empty());
  EXPECT_EQ(in3(randn({1, 2, 3, 3, 3})).sizes(), (Shape{1, 2, 3, 3, 3}));
  nn::InstanceNorm1d in1copy = in1.clone();
  EXPECT_TRUE(equal(in1copy->running_mean, in1->running_mean));

  // LocalResponseNorm: b_c = a_c / (k + alpha/n * sum_{c' in window} a_c'^2)^beta, window c-n/2 ..
  // c+(n-1)/2.
  nn::LocalResponseNorm lrn(3, 0.5, 0.75, 2.0);
  Tensor a = randn({1, 5, 2}, {}, f64);
  Tensor b = lrn(a);
  for (int64_t c = 0; c < 5; ++c) {
    double acc = 0;
    for (int64_t j = std::max<int64_t>(0, c - 1); j <= std::min<int64_t>(4, c + 1); ++j) {
      double e = at(a, {0, j, 1});
      acc += e * e;
    }
    EXPECT_NEAR(at(b, {0, c, 1}), at(a, {0, c, 1}) / std::pow(2.0 + 0.5 / 3 * acc, 0.75), 1e-12);
  }
  expect_error<ValueError>([&] { lrn(randn({5, 2})); }, {"LocalResponseNorm", "[5, 2]"});
}

TEST(NnCppCoverage, BilinearAndEmbeddingBag) {
  manual_seed(5);
  nn::Bilinear bl(3, 4, 2);
  EXPECT_EQ(keys(*bl), (std::vector<std::string>{"weight[2, 3, 4]", "bias[2]"}));
  EXPECT_LE(maxabs(bl->weight), 1 / std::sqrt(3.0));
  bl->to(DType::Float64);
  Tensor x1 = randn({5, 3}, {}, f64), x2 = randn({5, 4}, {}, f64);
  Tensor ref = add(einsum("bi,oij,bj->bo", {x1, bl->weight, x2}), bl->bias);
  EXPECT_TRUE(allclose(bl(x1, x2), ref, 1e-12, 1e-12));
  EXPECT_EQ(bl(randn({2, 5, 3}, {}, f64), randn({2, 5, 4}, {}, f64)).sizes(), (Shape{2, 5, 2}));
  expect_error<ValueError>(
      [&] {
        bl(x1, randn({5, 3}, {}, f64));
      },
      {"Bilinear: expected inputs [*, 3] and [*, 4] with the same leading dims, but got [5, 3] "
       "and [5, 3]"});
  expect_error<ValueError>(
      [&] {
        bl(x1, randn({4, 4}, {}, f64));
      },
      {"Bilinear", "[5, 3] and [4, 4]"});

  nn::EmbeddingBagOptions sum_opts;
  sum_opts.mode = "sum";
  sum_opts.padding_idx = 0;
  nn::EmbeddingBag bag(10, 3, sum_opts);
  EXPECT_EQ(keys(*bag), (std::vector<std::string>{"weight[10, 3]"}));
  EXPECT_EQ(maxabs(select(bag->weight, 0, 0)), 0.0);
  Tensor idx = tensor<int64_t>({1, 2, 4, 5, 4, 0});
  Tensor off = tensor<int64_t>({0, 2, 2});
  Tensor out = bag(idx, off);
  ASSERT_EQ(out.sizes(), (Shape{3, 3}));
  EXPECT_TRUE(
      allclose(select(out, 0, 0), add(select(bag->weight, 0, 1), select(bag->weight, 0, 2))));
  EXPECT_EQ(maxabs(select(out, 0, 1)), 0.0);  // empty bag
  nn::EmbeddingBag mean_bag(10, 3);
  Tensor m = mean_bag(reshape(tensor<int64_t>({1, 3, 5, 7}), {2, 2}));
  EXPECT_TRUE(
      allclose(select(m, 0, 1),
               div(add(select(mean_bag->weight, 0, 5), select(mean_bag->weight, 0, 7)), 2.0)));
  expect_error<TypeError>([&] { bag(randn({4}), off); },
                          {"EmbeddingBag: expected integer indices", "float32"});
  expect_error<ValueError>([&] { bag(idx); },
                           {"EmbeddingBag", "1-d input with 1-d offsets", "[6]", "no offsets"});
  expect_error<ValueError>([&] { mean_bag(idx, off, ones({6})); },
                           {"EmbeddingBag", "only supported with mode 'sum'"});
  nn::EmbeddingBag bag_copy = bag.clone();
  EXPECT_EQ(bag_copy->options.mode, "sum");
}

TEST(NnCppCoverage, RnnElmanRecurrence) {
  manual_seed(6);
  nn::RNNOptions o{3, 4, 2};
  o.bidirectional = true;
  nn::RNN rnn(o);
  auto k = keys(*rnn);
  ASSERT_EQ(k.size(), 16u);
  EXPECT_EQ(k[0], "weight_ih_l0[4, 3]");
  EXPECT_EQ(k[4], "weight_ih_l0_reverse[4, 3]");
  EXPECT_EQ(k[8], "weight_ih_l1[4, 8]");
  EXPECT_LE(maxabs(rnn->named_parameters()[0].second), 0.5 + 1e-7);
  rnn->to(DType::Float64);
  Tensor x = randn({5, 2, 3}, {}, f64);
  auto [out, hn] = rnn(x);
  EXPECT_EQ(out.sizes(), (Shape{5, 2, 8}));
  EXPECT_EQ(hn.sizes(), (Shape{4, 2, 4}));
  // Layer 0, forward direction, by hand.
  auto w = rnn->layer_weights(0, 0);
  Tensor h = zeros({2, 4}, f64);
  for (int64_t t = 0; t < 5; ++t) {
    h = tanh(add(add(matmul(select(x, 0, t), transpose(w[0], 0, 1)), w[2]),
                 add(matmul(h, transpose(w[1], 0, 1)), w[3])));
  }
  EXPECT_TRUE(allclose(select(hn, 0, 0), h, 1e-12, 1e-12));
  // The top layer's last forward output is h_n of that direction; the reverse one's first.
  EXPECT_TRUE(allclose(narrow(select(out, 0, 4), 1, 0, 4), select(hn, 0, 2), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(narrow(select(out, 0, 0), 1, 4, 4), select(hn, 0, 3), 1e-12, 1e-12));

  // relu nonlinearity, batch_first, unbatched, packed input against per-sequence runs.
  nn::RNNOptions r{3, 4, 1};
  r.nonlinearity = "relu";
  r.batch_first = true;
  nn::RNN relu_rnn(r);
  relu_rnn->to(DType::Float64);
  Tensor xb = randn({2, 6, 3}, {}, f64);
  auto [ob, hb] = relu_rnn(xb);
  EXPECT_GE(amin(ob).item<double>(), 0.0);
  auto [o1, h1] = relu_rnn(narrow(select(xb, 0, 1), 0, 0, 4));  // unbatched (T, I)
  auto packed = nn::pack_padded_sequence(xb, std::vector<int64_t>{6, 4}, true, false);
  auto [po, ph] = relu_rnn(packed);
  EXPECT_TRUE(allclose(select(ph, 1, 1), select(h1, 0, 0), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(select(ph, 1, 0), select(select(hb, 1, 0), 0, 0), 1e-12, 1e-12));
  EXPECT_EQ(relu_rnn->str(), "RNN(3, 4, batch_first=true, nonlinearity=relu)");
  nn::RNN copy = relu_rnn.clone();
  EXPECT_EQ(copy->options().nonlinearity, "relu");

  expect_error<ValueError>(
      [&] {
        rnn(randn({5, 2, 4}, {}, f64));
      },
      {"RNN: input.size(-1) must be equal to input_size. Expected 3, got 4"});
  expect_error<ValueError>(
      [&] {
        rnn(x, zeros({2, 2, 4}, f64));
      },
      {"RNN: Expected hidden size (4, 2, 4), got (2, 2, 4) for hx"});
  nn::RNNOptions bad{3, 4};
  bad.nonlinearity = "gelu";
  expect_error<ValueError>([&] { nn::RNN{bad}; }, {"Unknown nonlinearity 'gelu'"});
}

TEST(NnCppCoverage, PaddingDropoutFoldDistances) {
  Tensor s = reshape(arange(4, DType::Float64), {1, 1, 4});
  EXPECT_TRUE(equal(reshape(nn::ReflectionPad1d(IntList{2, 1})(s), {7}),
                    tensor<double>({2, 1, 0, 1, 2, 3, 2})));
  EXPECT_TRUE(
      equal(reshape(nn::ReplicationPad1d(IntList{1})(s), {6}), tensor<double>({0, 0, 1, 2, 3, 3})));
  EXPECT_TRUE(equal(reshape(nn::ConstantPad1d(IntList{1, 0}, -1.0)(s), {5}),
                    tensor<double>({-1, 0, 1, 2, 3})));
  Tensor v = randn({2, 3, 3, 4});
  EXPECT_EQ(nn::ReflectionPad3d(IntList{1})(v).sizes(), (Shape{2, 5, 5, 6}));
  EXPECT_EQ(nn::ReplicationPad3d(IntList{1, 0, 2, 0, 0, 3})(v).sizes(), (Shape{2, 6, 5, 5}));
  EXPECT_EQ(nn::ConstantPad3d(IntList{1}, 0.5)(v).sizes(), (Shape{2, 5, 5, 6}));
  expect_error<ValueError>(
      [] {
        nn::ReflectionPad1d(IntList{1, 2, 3});
      },
      {"ReflectionPad1d", "padding must be an int or a 2-tuple", "got (1, 2, 3)"});
  expect_error<ValueError>(
      [&] {
        nn::ReflectionPad1d(IntList{1})(randn({2, 3, 4, 5}));
      },
      {"ReflectionPad1d", "[2, 3, 4, 5]"});

  manual_seed(7);
  nn::Dropout1d d1(0.5);
  Tensor x = ones({4, 8, 16});
  Tensor y = d1(x);
  // Whole channels are zero or 2.
  Tensor per_channel_min = amin(y, {2}), per_channel_max = amax(y, {2});
  EXPECT_TRUE(equal(per_channel_min, per_channel_max));
  EXPECT_GT(sum(eq(per_channel_min, zeros({}))).item<int64_t>(), 0);
  d1->eval();
  EXPECT_TRUE(equal(d1(x), x));
  nn::Dropout3d d3(0.5);
  EXPECT_EQ(d3(ones({3, 2, 2, 2})).sizes(), (Shape{3, 2, 2, 2}));  // unbatched
  expect_error<ValueError>(
      [&] {
        d3(ones({3, 2}));
      },
      {"Dropout3d: expected a 4-d or 5-d input", "[3, 2]"});
  nn::AlphaDropout ad(0.2);
  Tensor big = randn({20000}, {}, f64);
  Tensor z = ad(big);
  EXPECT_NEAR(mean(z).item<double>(), 0.0, 0.05);
  EXPECT_NEAR(tc::std(z).item<double>(), 1.0, 0.05);

  Tensor img = randn({2, 3, 5, 6}, {}, f64);
  nn::Unfold unf(IntList{2, 3}, IntList{1}, IntList{1}, IntList{1});
  Tensor cols = unf(img);
  EXPECT_EQ(cols.sizes(), (Shape{2, 18, 6 * 6}));
  nn::Fold fold(IntList{5, 6}, IntList{2, 3}, IntList{1}, IntList{1}, IntList{1});
  // fold(unfold(x)) multiplies each pixel by the number of windows covering it.
  Tensor cover = fold(unf(ones({1, 3, 5, 6}, f64)));
  EXPECT_TRUE(allclose(fold(cols), mul(img, cover)));
  expect_error<ValueError>([&] { unf(randn({5, 6})); }, {"Unfold", "[5, 6]"});

  Tensor a = randn({4, 5}, {}, f64), b = randn({4, 5}, {}, f64);
  Tensor cs = nn::CosineSimilarity()(a, b);
  for (int64_t i = 0; i < 4; ++i) {
    Tensor ai = select(a, 0, i), bi = select(b, 0, i);
    EXPECT_NEAR(
        at(cs, {i}),
        sum(mul(ai, bi)).item<double>() / (norm(ai).item<double>() * norm(bi).item<double>()),
        1e-12);
  }
  EXPECT_EQ(nn::CosineSimilarity(1)(randn({4, 5, 2}), randn({1, 5, 1})).sizes(), (Shape{4, 2}));
  Tensor pd = nn::PairwiseDistance(1.0, 0.0)(a, b);
  EXPECT_TRUE(allclose(pd, sum(abs(sub(a, b)), {1}), 1e-12, 1e-12));
  EXPECT_EQ(nn::PairwiseDistance(2.0, 1e-6, true)(a, b).sizes(), (Shape{4, 1}));
  expect_error<ValueError>(
      [&] {
        nn::CosineSimilarity()(randn({4, 5}), randn({3, 5}));
      },
      {"cosine_similarity: shapes [4, 5] and [3, 5] cannot be broadcast together"});
}

TEST(NnCppCoverage, FunctionalExtras) {
  Tensor oh = F::one_hot(tensor<int64_t>({0, 2, 1}));
  EXPECT_TRUE(equal(oh, reshape(tensor<int64_t>({1, 0, 0, 0, 0, 1, 0, 1, 0}), {3, 3})));
  EXPECT_EQ(F::one_hot(tensor<int64_t>({1}), 5).sizes(), (Shape{1, 5}));
  expect_error<ValueError>([] { F::one_hot(tensor<int64_t>({3}), 2); },
                           {"one_hot", "smaller than num_classes (2)"});
  expect_error<TypeError>([] { F::one_hot(tensor<double>({1})); }, {"one_hot", "int64"});

  Tensor x = randn({3, 4}, {}, f64);
  Tensor n = F::normalize(x, 2.0, 1);
  EXPECT_TRUE(allclose(norm(n, 2.0, {1}), ones({3}, f64), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(F::normalize(zeros({2, 2}, f64)), zeros({2, 2}, f64)));

  Tensor q = randn({2, 3, 4}, {}, f64), k = randn({2, 5, 4}, {}, f64),
         val = randn({2, 5, 6}, {}, f64);
  Tensor att = F::scaled_dot_product_attention(q, k, val);
  Tensor ref = matmul(F::softmax(div(matmul(q, transpose(k, 1, 2)), 2.0), -1), val);
  EXPECT_TRUE(allclose(att, ref, 1e-12, 1e-12));
  // Causal: query i attends to keys 0..i only, so row 0 is value row 0 and a bool mask gives the
  // same.
  Tensor k3 = randn({2, 3, 4}, {}, f64), v3 = randn({2, 3, 6}, {}, f64);
  Tensor causal = F::scaled_dot_product_attention(q, k3, v3, {}, 0.0, true);
  EXPECT_TRUE(allclose(select(causal, 1, 0), select(v3, 1, 0), 1e-12, 1e-12));
  Tensor allowed = tril(ones({3, 3}, DType::Bool));
  EXPECT_TRUE(allclose(F::scaled_dot_product_attention(q, k3, v3, allowed), causal, 1e-12, 1e-12));
  expect_error<ValueError>(
      [&] {
        F::scaled_dot_product_attention(q, randn({2, 5, 3}), val);
      },
      {"scaled_dot_product_attention", "[2, 3, 4]", "[2, 5, 3]"});

  Tensor g = randn({2, 6}, {}, f64);
  EXPECT_TRUE(allclose(F::glu(g, 1), mul(narrow(g, 1, 0, 3), sigmoid(narrow(g, 1, 3, 3)))));
  EXPECT_TRUE(allclose(F::softmin(g, 1), F::softmax(neg(g), 1)));
  Tensor im = randn({1, 2, 4, 5}, {}, f64);
  EXPECT_EQ(F::interpolate(im, {}, {2.5}, "bilinear", false).sizes(), (Shape{1, 2, 10, 12}));
  EXPECT_EQ(F::interpolate(im, IntList{3}, {}, "area").sizes(), (Shape{1, 2, 3, 3}));
  expect_error<ValueError>([&] { F::interpolate(im, IntList{3}, {}, "nearest", true); },
                           {"interpolate", "align_corners"});

  // Probability targets: -sum_c q_c log softmax(x)_c, mean over samples.
  Tensor logits = randn({4, 3}, {}, f64);
  Tensor probs = F::softmax(randn({4, 3}, {}, f64), 1);
  Tensor ce = F::cross_entropy(logits, probs);
  EXPECT_NEAR(ce.item<double>(), -sum(mul(probs, F::log_softmax(logits, 1))).item<double>() / 4,
              1e-12);
  Tensor ce_none = F::cross_entropy(logits, probs, {}, -100, "none", 0.1);
  Tensor q2 = add(mul(probs, 0.9), 0.1 / 3);
  EXPECT_TRUE(allclose(ce_none, neg(sum(mul(q2, F::log_softmax(logits, 1)), {1})), 1e-12, 1e-12));
  expect_error<ValueError>(
      [&] {
        F::cross_entropy(logits, randn({4, 2}, {}, f64));
      },
      {"cross_entropy", "[4, 3]", "[4, 2]"});
}

TEST(NnCppCoverage, ShrinkLogSigmoidShuffleLPPool) {
  Tensor x = tensor<double>({-2.0, -0.4, 0.1, 0.6, 3.0});
  EXPECT_TRUE(equal(nn::Hardshrink(0.5)(x), tensor<double>({-2.0, 0.0, 0.0, 0.6, 3.0})));
  EXPECT_TRUE(
      allclose(nn::Softshrink(0.5)(x), tensor<double>({-1.5, 0.0, 0.0, 0.1, 2.5}), 1e-12, 1e-12));
  // log(sigmoid(x)) without overflow for large |x|.
  Tensor big = tensor<double>({-800.0, 0.0, 800.0});
  EXPECT_TRUE(
      allclose(nn::LogSigmoid()(big), tensor<double>({-800.0, std::log(0.5), 0.0}), 1e-12, 1e-12));
  expect_error<ValueError>([] { nn::Softshrink(-1.0); },
                           {"Softshrink: lambda must be non-negative"});

  Tensor c = reshape(arange(6, DType::Float64), {1, 6, 1});
  EXPECT_TRUE(equal(reshape(nn::ChannelShuffle(2)(c), {6}), tensor<double>({0, 3, 1, 4, 2, 5})));
  expect_error<ValueError>([&] { nn::ChannelShuffle(4)(c); },
                           {"channel_shuffle", "channels (6)", "groups (4)"});
  nn::ChannelShuffle cs_copy = nn::ChannelShuffle(3).clone();
  EXPECT_EQ(cs_copy->groups, 3);

  Tensor s = add(abs(randn({1, 2, 4, 6}, {}, f64)), 0.1);
  nn::LPPool2d lp(3.0, IntList{2});
  Tensor y = lp(s);
  ASSERT_EQ(y.sizes(), (Shape{1, 2, 2, 3}));
  Tensor window = narrow(narrow(s, 2, 2, 2), 3, 4, 2);  // the last window of both channels
  EXPECT_NEAR(at(y, {0, 1, 1, 2}),
              std::cbrt(sum(pow(select(select(window, 0, 0), 0, 1), 3.0)).item<double>()), 1e-12);
  expect_error<ValueError>([] { nn::LPPool1d(0.0, IntList{2}); },
                           {"LPPool1d: norm_type must be positive"});
  expect_error<ValueError>([&] { nn::LPPool1d(2.0, IntList{2})(s); }, {"LPPool1d", "[1, 2, 4, 6]"});
  nn::LPPool1d lp_copy = nn::LPPool1d(2.0, IntList{3}).clone();
  EXPECT_EQ(lp_copy->stride, IntList{3});
  expect_error<ValueError>([] { nn::Softmax2d()(randn({2, 3})); }, {"Softmax2d", "[2, 3]"});
}

namespace {
// clone() through the typed holder: the copy has the concrete type, the same printout and its
// own storage.
template <typename H>
void check_typed_clone(const H& h) {
  H copy = h.clone();
  EXPECT_NE(copy.ptr(), h.ptr());
  EXPECT_EQ(copy->str(), h->str());
  auto a = h->state_dict(), b = copy->state_dict();
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_TRUE(equal(a[k].second, b[k].second)) << a[k].first;
    if (a[k].second.numel() > 0) {
      EXPECT_NE(a[k].second.data_ptr(), b[k].second.data_ptr()) << a[k].first;
    }
  }
}
}  // namespace

TEST(NnCppCoverage, EveryNewLayerClonesToItsType) {
  check_typed_clone(nn::Conv3d(2, 4, 3, 1, nn::kSame, 1, 1, true, "circular"));
  check_typed_clone(nn::ConvTranspose1d(2, 4, 3, 2));
  check_typed_clone(nn::ConvTranspose3d(2, 4, 2));
  check_typed_clone(nn::MaxPool1d(3));
  check_typed_clone(nn::MaxPool3d(2));
  check_typed_clone(nn::AvgPool1d(2));
  check_typed_clone(nn::AvgPool2d(IntList{2}, IntList{1}, IntList{0}, false, true, 3));
  check_typed_clone(nn::AvgPool3d(2));
  check_typed_clone(nn::AdaptiveAvgPool1d(2));
  check_typed_clone(nn::AdaptiveAvgPool3d(2));
  check_typed_clone(nn::AdaptiveMaxPool1d(2));
  check_typed_clone(nn::AdaptiveMaxPool3d(2));
  check_typed_clone(nn::MaxUnpool1d(2));
  check_typed_clone(nn::MaxUnpool2d(2));
  check_typed_clone(nn::MaxUnpool3d(2));
  check_typed_clone(nn::LPPool2d(2.0, IntList{2}));
  check_typed_clone(nn::BatchNorm3d(3));
  check_typed_clone(nn::SyncBatchNorm(3));
  check_typed_clone(nn::InstanceNorm1d(3, 1e-5, 0.1, true, true));
  check_typed_clone(nn::InstanceNorm2d(3));
  check_typed_clone(nn::InstanceNorm3d(3));
  check_typed_clone(nn::LocalResponseNorm(3));
  check_typed_clone(nn::Bilinear(2, 3, 4));
  check_typed_clone(nn::EmbeddingBag(5, 2));
  check_typed_clone(nn::Embedding(5, 2, 1, 1.0, 2.0, true));
  check_typed_clone(nn::RNN(3, 4, 2));
  check_typed_clone(nn::ReflectionPad1d(IntList{1}));
  check_typed_clone(nn::ReflectionPad2d(IntList{1}));
  check_typed_clone(nn::ReflectionPad3d(IntList{1}));
  check_typed_clone(nn::ReplicationPad1d(IntList{1}));
  check_typed_clone(nn::ReplicationPad2d(IntList{1}));
  check_typed_clone(nn::ReplicationPad3d(IntList{1}));
  check_typed_clone(nn::ConstantPad1d(IntList{1}, 2.0));
  check_typed_clone(nn::ConstantPad2d(IntList{1}, 2.0));
  check_typed_clone(nn::ConstantPad3d(IntList{1}, 2.0));
  check_typed_clone(nn::ZeroPad2d(IntList{1}));
  check_typed_clone(nn::Dropout1d(0.2));
  check_typed_clone(nn::Dropout3d(0.2));
  check_typed_clone(nn::AlphaDropout(0.2));
  check_typed_clone(nn::FeatureAlphaDropout(0.2));
  check_typed_clone(nn::CosineSimilarity(0));
  check_typed_clone(nn::PairwiseDistance(1.0));
  check_typed_clone(nn::Unfold(IntList{2}));
  check_typed_clone(nn::Fold(IntList{4}, IntList{2}));
  check_typed_clone(nn::Softmax2d());
  check_typed_clone(nn::ChannelShuffle(2));
  check_typed_clone(nn::Hardshrink(0.2));
  check_typed_clone(nn::Softshrink(0.2));
  check_typed_clone(nn::LogSigmoid());
}
