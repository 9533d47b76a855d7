#pragma once
// CUDA back ends of nn kernels that have no core-op or cuDNN formulation: grid_sample,
// embedding_bag and ctc_loss. The front ends (grid_sample.cpp, embedding.cpp, ctc.cpp) check the
// arguments and do the small host-side bookkeeping; these launch. No CUDA types here; a build
// without CUDA links stubs that raise (kernels_cuda_stub.cpp). Namespace `gpu` so that `cuda::`
// inside tc::nn still names tc::cuda.
#include <cstdint>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/nn/grid_sample_point.h"

namespace tc::nn::gpu {

// x: contiguous (N, C, H, W), grid: contiguous (N, Ho, Wo, 2), float32/float64 on one device.
// out: (N, C, Ho, Wo).
void grid_sample_forward(const Tensor& x, const Tensor& grid, const detail::GridGeom& g,
                         const Tensor& out);
// gout: contiguous (N, C, Ho, Wo). gin: zero-filled like x (added to with atomicAdd) or
// undefined; ggrid: like grid (written) or undefined.
void grid_sample_backward(const Tensor& gout, const Tensor& x, const Tensor& grid,
                          const detail::GridGeom& g, const Tensor& gin, const Tensor& ggrid);

// 5-d grid_sample: x (N, C, D, H, W), grid (N, Do, Ho, Wo, 3), contiguous. Forward when out is
// defined; else backward from gout (N, C, Do, Ho, Wo): gin zero-filled (atomicAdd) or
// undefined, ggrid written or undefined.
void grid_sample3d(const Tensor& x, const Tensor& grid, const Tensor& out, const Tensor& gout,
                   const Tensor& gin, const Tensor& ggrid, const detail::GridGeom3& g);

// embedding_bag forward. weight: contiguous (V, D); idx: int64 (n,) on the weight's device
// (checked); bag b covers entries [starts[b], ends[b]); entry j is skipped when idx[j] == pad and
// otherwise weighs scale[j] * (psw ? psw[j] : 1) (sum / mean), or competes for the max (max: out
// and max_idx (B, D) start at 0 / -1 and get the winning value / row). Host tables are uploaded.
void embedding_bag_forward(const Tensor& weight, const Tensor& idx,
                           const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                           const std::vector<double>& scale, const Tensor& psw, int64_t pad,
                           bool max_mode, const Tensor& out, const Tensor& max_idx);

// ctc_loss on one device. lp: contiguous (T, N, C) log-probabilities; targets: int64 flattened,
// sample n's at offsets[n]; in_len / tg_len: int64 (N,). All int64 tables on lp's device.
// Forward writes nll (N,) and the log-space alpha (N, T, max_ext).
void ctc_forward(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                 const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext,
                 const Tensor& nll, const Tensor& alpha);
// Backward: grad (T, N, C) of nll w.r.t. lp times gout (N,) (the CPU kernel's exact derivative),
// from alpha and a beta recursion run here.
void ctc_backward(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                  const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext,
                  const Tensor& nll, const Tensor& alpha, const Tensor& gout, bool zero_infinity,
                  const Tensor& grad);

}  // namespace tc::nn::gpu
