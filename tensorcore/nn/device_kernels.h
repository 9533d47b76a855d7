#pragma once
// Device kernel tables of the nn ops. The front ends (nn/<family>.cpp) check the arguments and do
// the host-side bookkeeping, then call `<name>_kernel.get(device)(...)`; no front end branches on
// the device. Two kinds of tables:
//  * hand-written kernels per device (grid_sample, embedding_bag, ctc_loss, pooling): the CPU
//    kernels register beside their front ends, the CUDA kernels from tensorcore/kernels/cuda/
//    (nn_ops.cu, pooling.cu);
//  * whole-op paths returning the result (normalization, recurrent gates, resampling, unfold /
//    fold, convolution): the CPU registers its native kernel with its autograd record, CUDA a
//    composition of core ops (nn/*_cuda.cpp, cuda_composites.h) or cuDNN (tensorcore/cudnn/).
// A device without a kernel (a build without CUDA) raises KernelTable's one clear error; nothing
// needs a stub.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/nn/grid_sample_point.h"

namespace tc::nn {

// x: contiguous (N, C, H, W), grid: contiguous (N, Ho, Wo, 2), float32/float64 on one device.
// out: (N, C, Ho, Wo).
using GridSampleForwardFn = void (*)(const Tensor& x, const Tensor& grid, const detail::GridGeom& g,
                                     const Tensor& out);
// gout: contiguous (N, C, Ho, Wo). gin: zero-filled like x (added to atomically) or undefined;
// ggrid: like grid (written) or undefined.
using GridSampleBackwardFn = void (*)(const Tensor& gout, const Tensor& x, const Tensor& grid,
                                      const detail::GridGeom& g, const Tensor& gin,
                                      const Tensor& ggrid);
// 5-d grid_sample: x (N, C, D, H, W), grid (N, Do, Ho, Wo, 3), contiguous. Forward when out is
// defined; else backward from gout (N, C, Do, Ho, Wo): gin zero-filled or undefined, ggrid
// written or undefined.
using GridSample3dFn = void (*)(const Tensor& x, const Tensor& grid, const Tensor& out,
                                const Tensor& gout, const Tensor& gin, const Tensor& ggrid,
                                const detail::GridGeom3& g);

// embedding_bag forward. weight: contiguous (V, D); idx: int64 (n,) on the weight's device;
// bag b covers entries [starts[b], ends[b]); entry j is skipped when idx[j] == pad and otherwise
// weighs scale[j] * (psw ? psw[j] : 1) (sum / mean), or competes for the max (max: out and
// max_idx (B, D) start at 0 / -1 and get the winning value / row). Host tables are uploaded.
using EmbeddingBagForwardFn = void (*)(const Tensor& weight, const Tensor& idx,
                                       const std::vector<int64_t>& starts,
                                       const std::vector<int64_t>& ends,
                                       const std::vector<double>& scale, const Tensor& psw,
                                       int64_t pad, bool max_mode, const Tensor& out,
                                       const Tensor& max_idx);

// max_norm: the rows of weight referenced by idx (int64, weight's device) whose norm_type-norm
// exceeds max_norm are scaled down to it, in place, without autograd.
using EmbeddingRenormFn = void (*)(const Tensor& weight, const Tensor& idx, double max_norm,
                                   double norm_type);

// ctc_loss on one device. lp: contiguous (T, N, C) log-probabilities; targets: int64 flattened,
// sample n's at offsets[n]; in_len / tg_len: int64 (N,). All int64 tables on lp's device.
// Forward writes nll (N,) and the log-space alpha (N, T, max_ext).
using CtcForwardFn = void (*)(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                              const Tensor& in_len, const Tensor& tg_len, int64_t blank,
                              int64_t max_ext, const Tensor& nll, const Tensor& alpha);
// Backward: grad (T, N, C) of nll w.r.t. lp times gout (N,) (the CPU kernel's exact derivative),
// from alpha and a beta recursion.
using CtcBackwardFn = void (*)(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                               const Tensor& in_len, const Tensor& tg_len, int64_t blank,
                               int64_t max_ext, const Tensor& nll, const Tensor& alpha,
                               const Tensor& gout, bool zero_infinity, const Tensor& grad);

// Pooling over contiguous [planes, D, H, W] (1-d and 2-d use size-1 leading axes).
struct PoolAxisParams {
  int64_t in = 1, out = 1, k = 1, s = 1, p = 0, d = 1;
};
struct PoolParams {
  int64_t planes = 0;
  PoolAxisParams axis[3];  // d, h, w (unused leading axes are 1 -> 1 identities)
  bool adaptive = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};
// y and idx (int64, flat per-plane input index) are preallocated outputs.
using MaxPoolForwardFn = void (*)(const Tensor& x, const Tensor& y, const Tensor& idx,
                                  const PoolParams& p);
// gx[plane][i] = sum of gy[plane][o] over the outputs o whose index is i.
using MaxPoolBackwardFn = void (*)(const Tensor& gy, const Tensor& idx, const Tensor& gx,
                                   const PoolParams& p);
using AvgPoolForwardFn = void (*)(const Tensor& x, const Tensor& y, const PoolParams& p);
using AvgPoolBackwardFn = void (*)(const Tensor& gy, const Tensor& gx, const PoolParams& p);

// ---- whole-op paths ----
// layer_norm over the trailing `normalized_dims` dims; group_norm; batch_norm (updates the
// running stats in place when training). Inputs are checked and non-empty (batch_norm: any size).
using LayerNormFn = Tensor (*)(const Tensor& input, int64_t normalized_dims, const Tensor& weight,
                               const Tensor& bias, double eps);
using GroupNormFn = Tensor (*)(const Tensor& input, int64_t num_groups, const Tensor& weight,
                               const Tensor& bias, double eps);
using BatchNormFn = Tensor (*)(const Tensor& input, const Tensor& running_mean,
                               const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                               bool training, double momentum, double eps);
// Recurrent gates, torch's gate order. LSTM: gi, gh [N, 4H], c [N, H] -> {h', c'};
// GRU: gi, gh [N, 3H], h [N, H] -> h'.
using LstmGatesFn = std::pair<Tensor, Tensor> (*)(const Tensor& gi, const Tensor& gh,
                                                  const Tensor& c);
using GruGatesFn = Tensor (*)(const Tensor& gi, const Tensor& gh, const Tensor& h);

namespace detail {
struct ConvGeometry;
struct Geo3;
// interpolate's separable resampling of one dim: output position o reads input positions
// idx[o * k + j] with weights w[o * k + j] (the front end's tap tables, the same on every device).
struct ResampleTaps {
  int64_t in = 0, out = 0, k = 0;
  std::vector<int64_t> idx;  // [out, k]
  std::vector<double> w;     // [out, k]
};
}  // namespace detail
using ResampleFn = Tensor (*)(const Tensor& x, const std::shared_ptr<const detail::ResampleTaps>& t,
                              int64_t dim);
// unfold: x [N, C, H, W] -> [N, C * kh * kw, L]; fold: cols -> [N, C, H, W] (2-d geometry in
// g's h/w axes).
using UnfoldFn = Tensor (*)(const Tensor& x, const detail::Geo3& g);
using FoldFn = Tensor (*)(const Tensor& cols, int64_t channels, const detail::Geo3& g);
// Convolution without autograd (conv.cpp records it): forward, data and weight gradients.
using ConvForwardFn = Tensor (*)(const Tensor& x, const Tensor& w, const Tensor& b,
                                 const detail::ConvGeometry& g);
using ConvBackwardDataFn = Tensor (*)(const Tensor& gy, const Tensor& w,
                                      const detail::ConvGeometry& g);
using ConvBackwardWeightFn = Tensor (*)(const Tensor& x, const Tensor& gy,
                                        const detail::ConvGeometry& g);

TC_DECLARE_KERNEL(grid_sample_forward, GridSampleForwardFn);
TC_DECLARE_KERNEL(grid_sample_backward, GridSampleBackwardFn);
TC_DECLARE_KERNEL(grid_sample3d, GridSample3dFn);
TC_DECLARE_KERNEL(embedding_bag_forward, EmbeddingBagForwardFn);
TC_DECLARE_KERNEL(embedding_renorm, EmbeddingRenormFn);
TC_DECLARE_KERNEL(ctc_forward, CtcForwardFn);
TC_DECLARE_KERNEL(ctc_backward, CtcBackwardFn);
TC_DECLARE_KERNEL(max_pool_forward, MaxPoolForwardFn);
TC_DECLARE_KERNEL(max_pool_backward, MaxPoolBackwardFn);
TC_DECLARE_KERNEL(avg_pool_forward, AvgPoolForwardFn);
TC_DECLARE_KERNEL(avg_pool_backward, AvgPoolBackwardFn);
TC_DECLARE_KERNEL(layer_norm, LayerNormFn);
TC_DECLARE_KERNEL(group_norm, GroupNormFn);
TC_DECLARE_KERNEL(batch_norm, BatchNormFn);
TC_DECLARE_KERNEL(lstm_gates, LstmGatesFn);
TC_DECLARE_KERNEL(gru_gates, GruGatesFn);
TC_DECLARE_KERNEL(resample, ResampleFn);
TC_DECLARE_KERNEL(unfold, UnfoldFn);
TC_DECLARE_KERNEL(fold, FoldFn);
TC_DECLARE_KERNEL(conv_forward, ConvForwardFn);
TC_DECLARE_KERNEL(conv_backward_data, ConvBackwardDataFn);
TC_DECLARE_KERNEL(conv_backward_weight, ConvBackwardWeightFn);

}  // namespace tc::nn
