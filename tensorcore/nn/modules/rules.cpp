#include "tensorcore/nn/modules/rules.h"

#include <algorithm>
#include <cmath>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/core/error.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/tuple_str.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {

namespace {

using IntList = std::vector<int64_t>;

void check_entries(const std::string& name, const char* what, const IntList& v, int n) {
  TC_CHECK(int(v.size()) == n, name, ": ", what, " needs 1 or ", n, " values, got ", v.size());
}

}  // namespace

void check_conv_options(const std::string& name, int spatial, int64_t in, int64_t out,
                        int64_t groups, const IntList& kernel_size, const IntList& stride,
                        const IntList& padding, const IntList& dilation,
                        const IntList& output_padding, const std::string& padding_string,
                        const std::string& padding_mode, bool transposed) {
  // torch's order: the transposed modules' own checks run before the common ones.
  if (transposed) {
    TC_CHECK(padding_mode == "zeros", "Only \"zeros\" padding mode is supported for ", name);
    TC_CHECK(padding_string.empty(), name, ": string padding is not supported");
  }
  TC_CHECK(groups > 0, name, ": groups must be a positive integer, got ", groups);
  TC_CHECK(in % groups == 0, name, ": in_channels (", in, ") must be divisible by groups (", groups,
           ")");
  TC_CHECK(out % groups == 0, name, ": out_channels (", out, ") must be divisible by groups (",
           groups, ")");
  TC_CHECK(padding_mode == "zeros" || padding_mode == "reflect" || padding_mode == "replicate" ||
               padding_mode == "circular",
           name, ": padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', ",
           "got '", padding_mode, "'");
  TC_CHECK(padding_string.empty() || padding_string == "same" || padding_string == "valid", name,
           ": invalid padding string '", padding_string, "', should be one of 'valid', 'same'");
  check_entries(name, "kernel_size", kernel_size, spatial);
  check_entries(name, "stride", stride, spatial);
  check_entries(name, "padding", padding, spatial);
  check_entries(name, "dilation", dilation, spatial);
  check_entries(name, "output_padding", output_padding, spatial);
  if (padding_string == "same")
    TC_CHECK(std::all_of(stride.begin(), stride.end(), [](int64_t s) { return s == 1; }), name,
             ": padding='same' is not supported for strided convolutions");
  for (int i = 0; i < spatial; ++i) {
    const size_t u = size_t(i);
    TC_CHECK(kernel_size[u] > 0 && stride[u] > 0 && dilation[u] > 0 && padding[u] >= 0, name,
             ": kernel_size, stride and dilation must be positive and padding non-negative, got "
             "kernel_size ",
             tuple_str(kernel_size), ", stride ", tuple_str(stride), ", dilation ",
             tuple_str(dilation), ", padding ", tuple_str(padding));
  }
}

IntList conv_reversed_padding(const IntList& kernel_size, const IntList& dilation,
                              const IntList& padding, const std::string& padding_string) {
  const bool same = padding_string == "same";
  IntList pads;
  for (size_t i = kernel_size.size(); i-- > 0;) {
    const int64_t total = same ? dilation[i] * (kernel_size[i] - 1) : 2 * padding[i];
    pads.push_back(total / 2);
    pads.push_back(total - total / 2);
  }
  return pads;
}

IntList conv_transpose_output_padding(const std::string& name, const Shape& x,
                                      const IntList& output_size, const IntList& stride,
                                      const IntList& padding, const IntList& dilation,
                                      const IntList& kernel_size, const IntList& output_padding) {
  if (output_size.empty()) return output_padding;
  const int spatial = int(kernel_size.size());
  const int dims = int(x.size());
  TC_CHECK(int(output_size.size()) == spatial || int(output_size.size()) == dims, name,
           ": output_size must have ", spatial, " or ", dims, " entries, got ",
           shape_str(output_size));
  IntList op(size_t(spatial), 0);
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

void check_norm_options(const std::string& name, int64_t num_features) {
  TC_CHECK(num_features >= 0, name, ": num_features must be non-negative, got ", num_features);
}

void check_group_norm_options(int64_t num_groups, int64_t num_channels) {
  TC_CHECK(num_groups > 0 && num_channels % num_groups == 0, "GroupNorm: num_channels (",
           num_channels, ") must be divisible by num_groups (", num_groups, ")");
}

void check_local_response_norm_options(const std::string& name, int64_t size) {
  TC_CHECK(size > 0, name, ": size must be positive, got ", size);
}

void check_pool_options(const std::string& name, int spatial, const IntList& kernel_size,
                        const IntList& stride, const IntList& padding, const IntList& dilation) {
  check_entries(name, "kernel_size", kernel_size, spatial);
  check_entries(name, "stride", stride, spatial);
  check_entries(name, "padding", padding, spatial);
  check_entries(name, "dilation", dilation, spatial);
  for (int i = 0; i < spatial; ++i) {
    const size_t u = size_t(i);
    TC_CHECK(kernel_size[u] > 0 && stride[u] > 0 && dilation[u] > 0, name,
             ": kernel_size, stride and dilation must be positive, got kernel_size ",
             tuple_str(kernel_size), ", stride ", tuple_str(stride), ", dilation ",
             tuple_str(dilation));
    // torch's forward rule: at most half of the dilated kernel.
    TC_CHECK(padding[u] >= 0 && padding[u] <= ((kernel_size[u] - 1) * dilation[u] + 1) / 2, name,
             ": padding should be at most half of the kernel size, got padding ",
             tuple_str(padding), " and kernel_size ", tuple_str(kernel_size));
  }
}

void check_avg_pool_divisor(const std::string& name, std::optional<int64_t> divisor_override) {
  TC_CHECK(!divisor_override || *divisor_override != 0, name,
           ": divisor_override must be non-zero");
}

void check_lp_pool_options(const std::string& name, double norm_type) {
  TC_CHECK(norm_type > 0, name, ": norm_type must be positive, got ", norm_type);
}

std::optional<int64_t> embedding_padding_idx(const std::string& name, int64_t num_embeddings,
                                             std::optional<int64_t> padding_idx) {
  if (!padding_idx) return padding_idx;
  const int64_t p = *padding_idx;
  TC_CHECK(p >= -num_embeddings && p < num_embeddings, name, ": padding_idx (", p,
           ") must be within num_embeddings (", num_embeddings, ")");
  return p < 0 ? p + num_embeddings : p;
}

void check_embedding_bag_mode(const std::string& mode) {
  TC_CHECK(mode == "sum" || mode == "mean" || mode == "max",
           "EmbeddingBag: mode must be 'sum', 'mean' or 'max', got '", mode, "'");
}

IntList expand_padding(const std::string& name, const IntList& padding, int spatial) {
  const size_t n = size_t(2 * spatial);
  if (padding.size() == 1) return IntList(n, padding[0]);
  TC_CHECK(padding.size() == n, name, ": padding must be an int or a ", n, "-tuple, got ",
           tuple_str(padding));
  return padding;
}

void check_shuffle_factor(const std::string& name, const char* what, int64_t factor) {
  TC_CHECK(factor > 0, name, ": ", what, " must be positive, got ", factor);
}

void check_prelu_options(int64_t num_parameters) {
  TC_CHECK(num_parameters > 0, "PReLU: num_parameters must be positive, got ", num_parameters);
}

void reset_linear_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
  init::uniform_(bias, -bound, bound);
}

void reset_embedding_parameters(Tensor& weight, std::optional<int64_t> padding_idx) {
  init::normal_(weight);
  if (!padding_idx) return;
  autograd::NoGradGuard guard;
  Tensor row = select(weight, 0, *padding_idx);
  zero_(row);
}

}  // namespace tc::nn
