// C++-level checks of the elementwise family (the Python suite covers values and gradients).
#include <gtest/gtest.h>

#include "tensorcore/tensorcore.h"

using namespace tc;

TEST(Elementwise, UnaryAndCompare) {
  Tensor x = tc::tensor<float>({-1.5f, 0.25f, 2.0f});
  Tensor a = tc::abs(x);
  EXPECT_FLOAT_EQ(a.data<float>()[0], 1.5f);
  Tensor m = tc::gt(x, tc::scalar_tensor(0.0, DType::Float32));
  EXPECT_EQ(m.dtype(), DType::Bool);
  EXPECT_FALSE(m.data<bool>()[0]);
  EXPECT_TRUE(
      tc::equal(tc::clamp(x, Scalar(0.0), Scalar(1.0)), tc::tensor<float>({0.f, 0.25f, 1.f})));
}

TEST(Elementwise, IntegerPowIsExact) {
  Tensor b = tc::tensor<int64_t>({3, -2, 7});
  Tensor p = tc::pow(b, Scalar(int64_t(3)));
  EXPECT_EQ(p.dtype(), DType::Int64);
  EXPECT_EQ(p.data<int64_t>()[2], 343);
  EXPECT_THROW(tc::pow(b, Scalar(int64_t(-1))), ValueError);
}

TEST(Elementwise, BitwiseOnFloatIsTypeError) {
  Tensor x = tc::tensor<float>({1.f});
  EXPECT_THROW(tc::bitwise_and(x, x), TypeError);
}
