#include "tensorcore/nn/modules/conv.h"

namespace tc::nn {

Conv3dImpl::Conv3dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv3d", 3, in, out, std::move(k), std::move(s), std::move(p), std::move(d), g, b,
                 false, {0}, std::move(pm)) {}
Conv3dImpl::Conv3dImpl(int64_t in, int64_t out, IntList k, IntList s, ConvPadding p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv3d", 3, in, out, std::move(k), std::move(s), {0}, std::move(d), g, b, false,
                 {0}, std::move(pm), conv_padding_name(p)) {}
Tensor Conv3dImpl::forward(const Tensor& x) { return run(x); }
ModulePtr Conv3dImpl::clone() const {
  return finish_clone(std::make_shared<Conv3dImpl>(in_channels, out_channels, kernel_size, stride,
                                                   padding, dilation, groups, bias.defined(),
                                                   padding_mode));
}

ConvTranspose1dImpl::ConvTranspose1dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p,
                                         IntList op, int64_t g, bool b, IntList d)
    : ConvNdImpl("ConvTranspose1d", 1, in, out, std::move(k), std::move(s), std::move(p),
                 std::move(d), g, b, true, std::move(op)) {}
Tensor ConvTranspose1dImpl::forward(const Tensor& x) { return run(x); }
Tensor ConvTranspose1dImpl::forward(const Tensor& x, const IntList& output_size) {
  return run(x, output_size);
}
ModulePtr ConvTranspose1dImpl::clone() const {
  return finish_clone(std::make_shared<ConvTranspose1dImpl>(in_channels, out_channels, kernel_size,
                                                            stride, padding, output_padding, groups,
                                                            bias.defined(), dilation));
}

ConvTranspose3dImpl::ConvTranspose3dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p,
                                         IntList op, int64_t g, bool b, IntList d)
    : ConvNdImpl("ConvTranspose3d", 3, in, out, std::move(k), std::move(s), std::move(p),
                 std::move(d), g, b, true, std::move(op)) {}
Tensor ConvTranspose3dImpl::forward(const Tensor& x) { return run(x); }
Tensor ConvTranspose3dImpl::forward(const Tensor& x, const IntList& output_size) {
  return run(x, output_size);
}
ModulePtr ConvTranspose3dImpl::clone() const {
  return finish_clone(std::make_shared<ConvTranspose3dImpl>(in_channels, out_channels, kernel_size,
                                                            stride, padding, output_padding, groups,
                                                            bias.defined(), dilation));
}

}  // namespace tc::nn
