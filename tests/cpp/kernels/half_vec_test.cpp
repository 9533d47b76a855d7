// The core float16/bfloat16 vector conversions (half_vec.h) against the scalar tc::Half /
// tc::BFloat16 conversions, and the chunked elementwise loops through the op API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tensorcore/kernels/cpu/half_vec.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {

std::vector<float> varied_floats() {
  std::vector<float> v;
  uint32_t seed = 777;
  for (int i = 0; i < 2051; ++i) {  // odd length: vector bodies and scalar tails
    seed = seed * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &seed, 4);
    v.push_back(f);
  }
  // Rounding ties, the largest float, subnormals, the half/bf16 overflow edge, infinities,
  // quiet and signalling NaNs, signed zeros.
  for (uint32_t bits :
       {0x3f808000u, 0x3f818000u, 0x7f7fffffu, 0x00000001u, 0x80000001u, 0x38800000u, 0x33800000u,
        0x477ff000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffa00000u, 0xffc00000u,
        0x3f800000u, 0x00000000u, 0x80000000u}) {
    float f;
    std::memcpy(&f, &bits, 4);
    v.push_back(f);
  }
  return v;
}

template <typename H>
void check_against_scalar() {
  std::vector<float> src = varied_floats();
  const int64_t n = int64_t(src.size());
  std::vector<H> narrowed(src.size());
  half_vec::narrow(src.data(), narrowed.data(), n);
  std::vector<float> widened(src.size());
  half_vec::widen(narrowed.data(), widened.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    const float x = src[size_t(i)];
    H ref(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(float(narrowed[size_t(i)]))) << i;
      continue;
    }
    ASSERT_EQ(narrowed[size_t(i)].bits, ref.bits) << "element " << i << " value " << x;
    ASSERT_EQ(half_vec::from_float<H>(x).bits, ref.bits) << i;
    float back = float(ref);
    ASSERT_EQ(std::memcmp(&widened[size_t(i)], &back, 4), 0) << i;
  }
}

}  // namespace

TEST(Bf16ElemHalfVec, BFloat16MatchesScalar) { check_against_scalar<BFloat16>(); }
TEST(Bf16ElemHalfVec, HalfMatchesScalar) { check_against_scalar<Half>(); }

TEST(Bf16ElemHalfVec, BFloat16NanStaysQuiet) {
  // A signalling NaN payload narrows to a quiet NaN (bit 6 of the bfloat16 set).
  std::vector<float> src(17);
  uint32_t snan = 0x7f810000u;
  for (auto& f : src) std::memcpy(&f, &snan, 4);
  std::vector<BFloat16> out(src.size());
  half_vec::narrow(src.data(), out.data(), int64_t(src.size()));
  for (const auto& h : out) EXPECT_EQ(h.bits, 0x7fc1);
}

TEST(Bf16ElemOps, AddMulFillSumBFloat16) {
  manual_seed(5);
  const int64_t n = 4099;
  Tensor a = to_dtype(randn({n}), DType::BFloat16);
  Tensor b = to_dtype(randn({n}), DType::BFloat16);
  Tensor s = add(a, b), p = mul(a, Scalar(1.5));
  const auto* pa = a.data<BFloat16>();
  const auto* pb = b.data<BFloat16>();
  const auto* ps = s.data<BFloat16>();
  const auto* pp = p.data<BFloat16>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(ps[i].bits, BFloat16(float(pa[i]) + float(pb[i])).bits) << i;
    ASSERT_EQ(pp[i].bits, BFloat16(float(pa[i]) * 1.5f).bits) << i;
  }
  fill_(b, Scalar(-2.0));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b.data<BFloat16>()[i].bits, BFloat16(-2.0f).bits);
  EXPECT_FLOAT_EQ(float(to_dtype(sum(b), DType::Float32).item<float>()), -8192.0f);  // rounded
}
