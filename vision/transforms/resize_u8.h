#pragma once
// uint8 antialiased resampling in 16-bit fixed point (Pillow-SIMD's scheme): each separable pass
// multiplies pixel pairs by weight pairs with one AVX2 multiply-add (_mm256_madd_epi16) and keeps
// the uint8 intermediate. The scalar tails and non-AVX2 builds do the same integer arithmetic, so
// every path gives identical bytes.
#include <cstdint>
#include <vector>

namespace tc::vision::kernels::detail {

// One axis: output i reads input [start[i], start[i] + ksize) with weights
// w[i * stride .. i * stride + ksize), scaled by 2^precision and zero-padded to `stride` (a
// multiple of 16, so the horizontal pass reads whole vectors).
struct FixedAxis16 {
  int64_t ksize = 0;
  int64_t stride = 0;
  int precision = 0;
  std::vector<int64_t> start;
  std::vector<int16_t> w;
};

// From double weights (out x ksize, rows summing to 1): the largest precision at which the
// biggest weight still fits an int16, as Pillow-SIMD chooses it.
FixedAxis16 fixed_axis16(const std::vector<int64_t>& start, const std::vector<double>& w,
                         int64_t ksize);

// The same weights as int32 at `bits` (>= precision) of precision, for kernels with a fixed
// shift (the CUDA passes): the results are bit-identical to the 16-bit passes.
std::vector<int32_t> widened_weights(const FixedAxis16& a, int bits);

// planes x in_h x width -> planes x out_h x width.
void vertical_u8(const uint8_t* src, int64_t planes, int64_t in_h, int64_t width, uint8_t* dst,
                 int64_t out_h, const FixedAxis16& a);
// rows x in_w -> rows x out_w.
void horizontal_u8(const uint8_t* src, int64_t rows, int64_t in_w, uint8_t* dst, int64_t out_w,
                   const FixedAxis16& a);

}  // namespace tc::vision::kernels::detail
