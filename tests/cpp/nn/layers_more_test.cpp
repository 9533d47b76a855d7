// The extra layers against naive references written here.
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;
using nn::IntList;

namespace {
double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  Tensor v = t;
  for (int64_t i : idx) v = select(v, 0, i);
  return v.item<double>();
}
}  // namespace

TEST(NnCppLayersMore, ShuffleUnflattenPadGlu) {
  Tensor x = reshape(arange(2 * 8 * 3 * 3, DType::Float64), {2, 8, 3, 3});
  nn::PixelShuffle ps(2);
  Tensor y = ps(x);
  ASSERT_EQ(y.sizes(), (Shape{2, 2, 6, 6}));
  // out[n, c, h*r + i, w*r + j] = in[n, c*r*r + i*r + j, h, w]
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t h = 0; h < 6; ++h)
      for (int64_t w = 0; w < 6; ++w)
        EXPECT_EQ(at(y, {1, c, h, w}), at(x, {1, c * 4 + (h % 2) * 2 + (w % 2), h / 2, w / 2}));
  EXPECT_TRUE(allclose(nn::PixelUnshuffle(2)(y), x, 0, 0));

  nn::Unflatten un(1, IntList{2, -1});
  EXPECT_EQ(un(x).sizes(), (Shape{2, 2, 4, 3, 3}));
  EXPECT_THROW(nn::Unflatten(1, IntList{3, 3})(x), ValueError);

  Tensor img = reshape(arange(9, DType::Float64), {1, 1, 3, 3});
  Tensor r = nn::ReflectionPad2d(IntList{1})(img);
  ASSERT_EQ(r.sizes(), (Shape{1, 1, 5, 5}));
  EXPECT_EQ(at(r, {0, 0, 0, 0}), 4.0);  // reflect: padded corner mirrors (1, 1)
  Tensor rp = nn::ReplicationPad2d(IntList{2, 0, 0, 1})(img);
  ASSERT_EQ(rp.sizes(), (Shape{1, 1, 4, 5}));
  EXPECT_EQ(at(rp, {0, 0, 3, 0}), 6.0);  // bottom-left replicates (2, 0)
  Tensor z = nn::ConstantPad2d(IntList{1, 1, 1, 1}, 2.5)(img);
  EXPECT_EQ(at(z, {0, 0, 0, 0}), 2.5);
  EXPECT_EQ(sum(nn::ZeroPad2d(IntList{1})(img)).item<double>(), 36.0);

  Tensor g = randn({3, 4}, {}, DType::Float64);
  Tensor want = mul(narrow(g, 1, 0, 2), sigmoid(narrow(g, 1, 2, 2)));
  EXPECT_TRUE(allclose(nn::GLU()(g), want, 1e-12, 1e-12));
  EXPECT_THROW(nn::GLU()(randn({3, 5})), ValueError);
  EXPECT_TRUE(allclose(nn::Softmin(1)(g), nn::functional::softmax(neg(g), 1), 1e-12, 1e-12));
}

TEST(NnCppLayersMore, NormDropoutUpsampleAdaptiveMax) {
  manual_seed(4);
  Tensor x = randn({2, 3, 4, 5}, {}, DType::Float64);
  nn::InstanceNorm2d in(3);
  Tensor y = in(x);
  // Each (n, c) plane normalized with its own biased variance.
  Tensor plane = select(select(x, 0, 1), 0, 2);
  double m = mean(plane).item<double>();
  double v = mean(square(sub(plane, m))).item<double>();
  EXPECT_NEAR(at(y, {1, 2, 0, 0}), (at(x, {1, 2, 0, 0}) - m) / std::sqrt(v + 1e-5), 1e-10);
  EXPECT_EQ(in->parameters().size(), 0u);  // torch's default affine=false
  nn::InstanceNorm2d tracked(3, 1e-5, 0.1, true, true);
  tracked->to(DType::Float64);
  tracked(x);
  EXPECT_EQ(tracked->num_batches_tracked.item<int64_t>(),
            0);  // torch never counts instance-norm batches
  EXPECT_EQ(tracked->state_dict().size(), 5u);

  nn::Dropout2d drop(0.5);
  Tensor ones_in = ones({4, 16, 3, 3}, DType::Float64);
  Tensor d = drop(ones_in);
  // Whole channels are either 0 or 2.
  Tensor per_channel = amax(reshape(d, {4, 16, 9}), {2});
  Tensor per_channel_min = amin(reshape(d, {4, 16, 9}), {2});
  EXPECT_TRUE(allclose(per_channel, per_channel_min, 0, 0));
  drop->eval();
  EXPECT_TRUE(allclose(drop(ones_in), ones_in, 0, 0));

  nn::UpsampleOptions o;
  o.scale_factor = {2.0};
  nn::Upsample up(o);
  Tensor u = up(reshape(arange(4, DType::Float64), {1, 1, 2, 2}));
  ASSERT_EQ(u.sizes(), (Shape{1, 1, 4, 4}));
  EXPECT_EQ(at(u, {0, 0, 3, 1}), 2.0);  // nearest: (3, 1) <- (1, 0)
  o.scale_factor.clear();
  o.size = {3, 5};
  o.mode = "bilinear";
  o.align_corners = true;
  Tensor ub = nn::Upsample(o)(reshape(arange(4, DType::Float64), {1, 1, 2, 2}));
  ASSERT_EQ(ub.sizes(), (Shape{1, 1, 3, 5}));
  EXPECT_NEAR(at(ub, {0, 0, 1, 2}), 1.5, 1e-12);  // center of [[0, 1], [2, 3]]
  EXPECT_THROW(nn::Upsample(nn::UpsampleOptions{}), ValueError);

  Tensor am = nn::AdaptiveMaxPool2d(IntList{1, 1})(x);
  EXPECT_TRUE(allclose(reshape(am, {2, 3}), amax(x, {2, 3}), 0, 0));
  nn::PixelShuffle ps(3);
  nn::PixelShuffle ps2 = ps.clone();
  EXPECT_EQ(ps2->upscale_factor, 3);
}
