#include "models/audio/conv_tasnet.h"

#include "tensorcore/tensor.h"

namespace tc::models::audio {

Tensor conv_tasnet_pad(const Tensor& input, int64_t enc_kernel_size, int64_t enc_stride) {
  TC_CHECK(input.dim() == 3, "ConvTasNet: expected input of shape (batch, channel, frames), got ",
           shape_str(input.sizes()));
  TC_CHECK(enc_stride > 0 && enc_kernel_size > 0,
           "ConvTasNet: enc_kernel_size and enc_stride must be positive, got ", enc_kernel_size,
           " and ", enc_stride);
  const int64_t frames = input.size(2);
  const int64_t is_odd = enc_kernel_size % 2;
  // Python's floor division (frames - is_odd may be -1 for a one-sample input).
  const int64_t diff = frames - is_odd;
  const int64_t num_strides =
      diff >= 0 ? diff / enc_stride : -((-diff + enc_stride - 1) / enc_stride);
  const int64_t remaining = frames - (is_odd + num_strides * enc_stride);
  // A view rather than input itself: a trace maps each result tensor to its node, and handing
  // back the input object would make later uses of the input read the pad node's value.
  if (remaining == 0) return narrow(input, 2, 0, frames);
  const int64_t pads = enc_stride - remaining;
  Tensor pad = zeros({input.size(0), input.size(1), pads},
                     TensorOptions(input.dtype()).device(input.device()));
  return cat({input, pad}, 2);
}

Tensor conv_tasnet_unpad(const Tensor& output, const Tensor& input) {
  TC_CHECK(output.dim() >= 1 && input.dim() >= 1, "ConvTasNet: unpad needs tensors with frames");
  const int64_t frames = input.size(-1);
  TC_CHECK(output.size(-1) >= frames, "ConvTasNet: output has ", output.size(-1),
           " frames, fewer than the input's ", frames);
  return narrow(output, output.dim() - 1, 0, frames);
}

}  // namespace tc::models::audio
