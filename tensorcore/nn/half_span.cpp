// Bulk float16/bfloat16 <-> float conversions for the nn kernels' span helpers (half_span.h).
#include "tensorcore/nn/half_span.h"

#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tc::nn::detail {

void widen(const BFloat16* x, float* y, int64_t n) {
  // bfloat16 is the top half of a float: a shift.
  const uint16_t* in = reinterpret_cast<const uint16_t*>(x);
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 8 <= n; i += 8) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
  }
#endif
  for (; i < n; ++i) {
    uint32_t u = uint32_t(in[i]) << 16;
    std::memcpy(y + i, &u, 4);
  }
}

#if defined(__AVX2__)
// 8 floats -> 8 bfloat16 bit patterns in the low halves of 32-bit lanes (round to nearest even,
// NaN kept quiet).
static inline __m256i round_bf16_lanes(__m256 v) {
  __m256i u = _mm256_castps_si256(v);
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
  __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  __m256 is_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(rounded), _mm256_castsi256_ps(quiet), is_nan));
}
#endif

void narrow(const float* x, BFloat16* y, int64_t n) {
  uint16_t* out = reinterpret_cast<uint16_t*>(y);
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 16 <= n; i += 16) {
    __m256i a = round_bf16_lanes(_mm256_loadu_ps(x + i));
    __m256i b = round_bf16_lanes(_mm256_loadu_ps(x + i + 8));
    // packus interleaves 128-bit halves; the permute restores element order.
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), packed);
  }
#endif
  for (; i < n; ++i) {
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
