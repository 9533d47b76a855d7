#pragma once
// tc::nn::functional: the native kernels behind tensorcore.nn.functional, with
// torch.nn.functional's names, argument order and defaults. Every op records autograd.
// Spatial parameters take one value (used for every dim) or one per spatial dim.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn::functional {

using IntList = std::vector<int64_t>;

// Convolution. Inputs [N, C, *spatial] (or unbatched [C, *spatial]), weight [O, C/groups, *k].
// float32 runs through oneDNN, float64 (and anything oneDNN declines) through im2col + GEMM.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              const IntList& stride = {1}, const IntList& padding = {0},
              const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              const IntList& stride = {1}, const IntList& padding = {0},
              const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              const IntList& stride = {1}, const IntList& padding = {0},
              const IntList& dilation = {1}, int64_t groups = 1);
// padding "same" (stride 1 only; odd total padding puts the extra element at the end) or "valid".
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const std::string& padding, const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const std::string& padding, const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const std::string& padding, const IntList& dilation = {1}, int64_t groups = 1);
// Weight [C_in, C_out/groups, *k].
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        const IntList& stride = {1}, const IntList& padding = {0},
                        const IntList& output_padding = {0}, int64_t groups = 1,
                        const IntList& dilation = {1});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        const IntList& stride = {1}, const IntList& padding = {0},
                        const IntList& output_padding = {0}, int64_t groups = 1,
                        const IntList& dilation = {1});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        const IntList& stride = {1}, const IntList& padding = {0},
                        const IntList& output_padding = {0}, int64_t groups = 1,
                        const IntList& dilation = {1});

}  // namespace tc::nn::functional
