#pragma once
// Pooling layers (torch.nn.modules.pooling): MaxPool1d/2d/3d, AvgPool1d/2d/3d,
// AdaptiveAvg/MaxPool1d/2d/3d, MaxUnpool1d/2d/3d and LPPool1d/2d over the native pooling
// kernels. torch's `return_indices=True` is the separate `forward_with_indices` (libtorch's
// convention); its indices are flat per plane, as torch's, so they feed MaxUnpool.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class MaxPool2dImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit MaxPool2dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         IntList dilation = {1}, bool ceil_mode = false);
  // stride 0 means stride = kernel_size.
  explicit MaxPool2dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : MaxPool2dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
  Tensor forward(const Tensor& x);
  // torch's return_indices=True: (values, flat per-plane indices for MaxUnpool2d).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList kernel_size, stride, padding, dilation;
  bool ceil_mode;
};
TC_MODULE(MaxPool2d);

class AvgPool2dImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit AvgPool2dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = {});
  explicit AvgPool2dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : AvgPool2dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
};
TC_MODULE(AvgPool2d);

class AdaptiveAvgPool2dImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit AdaptiveAvgPool2dImpl(IntList output_size);
  explicit AdaptiveAvgPool2dImpl(int64_t output_size)
      : AdaptiveAvgPool2dImpl(IntList{output_size}) {}
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList output_size;
};
TC_MODULE(AdaptiveAvgPool2d);

class AdaptiveMaxPool2dImpl : public Module {
 public:
  explicit AdaptiveMaxPool2dImpl(IntList output_size);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  IntList output_size;
};
TC_MODULE(AdaptiveMaxPool2d);

// Base of the N-d max/avg pools (N = spatial): kernel_size, stride (empty = kernel_size),
// padding, dilation (max only), ceil_mode, count_include_pad / divisor_override (avg only).
class PoolNdImpl : public Module {
 public:
  PoolNdImpl(std::string type, int spatial, IntList kernel_size, IntList stride, IntList padding,
             IntList dilation, bool ceil_mode);
  void pretty_print(std::ostream& os) const override;
  int spatial;
  IntList kernel_size, stride, padding, dilation;
  bool ceil_mode;

 protected:
  void check_input(const Tensor& x) const;
};

class MaxPoolNdImpl : public PoolNdImpl {
 public:
  using PoolNdImpl::PoolNdImpl;
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
};
class MaxPool1dImpl : public MaxPoolNdImpl {
 public:
  explicit MaxPool1dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         IntList dilation = {1}, bool ceil_mode = false)
      : MaxPoolNdImpl("MaxPool1d", 1, std::move(kernel_size), std::move(stride), std::move(padding),
                      std::move(dilation), ceil_mode) {}
  explicit MaxPool1dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : MaxPool1dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
};
TC_MODULE(MaxPool1d);
class MaxPool3dImpl : public MaxPoolNdImpl {
 public:
  explicit MaxPool3dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         IntList dilation = {1}, bool ceil_mode = false)
      : MaxPoolNdImpl("MaxPool3d", 3, std::move(kernel_size), std::move(stride), std::move(padding),
                      std::move(dilation), ceil_mode) {}
  explicit MaxPool3dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : MaxPool3dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
};
TC_MODULE(MaxPool3d);

class AvgPoolNdImpl : public PoolNdImpl {
 public:
  AvgPoolNdImpl(std::string type, int spatial, IntList kernel_size, IntList stride, IntList padding,
                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  bool count_include_pad;
  std::optional<int64_t> divisor_override;
};
class AvgPool1dImpl : public AvgPoolNdImpl {
 public:
  explicit AvgPool1dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         bool ceil_mode = false, bool count_include_pad = true)
      : AvgPoolNdImpl("AvgPool1d", 1, std::move(kernel_size), std::move(stride), std::move(padding),
                      ceil_mode, count_include_pad, {}) {}
  explicit AvgPool1dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : AvgPool1dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
};
TC_MODULE(AvgPool1d);
class AvgPool3dImpl : public AvgPoolNdImpl {
 public:
  explicit AvgPool3dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = {})
      : AvgPoolNdImpl("AvgPool3d", 3, std::move(kernel_size), std::move(stride), std::move(padding),
                      ceil_mode, count_include_pad, divisor_override) {}
  explicit AvgPool3dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : AvgPool3dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
};
TC_MODULE(AvgPool3d);

// Adaptive pools; output_size entries of -1 keep the input size (torch's None).
class AdaptivePoolNdImpl : public Module {
 public:
  AdaptivePoolNdImpl(std::string type, int spatial, bool max, IntList output_size);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  // Max pools only.
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int spatial;
  bool max;
  IntList output_size;
};
#define TC_ADAPTIVE_POOL(Name, N, Max)                                             \
  class Name##Impl : public AdaptivePoolNdImpl {                                   \
   public:                                                                         \
    explicit Name##Impl(IntList output_size)                                       \
        : AdaptivePoolNdImpl(#Name, N, Max, std::move(output_size)) {}             \
    explicit Name##Impl(int64_t output_size) : Name##Impl(IntList{output_size}) {} \
  };                                                                               \
  TC_MODULE(Name)
TC_ADAPTIVE_POOL(AdaptiveAvgPool1d, 1, false);
TC_ADAPTIVE_POOL(AdaptiveAvgPool3d, 3, false);
TC_ADAPTIVE_POOL(AdaptiveMaxPool1d, 1, true);
TC_ADAPTIVE_POOL(AdaptiveMaxPool3d, 3, true);
#undef TC_ADAPTIVE_POOL

// Inverse of max pooling: scatters input values to the positions `indices` (from
// forward_with_indices) in a zero output of size output_size (spatial sizes, or empty for the
// default (in - 1) * stride - 2 * padding + kernel_size).
class MaxUnpoolNdImpl : public Module {
 public:
  MaxUnpoolNdImpl(std::string type, int spatial, IntList kernel_size, IntList stride,
                  IntList padding);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x, const Tensor& indices, const IntList& output_size = {});
  void pretty_print(std::ostream& os) const override;
  int spatial;
  IntList kernel_size, stride, padding;
};
#define TC_MAX_UNPOOL(Name, N)                                                                    \
  class Name##Impl : public MaxUnpoolNdImpl {                                                     \
   public:                                                                                        \
    explicit Name##Impl(IntList kernel_size, IntList stride = {}, IntList padding = {0})          \
        : MaxUnpoolNdImpl(#Name, N, std::move(kernel_size), std::move(stride),                    \
                          std::move(padding)) {}                                                  \
    explicit Name##Impl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)             \
        : Name                                                                                    \
          ##Impl(IntList{kernel_size}, stride ? IntList{stride} : IntList{}, IntList{padding}) {} \
  };                                                                                              \
  TC_MODULE(Name)
TC_MAX_UNPOOL(MaxUnpool1d, 1);
TC_MAX_UNPOOL(MaxUnpool2d, 2);
TC_MAX_UNPOOL(MaxUnpool3d, 3);
#undef TC_MAX_UNPOOL

class LPPoolNdImpl : public Module {
 public:
  LPPoolNdImpl(std::string type, int spatial, double norm_type, IntList kernel_size, IntList stride,
               bool ceil_mode);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int spatial;
  double norm_type;
  IntList kernel_size, stride;
  bool ceil_mode;
};
#define TC_LP_POOL(Name, N)                                                                        \
  class Name##Impl : public LPPoolNdImpl {                                                         \
   public:                                                                                         \
    Name##Impl(double norm_type, IntList kernel_size, IntList stride = {}, bool ceil_mode = false) \
        : LPPoolNdImpl(#Name, N, norm_type, std::move(kernel_size), std::move(stride),             \
                       ceil_mode) {}                                                               \
  };                                                                                               \
  TC_MODULE(Name)
TC_LP_POOL(LPPool1d, 1);
TC_LP_POOL(LPPool2d, 2);
#undef TC_LP_POOL

}  // namespace tc::nn
