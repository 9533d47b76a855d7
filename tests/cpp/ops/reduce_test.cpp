// C++-only behaviour of reductions, scans and sorting (the Python tests cover semantics broadly).
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/sort.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

TEST(Reduce, MaxWithDimReturnsValuesAndIndices) {
  Tensor a = reshape(tensor<float>({3, 1, 2, 0, 5, 5}), {2, 3});
  auto [v, i] = tc::max(a, 1);
  EXPECT_EQ(v.sizes(), Shape({2}));
  EXPECT_EQ(v.data<float>()[0], 3.0f);
  EXPECT_EQ(v.data<float>()[1], 5.0f);
  EXPECT_EQ(i.data<int64_t>()[0], 0);
  EXPECT_EQ(i.data<int64_t>()[1], 1);  // first of the ties
  auto [vk, ik] = tc::min(a, 0, true);
  EXPECT_EQ(vk.sizes(), Shape({1, 3}));
  EXPECT_EQ(ik.data<int64_t>()[1], 0);
}

TEST(Reduce, OutOfRangeDimIsIndexError) {
  Tensor a = zeros({2, 3});
  EXPECT_THROW(amax(a, {2}), IndexError);
  EXPECT_THROW(cumsum(a, -3), IndexError);
  EXPECT_THROW(tc::max(zeros({0})), ValueError);
}

TEST(Reduce, VarWelfordMatchesTwoPass) {
  Tensor a = arange(1000, TensorOptions(DType::Float64));
  double n = 1000, mean = 499.5, ss = 0;
  for (int i = 0; i < 1000; ++i) ss += (i - mean) * (i - mean);
  EXPECT_NEAR(var(a).item<double>(), ss / (n - 1), 1e-6);
  EXPECT_NEAR(var(a, {}, 0).item<double>(), ss / n, 1e-6);
}

TEST(Reduce, LargeFullReductionsUseAllLanes) {
  Tensor a = ones({1 << 20}, TensorOptions(DType::Float32));
  EXPECT_EQ(sum(a).item<float>(), float(1 << 20));
  EXPECT_EQ(amax(a).item<float>(), 1.0f);
  EXPECT_EQ(prod(a).item<float>(), 1.0f);
  EXPECT_TRUE(all(a).item<bool>());
}

TEST(Sort, StableAndNanLast) {
  Tensor a = tensor<double>({2, NAN, 1, 2});
  auto [v, i] = sort(a);
  EXPECT_EQ(i.data<int64_t>()[0], 2);
  EXPECT_EQ(i.data<int64_t>()[1], 0);
  EXPECT_EQ(i.data<int64_t>()[2], 3);
  EXPECT_TRUE(std::isnan(v.data<double>()[3]));
}

TEST(Sort, UniqueAndSearchsorted) {
  auto [u, inv, cnt] = unique(tensor<int64_t>({3, 1, 3, 2}));
  EXPECT_EQ(u.numel(), 3);
  EXPECT_EQ(inv.data<int64_t>()[0], 2);
  EXPECT_EQ(cnt.data<int64_t>()[2], 2);
  Tensor r = searchsorted(tensor<double>({1, 3, 5}), tensor<double>({3, 4}), false, true);
  EXPECT_EQ(r.data<int64_t>()[0], 2);
  EXPECT_EQ(r.data<int64_t>()[1], 2);
}
