#pragma once
// Convolutions: Conv1d/2d/3d and ConvTranspose1d/2d/3d over one base, ConvNdImpl
// (torch.nn.modules.conv): torch's arguments, parameter shapes (weight [out, in/groups, *k] or,
// transposed, [in, out/groups, *k]) and init.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

// String paddings of the direct convolutions (torch's padding='same' / 'valid').
enum class ConvPadding { Same, Valid };
inline constexpr ConvPadding kSame = ConvPadding::Same;
inline constexpr ConvPadding kValid = ConvPadding::Valid;
inline const char* conv_padding_name(ConvPadding p) {
  return p == ConvPadding::Same ? "same" : "valid";
}

// Base of Conv1d/2d/3d and ConvTranspose1d/2d/3d. padding is numbers, or (direct convolutions)
// kSame (stride 1 only; an odd total puts the extra element at the end) or kValid;
// padding_mode "zeros" | "reflect" | "replicate" | "circular" (direct convolutions only: the
// input is padded by functional::pad, then convolved without padding, as torch).
class ConvNdImpl : public Module {
 public:
  ConvNdImpl(std::string type, int spatial, int64_t in_channels, int64_t out_channels,
             IntList kernel_size, IntList stride, IntList padding, IntList dilation, int64_t groups,
             bool bias, bool transposed, IntList output_padding, std::string padding_mode = "zeros",
             std::string padding_string = "");
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  int spatial;
  int64_t in_channels, out_channels, groups;
  IntList kernel_size, stride, padding, dilation, output_padding;
  bool transposed;
  std::string padding_mode;    // "zeros" | "reflect" | "replicate" | "circular"
  std::string padding_string;  // "" (numeric padding) | "same" | "valid"
  Tensor weight, bias;

 protected:
  void check_input(const Tensor& x) const;
  // check_input, then the functional convolution of this layer's rank with its padding rules.
  // Transposed convolutions: a non-empty output_size (spatial sizes, or the full shape) picks
  // output_padding as torch's forward(input, output_size) does.
  Tensor run(const Tensor& x, const IntList& output_size = {}) const;
  // Copies padding_mode / padding_string into a clone built from the numeric constructor.
  ModulePtr finish_clone(std::shared_ptr<ConvNdImpl> copy) const;
};

class Conv1dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  Conv1dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride = {1},
             IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  // padding kSame or kValid.
  Conv1dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride,
             ConvPadding padding, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
             int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv1dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                   IntList{padding}, IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
             ConvPadding padding, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv1dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride}, padding,
                   IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Conv1d);

class Conv2dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  Conv2dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride = {1},
             IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  // padding kSame or kValid.
  Conv2dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride,
             ConvPadding padding, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  // Square kernels with scalar arguments: Conv2d(3, 16, 3, 1, 1) works through the holder.
  Conv2dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
             int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv2dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                   IntList{padding}, IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Conv2dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
             ConvPadding padding, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv2dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride}, padding,
                   IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Conv2d);

class ConvTranspose2dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size,
                      IntList stride = {1}, IntList padding = {0}, IntList output_padding = {0},
                      int64_t groups = 1, bool bias = true, IntList dilation = {1});
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                      int64_t stride = 1, int64_t padding = 0, int64_t output_padding = 0,
                      int64_t groups = 1, bool bias = true, int64_t dilation = 1)
      : ConvTranspose2dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                            IntList{padding}, IntList{output_padding}, groups, bias,
                            IntList{dilation}) {}
  Tensor forward(const Tensor& x);
  // output_size (spatial, or the full shape) chooses output_padding, as torch.
  Tensor forward(const Tensor& x, const IntList& output_size);
};
TC_MODULE(ConvTranspose2d);

class Conv3dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  Conv3dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride = {1},
             IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  Conv3dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride,
             ConvPadding padding, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  Conv3dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
             int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv3dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                   IntList{padding}, IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Conv3dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
             ConvPadding padding, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv3dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride}, padding,
                   IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Conv3d);

class ConvTranspose1dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size,
                      IntList stride = {1}, IntList padding = {0}, IntList output_padding = {0},
                      int64_t groups = 1, bool bias = true, IntList dilation = {1});
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                      int64_t stride = 1, int64_t padding = 0, int64_t output_padding = 0,
                      int64_t groups = 1, bool bias = true, int64_t dilation = 1)
      : ConvTranspose1dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                            IntList{padding}, IntList{output_padding}, groups, bias,
                            IntList{dilation}) {}
  Tensor forward(const Tensor& x);
  // output_size (spatial, or the full shape) chooses output_padding, as torch.
  Tensor forward(const Tensor& x, const IntList& output_size);
};
TC_MODULE(ConvTranspose1d);

class ConvTranspose3dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  ConvTranspose3dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size,
                      IntList stride = {1}, IntList padding = {0}, IntList output_padding = {0},
                      int64_t groups = 1, bool bias = true, IntList dilation = {1});
  ConvTranspose3dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                      int64_t stride = 1, int64_t padding = 0, int64_t output_padding = 0,
                      int64_t groups = 1, bool bias = true, int64_t dilation = 1)
      : ConvTranspose3dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                            IntList{padding}, IntList{output_padding}, groups, bias,
                            IntList{dilation}) {}
  Tensor forward(const Tensor& x);
  // output_size (spatial, or the full shape) chooses output_padding, as torch.
  Tensor forward(const Tensor& x, const IntList& output_size);
};
TC_MODULE(ConvTranspose3d);

}  // namespace tc::nn
