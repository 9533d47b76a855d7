// Random kernels on CUDA. Values follow the stream layout of kernels/random_math.h with its
// transforms, so for equal (seed, offset) CUDA and CPU give the same numbers (bit for bit for
// uniform, bernoulli and integer fills; normal and exponential within the last bit or two should
// the compilers' sqrt/division differ). One thread per value: it computes the Philox block its
// value comes from.
// randperm and multinomial run the CPU algorithm on the host and copy the result (sequential
// algorithms; documented in docs/cuda.md).
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/kernels/random_math.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/random.h"

namespace tc::cuda_kernels {
namespace {

struct U4 {
  uint32_t w[4];
};

__device__ __forceinline__ U4 philox(uint64_t i, uint64_t offset, uint64_t seed) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = uint32_t(i), c1 = uint32_t(i >> 32), c2 = uint32_t(offset),
           c3 = uint32_t(offset >> 32);
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    uint32_t hi0 = __umulhi(kM0, c0), lo0 = kM0 * c0;
    uint32_t hi1 = __umulhi(kM1, c2), lo1 = kM1 * c2;
    uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return {{c0, c1, c2, c3}};
}

// Value i of the one-word layout: word i/8 % 4 of block 8 (i/32) + i%8.
__device__ __forceinline__ uint32_t one_word(int64_t i, const PhiloxState& st) {
  const uint64_t block = uint64_t(i >> 5) * rng::kGroupBlocks + uint64_t(i & 7);
  return philox(block, st.offset, st.seed).w[(i >> 3) & 3];
}
// Value i of the two-word layout: words 2j, 2j+1 (j = i/8 % 2) of block 8 (i/16) + i%8.
__device__ __forceinline__ void two_words(int64_t i, const PhiloxState& st, uint32_t& hi,
                                          uint32_t& lo) {
  const uint64_t block = uint64_t(i >> 4) * rng::kGroupBlocks + uint64_t(i & 7);
  const U4 b = philox(block, st.offset, st.seed);
  const int j = int((i >> 3) & 1);
  hi = b.w[2 * j];
  lo = b.w[2 * j + 1];
}

template <typename T>
__device__ __forceinline__ T float_value(int64_t i, const RandomArgs& a, const PhiloxState& st) {
  if (a.dist == RandomDist::Normal) {
    // Pair j of group i/32: the cosine branch at 16j + l, the sine branch at 16j + 8 + l.
    const uint64_t block = uint64_t(i >> 5) * rng::kGroupBlocks + uint64_t(i & 7);
    const U4 b = philox(block, st.offset, st.seed);
    const int j = int((i >> 4) & 1);
    float zc, zs;
    rng::normal_pair_f(b.w[2 * j], b.w[2 * j + 1], zc, zs);
    return cvt<T>(rng::fma_((i >> 3) & 1 ? zs : zc, float(a.b), float(a.a)));
  }
  const uint32_t w = one_word(i, st);
  if (a.dist == RandomDist::Exponential) return cvt<T>(rng::exponential_f(w, float(1.0 / a.a)));
  // Uniform
  const float from = float(a.a), to = float(a.b);
  T r = cvt<T>(rng::uniform_f(w, from, float(a.b - a.a), to));
  if (cvt<float>(r) >= to && a.b > a.a) r = cvt<T>(from);  // rounding to T can reach `to`
  return r;
}

__device__ __forceinline__ double double_value(int64_t i, const RandomArgs& a,
                                               const PhiloxState& st) {
  if (a.dist == RandomDist::Normal) {
    const uint64_t block = uint64_t(i >> 4) * rng::kGroupBlocks + uint64_t(i & 7);
    const U4 b = philox(block, st.offset, st.seed);
    double zc, zs;
    rng::normal_pair_d(b.w[0], b.w[1], b.w[2], b.w[3], zc, zs);
    return rng::fma_((i >> 3) & 1 ? zs : zc, a.b, a.a);
  }
  uint32_t hi, lo;
  two_words(i, st, hi, lo);
  if (a.dist == RandomDist::Exponential) return rng::exponential_d(hi, lo, 1.0 / a.a);
  return rng::uniform_d(hi, lo, a.a, a.b - a.a, a.b);
}

template <typename T>
__global__ void random_fill_kernel_dev(T* p, int64_t n, RandomArgs a, PhiloxState st) {
  using M = opmath_t<T>;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const uint64_t thr = rng::bernoulli_threshold(a.a);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (is_float_v<T>) {
      if (a.dist == RandomDist::Uniform || a.dist == RandomDist::Normal ||
          a.dist == RandomDist::Exponential) {
        if constexpr (std::is_same_v<T, double>) {
          p[i] = double_value(i, a, st);
        } else {
          p[i] = float_value<T>(i, a, st);
        }
        continue;
      }
    }
    if (a.dist == RandomDist::Bernoulli) {
      p[i] = cvt<T>(M(rng::bernoulli_hit(one_word(i, st), thr) ? 1 : 0));
    } else if (a.dist == RandomDist::Integer) {
      uint32_t hi, lo;
      two_words(i, st, hi, lo);
      p[i] = cvt<T>(M(int64_t(uint64_t(a.lo) + rng::below(hi, lo, a.range))));
    }
  }
}

void random_fill_cuda(const Tensor& out, const RandomArgs& a, PhiloxState st) {
  int64_t n = out.numel();
  if (n == 0) return;
  int dev = out.device().index;
  DeviceGuard g(dev);
  dispatch_dev<kAllReal>(out.dtype(), "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    random_fill_kernel_dev<T>
        <<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(static_cast<T*>(out.data_ptr()), n, a, st);
  });
  TC_CUDA_KERNEL_CHECK();
}

template <typename T>
__global__ void bernoulli_tensor_kernel_dev(T* p, const double* prob, int64_t n, PhiloxState st) {
  using M = opmath_t<T>;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    p[i] = cvt<T>(M(rng::u32_to_double(one_word(i, st)) < prob[i] * 0x1p32 ? 1 : 0));
  }
}

void bernoulli_tensor_cuda(const Tensor& out, const Tensor& prob, PhiloxState st) {
  int64_t n = out.numel();
  if (n == 0) return;
  int dev = out.device().index;
  DeviceGuard g(dev);
  dispatch_dev<kAllReal>(out.dtype(), "bernoulli", [&](auto tag) {
    using T = typename decltype(tag)::type;
    bernoulli_tensor_kernel_dev<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const double*>(prob.data_ptr()), n, st);
  });
  TC_CUDA_KERNEL_CHECK();
}

void randperm_cuda(const Tensor& out, PhiloxState st) {
  Tensor host = empty(out.sizes(), TensorOptions(DType::Int64));
  randperm_kernel.get(DeviceType::CPU)(host, st);
  Tensor o = out;
  copy_(o, host);
}

void multinomial_cuda(const Tensor& out, const Tensor& probs, bool replacement, PhiloxState st) {
  Tensor hp = to_device(probs, Device());
  Tensor host = empty(out.sizes(), TensorOptions(DType::Int64));
  multinomial_kernel.get(DeviceType::CPU)(host, hp, replacement, st);
  Tensor o = out;
  copy_(o, host);
}

TC_REGISTER_KERNEL(random_fill_kernel, CUDA, random_fill_cuda);
TC_REGISTER_KERNEL(bernoulli_tensor_kernel, CUDA, bernoulli_tensor_cuda);
TC_REGISTER_KERNEL(randperm_kernel, CUDA, randperm_cuda);
TC_REGISTER_KERNEL(multinomial_kernel, CUDA, multinomial_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
