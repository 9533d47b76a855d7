#pragma once
// tc::nn::functional: the native kernels behind tensorcore.nn.functional, with
// torch.nn.functional's names, argument order and defaults. Every op records autograd.
// Spatial parameters take one value (used for every dim) or one per spatial dim.
#include <functional>
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
// (const char*, not std::string, so that a braced `{1}` padding is never ambiguous.)
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const char* padding, const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const char* padding, const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const char* padding, const IntList& dilation = {1}, int64_t groups = 1);
// The fused form tc.jit.freeze writes for conv -> add -> relu chains: relu?(conv(x) + residual).
// residual_mode says which add it replaces: 0 `conv(x) + residual` (no residual: 0), 1
// `conv(x) += residual`, 2 `residual += conv(x)` (the result is `residual`, updated in place, as
// the in-place add did). On the CPU for float32/bfloat16 without autograd the add and ReLU run
// inside the convolution; otherwise the ops run one after another, with the same results.
// channels_last asks for a 2-d convolution's output in NHWC memory (same sizes and values) where
// oneDNN computes it: freeze sets it where only such convolutions and pooling read the output.
Tensor conv_fused(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const IntList& stride, const IntList& padding, const IntList& dilation,
                  int64_t groups, const Tensor& residual, int64_t residual_mode, bool relu,
                  bool channels_last = false);
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

// Pooling. An empty stride means stride = kernel_size. Indices are flat per (H*W) plane.
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                  const IntList& stride = {},
                                                  const IntList& padding = {0},
                                                  const IntList& dilation = {1},
                                                  bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                  const IntList& stride = {},
                                                  const IntList& padding = {0},
                                                  const IntList& dilation = {1},
                                                  bool ceil_mode = false);
Tensor max_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, const IntList& dilation = {1},
                  bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, const IntList& dilation = {1},
                  bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                  const IntList& stride = {},
                                                  const IntList& padding = {0},
                                                  const IntList& dilation = {1},
                                                  bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, const IntList& dilation = {1},
                  bool ceil_mode = false);
Tensor avg_pool3d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, bool ceil_mode = false,
                  bool count_include_pad = true, std::optional<int64_t> divisor_override = {});
Tensor adaptive_avg_pool3d(const Tensor& input, const IntList& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                           const IntList& output_size);
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride = {}, const IntList& padding = {0},
                    const IntList& output_size = {});
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride = {}, const IntList& padding = {0},
                    const IntList& output_size = {});
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const IntList& kernel_size,
                    const IntList& stride = {}, const IntList& padding = {0},
                    const IntList& output_size = {});
Tensor avg_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, bool ceil_mode = false,
                  bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, bool ceil_mode = false,
                  bool count_include_pad = true, std::optional<int64_t> divisor_override = {});
// output_size entries of -1 keep the input size (torch's None).
Tensor adaptive_avg_pool1d(const Tensor& input, const IntList& output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, const IntList& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                           const IntList& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                           const IntList& output_size);

// Normalization (fused kernels; weight/bias optional).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
Tensor instance_norm(const Tensor& input, const Tensor& running_mean = {},
                     const Tensor& running_var = {}, const Tensor& weight = {},
                     const Tensor& bias = {}, bool use_input_stats = true, double momentum = 0.1,
                     double eps = 1e-5);
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4,
                           double beta = 0.75, double k = 1.0);

// CTC loss. log_probs (T, N, C) or (T, C); targets padded (N, S) or concatenated
// (sum(target_lengths),); lengths are integer tensors with one entry per sample.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0,
                const std::string& reduction = "mean", bool zero_infinity = false);

// Losses (torch.nn.functional's loss functions). reduction: "mean" | "sum" | "none". All but
// ctc_loss and the fused cross entropy are tensor-op composites, so autograd (and double
// backward) comes from the core ops.
// input [N, C, *] log-probabilities, target int64 [N, *]; weight [C] optional.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                int64_t ignore_index = -100, const std::string& reduction = "mean");
// The fused kernel behind cross_entropy for float32/float64 CPU input with class-index targets
// (same arguments and results; double backward works).
Tensor cross_entropy_fused(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                           int64_t ignore_index = -100, const std::string& reduction = "mean",
                           double label_smoothing = 0.0);
// input [N, C, *] logits (or unbatched [C]); target int64 class indices [N, *] or floating class
// probabilities of the input's shape; label_smoothing in [0, 1].
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                     int64_t ignore_index = -100, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = {},
                                        const std::string& reduction = "mean",
                                        const Tensor& pos_weight = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const std::string& reduction = "mean", double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
// Probabilities in [0, 1]; the logs are clamped at -100 like torch.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            const std::string& reduction = "mean");
// input holds log-probabilities; reduction also "batchmean" (sum / batch size).
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, const std::string& reduction = "mean");
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, const std::string& reduction = "mean");
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2.0, double eps = 1e-6,
                           bool swap = false, const std::string& reduction = "mean");
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true,
                        bool full = false, double eps = 1e-8,
                        const std::string& reduction = "mean");
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         bool full = false, double eps = 1e-6,
                         const std::string& reduction = "mean");

// ---- Losses, continued (nn/loss_margin.cpp). Every loss of torch.nn.functional has its one
// implementation here; tensorcore.nn.functional binds these (python/src/nn_losses.cpp).
// torch's deprecated size_average/reduce flags as a reduction string (unset flags count as true;
// both unset: `reduction` unchanged).
std::string legacy_reduction(std::optional<bool> size_average, std::optional<bool> reduce,
                             const std::string& reduction = "mean");
// target == 1: input; target == -1: max(0, margin - input) (other values: both terms, as torch).
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            const std::string& reduction = "mean");
// log(1 + exp(-target * input)).
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const std::string& reduction = "mean");
// Per sample: mean over classes of the (weighted) binary logistic loss; input/target [N, C].
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const Tensor& weight = {},
                                   const std::string& reduction = "mean");
// Multi-class hinge: sum_{i != y} max(0, margin - x[y] + x[i])^p * w[y] / C; p is 1 or 2;
// input [N, C] or [C], target int64 [N] or 0-d.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1,
                         double margin = 1.0, const Tensor& weight = {},
                         const std::string& reduction = "mean");
// Multi-label hinge; target [N, C] (or [C]) holds class indices up to the first -1.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const std::string& reduction = "mean");
using DistanceFunction = std::function<Tensor(const Tensor&, const Tensor&)>;
// max(0, margin + d(a, p) - d(a, n)) with d = distance_function (empty: pairwise_distance);
// margin must be > 0.
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive,
                                         const Tensor& negative,
                                         const DistanceFunction& distance_function = {},
                                         double margin = 1.0, bool swap = false,
                                         const std::string& reduction = "mean");
// ---- end of the losses block

// Recurrent cells (torch._VF.*_cell). Gate order as torch: LSTM (i, f, g, o), GRU (r, z, n).
// Undefined hidden/cell states mean zeros.
std::pair<Tensor, Tensor> lstm_cell(const Tensor& input, const Tensor& h, const Tensor& c,
                                    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih = {},
                                    const Tensor& b_hh = {});
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih = {}, const Tensor& b_hh = {});
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = {}, const Tensor& b_hh = {});
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = {}, const Tensor& b_hh = {});

// interpolate with the output size already resolved (tensorcore.nn.functional.interpolate does
// torch's size/scale_factor handling in Python). scales: per spatial dim, the user's
// scale_factor (used for the coordinate mapping as torch does) or empty.
Tensor interpolate_to_size(const Tensor& input, const IntList& size, const std::string& mode,
                           bool align_corners = false, const std::vector<double>& scales = {},
                           bool antialias = false);
// interpolate_to_size with the size of ref's trailing (input.dim() - 2) dims.
Tensor interpolate_like(const Tensor& input, const Tensor& ref, const std::string& mode,
                        bool align_corners = false);

// pad: `pad` lists (left, right) pairs starting from the last dim; constant padding may be
// negative (cropping).
Tensor pad(const Tensor& input, const IntList& pad, const std::string& mode = "constant",
           double value = 0.0);
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
// im2col / col2im on 4-d (or unbatched 3-d / 2-d) inputs.
Tensor unfold(const Tensor& input, const IntList& kernel_size, const IntList& dilation = {1},
              const IntList& padding = {0}, const IntList& stride = {1});
Tensor fold(const Tensor& input, const IntList& output_size, const IntList& kernel_size,
            const IntList& dilation = {1}, const IntList& padding = {0},
            const IntList& stride = {1});

// Embedding lookup; max_norm renormalizes the referenced weight rows in place.
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx = {},
                 std::optional<double> max_norm = {}, double norm_type = 2.0,
                 bool scale_grad_by_freq = false);
// Returns (output [B, D], bag offsets, bag sizes, max indices (mode='max')).
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& input, const Tensor& weight, const Tensor& offsets = {},
    std::optional<double> max_norm = {}, double norm_type = 2.0, bool scale_grad_by_freq = false,
    const std::string& mode = "mean", const Tensor& per_sample_weights = {},
    bool include_last_offset = false, std::optional<int64_t> padding_idx = {});

// grid_sample on 4-d inputs (mode bilinear|nearest|bicubic) or 5-d inputs (bilinear = trilinear,
// nearest); padding_mode zeros|border|reflection.
Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode = "bilinear",
                   const std::string& padding_mode = "zeros", bool align_corners = false);
// theta [N, 2, 3] with size (N, C, H, W), or [N, 3, 4] with size (N, C, D, H, W).
Tensor affine_grid(const Tensor& theta, const IntList& size, bool align_corners = false);

// One recurrent layer over a sequence (T, N, input_size), one direction (reverse=true runs
// from the last step): all input projections in one GEMM, then hidden GEMM + fused gates per
// step. Returns (output (T, N, H), h_T[, c_T]). Multi-layer/bidirectional stacks compose these.
// LSTM projections (torch's proj_size): w_hr [P, H], h_t = W_hr (o_t * tanh(c_t)) has P
// features (w_hh is then [4H, P], h0 [N, P]); output (T, N, P).
std::tuple<Tensor, Tensor, Tensor> lstm_layer(const Tensor& input, const Tensor& h0,
                                              const Tensor& c0, const Tensor& w_ih,
                                              const Tensor& w_hh, const Tensor& b_ih = {},
                                              const Tensor& b_hh = {}, bool reverse = false,
                                              const Tensor& w_hr = {});
// The same layers over a packed batch (PackedSequence's data [sum(batch_sizes), input_size] and
// batch_sizes: sequences sorted by decreasing length, batch_sizes[t] of them active at step t).
// Returns (packed output [sum(batch_sizes), H or P], h_n [N, ·][, c_n]) where h_n/c_n are each
// sequence's state after its own last step (reverse: after step 0). h0/c0 in the packed order.
std::tuple<Tensor, Tensor, Tensor> lstm_layer_packed(
    const Tensor& data, const std::vector<int64_t>& batch_sizes, const Tensor& h0, const Tensor& c0,
    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih = {}, const Tensor& b_hh = {},
    bool reverse = false, const Tensor& w_hr = {});
std::pair<Tensor, Tensor> gru_layer_packed(const Tensor& data,
                                           const std::vector<int64_t>& batch_sizes,
                                           const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                                           const Tensor& b_ih = {}, const Tensor& b_hh = {},
                                           bool reverse = false);
std::pair<Tensor, Tensor> rnn_layer_packed(const Tensor& data,
                                           const std::vector<int64_t>& batch_sizes,
                                           const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                                           const Tensor& b_ih = {}, const Tensor& b_hh = {},
                                           const std::string& nonlinearity = "tanh",
                                           bool reverse = false);
std::pair<Tensor, Tensor> gru_layer(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                    const Tensor& w_hh, const Tensor& b_ih = {},
                                    const Tensor& b_hh = {}, bool reverse = false);
// Elman RNN layer, h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act "tanh" or "relu".
std::pair<Tensor, Tensor> rnn_layer(const Tensor& input, const Tensor& h0, const Tensor& w_ih,
                                    const Tensor& w_hh, const Tensor& b_ih = {},
                                    const Tensor& b_hh = {},
                                    const std::string& nonlinearity = "tanh", bool reverse = false);

// Dropout (default generator). feature_* drop whole (N, C) maps (dropout1d/2d/3d);
// alpha_* keep SELU's mean and variance. training=false or p=0 returns the input itself.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor feature_dropout(const Tensor& input, double p = 0.5, bool training = true,
                       bool inplace = false);
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false,
                     bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false,
                             bool inplace = false);

// ---- torch.nn.functional's non-loss ops: the one implementation behind tensorcore.nn.functional
// (python/src/nn_functional.cpp binds them with torch's names and keywords). Each checks its
// arguments with torch 1.13's rules and carries torch's autocast policy. `inplace` writes the
// result into `x` and returns `x` (torch's inplace=True; backward still sees the original values).

// weight [out, in] (or 1-d [in]: a dot product over the last dim).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});
// y_k = x1^T W_k x2 + b_k over the last dims; weight [out, in1, in2].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {});

Tensor relu(const Tensor& x, bool inplace = false);
Tensor relu6(const Tensor& x, bool inplace = false);
Tensor threshold(const Tensor& x, double threshold, double value, bool inplace = false);
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0, bool inplace = false);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01, bool inplace = false);
Tensor elu(const Tensor& x, double alpha = 1.0, bool inplace = false);
Tensor selu(const Tensor& x, bool inplace = false);
Tensor celu(const Tensor& x, double alpha = 1.0, bool inplace = false);
// training: negative inputs scaled by a slope drawn from U(lower, upper) per element (default
// generator); eval: the fixed slope (lower + upper) / 2.
Tensor rrelu(const Tensor& x, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
             bool inplace = false);
Tensor silu(const Tensor& x, bool inplace = false);
Tensor mish(const Tensor& x, bool inplace = false);
Tensor hardswish(const Tensor& x, bool inplace = false);
Tensor hardsigmoid(const Tensor& x, bool inplace = false);
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
// weight: 1 value, or 1-d with one value per channel (dim 1).
Tensor prelu(const Tensor& x, const Tensor& weight);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor softsign(const Tensor& x);
Tensor tanhshrink(const Tensor& x);
Tensor hardshrink(const Tensor& x, double lambd = 0.5);
Tensor softshrink(const Tensor& x, double lambd = 0.5);
Tensor logsigmoid(const Tensor& x);
Tensor glu(const Tensor& input, int64_t dim = -1);

// dtype: the input is converted to it first (torch's dtype=; autocast then leaves it alone).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = {});
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = {});
Tensor softmin(const Tensor& x, int64_t dim, std::optional<DType> dtype = {});
// torch's dim for the legacy softmax(x) call without dim: 0 for 0-, 1- and 3-d inputs, else 1.
int64_t legacy_softmax_dim(int64_t ndim);
// softmax((logits + Gumbel noise) / tau); hard: one-hot of the argmax with the soft gradient.
// eps is accepted for torch's signature and unused (deprecated there).
Tensor gumbel_softmax(const Tensor& logits, double tau = 1.0, bool hard = false, double eps = 1e-10,
                      int64_t dim = -1);

// torch 1.13's dropout1d (2-d or 3-d input), dropout2d (3-d input taken as (N, C, L); other ranks
// of at least 2 drop along dims 0 and 1, deprecated there) and dropout3d (4-d or 5-d; other ranks
// likewise).
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);

// int64 class indices -> int64 [*, num_classes] (num_classes -1: max + 1).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);
// The p-norm distances between the rows of a 2-d input, upper triangle row by row
// (n * (n - 1) / 2 values).
Tensor pdist(const Tensor& input, double p = 2.0);
// (N, g*c, *) -> (N, c*g, *): the group and per-group channel axes transposed.
Tensor channel_shuffle(const Tensor& input, int64_t groups);
// torch's interpolate: exactly one of size (1 or one per spatial dim) and scale_factor; the output
// is floor(in * scale) and the coordinate mapping uses the given scale unless
// recompute_scale_factor. align_corners only for linear modes.
Tensor interpolate(const Tensor& input, const IntList& size = {},
                   const std::vector<double>& scale_factor = {},
                   const std::string& mode = "nearest", std::optional<bool> align_corners = {},
                   bool recompute_scale_factor = false, bool antialias = false);

// softmax(Q K^T * scale + mask) V; a bool attn_mask marks the positions that may attend (true).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = {});

// (sum over the window of x^p)^(1/p), as torch: avg_pool of x^p times the window size (no padding).
Tensor lp_pool1d(const Tensor& x, double norm_type, const IntList& kernel_size,
                 const IntList& stride = {}, bool ceil_mode = false);
Tensor lp_pool2d(const Tensor& x, double norm_type, const IntList& kernel_size,
                 const IntList& stride = {}, bool ceil_mode = false);

}  // namespace tc::nn::functional
