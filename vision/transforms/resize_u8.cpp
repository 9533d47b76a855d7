#include "vision/transforms/resize_u8.h"

#include <algorithm>
#include <cmath>

#include "tensorcore/core/parallel.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tc::vision::kernels::detail {

namespace {

constexpr int kMaxPrecision = 15;  // weights are int16
// Vertical windows up to this many tap pairs take the vector path (downscales up to ~60x).
constexpr int64_t kMaxPairs = 64;

inline uint8_t clamp_shift(int32_t acc, int precision) {
  acc >>= precision;  // arithmetic: negative sums (bicubic) clamp to 0
  return uint8_t(acc < 0 ? 0 : (acc > 255 ? 255 : acc));
}

// Rows of work per task: enough to amortize, small enough to balance.
int64_t row_grain(int64_t row_cost) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_cost));
}

}  // namespace

FixedAxis16 fixed_axis16(const std::vector<int64_t>& start, const std::vector<double>& w,
                         int64_t ksize) {
  FixedAxis16 a;
  a.ksize = ksize;
  a.stride = (ksize + 15) / 16 * 16;
  a.start = start;
  double max_w = 0;
  for (double v : w) max_w = std::max(max_w, std::abs(v));
  // The largest precision whose rounded biggest weight still fits 15 bits.
  a.precision = 0;
  while (a.precision < kMaxPrecision &&
         std::lround(max_w * double(1 << (a.precision + 1))) < (1 << kMaxPrecision)) {
    ++a.precision;
  }
  const size_t out = start.size();
  a.w.assign(out * size_t(a.stride), 0);
  for (size_t i = 0; i < out; ++i) {
    for (int64_t k = 0; k < ksize; ++k) {
      a.w[i * size_t(a.stride) + size_t(k)] =
          int16_t(std::lround(w[i * size_t(ksize) + size_t(k)] * double(1 << a.precision)));
    }
  }
  return a;
}

std::vector<int32_t> widened_weights(const FixedAxis16& a, int bits) {
  std::vector<int32_t> out(a.start.size() * size_t(a.ksize));
  for (size_t i = 0; i < a.start.size(); ++i) {
    for (int64_t k = 0; k < a.ksize; ++k) {
      out[i * size_t(a.ksize) + size_t(k)] =
          int32_t(a.w[i * size_t(a.stride) + size_t(k)]) * (1 << (bits - a.precision));
    }
  }
  return out;
}

void vertical_u8(const uint8_t* src, int64_t planes, int64_t in_h, int64_t width, uint8_t* dst,
                 int64_t out_h, const FixedAxis16& a) {
  const int64_t ks = std::min(a.ksize, in_h);
  const int precision = a.precision;
  parallel_for(0, planes * out_h, row_grain(width * ks), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / out_h, y = r % out_h;
      const uint8_t* base = src + (p * in_h + a.start[size_t(y)]) * width;
      const int16_t* w = &a.w[size_t(y * a.stride)];
      uint8_t* out = dst + r * width;
      int64_t x = 0;
#if defined(__AVX2__)
      // 32 pixels at a time: rows k and k+1 interleaved byte-wise, widened to 16-bit pairs and
      // multiplied by the weight pair (w_k, w_k+1) with one madd into 32-bit sums. An odd last
      // tap pairs with a zero row.
      const __m256i zero = _mm256_setzero_si256();
      const __m256i round = _mm256_set1_epi32(1 << (precision - 1));
      const int64_t pairs = (ks + 1) / 2;
      __m256i wp[kMaxPairs];
      const bool vector_ok = pairs <= kMaxPairs;
      for (int64_t k = 0; vector_ok && k < pairs; ++k) {
        const uint32_t w0 = uint16_t(w[2 * k]), w1 = 2 * k + 1 < ks ? uint16_t(w[2 * k + 1]) : 0;
        wp[k] = _mm256_set1_epi32(int32_t(w0 | (w1 << 16)));
      }
      for (; vector_ok && x + 32 <= width; x += 32) {
        __m256i acc0 = round, acc1 = round, acc2 = round, acc3 = round;
        const uint8_t* col = base + x;
        for (int64_t k = 0; k < pairs; ++k, col += 2 * width) {
          const __m256i ra = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col));
          const __m256i rb = 2 * k + 1 < ks
                                 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + width))
                                 : zero;
          const __m256i lo = _mm256_unpacklo_epi8(ra, rb);  // pixels 0-7 | 16-23
          const __m256i hi = _mm256_unpackhi_epi8(ra, rb);  // pixels 8-15 | 24-31
          acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), wp[k]));
          acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), wp[k]));
          acc2 = _mm256_add_epi32(acc2, _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), wp[k]));
          acc3 = _mm256_add_epi32(acc3, _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), wp[k]));
        }
        acc0 = _mm256_srai_epi32(acc0, precision);
        acc1 = _mm256_srai_epi32(acc1, precision);
        acc2 = _mm256_srai_epi32(acc2, precision);
        acc3 = _mm256_srai_epi32(acc3, precision);
        // Saturating packs restore pixel order: 0-7 | 16-23 and 8-15 | 24-31, then 0-15 | 16-31.
        const __m256i s01 = _mm256_packs_epi32(acc0, acc1);
        const __m256i s23 = _mm256_packs_epi32(acc2, acc3);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), _mm256_packus_epi16(s01, s23));
      }
#endif
      for (; x < width; ++x) {
        int32_t acc = 1 << (precision - 1);
        for (int64_t k = 0; k < ks; ++k) acc += int32_t(w[k]) * int32_t(base[k * width + x]);
        out[x] = clamp_shift(acc, precision);
      }
    }
  });
}

void horizontal_u8(const uint8_t* src, int64_t rows, int64_t in_w, uint8_t* dst, int64_t out_w,
                   const FixedAxis16& a) {
  const int64_t ks = std::min(a.ksize, in_w);
  const int precision = a.precision;
  // Vector loads read `stride` bytes from each window's start: outputs whose read would pass the
  // end of the row go through the scalar loop (the windows' starts never decrease).
  int64_t vector_end = 0;
  while (vector_end < out_w && a.start[size_t(vector_end)] + a.stride <= in_w) ++vector_end;
  parallel_for(0, rows, row_grain(out_w * ks), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint8_t* row = src + r * in_w;
      uint8_t* out = dst + r * out_w;
      int64_t x = 0;
#if defined(__AVX2__)
      const __m128i round = _mm_set1_epi32(1 << (precision - 1));
      // Four outputs at a time: 16 taps per madd, the four sums reduced with hadd.
      for (; x + 4 <= vector_end; x += 4) {
        __m256i m[4];
        for (int j = 0; j < 4; ++j) {
          const uint8_t* in = row + a.start[size_t(x + j)];
          const int16_t* w = &a.w[size_t((x + j) * a.stride)];
          __m256i acc = _mm256_madd_epi16(
              _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))),
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
          for (int64_t k = 16; k < a.stride; k += 16) {
            const __m256i px =
                _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k)));
            const __m256i wk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + k));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(px, wk));
          }
          m[j] = acc;
        }
        const __m256i s =
            _mm256_hadd_epi32(_mm256_hadd_epi32(m[0], m[1]), _mm256_hadd_epi32(m[2], m[3]));
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        sum = _mm_srai_epi32(_mm_add_epi32(sum, round), precision);
        const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(sum, sum), sum);
        const int32_t four = _mm_cvtsi128_si32(bytes);
        std::copy_n(reinterpret_cast<const uint8_t*>(&four), 4, out + x);
      }
#endif
      for (; x < out_w; ++x) {
        const uint8_t* in = row + a.start[size_t(x)];
        const int16_t* w = &a.w[size_t(x * a.stride)];
        int32_t acc = 1 << (precision - 1);
        for (int64_t k = 0; k < ks; ++k) acc += int32_t(w[k]) * int32_t(in[k]);
        out[x] = clamp_shift(acc, precision);
      }
    }
  });
}

}  // namespace tc::vision::kernels::detail
