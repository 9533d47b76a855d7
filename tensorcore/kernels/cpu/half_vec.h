#pragma once
// Bulk float16/bfloat16 <-> float32 conversions for the CPU kernels (elementwise loops, reductions,
// the nn half-precision kernels). bfloat16 widens with a shift and narrows with round to nearest
// even in AVX2 integer code; float16 uses F16C. The build targets x86-64-v3 (AVX2 + FMA + F16C,
// TC_ARCH_FLAGS); other targets take the scalar tails, which give the same bits as the scalar
// tc::Half / tc::BFloat16 conversions (for float16 NaNs the payload may differ, a NaN stays NaN).
#include <cstdint>
#include <cstring>

#include "tensorcore/core/half.h"

#if defined(__AVX2__) || defined(__F16C__)
#include <immintrin.h>
#endif

namespace tc::half_vec {

inline float to_float(BFloat16 v) { return float(v); }
inline float to_float(Half v) {
#if defined(__F16C__)
  return _cvtsh_ss(v.bits);
#else
  return float(v);
#endif
}
inline uint16_t bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  uint32_t quiet = (u >> 16) | 0x40u;
  return uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
}
template <typename H>
inline H from_float(float f);
template <>
inline BFloat16 from_float<BFloat16>(float f) {
  return BFloat16::from_bits(bf16_bits(f));
}
template <>
inline Half from_float<Half>(float f) {
#if defined(__F16C__)
  return Half::from_bits(uint16_t(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT)));
#else
  return Half(f);
#endif
}

#if defined(__AVX2__)
// 8 bfloat16 -> 8 floats: bfloat16 is the top half of a float.
inline __m256 load_bf16x8(const BFloat16* p) {
  __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
inline __m256 load8(const BFloat16* p) { return load_bf16x8(p); }
#if defined(__F16C__)
inline __m256 load8(const Half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
#endif
// 8 floats -> 8 bfloat16 bit patterns in the low halves of 32-bit lanes (round to nearest even,
// NaN kept quiet).
inline __m256i round_bf16_lanes(__m256 v) {
  __m256i u = _mm256_castps_si256(v);
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
  __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  __m256 is_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(rounded), _mm256_castsi256_ps(quiet), is_nan));
}
// 16 floats (two vectors) -> 16 bfloat16 stored at p.
inline void store_bf16x16(BFloat16* p, __m256 lo, __m256 hi) {
  // packus interleaves 128-bit halves; the permute restores element order.
  __m256i packed = _mm256_permute4x64_epi64(
      _mm256_packus_epi32(round_bf16_lanes(lo), round_bf16_lanes(hi)), 0xd8);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), packed);
}
#endif

inline void widen(const BFloat16* x, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, load_bf16x8(x + i));
#endif
  for (; i < n; ++i) y[i] = to_float(x[i]);
}

inline void narrow(const float* x, BFloat16* y, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 16 <= n; i += 16)
    store_bf16x16(y + i, _mm256_loadu_ps(x + i), _mm256_loadu_ps(x + i + 8));
#endif
  for (; i < n; ++i) y[i] = from_float<BFloat16>(x[i]);
}

inline void widen(const Half* x, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
#endif
  for (; i < n; ++i) y[i] = to_float(x[i]);
}

inline void narrow(const float* x, Half* y, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) y[i] = from_float<Half>(x[i]);
}

}  // namespace tc::half_vec
