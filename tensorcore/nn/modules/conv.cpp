#include "tensorcore/nn/modules/conv.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn {

using namespace detail;
namespace F = functional;

// ---- Convolutions ----
ConvNdImpl::ConvNdImpl(std::string type, int n, int64_t in, int64_t out, IntList k, IntList s,
                       IntList p, IntList d, int64_t g, bool has_bias, bool tr, IntList op,
                       std::string pm, std::string ps)
    : Module(type),
      spatial(n),
      in_channels(in),
      out_channels(out),
      groups(g),
      transposed(tr),
      padding_mode(std::move(pm)),
      padding_string(std::move(ps)) {
  kernel_size = expand_list(name(), "kernel_size", std::move(k), n);
  stride = expand_list(name(), "stride", std::move(s), n);
  padding = padding_string.empty() ? expand_list(name(), "padding", std::move(p), n)
                                   : IntList(size_t(n), 0);
  dilation = expand_list(name(), "dilation", std::move(d), n);
  output_padding = expand_list(name(), "output_padding", std::move(op), n);
  check_conv_options(name(), n, in, out, g, kernel_size, stride, padding, dilation, output_padding,
                     padding_string, padding_mode, tr);
  Shape wshape = tr ? Shape{in, out / g} : Shape{out, in / g};
  for (auto v : kernel_size) wshape.push_back(v);
  weight = register_parameter("weight", empty(wshape));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}

void ConvNdImpl::reset_parameters() { reset_linear_parameters(weight, bias); }

void ConvNdImpl::check_input(const Tensor& x) const {
  TC_CHECK((x.dim() == spatial + 2 || x.dim() == spatial + 1) &&
               x.size(x.dim() - spatial - 1) == in_channels,
           name(), ": expected input of shape [N, ", in_channels, ", *] with ", spatial,
           " spatial dims, but got input of size ", shape_str(x.sizes()));
}

Tensor ConvNdImpl::run(const Tensor& x, const IntList& output_size) const {
  check_input(x);
  if (transposed) {
    const IntList op = conv_transpose_output_padding(
        name(), x.sizes(), output_size, stride, padding, dilation, kernel_size, output_padding);
    if (spatial == 1)
      return F::conv_transpose1d(x, weight, bias, stride, padding, op, groups, dilation);
    if (spatial == 2)
      return F::conv_transpose2d(x, weight, bias, stride, padding, op, groups, dilation);
    return F::conv_transpose3d(x, weight, bias, stride, padding, op, groups, dilation);
  }
  auto conv = [&](const Tensor& in, const IntList& pad) {
    if (spatial == 1) return F::conv1d(in, weight, bias, stride, pad, dilation, groups);
    if (spatial == 2) return F::conv2d(in, weight, bias, stride, pad, dilation, groups);
    return F::conv3d(in, weight, bias, stride, pad, dilation, groups);
  };
  const bool same = padding_string == "same";
  if (padding_mode == "zeros") {
    if (!same) return conv(x, padding);
    if (spatial == 1) return F::conv1d(x, weight, bias, stride, "same", dilation, groups);
    if (spatial == 2) return F::conv2d(x, weight, bias, stride, "same", dilation, groups);
    return F::conv3d(x, weight, bias, stride, "same", dilation, groups);
  }
  // Non-zero modes pad the input first, then convolve without padding.
  const IntList pads = conv_reversed_padding(kernel_size, dilation, padding, padding_string);
  return conv(F::pad(x, pads, padding_mode), IntList(size_t(spatial), 0));
}

ModulePtr ConvNdImpl::finish_clone(std::shared_ptr<ConvNdImpl> copy) const {
  copy->padding_mode = padding_mode;
  copy->padding_string = padding_string;
  copy->padding = padding;
  copy->copy_state_from(*this);
  return copy;
}

void ConvNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << in_channels << ", " << out_channels
     << ", kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride);
  if (!padding_string.empty())
    os << ", padding=" << padding_string;
  else if (padding != IntList(size_t(spatial), 0))
    os << ", padding=" << list_str(padding);
  if (dilation != IntList(size_t(spatial), 1)) os << ", dilation=" << list_str(dilation);
  if (transposed && output_padding != IntList(size_t(spatial), 0))
    os << ", output_padding=" << list_str(output_padding);
  if (groups != 1) os << ", groups=" << groups;
  if (!bias.defined()) os << ", bias=false";
  if (padding_mode != "zeros") os << ", padding_mode=" << padding_mode;
  os << ")";
}

Conv1dImpl::Conv1dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv1d", 1, in, out, std::move(k), std::move(s), std::move(p), std::move(d), g, b,
                 false, {0}, std::move(pm)) {}

Conv1dImpl::Conv1dImpl(int64_t in, int64_t out, IntList k, IntList s, ConvPadding p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv1d", 1, in, out, std::move(k), std::move(s), {0}, std::move(d), g, b, false,
                 {0}, std::move(pm), conv_padding_name(p)) {}

Tensor Conv1dImpl::forward(const Tensor& x) { return run(x); }

Conv2dImpl::Conv2dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv2d", 2, in, out, std::move(k), std::move(s), std::move(p), std::move(d), g, b,
                 false, {0}, std::move(pm)) {}

Conv2dImpl::Conv2dImpl(int64_t in, int64_t out, IntList k, IntList s, ConvPadding p, IntList d,
                       int64_t g, bool b, std::string pm)
    : ConvNdImpl("Conv2d", 2, in, out, std::move(k), std::move(s), {0}, std::move(d), g, b, false,
                 {0}, std::move(pm), conv_padding_name(p)) {}

Tensor Conv2dImpl::forward(const Tensor& x) { return run(x); }

ConvTranspose2dImpl::ConvTranspose2dImpl(int64_t in, int64_t out, IntList k, IntList s, IntList p,
                                         IntList op, int64_t g, bool b, IntList d)
    : ConvNdImpl("ConvTranspose2d", 2, in, out, std::move(k), std::move(s), std::move(p),
                 std::move(d), g, b, true, std::move(op)) {}

Tensor ConvTranspose2dImpl::forward(const Tensor& x) { return run(x); }

Tensor ConvTranspose2dImpl::forward(const Tensor& x, const IntList& output_size) {
  return run(x, output_size);
}

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

ModulePtr Conv1dImpl::clone() const {
  return finish_clone(std::make_shared<Conv1dImpl>(in_channels, out_channels, kernel_size, stride,
                                                   padding, dilation, groups, bias.defined(),
                                                   padding_mode));
}

ModulePtr Conv2dImpl::clone() const {
  return finish_clone(std::make_shared<Conv2dImpl>(in_channels, out_channels, kernel_size, stride,
                                                   padding, dilation, groups, bias.defined(),
                                                   padding_mode));
}

ModulePtr ConvTranspose2dImpl::clone() const {
  return with_state_of(
      std::make_shared<ConvTranspose2dImpl>(in_channels, out_channels, kernel_size, stride, padding,
                                            output_padding, groups, bias.defined(), dilation),
      *this);
}

}  // namespace tc::nn
