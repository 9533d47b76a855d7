#pragma once
// Rearranging and resampling layers, grouped as tensorcore.nn.modules.pixelshuffle groups them:
// PixelShuffle, PixelUnshuffle, ChannelShuffle, Upsample, Unfold, Fold.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class ChannelShuffleImpl : public Module {
 public:
  explicit ChannelShuffleImpl(int64_t groups);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x) { return functional::channel_shuffle(x, groups); }
  int64_t groups;
};
TC_MODULE(ChannelShuffle);

// im2col / col2im as modules (functional::unfold / fold).
class UnfoldImpl : public Module {
 public:
  explicit UnfoldImpl(IntList kernel_size, IntList dilation = {1}, IntList padding = {0},
                      IntList stride = {1});
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  IntList kernel_size, dilation, padding, stride;
};
TC_MODULE(Unfold);
class FoldImpl : public Module {
 public:
  FoldImpl(IntList output_size, IntList kernel_size, IntList dilation = {1}, IntList padding = {0},
           IntList stride = {1});
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  IntList output_size, kernel_size, dilation, padding, stride;
};
TC_MODULE(Fold);

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(int64_t upscale_factor);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t upscale_factor;
};
TC_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(int64_t downscale_factor);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t downscale_factor;
};
TC_MODULE(PixelUnshuffle);

// Resize to `size`, or by `scale_factor` (output = floor(input * scale)); modes "nearest",
// "bilinear", "bicubic", "nearest-exact" for 4-d input ("linear" 3-d, "trilinear" 5-d).
struct UpsampleOptions {
  IntList size;
  std::vector<double> scale_factor;
  std::string mode = "nearest";
  bool align_corners = false;
};
class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(UpsampleOptions options);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  UpsampleOptions options;
};
TC_MODULE(Upsample);

}  // namespace tc::nn
