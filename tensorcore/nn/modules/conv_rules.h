#pragma once
// Rules of the convolution modules shared by tc::nn's ConvNd modules and tensorcore.nn's Python
// ones (through tensorcore._C._nn_modules), so both frontends compute and word them once.
#include <cstdint>
#include <string>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn {

// A transposed convolution's output_padding for a requested output_size (its last `spatial`
// entries, or all when it has `spatial` entries): output_size minus the smallest reachable size,
// which must stay below max(stride, dilation). An empty output_size returns output_padding as is.
// `name` prefixes the error message.
std::vector<int64_t> conv_transpose_output_padding(
    const std::string& name, const Shape& input_sizes, const std::vector<int64_t>& output_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& output_padding);

}  // namespace tc::nn
