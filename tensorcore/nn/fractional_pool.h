#pragma once
// Fractional max pooling (Graham 2014) with torch's window placement: in each spatial dimension
// the windows of kernel_size start at positions floor((i + u) * alpha) - floor(u * alpha),
// alpha = (in - k) / (out - 1), from one random u in [0, 1) per (sample, channel, dimension);
// the last window ends at the border. Same samples, same windows and results as torch.
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn::functional {

// input (N, C, H, W) or (C, H, W); exactly one of output_size / output_ratio (in (0, 1)) is
// given; random_samples (N, C, 2) in the input's dtype, drawn when undefined. Returns the
// maxima and their flat indices within each input plane (h * W + w).
std::pair<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& output_size, const std::vector<double>& output_ratio,
    const Tensor& random_samples = {});

// The same over (N, C, T, H, W) or (C, T, H, W); flat indices t * H * W + h * W + w.
std::pair<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& output_size, const std::vector<double>& output_ratio,
    const Tensor& random_samples = {});

}  // namespace tc::nn::functional
