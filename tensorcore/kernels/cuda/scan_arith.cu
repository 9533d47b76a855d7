// cumsum / cumprod / logcumsumexp on CUDA (rows scanned by scan.cuh). Floats accumulate in
// double and integers in int64, like the CPU kernels, so both devices agree closely.
#include <cmath>
#include <type_traits>

#include "tensorcore/kernels/cuda/scan.cuh"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc::cuda_kernels {
namespace {

enum class Arith { Sum, Prod, LogSumExp };

__device__ __forceinline__ double log_add_exp(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  const double m = fmax(a, b);
  if (isinf(m)) return m;
  return m + log1p(exp(fmin(a, b) - m));
}

template <typename T, Arith K>
struct ArithScan {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const T* in;
  T* out;
  int64_t n;
  __device__ Acc identity() const {
    if constexpr (K == Arith::Sum)
      return Acc(0);
    else if constexpr (K == Arith::Prod)
      return Acc(1);
    else
      return -INFINITY;
  }
  __device__ Acc operator()(Acc a, Acc b) const {
    if constexpr (K == Arith::Sum)
      return a + b;
    else if constexpr (K == Arith::Prod)
      return a * b;
    else
      return log_add_exp(a, b);
  }
  __device__ Acc load(int64_t r, int64_t j) const { return Acc(in[r * n + j]); }
  __device__ void store(int64_t r, int64_t j, Acc v) const { out[r * n + j] = T(v); }
};

constexpr uint32_t kF32 = 1u << int(DType::Float32), kF64 = 1u << int(DType::Float64),
                   kI64 = 1u << int(DType::Int64);

template <Arith K, uint32_t Set>
void arith_scan_cuda(const Tensor& in, const Tensor& values, const Tensor&, const RowParams& prm) {
  const int64_t rows = in.size(0), n = in.size(1);
  dispatch_dtype<Set>(in.dtype(),
                      K == Arith::LogSumExp ? "logcumsumexp"
                      : K == Arith::Sum     ? "cumsum"
                                            : "cumprod",
                      [&](auto tag) {
                        using T = typename decltype(tag)::type;
                        ArithScan<T, K> op{static_cast<const T*>(in.data_ptr()),
                                           static_cast<T*>(values.data_ptr()), n};
                        scan::scan_rows(op, rows, n, prm.flag, in.device().index);
                      });
}

constexpr RowKernel cumsum_cuda = arith_scan_cuda<Arith::Sum, kF32 | kF64 | kI64>;
constexpr RowKernel cumprod_cuda = arith_scan_cuda<Arith::Prod, kF32 | kF64 | kI64>;
constexpr RowKernel logcumsumexp_cuda = arith_scan_cuda<Arith::LogSumExp, kF32 | kF64>;
TC_REGISTER_KERNEL(cumsum_kernel, CUDA, cumsum_cuda);
TC_REGISTER_KERNEL(cumprod_kernel, CUDA, cumprod_cuda);
TC_REGISTER_KERNEL(logcumsumexp_kernel, CUDA, logcumsumexp_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
