// The bulk float16/bfloat16 conversions behind the native half-precision nn kernels, and a
// bfloat16 batch_norm through the C++ API against the float32 computation.
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

namespace {

// Floats covering rounding ties, subnormals, overflow, infinities and NaNs, in odd-length runs
// so both the vector bodies and the scalar tails run.
std::vector<float> edge_floats() {
  std::vector<float> v;
  uint32_t seed = 12345;
  for (int i = 0; i < 4099; ++i) {
    seed = seed * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &seed, 4);
    v.push_back(f);
  }
  for (uint32_t bits : {0x3f808000u, 0x3f818000u, 0x7f7fffffu, 0x00000001u, 0x80000001u, 0x38800000u,
                        0x33800000u, 0x477ff000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                        0xffa00000u, 0x3f800000u, 0x00000000u, 0x80000000u}) {
    float f;
    std::memcpy(&f, &bits, 4);
    v.push_back(f);
  }
  return v;
}

template <typename H>
void check_round_trip() {
  std::vector<float> src = edge_floats();
  const int64_t n = int64_t(src.size());
  std::vector<H> narrowed(src.size());
  nn::detail::narrow(src.data(), narrowed.data(), n);
  std::vector<float> widened(src.size());
  nn::detail::widen(narrowed.data(), widened.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    H ref(src[size_t(i)]);  // the scalar reference conversion (round to nearest even)
    float back = float(ref);
    if (std::isnan(src[size_t(i)])) {
      EXPECT_TRUE(std::isnan(widened[size_t(i)])) << i;
      continue;
    }
    EXPECT_EQ(narrowed[size_t(i)].bits, ref.bits) << "element " << i << " value " << src[size_t(i)];
    EXPECT_EQ(std::memcmp(&widened[size_t(i)], &back, 4), 0) << i;
  }
}

}  // namespace

TEST(NnHalfSpan, BFloat16ConversionsMatchScalar) { check_round_trip<BFloat16>(); }
TEST(NnHalfSpan, Float16ConversionsMatchScalar) { check_round_trip<Half>(); }

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
  Tensor diff = ne(to_dtype(y, DType::Float32), to_dtype(to_dtype(y32, DType::BFloat16), DType::Float32));
  EXPECT_LE(sum(to_dtype(diff, DType::Float32)).item<float>(), 0.001f * float(y.numel()));
  EXPECT_TRUE(allclose(rm, rm32, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(rv, rv32, 1e-5, 1e-6));
}
