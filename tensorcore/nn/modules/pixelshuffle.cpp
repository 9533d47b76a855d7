#include "tensorcore/nn/modules/pixelshuffle.h"

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"

namespace tc::nn {

using namespace detail;

ChannelShuffleImpl::ChannelShuffleImpl(int64_t g) : Module("ChannelShuffle"), groups(g) {
  check_shuffle_factor(name(), "groups", g);
}

ModulePtr ChannelShuffleImpl::clone() const {
  return with_state_of(std::make_shared<ChannelShuffleImpl>(groups), *this);
}

// ---- Fold / Unfold ----
UnfoldImpl::UnfoldImpl(IntList k, IntList d, IntList p, IntList s)
    : Module("Unfold"),
      kernel_size(std::move(k)),
      dilation(std::move(d)),
      padding(std::move(p)),
      stride(std::move(s)) {}

Tensor UnfoldImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 3 || x.dim() == 4,
           "Unfold: expected a 3-d or 4-d input [N, C, H, W], but got input of size ",
           shape_str(x.sizes()));
  return functional::unfold(x, kernel_size, dilation, padding, stride);
}

ModulePtr UnfoldImpl::clone() const {
  return with_state_of(std::make_shared<UnfoldImpl>(kernel_size, dilation, padding, stride), *this);
}

FoldImpl::FoldImpl(IntList o, IntList k, IntList d, IntList p, IntList s)
    : Module("Fold"),
      output_size(std::move(o)),
      kernel_size(std::move(k)),
      dilation(std::move(d)),
      padding(std::move(p)),
      stride(std::move(s)) {}

Tensor FoldImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() == 2 || x.dim() == 3,
           "Fold: expected a 2-d or 3-d input [N, C * prod(kernel_size), L], but got ",
           "input of size ", shape_str(x.sizes()));
  return functional::fold(x, output_size, kernel_size, dilation, padding, stride);
}

ModulePtr FoldImpl::clone() const {
  return with_state_of(
      std::make_shared<FoldImpl>(output_size, kernel_size, dilation, padding, stride), *this);
}

PixelShuffleImpl::PixelShuffleImpl(int64_t r) : Module("PixelShuffle"), upscale_factor(r) {
  check_shuffle_factor(name(), "upscale_factor", r);
}

Tensor PixelShuffleImpl::forward(const Tensor& x) {
  return functional::pixel_shuffle(x, upscale_factor);
}

ModulePtr PixelShuffleImpl::clone() const {
  return with_state_of(std::make_shared<PixelShuffleImpl>(upscale_factor), *this);
}

PixelUnshuffleImpl::PixelUnshuffleImpl(int64_t r) : Module("PixelUnshuffle"), downscale_factor(r) {
  check_shuffle_factor(name(), "downscale_factor", r);
}

Tensor PixelUnshuffleImpl::forward(const Tensor& x) {
  return functional::pixel_unshuffle(x, downscale_factor);
}

ModulePtr PixelUnshuffleImpl::clone() const {
  return with_state_of(std::make_shared<PixelUnshuffleImpl>(downscale_factor), *this);
}

UpsampleImpl::UpsampleImpl(UpsampleOptions o) : Module("Upsample"), options(std::move(o)) {
  TC_CHECK(options.size.empty() != options.scale_factor.empty(),
           "Upsample: exactly one of size and scale_factor must be given");
}

Tensor UpsampleImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 3 && x.dim() <= 5, "Upsample: expected a 3-d, 4-d or 5-d input, got ",
           shape_str(x.sizes()));
  const bool linear = options.mode == "linear" || options.mode == "bilinear" ||
                      options.mode == "bicubic" || options.mode == "trilinear";
  // torch's Upsample passes align_corners=None to the nearest modes.
  return functional::interpolate(
      x, options.size, options.scale_factor, options.mode,
      linear ? std::optional<bool>(options.align_corners) : std::nullopt);
}

ModulePtr UpsampleImpl::clone() const {
  return with_state_of(std::make_shared<UpsampleImpl>(options), *this);
}

}  // namespace tc::nn
