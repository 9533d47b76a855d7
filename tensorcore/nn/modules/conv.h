#pragma once
// Conv3d, ConvTranspose1d and ConvTranspose3d for the C++ frontend (Conv1d, Conv2d and
// ConvTranspose2d are in layers.h; all share ConvNdImpl): torch.nn's arguments, parameter
// shapes (weight [out, in/groups, *k] or, transposed, [in, out/groups, *k]) and init.
#include "tensorcore/nn/modules/linear.h"

namespace tc::nn {

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
