#pragma once
// More layers for the C++ frontend over the native kernels of tc::nn::functional (torch.nn names,
// arguments and state_dict keys): PixelShuffle, PixelUnshuffle, Unflatten, ConstantPad2d /
// ZeroPad2d, ReflectionPad2d, ReplicationPad2d, Dropout2d, Upsample,
// AdaptiveMaxPool2d, Softmin, GLU.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/module.h"
#include "tensorcore/nn/modules/normalization.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

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

class UnflattenImpl : public Module {
 public:
  UnflattenImpl(int64_t dim, IntList sizes);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t dim;
  IntList sizes;
};
TC_MODULE(Unflatten);

// Padding (left, right, top, bottom) or one value for all four; mode "constant", "reflect",
// "replicate".
class Pad2dImpl : public Module {
 public:
  Pad2dImpl(std::string type, IntList padding, std::string mode, double value);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  IntList padding;
  std::string mode;
  double value;
};
class ConstantPad2dImpl : public Pad2dImpl {
 public:
  ConstantPad2dImpl(IntList padding, double value)
      : Pad2dImpl("ConstantPad2d", std::move(padding), "constant", value) {}
};
TC_MODULE(ConstantPad2d);
class ZeroPad2dImpl : public Pad2dImpl {
 public:
  explicit ZeroPad2dImpl(IntList padding)
      : Pad2dImpl("ZeroPad2d", std::move(padding), "constant", 0.0) {}
};
TC_MODULE(ZeroPad2d);
class ReflectionPad2dImpl : public Pad2dImpl {
 public:
  explicit ReflectionPad2dImpl(IntList padding)
      : Pad2dImpl("ReflectionPad2d", std::move(padding), "reflect", 0.0) {}
};
TC_MODULE(ReflectionPad2d);
class ReplicationPad2dImpl : public Pad2dImpl {
 public:
  explicit ReplicationPad2dImpl(IntList padding)
      : Pad2dImpl("ReplicationPad2d", std::move(padding), "replicate", 0.0) {}
};
TC_MODULE(ReplicationPad2d);

// Zeroes whole channels with probability p (training only), scaling the rest by 1/(1-p).
class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(double p = 0.5);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  double p;
};
TC_MODULE(Dropout2d);

// InstanceNorm2d is in norm_layers.h (with InstanceNorm1d/3d).

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

class AdaptiveMaxPool2dImpl : public Module {
 public:
  explicit AdaptiveMaxPool2dImpl(IntList output_size);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  IntList output_size;
};
TC_MODULE(AdaptiveMaxPool2d);

class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(int64_t dim);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t dim;
};
TC_MODULE(Softmin);

// a * sigmoid(b) with (a, b) the halves of `dim`.
class GLUImpl : public Module {
 public:
  explicit GLUImpl(int64_t dim = -1);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t dim;
};
TC_MODULE(GLU);

}  // namespace tc::nn
