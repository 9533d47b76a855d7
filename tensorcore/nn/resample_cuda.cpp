// interpolate's separable resampling on CUDA tensors: one dim at a time,
// y = sum_k index_select(x, dim, idx[:, k]) * w[:, k], in core ops (CUDA kernels and autograd from
// the core). The (idx, w) tap tables are the CPU front end's, so every mode matches the CPU.
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {

Tensor resample_gather_cuda(const Tensor& input, int64_t dim, int64_t out, int64_t k,
                            const std::vector<int64_t>& idx, const std::vector<double>& w) {
  // 16-bit inputs accumulate the taps in float32 and round once.
  DType compute = input.dtype() == DType::Float16 || input.dtype() == DType::BFloat16
                      ? DType::Float32
                      : input.dtype();
  Tensor x = to_dtype(input, compute);
  Tensor idx_t = from_vector(idx, {out, k}, TensorOptions(DType::Int64).device(input.device()));
  Tensor w_t = from_vector(w, {out, k}, TensorOptions(compute).device(input.device()));
  Shape w_shape(size_t(x.dim()), 1);
  w_shape[size_t(dim)] = out;
  bool unit_weights = true;
  for (double v : w) unit_weights &= v == 1.0;
  Tensor y;
  for (int64_t j = 0; j < k; ++j) {
    Tensor picked = index_select(x, dim, contiguous(select(idx_t, 1, j)));
    if (!unit_weights) picked = mul(picked, reshape(contiguous(select(w_t, 1, j)), w_shape));
    y = j == 0 ? picked : add(y, picked);
  }
  return to_dtype(y, input.dtype());
}

namespace {
[[maybe_unused]] Tensor resample_cuda(const Tensor& x, const std::shared_ptr<const ResampleTaps>& t,
                                      int64_t dim) {
  return resample_gather_cuda(x, dim, t->out, t->k, t->idx, t->w);
}
}  // namespace

// The CUDA kernels of these ops (device_kernels.h): a build without CUDA registers none.
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(resample_kernel, CUDA, resample_cuda);
#endif

}  // namespace tc::nn::detail
