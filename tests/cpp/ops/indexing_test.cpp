// C++ indexing API: TensorIndex lists (views for basic indexing, advanced indices), index_put_,
// and the index ops' bounds errors.
#include <gtest/gtest.h>

#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {
Tensor arange_2d(int64_t r, int64_t c) {
  return reshape(arange(r * c, TensorOptions(DType::Float32)), {r, c});
}
}  // namespace

TEST(Indexing, BasicIsView) {
  Tensor x = arange_2d(3, 4);
  Tensor v = index(x, {1, Slice(1, std::nullopt, 2)});
  ASSERT_EQ(v.sizes(), (Shape{2}));
  EXPECT_EQ(v.storage(), x.storage());
  EXPECT_EQ(index(v, {0}).item<float>(), 5.0f);
  EXPECT_EQ(index(x, {None, Ellipsis, -1}).sizes(), (Shape{1, 3}));
}

TEST(Indexing, AdvancedAndPut) {
  Tensor x = arange_2d(3, 4);
  Tensor r = index(x, {Slice(), tensor<int64_t>({3, 0})});
  ASSERT_EQ(r.sizes(), (Shape{3, 2}));
  EXPECT_EQ(index(r, {2, 0}).item<float>(), 11.0f);
  index_put_(x, {tensor<int64_t>({0, 0}), 1}, scalar_tensor(1.0f), /*accumulate=*/true);
  EXPECT_EQ(index(x, {0, 1}).item<float>(), 3.0f);
  index_put_(x, {tensor<bool>({true, false, true})}, Scalar(-1.0));
  EXPECT_EQ(index(x, {2, 3}).item<float>(), -1.0f);
  EXPECT_EQ(index(x, {1, 3}).item<float>(), 7.0f);
}

TEST(Indexing, Errors) {
  Tensor x = arange(3);
  try {
    index(x, {tensor<int64_t>({5})});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index 5 is out of bounds for dimension 0 with size 3");
  }
  EXPECT_THROW(index(x, {0, 0}), IndexError);
  EXPECT_THROW(index(x, {Slice(std::nullopt, std::nullopt, -1)}), ValueError);
  EXPECT_THROW(gather(x, 0, tensor<int64_t>({3})), IndexError);
}

TEST(Indexing, ShapeOps) {
  Tensor a = arange_2d(2, 3);
  Tensor c = cat({a, a}, 1);
  EXPECT_EQ(c.sizes(), (Shape{2, 6}));
  EXPECT_EQ(stack({a, a}).sizes(), (Shape{2, 2, 3}));
  auto parts = chunk(c, 3, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(index(flip(a, {1}), {0, 0}).item<float>(), 2.0f);
  EXPECT_EQ(index(roll(a, {1}, {1}), {0, 0}).item<float>(), 2.0f);
  EXPECT_EQ(index(tril(a), {0, 1}).item<float>(), 0.0f);
}
