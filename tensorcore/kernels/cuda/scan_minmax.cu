// cummax / cummin on CUDA (rows scanned by scan.cuh) with torch's semantics: ties take the later
// index, and a NaN, once seen, stays (with the index of the latest NaN).
#include "tensorcore/kernels/cuda/scan.cuh"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc::cuda_kernels {
namespace {

template <typename T>
struct ValueIndex {
  T v;
  int64_t i;  // -1: the identity (no element yet)
};

template <typename T, bool Max>
struct MinMaxScan {
  using Acc = ValueIndex<T>;
  const T* in;
  T* out;
  int64_t* idx;
  int64_t n;
  __device__ Acc identity() const { return Acc{T(0), -1}; }
  // a precedes b in scan order.
  __device__ Acc operator()(Acc a, Acc b) const {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    if (b.v != b.v) return b;
    if (a.v != a.v) return a;
    return (Max ? b.v >= a.v : b.v <= a.v) ? b : a;
  }
  __device__ Acc load(int64_t r, int64_t j) const { return Acc{in[r * n + j], j}; }
  __device__ void store(int64_t r, int64_t j, Acc a) const {
    out[r * n + j] = a.v;
    idx[r * n + j] = a.i;
  }
};

constexpr uint32_t kRowTypes =
    (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | (1u << int(DType::Int64));

template <bool Max>
void cumminmax_cuda(const Tensor& in, const Tensor& values, const Tensor& indices,
                    const RowParams&) {
  const int64_t rows = in.size(0), n = in.size(1);
  dispatch_dtype<kRowTypes>(in.dtype(), Max ? "cummax" : "cummin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    MinMaxScan<T, Max> op{static_cast<const T*>(in.data_ptr()), static_cast<T*>(values.data_ptr()),
                          static_cast<int64_t*>(indices.data_ptr()), n};
    scan::scan_rows(op, rows, n, false, in.device().index);
  });
}

TC_REGISTER_KERNEL(cummax_kernel, CUDA, cumminmax_cuda<true>);
TC_REGISTER_KERNEL(cummin_kernel, CUDA, cumminmax_cuda<false>);

}  // namespace
}  // namespace tc::cuda_kernels
