#pragma once
// Device kernel tables of the nn ops whose kernels are hand-written per device rather than core
// ops or cuDNN calls: grid_sample, embedding_bag, ctc_loss and pooling. The front ends
// (grid_sample.cpp, embedding.cpp, ctc.cpp, pooling.cpp) check the arguments and do the host-side
// bookkeeping, then call `<name>_kernel.get(device)(...)`; the CUDA kernels register from
// tensorcore/kernels/cuda/ (nn_ops.cu, pooling.cu). A device without a kernel (a build without
// CUDA) raises KernelTable's one clear error; nothing needs a stub.
#include <cstdint>
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

TC_DECLARE_KERNEL(grid_sample_forward, GridSampleForwardFn);
TC_DECLARE_KERNEL(grid_sample_backward, GridSampleBackwardFn);
TC_DECLARE_KERNEL(grid_sample3d, GridSample3dFn);
TC_DECLARE_KERNEL(embedding_bag_forward, EmbeddingBagForwardFn);
TC_DECLARE_KERNEL(ctc_forward, CtcForwardFn);
TC_DECLARE_KERNEL(ctc_backward, CtcBackwardFn);
TC_DECLARE_KERNEL(max_pool_forward, MaxPoolForwardFn);
TC_DECLARE_KERNEL(max_pool_backward, MaxPoolBackwardFn);
TC_DECLARE_KERNEL(avg_pool_forward, AvgPoolForwardFn);
TC_DECLARE_KERNEL(avg_pool_backward, AvgPoolBackwardFn);

}  // namespace tc::nn
