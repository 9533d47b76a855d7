#include "tensorcore/nn/modules/pooling.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"

namespace tc::nn {

using namespace detail;
namespace F = functional;

// ---- Pooling / Flatten ----
MaxPool2dImpl::MaxPool2dImpl(IntList k, IntList s, IntList p, IntList d, bool c)
    : Module("MaxPool2d"),
      kernel_size(std::move(k)),
      stride(s.empty() ? kernel_size : std::move(s)),
      padding(std::move(p)),
      dilation(std::move(d)),
      ceil_mode(c) {
  check_pool_options(name(), 2, expand_list(name(), "kernel_size", kernel_size, 2),
                     expand_list(name(), "stride", stride, 2),
                     expand_list(name(), "padding", padding, 2),
                     expand_list(name(), "dilation", dilation, 2));
}

Tensor MaxPool2dImpl::forward(const Tensor& x) {
  return F::max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode);
}

std::pair<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& x) {
  return F::max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode);
}

void MaxPool2dImpl::pretty_print(std::ostream& os) const {
  os << "MaxPool2d(kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride)
     << ", padding=" << list_str(padding) << ", dilation=" << list_str(dilation)
     << ", ceil_mode=" << (ceil_mode ? "true" : "false") << ")";
}

AvgPool2dImpl::AvgPool2dImpl(IntList k, IntList s, IntList p, bool c, bool cip,
                             std::optional<int64_t> div)
    : Module("AvgPool2d"),
      kernel_size(std::move(k)),
      stride(s.empty() ? kernel_size : std::move(s)),
      padding(std::move(p)),
      ceil_mode(c),
      count_include_pad(cip),
      divisor_override(div) {
  check_pool_options(name(), 2, expand_list(name(), "kernel_size", kernel_size, 2),
                     expand_list(name(), "stride", stride, 2),
                     expand_list(name(), "padding", padding, 2), {1, 1});
  check_avg_pool_divisor(name(), div);
}

Tensor AvgPool2dImpl::forward(const Tensor& x) {
  return F::avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override);
}

void AvgPool2dImpl::pretty_print(std::ostream& os) const {
  os << "AvgPool2d(kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride)
     << ", padding=" << list_str(padding) << ")";
}

AdaptiveAvgPool2dImpl::AdaptiveAvgPool2dImpl(IntList o)
    : Module("AdaptiveAvgPool2d"), output_size(std::move(o)) {
  if (output_size.size() == 1) output_size.push_back(output_size[0]);
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& x) {
  return F::adaptive_avg_pool2d(x, output_size);
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& os) const {
  os << "AdaptiveAvgPool2d(output_size=" << list_str(output_size) << ")";
}

AdaptiveMaxPool2dImpl::AdaptiveMaxPool2dImpl(IntList o)
    : Module("AdaptiveMaxPool2d"), output_size(std::move(o)) {}

Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& x) { return forward_with_indices(x).first; }

std::pair<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& x) {
  return F::adaptive_max_pool2d_with_indices(x, output_size);
}

ModulePtr AdaptiveMaxPool2dImpl::clone() const {
  return with_state_of(std::make_shared<AdaptiveMaxPool2dImpl>(output_size), *this);
}

PoolNdImpl::PoolNdImpl(std::string type, int n, IntList k, IntList s, IntList p, IntList d, bool c)
    : Module(std::move(type)), spatial(n), ceil_mode(c) {
  kernel_size = expand_list(name(), "kernel_size", std::move(k), n);
  stride = s.empty() ? kernel_size : expand_list(name(), "stride", std::move(s), n);
  padding = expand_list(name(), "padding", std::move(p), n);
  dilation = expand_list(name(), "dilation", std::move(d), n);
  check_pool_options(name(), n, kernel_size, stride, padding, dilation);
}

void PoolNdImpl::check_input(const Tensor& x) const { check_rank(name(), spatial, x); }

void PoolNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride)
     << ", padding=" << list_str(padding);
  if (dilation != IntList(size_t(spatial), 1)) os << ", dilation=" << list_str(dilation);
  os << ", ceil_mode=" << (ceil_mode ? "true" : "false") << ")";
}

std::pair<Tensor, Tensor> MaxPoolNdImpl::forward_with_indices(const Tensor& x) {
  check_input(x);
  if (spatial == 1)
    return F::max_pool1d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode);
  if (spatial == 2)
    return F::max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode);
  return F::max_pool3d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor MaxPoolNdImpl::forward(const Tensor& x) { return forward_with_indices(x).first; }

ModulePtr MaxPoolNdImpl::clone() const {
  if (spatial == 1)
    return with_state_of(
        std::make_shared<MaxPool1dImpl>(kernel_size, stride, padding, dilation, ceil_mode), *this);
  return with_state_of(
      std::make_shared<MaxPool3dImpl>(kernel_size, stride, padding, dilation, ceil_mode), *this);
}

AvgPoolNdImpl::AvgPoolNdImpl(std::string type, int n, IntList k, IntList s, IntList p, bool c,
                             bool cip, std::optional<int64_t> div)
    : PoolNdImpl(std::move(type), n, std::move(k), std::move(s), std::move(p), {1}, c),
      count_include_pad(cip),
      divisor_override(div) {
  check_avg_pool_divisor(name(), div);
}

Tensor AvgPoolNdImpl::forward(const Tensor& x) {
  check_input(x);
  if (spatial == 1)
    return F::avg_pool1d(x, kernel_size, stride, padding, ceil_mode, count_include_pad);
  if (spatial == 2)
    return F::avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override);
  return F::avg_pool3d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override);
}

ModulePtr AvgPoolNdImpl::clone() const {
  if (spatial == 1)
    return with_state_of(
        std::make_shared<AvgPool1dImpl>(kernel_size, stride, padding, ceil_mode, count_include_pad),
        *this);
  return with_state_of(std::make_shared<AvgPool3dImpl>(kernel_size, stride, padding, ceil_mode,
                                                       count_include_pad, divisor_override),
                       *this);
}

AdaptivePoolNdImpl::AdaptivePoolNdImpl(std::string type, int n, bool m, IntList o)
    : Module(std::move(type)), spatial(n), max(m) {
  output_size = expand_list(name(), "output_size", std::move(o), n);
  for (auto v : output_size)
    TC_CHECK(v >= 0 || v == -1, name(),
             ": output_size entries must be non-negative (or -1 for the input size), got ",
             shape_str(output_size));
}

std::pair<Tensor, Tensor> AdaptivePoolNdImpl::forward_with_indices(const Tensor& x) {
  TC_CHECK(max, name(), ": forward_with_indices needs a max pool");
  check_rank(name(), spatial, x);
  if (spatial == 1) return F::adaptive_max_pool1d_with_indices(x, output_size);
  if (spatial == 2) return F::adaptive_max_pool2d_with_indices(x, output_size);
  return F::adaptive_max_pool3d_with_indices(x, output_size);
}

Tensor AdaptivePoolNdImpl::forward(const Tensor& x) {
  if (max) return forward_with_indices(x).first;
  check_rank(name(), spatial, x);
  if (spatial == 1) return F::adaptive_avg_pool1d(x, output_size);
  if (spatial == 2) return F::adaptive_avg_pool2d(x, output_size);
  return F::adaptive_avg_pool3d(x, output_size);
}

void AdaptivePoolNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(output_size=" << list_str(output_size) << ")";
}

ModulePtr AdaptivePoolNdImpl::clone() const {
  if (spatial == 1 && max)
    return with_state_of(std::make_shared<AdaptiveMaxPool1dImpl>(output_size), *this);
  if (spatial == 1)
    return with_state_of(std::make_shared<AdaptiveAvgPool1dImpl>(output_size), *this);
  if (max) return with_state_of(std::make_shared<AdaptiveMaxPool3dImpl>(output_size), *this);
  return with_state_of(std::make_shared<AdaptiveAvgPool3dImpl>(output_size), *this);
}

MaxUnpoolNdImpl::MaxUnpoolNdImpl(std::string type, int n, IntList k, IntList s, IntList p)
    : Module(std::move(type)), spatial(n) {
  kernel_size = expand_list(name(), "kernel_size", std::move(k), n);
  stride = s.empty() ? kernel_size : expand_list(name(), "stride", std::move(s), n);
  padding = expand_list(name(), "padding", std::move(p), n);
  for (int i = 0; i < n; ++i)
    TC_CHECK(kernel_size[size_t(i)] > 0 && stride[size_t(i)] > 0 && padding[size_t(i)] >= 0, name(),
             ": kernel_size and stride must be positive and padding non-negative, got kernel_size ",
             shape_str(kernel_size), ", stride ", shape_str(stride), ", padding ",
             shape_str(padding));
}

Tensor MaxUnpoolNdImpl::forward(const Tensor& x, const Tensor& indices,
                                const IntList& output_size) {
  check_rank(name(), spatial, x);
  TC_CHECK(indices.defined() && indices.sizes() == x.sizes(), name(),
           ": expected indices of the input's size ", shape_str(x.sizes()), ", but got ",
           indices.defined() ? shape_str(indices.sizes()) : std::string("none"));
  TC_CHECK_TYPE(indices.dtype() == DType::Int64, name(), ": expected int64 indices, got ",
                dtype_name(indices.dtype()));
  // torch also accepts the full output shape; keep its spatial tail.
  IntList size = output_size;
  if (int(size.size()) > spatial) size.erase(size.begin(), size.end() - spatial);
  if (spatial == 1) return F::max_unpool1d(x, indices, kernel_size, stride, padding, size);
  if (spatial == 2) return F::max_unpool2d(x, indices, kernel_size, stride, padding, size);
  return F::max_unpool3d(x, indices, kernel_size, stride, padding, size);
}

void MaxUnpoolNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(kernel_size=" << list_str(kernel_size) << ", stride=" << list_str(stride)
     << ", padding=" << list_str(padding) << ")";
}

ModulePtr MaxUnpoolNdImpl::clone() const {
  if (spatial == 1)
    return with_state_of(std::make_shared<MaxUnpool1dImpl>(kernel_size, stride, padding), *this);
  if (spatial == 2)
    return with_state_of(std::make_shared<MaxUnpool2dImpl>(kernel_size, stride, padding), *this);
  return with_state_of(std::make_shared<MaxUnpool3dImpl>(kernel_size, stride, padding), *this);
}

LPPoolNdImpl::LPPoolNdImpl(std::string type, int n, double p, IntList k, IntList s, bool c)
    : Module(std::move(type)), spatial(n), norm_type(p), ceil_mode(c) {
  check_lp_pool_options(name(), p);
  kernel_size = expand_list(name(), "kernel_size", std::move(k), n);
  stride = s.empty() ? kernel_size : expand_list(name(), "stride", std::move(s), n);
}

Tensor LPPoolNdImpl::forward(const Tensor& x) {
  check_rank(name(), spatial, x);
  return spatial == 1 ? F::lp_pool1d(x, norm_type, kernel_size, stride, ceil_mode)
                      : F::lp_pool2d(x, norm_type, kernel_size, stride, ceil_mode);
}

void LPPoolNdImpl::pretty_print(std::ostream& os) const {
  os << name() << "(norm_type=" << norm_type << ", kernel_size=" << list_str(kernel_size)
     << ", stride=" << list_str(stride) << ", ceil_mode=" << (ceil_mode ? "true" : "false") << ")";
}

ModulePtr LPPoolNdImpl::clone() const {
  if (spatial == 1)
    return with_state_of(std::make_shared<LPPool1dImpl>(norm_type, kernel_size, stride, ceil_mode),
                         *this);
  return with_state_of(std::make_shared<LPPool2dImpl>(norm_type, kernel_size, stride, ceil_mode),
                       *this);
}

ModulePtr MaxPool2dImpl::clone() const {
  return with_state_of(
      std::make_shared<MaxPool2dImpl>(kernel_size, stride, padding, dilation, ceil_mode), *this);
}

ModulePtr AvgPool2dImpl::clone() const {
  return with_state_of(std::make_shared<AvgPool2dImpl>(kernel_size, stride, padding, ceil_mode,
                                                       count_include_pad, divisor_override),
                       *this);
}

ModulePtr AdaptiveAvgPool2dImpl::clone() const {
  return with_state_of(std::make_shared<AdaptiveAvgPool2dImpl>(output_size), *this);
}

}  // namespace tc::nn
