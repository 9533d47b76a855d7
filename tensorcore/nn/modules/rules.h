#pragma once
// Constructor rules of the module families, shared by tc::nn's C++ modules and tensorcore.nn's
// Python ones (bound as tensorcore._C._nn_modules), so both frontends check, expand and word them
// once. Each check raises ValueError with torch 1.13's wording, prefixed by `name`, the module's
// class name.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn {

// Convolutions (Conv1d/2d/3d, ConvTranspose1d/2d/3d): groups positive and dividing both channel
// counts, padding_mode one of torch's four, a string padding 'same' (stride 1 only) or 'valid'
// (`padding_string` empty for numeric padding), transposed convolutions 'zeros' and numeric only;
// each list has `spatial` entries, kernel_size, stride and dilation positive, padding
// non-negative.
void check_conv_options(const std::string& name, int spatial, int64_t in_channels,
                        int64_t out_channels, int64_t groups,
                        const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                        const std::vector<int64_t>& output_padding,
                        const std::string& padding_string, const std::string& padding_mode,
                        bool transposed);

// The (left, right) amounts per spatial dim, last dim first (F.pad's order), with which a direct
// convolution with a non-'zeros' padding_mode pads its input: padding on both sides, or for
// 'same' dilation * (kernel_size - 1) split with the odd element at the end.
std::vector<int64_t> conv_reversed_padding(const std::vector<int64_t>& kernel_size,
                                           const std::vector<int64_t>& dilation,
                                           const std::vector<int64_t>& padding,
                                           const std::string& padding_string);

// A transposed convolution's output_padding for a requested output_size (its last `spatial`
// entries, or all when it has `spatial` entries): output_size minus the smallest reachable size,
// which must stay below max(stride, dilation). An empty output_size returns output_padding as is.
std::vector<int64_t> conv_transpose_output_padding(
    const std::string& name, const Shape& input_sizes, const std::vector<int64_t>& output_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& output_padding);

// BatchNorm*, InstanceNorm*, SyncBatchNorm: num_features non-negative.
void check_norm_options(const std::string& name, int64_t num_features);
// GroupNorm: num_groups positive and dividing num_channels.
void check_group_norm_options(int64_t num_groups, int64_t num_channels);
// LocalResponseNorm / CrossMapLRN2d: size positive.
void check_local_response_norm_options(const std::string& name, int64_t size);

// Max and average pooling: `spatial` entries each, kernel_size, stride and dilation positive,
// padding between 0 and half the kernel (torch's forward rule, checked at construction).
void check_pool_options(const std::string& name, int spatial,
                        const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation);
// AvgPool*: a divisor_override, when given, non-zero.
void check_avg_pool_divisor(const std::string& name, std::optional<int64_t> divisor_override);
// LPPool*: norm_type positive.
void check_lp_pool_options(const std::string& name, double norm_type);

// Embedding / EmbeddingBag: padding_idx within [-num_embeddings, num_embeddings), returned
// non-negative.
std::optional<int64_t> embedding_padding_idx(const std::string& name, int64_t num_embeddings,
                                             std::optional<int64_t> padding_idx);
// EmbeddingBag: mode 'sum', 'mean' or 'max'.
void check_embedding_bag_mode(const std::string& mode);

// Padding modules: one amount for every side or 2 * spatial amounts (left, right, top, ...);
// returns the 2 * spatial amounts.
std::vector<int64_t> expand_padding(const std::string& name, const std::vector<int64_t>& padding,
                                    int spatial);

// PixelShuffle (upscale_factor), PixelUnshuffle (downscale_factor), ChannelShuffle (groups):
// the factor positive.
void check_shuffle_factor(const std::string& name, const char* what, int64_t factor);

// PReLU: num_parameters positive.
void check_prelu_options(int64_t num_parameters);

// torch's default initialisation of Linear and the convolutions: kaiming_uniform_(weight,
// a=sqrt(5)), then the bias (when defined) U(-1/sqrt(fan_in), 1/sqrt(fan_in)), zero for fan_in 0.
void reset_linear_parameters(Tensor& weight, Tensor& bias);
// Embedding's: N(0, 1), the padding_idx row zeroed.
void reset_embedding_parameters(Tensor& weight, std::optional<int64_t> padding_idx);

}  // namespace tc::nn
