#pragma once
// The generic GPU elementwise loop over a TensorIter's coalesced shape. One kernel per functor
// holds three paths chosen at run time (so each op/dtype costs one instantiation):
//   vectorized: every tensor operand contiguous and 16-byte aligned: vector loads/stores;
//   contiguous: contiguous but misaligned;
//   strided:    per-element offsets from the coalesced sizes/strides (32-bit index math when
//               the iteration space fits).
// CPU 0-dim operands (Python numbers) arrive as values inside the kernel arguments.
#include <tuple>
#include <utility>

#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/kernels/cuda/common.cuh"

namespace tc::cuda_kernels {

constexpr int kMaxDims = 12;

template <int N>
struct IterMeta {
  char* data[N];
  int64_t strides[kMaxDims][N];  // bytes, innermost dim first
  int64_t sizes[kMaxDims];
  alignas(16) unsigned char scalar[N][16];
  int ndim = 0;
  unsigned scalar_mask = 0;
  int mode = 2;  // 0 vectorized, 1 contiguous, 2 strided
  bool use32 = true;
};

// Byte offsets of element `i` for every operand.
template <int N>
__device__ __forceinline__ void offsets_of(const IterMeta<N>& m, int64_t i, int64_t* off) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  if (m.use32) {
    uint32_t rem = uint32_t(i);
    for (int d = 0; d < m.ndim; ++d) {
      uint32_t sz = uint32_t(m.sizes[d]);
      uint32_t q = rem / sz;
      uint32_t idx = rem - q * sz;
      rem = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += int64_t(idx) * m.strides[d][k];
    }
  } else {
    int64_t rem = i;
    for (int d = 0; d < m.ndim; ++d) {
      int64_t idx = rem % m.sizes[d];
      rem /= m.sizes[d];
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += idx * m.strides[d][k];
    }
  }
}

template <typename T, int N>
__device__ __forceinline__ T load_operand(const IterMeta<N>& m, int k, const char* p) {
  T v;
  if (m.scalar_mask & (1u << k))
    memcpy(&v, m.scalar[k], sizeof(T));
  else
    v = *reinterpret_cast<const T*>(p);
  return v;
}

template <typename T, int Vec>
struct alignas(sizeof(T) * Vec) VecOf {
  T v[Vec];
};

template <typename... Ts>
constexpr size_t max_size() {
  size_t m = 1;
  ((m = sizeof(Ts) > m ? sizeof(Ts) : m), ...);
  return m;
}

template <typename Out, typename InTuple>
struct LoopTypes;
template <typename Out, typename... In>
struct LoopTypes<Out, std::tuple<In...>> {
  static constexpr int N = 1 + int(sizeof...(In));
  static constexpr int kVecRaw = int(16 / max_size<Out, In...>());
  static constexpr int Vec = kVecRaw < 1 ? 1 : (kVecRaw > 8 ? 8 : kVecRaw);
};

template <typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ void apply_at(const IterMeta<1 + sizeof...(In)>& m, const int64_t* off,
                                         const F& f, std::index_sequence<I...>) {
  Out r = f(load_operand<In>(m, int(I) + 1, m.data[I + 1] + off[I + 1])...);
  *reinterpret_cast<Out*>(m.data[0] + off[0]) = r;
}

template <typename T, int Vec, int N>
__device__ __forceinline__ VecOf<T, Vec> load_vec(const IterMeta<N>& m, int k, int64_t i) {
  VecOf<T, Vec> r;
  if (m.scalar_mask & (1u << k)) {
    T s;
    memcpy(&s, m.scalar[k], sizeof(T));
#pragma unroll
    for (int j = 0; j < Vec; ++j) r.v[j] = s;
  } else {
    r = reinterpret_cast<const VecOf<T, Vec>*>(m.data[k])[i];
  }
  return r;
}

template <typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ void apply_vec(const IterMeta<1 + sizeof...(In)>& m, int64_t vi,
                                          const F& f, std::index_sequence<I...>) {
  constexpr int Vec = LoopTypes<Out, std::tuple<In...>>::Vec;
  auto ins = std::make_tuple(load_vec<In, Vec>(m, int(I) + 1, vi)...);
  VecOf<Out, Vec> out;
#pragma unroll
  for (int j = 0; j < Vec; ++j) out.v[j] = f(std::get<I>(ins).v[j]...);
  reinterpret_cast<VecOf<Out, Vec>*>(m.data[0])[vi] = out;
}

template <bool Vectorize, typename Out, typename F, typename... In>
__global__ void __launch_bounds__(kBlockSize)
    elementwise_kernel(IterMeta<1 + int(sizeof...(In))> m, int64_t n, F f) {
  using L = LoopTypes<Out, std::tuple<In...>>;
  constexpr int N = L::N;
  constexpr int Vec = L::Vec;
  using Seq = std::index_sequence_for<In...>;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if constexpr (Vectorize) {
    if (m.mode == 0) {
      int64_t nvec = n / Vec;
      for (int64_t vi = tid; vi < nvec; vi += stride) apply_vec<Out, In...>(m, vi, f, Seq{});
      for (int64_t i = nvec * Vec + tid; i < n; i += stride) {  // tail
        int64_t off[N];
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] = i * m.strides[0][k];
        apply_at<Out, In...>(m, off, f, Seq{});
      }
      return;
    }
  }
  if (m.mode <= 1) {
    for (int64_t i = tid; i < n; i += stride) {
      int64_t off[N];
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] = i * m.strides[0][k];
      apply_at<Out, In...>(m, off, f, Seq{});
    }
  } else {
    for (int64_t i = tid; i < n; i += stride) {
      int64_t off[N];
      offsets_of<N>(m, i, off);
      apply_at<Out, In...>(m, off, f, Seq{});
    }
  }
}

// Fills the kernel arguments from the iterator; returns the vector width used for mode 0.
template <int N>
void fill_meta(TensorIter& iter, IterMeta<N>& m, int vec, const size_t* itemsizes) {
  TC_CHECK(iter.ntensors() == N, "cuda loop: operand count mismatch");
  const Shape& shape = iter.iter_shape();
  TC_CHECK(int(shape.size()) <= kMaxDims, "cuda loop: too many dimensions after coalescing (",
           shape.size(), ")");
  m.ndim = int(shape.size());
  int64_t n = iter.numel();
  m.use32 = n < (int64_t(1) << 31);
  m.scalar_mask = 0;
  for (int d = 0; d < m.ndim; ++d) {
    m.sizes[d] = shape[d];
    for (int k = 0; k < N; ++k) m.strides[d][k] = iter.iter_stride(d, k);
  }
  bool contiguous = m.ndim <= 1;
  bool aligned = true;
  for (int k = 0; k < N; ++k) {
    const Tensor& t = iter.operand(k);
    if (k > 0 && t.is_cpu()) {
      // A host scalar: its value travels in the kernel arguments.
      m.scalar_mask |= 1u << k;
      std::memset(m.scalar[k], 0, 16);
      std::memcpy(m.scalar[k], t.data_ptr(), t.itemsize());
      m.data[k] = nullptr;
      for (int d = 0; d < m.ndim; ++d) m.strides[d][k] = 0;
      continue;
    }
    m.data[k] = static_cast<char*>(t.data_ptr());
    if (m.ndim == 1 && m.strides[0][k] != int64_t(itemsizes[k])) contiguous = false;
    if (uintptr_t(m.data[k]) % (itemsizes[k] * size_t(vec)) != 0) aligned = false;
  }
  if (m.ndim == 0) {  // one element
    m.ndim = 1;
    m.sizes[0] = 1;
    for (int k = 0; k < N; ++k) m.strides[0][k] = 0;
  }
  m.mode = contiguous ? (aligned && vec > 1 ? 0 : 1) : 2;
}

// Runs out = f(in...) over the iterator. Out and In are device types that must match the
// operands' dtypes (TensorIter has already promoted them). Vectorize=false leaves out the
// vector path: for functors with a large op switch it would be unrolled Vec times (compile
// time) while contiguous scalar loads are already coalesced.
template <bool Vectorize, typename Out, typename... In, typename F>
void gpu_kernel_impl(TensorIter& iter, const F& f) {
  using L = LoopTypes<Out, std::tuple<In...>>;
  constexpr int N = L::N;
  int64_t n = iter.numel();
  if (n == 0) return;
  IterMeta<N> m;
  const size_t sizes[N] = {sizeof(Out), sizeof(In)...};
  fill_meta<N>(iter, m, Vectorize ? L::Vec : 1, sizes);
  const Tensor& out = iter.operand(0);
  DeviceGuard g(out.device().index);
  int64_t work = m.mode == 0 ? (n + L::Vec - 1) / L::Vec : n;
  elementwise_kernel<Vectorize, Out, F, In...>
      <<<grid_for(work), kBlockSize, 0, stream_of(out.device().index)>>>(m, n, f);
  TC_CUDA_KERNEL_CHECK();
}

template <typename Out, typename... In, typename F>
void gpu_kernel(TensorIter& iter, const F& f) {
  gpu_kernel_impl<true, Out, In...>(iter, f);
}
template <typename Out, typename... In, typename F>
void gpu_kernel_novec(TensorIter& iter, const F& f) {
  gpu_kernel_impl<false, Out, In...>(iter, f);
}

}  // namespace tc::cuda_kernels
