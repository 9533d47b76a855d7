// unfold / fold (im2col / col2im) on CUDA tensors in core ops: the zero-padded input planes are
// flattened and every (kernel offset, output position) pair reads one of their elements, so
// unfold is one index_select and fold (its adjoint) one index_add; autograd comes from the core.
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/im2col.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {
namespace {

// Flat index into the padded [Hp, Wp] plane for each (kh, kw, oh, ow), in im2col's row order.
Tensor window_index(const Geo3& g, const Device& device) {
  const int64_t Wp = g.in[2] + 2 * g.p[2];
  std::vector<int64_t> idx;
  idx.reserve(size_t(g.k_size() * g.out_size()));
  for (int64_t kh = 0; kh < g.k[1]; ++kh)
    for (int64_t kw = 0; kw < g.k[2]; ++kw)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow)
          idx.push_back((oh * g.s[1] + kh * g.d[1]) * Wp + ow * g.s[2] + kw * g.d[2]);
  return from_vector(idx, {int64_t(idx.size())}, TensorOptions(DType::Int64).device(device));
}

}  // namespace

Tensor unfold_cuda(const Tensor& x, const Geo3& g) {
  const int64_t N = x.size(0), C = x.size(1), Hp = g.in[1] + 2 * g.p[1], Wp = g.in[2] + 2 * g.p[2];
  // Zero padding as a concatenation (differentiable through the core's cat).
  TensorOptions opts = TensorOptions(x.dtype()).device(x.device());
  Tensor padded = x;
  if (g.p[1] > 0) {
    Tensor band = zeros({N, C, g.p[1], g.in[2]}, opts);
    padded = cat({band, padded, band}, 2);
  }
  if (g.p[2] > 0) {
    Tensor band = zeros({N, C, Hp, g.p[2]}, opts);
    padded = cat({band, padded, band}, 3);
  }
  Tensor flat = reshape(padded, {N, C, Hp * Wp});
  Tensor cols = index_select(flat, 2, window_index(g, x.device()));
  return reshape(cols, {N, C * g.k_size(), g.out_size()});
}

Tensor fold_cuda(const Tensor& cols, int64_t C, const Geo3& g) {
  const int64_t N = cols.size(0), Hp = g.in[1] + 2 * g.p[1], Wp = g.in[2] + 2 * g.p[2];
  Tensor src = reshape(cols, {N, C, g.k_size() * g.out_size()});
  Tensor canvas = zeros({N, C, Hp * Wp}, TensorOptions(cols.dtype()).device(cols.device()));
  Tensor summed =
      reshape(index_add(canvas, 2, window_index(g, cols.device()), src), {N, C, Hp, Wp});
  return contiguous(narrow(narrow(summed, 2, g.p[1], g.in[1]), 3, g.p[2], g.in[2]));
}

// The CUDA kernels of these ops (device_kernels.h): a build without CUDA registers none.
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(unfold_kernel, CUDA, unfold_cuda);
TC_REGISTER_KERNEL(fold_kernel, CUDA, fold_cuda);
#endif

}  // namespace tc::nn::detail
