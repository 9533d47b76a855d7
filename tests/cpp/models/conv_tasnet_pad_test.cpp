// C++ tests for tc::models::audio::conv_tasnet_pad/unpad (ConvTasNet's alignment to the encoder
// stride), against the formula of torchaudio's _align_num_frames_with_strides written out here.
#include "models/audio/conv_tasnet.h"

#include <gtest/gtest.h>

#include "tensorcore/core/error.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/shape.h"

namespace ma = tc::models::audio;

namespace {

// torchaudio's arithmetic with Python's floor division.
int64_t expected_pads(int64_t frames, int64_t kernel, int64_t stride) {
  const int64_t is_odd = kernel % 2;
  int64_t q = (frames - is_odd) / stride;
  if ((frames - is_odd) % stride != 0 && (frames - is_odd) < 0) --q;
  const int64_t rem = frames - (is_odd + q * stride);
  return rem == 0 ? 0 : stride - rem;
}

TEST(ConvTasNetPad, LengthsValuesAndCut) {
  for (int64_t kernel : {16, 7, 2}) {
    const int64_t stride = kernel / 2;
    for (int64_t frames = 1; frames <= 40; ++frames) {
      tc::Tensor x = tc::randn({2, 1, frames}, {}, tc::TensorOptions(tc::DType::Float32));
      tc::Tensor p = ma::conv_tasnet_pad(x, kernel, stride);
      const int64_t pads = expected_pads(frames, kernel, stride);
      ASSERT_EQ(p.size(2), frames + pads) << "kernel " << kernel << " frames " << frames;
      EXPECT_TRUE(tc::equal(tc::narrow(p, 2, 0, frames), x));
      if (pads > 0) {
        EXPECT_TRUE(tc::equal(tc::narrow(p, 2, frames, pads),
                              tc::zeros({2, 1, pads}, tc::TensorOptions(tc::DType::Float32))));
      }
      tc::Tensor cut = ma::conv_tasnet_unpad(p, x);
      EXPECT_TRUE(tc::equal(cut, x));
    }
  }
}

TEST(ConvTasNetPad, BadInputIsNamed) {
  tc::Tensor x = tc::zeros({4, 10}, tc::TensorOptions(tc::DType::Float32));
  EXPECT_THROW(ma::conv_tasnet_pad(x, 16, 8), tc::ValueError);
  EXPECT_THROW(ma::conv_tasnet_pad(tc::unsqueeze(x, 0), 16, 0), tc::ValueError);
  EXPECT_THROW(ma::conv_tasnet_unpad(tc::zeros({1, 2, 5}), tc::zeros({1, 1, 9})), tc::ValueError);
}

}  // namespace
