// Bulk float16/bfloat16 <-> float conversions for the nn kernels' span helpers (half_span.h).
#include "tensorcore/nn/half_span.h"

#include <cstring>

namespace tc::nn::detail {

void widen(const BFloat16* x, float* y, int64_t n) {
  // bfloat16 is the top half of a float: a shift (vectorizes).
  const uint16_t* in = reinterpret_cast<const uint16_t*>(x);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u = uint32_t(in[i]) << 16;
    std::memcpy(y + i, &u, 4);
  }
}

void narrow(const float* x, BFloat16* y, int64_t n) {
  // Round to nearest even, NaN kept quiet; written branch-free so it vectorizes.
  uint16_t* out = reinterpret_cast<uint16_t*>(y);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, x + i, 4);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t quiet = (u >> 16) | 0x40u;
    out[i] = uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
  }
}

void widen(const Half* x, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
#endif
  for (; i < n; ++i) y[i] = to_compute(x[i]);
}

void narrow(const float* x, Half* y, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) y[i] = from_compute<Half>(x[i]);
}

}  // namespace tc::nn::detail
