#pragma once
// Padding layers (torch.nn.modules.padding): ConstantPad1d/2d/3d, ZeroPad2d,
// ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

// Padding over the last `spatial` dims: one value for every side or (left, right[, top, bottom
// [, front, back]]); mode "constant" | "reflect" | "replicate".
class PadNdImpl : public Module {
 public:
  PadNdImpl(std::string type, int spatial, IntList padding, std::string mode, double value);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int spatial;
  IntList padding;
  std::string mode;
  double value;
};
#define TC_PAD_MODULE(Name, N, Mode)                                                             \
  class Name##Impl : public PadNdImpl {                                                          \
   public:                                                                                       \
    explicit Name##Impl(IntList padding) : PadNdImpl(#Name, N, std::move(padding), Mode, 0.0) {} \
  };                                                                                             \
  TC_MODULE(Name)
TC_PAD_MODULE(ReflectionPad1d, 1, "reflect");
TC_PAD_MODULE(ReflectionPad3d, 3, "reflect");
TC_PAD_MODULE(ReplicationPad1d, 1, "replicate");
TC_PAD_MODULE(ReplicationPad3d, 3, "replicate");
#undef TC_PAD_MODULE
class ConstantPad1dImpl : public PadNdImpl {
 public:
  ConstantPad1dImpl(IntList padding, double value)
      : PadNdImpl("ConstantPad1d", 1, std::move(padding), "constant", value) {}
};
TC_MODULE(ConstantPad1d);
class ConstantPad3dImpl : public PadNdImpl {
 public:
  ConstantPad3dImpl(IntList padding, double value)
      : PadNdImpl("ConstantPad3d", 3, std::move(padding), "constant", value) {}
};
TC_MODULE(ConstantPad3d);

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

}  // namespace tc::nn
