// A bfloat16 batch_norm through the C++ API against the float32 computation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/half_span.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;

// The bulk conversions themselves are tested against the scalar ones in
// tests/cpp/kernels/half_vec_test.cpp (they live in the core's half_vec.h).

TEST(NnHalfSpan, BatchNormBFloat16MatchesFloat32RoundedOnce) {
  manual_seed(3);
  Tensor x = to_dtype(randn({4, 6, 30, 31}), DType::BFloat16);
  Tensor rm = zeros({6}), rv = ones({6});
  Tensor w = randn({6}), b = randn({6});
  Tensor y = F::batch_norm(x, rm, rv, w, b, /*training=*/true, 0.1, 1e-5);
  EXPECT_EQ(y.dtype(), DType::BFloat16);
  EXPECT_EQ(rm.dtype(), DType::Float32);
  Tensor rm32 = zeros({6}), rv32 = ones({6});
  Tensor y32 = F::batch_norm(to_dtype(x, DType::Float32), rm32, rv32, w, b, true, 0.1, 1e-5);
  Tensor diff =
      ne(to_dtype(y, DType::Float32), to_dtype(to_dtype(y32, DType::BFloat16), DType::Float32));
  EXPECT_LE(sum(to_dtype(diff, DType::Float32)).item<float>(), 0.001f * float(y.numel()));
  EXPECT_TRUE(allclose(rm, rm32, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(rv, rv32, 1e-5, 1e-6));
}
