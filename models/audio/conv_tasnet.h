#pragma once
// ConvTasNet's alignment of the input length to the encoder stride, as native ops so that eager
// Python and traced graphs (tc.jit) compute the padding from the length seen at run time: a
// traced or saved ConvTasNet then separates inputs of any length.
#include <cstdint>

#include "tensorcore/core/tensor.h"

namespace tc::models::audio {

// Zero-pads (batch, channels, frames) at the end so that the last sample sits at the centre (odd
// kernel) or the end of the first half (even kernel) of the last encoder window, as
// torchaudio.models.ConvTasNet._align_num_frames_with_strides; returns a view of the input when
// no padding is needed.
Tensor conv_tasnet_pad(const Tensor& input, int64_t enc_kernel_size, int64_t enc_stride);

// output[..., :input.size(-1)]: cuts the padding conv_tasnet_pad added to input (a view).
Tensor conv_tasnet_unpad(const Tensor& output, const Tensor& input);

}  // namespace tc::models::audio
