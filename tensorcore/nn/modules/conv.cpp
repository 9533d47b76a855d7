#include "tensorcore/nn/modules/conv.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/modules/conv_rules.h"
#include "tensorcore/nn/modules/module_args.h"
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
  const char* name = this->name().c_str();
  kernel_size = expand_list(name, "kernel_size", std::move(k), n);
  stride = expand_list(name, "stride", std::move(s), n);
  padding = expand_list(name, "padding", std::move(p), n);
  dilation = expand_list(name, "dilation", std::move(d), n);
  output_padding = expand_list(name, "output_padding", std::move(op), n);
  TC_CHECK(in > 0 && out > 0, name, ": in_channels and out_channels must be positive, got ", in,
           " and ", out);
  TC_CHECK(g > 0 && in % g == 0 && out % g == 0, name, ": in_channels (", in,
           ") and out_channels (", out, ") must be divisible by groups (", g, ")");
  for (int i = 0; i < n; ++i)
    TC_CHECK(kernel_size[size_t(i)] > 0 && stride[size_t(i)] > 0 && dilation[size_t(i)] > 0 &&
                 padding[size_t(i)] >= 0,
             name,
             ": kernel_size, stride and dilation must be positive and padding non-negative, got "
             "kernel_size ",
             shape_str(kernel_size), ", stride ", shape_str(stride), ", dilation ",
             shape_str(dilation), ", padding ", shape_str(padding));
  TC_CHECK(padding_mode == "zeros" || padding_mode == "reflect" || padding_mode == "replicate" ||
               padding_mode == "circular",
           name, ": padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', got '",
           padding_mode, "'");
  TC_CHECK(!tr || padding_mode == "zeros", name, ": only 'zeros' padding_mode is supported, got '",
           padding_mode, "'");
  TC_CHECK(padding_string.empty() || padding_string == "same" || padding_string == "valid", name,
           ": padding must be numbers, 'same' or 'valid', got '", padding_string, "'");
  if (!padding_string.empty()) {
    padding.assign(size_t(n), 0);
    if (padding_string == "same")
      for (auto v : stride)
        TC_CHECK(v == 1, name,
                 ": padding='same' is not supported for strided convolutions (stride ",
                 shape_str(stride), ")");
  }
  Shape wshape = tr ? Shape{in, out / g} : Shape{out, in / g};
  for (auto v : kernel_size) wshape.push_back(v);
  weight = register_parameter("weight", empty(wshape));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  reset_parameters();
}

void ConvNdImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  init_bias_uniform(bias, init::calculate_fan_in_and_fan_out(weight).first);
}

void ConvNdImpl::check_input(const Tensor& x) const {
  TC_CHECK((x.dim() == spatial + 2 || x.dim() == spatial + 1) &&
               x.size(x.dim() - spatial - 1) == in_channels,
           name(), ": expected input of shape [N, ", in_channels, ", *] with ", spatial,
           " spatial dims, but got input of size ", shape_str(x.sizes()));
}

std::vector<int64_t> conv_transpose_output_padding(const std::string& name, const Shape& x,
                                                   const std::vector<int64_t>& output_size,
                                                   const std::vector<int64_t>& stride,
                                                   const std::vector<int64_t>& padding,
                                                   const std::vector<int64_t>& dilation,
                                                   const std::vector<int64_t>& kernel_size,
                                                   const std::vector<int64_t>& output_padding) {
  if (output_size.empty()) return output_padding;
  const int spatial = int(kernel_size.size());
  const int dims = int(x.size());
  TC_CHECK(int(output_size.size()) == spatial || int(output_size.size()) == dims, name,
           ": output_size must have ", spatial, " or ", dims, " entries, got ",
           shape_str(output_size));
  std::vector<int64_t> op(size_t(spatial), 0);
  for (int i = 0; i < spatial; ++i) {
    const size_t u = size_t(i);
    const int64_t in = x[size_t(dims - spatial + i)];
    const int64_t lo =
        (in - 1) * stride[u] - 2 * padding[u] + dilation[u] * (kernel_size[u] - 1) + 1;
    const int64_t hi = lo + std::max(stride[u], dilation[u]) - 1;
    const int64_t want = output_size[output_size.size() - size_t(spatial) + u];
    TC_CHECK(want >= lo && want <= hi, name, ": requested an output size of ",
             shape_str(output_size), ", but valid sizes of spatial dim ", i, " range from ", lo,
             " to ", hi, " (for an input of ", shape_str(x), ")");
    op[u] = want - lo;
  }
  return op;
}

Tensor ConvNdImpl::run(const Tensor& x, const IntList& output_size) const {
  namespace F = functional;
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
  // Non-zero modes pad the input first: (left, right) pairs from the last spatial dim, as F.pad.
  IntList pads;
  for (int i = spatial - 1; i >= 0; --i) {
    const size_t u = size_t(i);
    const int64_t total = same ? dilation[u] * (kernel_size[u] - 1) : 2 * padding[u];
    pads.push_back(total / 2);
    pads.push_back(total - total / 2);
  }
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
