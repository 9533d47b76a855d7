// Random kernels on CUDA. Element i draws from Philox block i of the op's subsequence with the
// same transforms as the CPU kernels, so for equal (seed, offset) CUDA and CPU give the same
// numbers (up to the last bit of the double-precision log/cos in normal()).
// randperm and multinomial run the CPU algorithm on the host and copy the result (sequential
// algorithms; documented in docs/cuda.md).
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/random.h"

namespace tc::cuda_kernels {
namespace {

struct U4 {
  uint32_t x, y, z, w;
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
  return {c0, c1, c2, c3};
}

__device__ __forceinline__ double u53(uint32_t hi, uint32_t lo) {
  return double((uint64_t(hi) << 21) ^ (lo >> 11)) * 0x1.0p-53;
}
__device__ __forceinline__ float u24(uint32_t w) { return float(w >> 8) * 0x1.0p-24f; }

template <typename T>
__global__ void random_fill_kernel_dev(T* p, int64_t n, RandomArgs a, PhiloxState st) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  using M = opmath_t<T>;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    U4 w = philox(uint64_t(i), st.offset, st.seed);
    if constexpr (is_float_v<T>) {
      if (a.dist == RandomDist::Uniform) {
        if constexpr (std::is_same_v<T, double>) {
          p[i] = a.a + (a.b - a.a) * u53(w.x, w.y);
        } else {
          float v = float(a.a) + float(a.b - a.a) * u24(w.x);
          T r = cvt<T>(v);
          if (cvt<float>(r) >= float(a.b) && a.b > a.a) r = cvt<T>(float(a.a));
          p[i] = r;
        }
        continue;
      }
      if (a.dist == RandomDist::Normal) {
        double u1 = 1.0 - u53(w.x, w.y);
        double u2 = u53(w.z, w.w);
        p[i] = cvt<T>(M(a.a + a.b * ::sqrt(-2.0 * ::log(u1)) * ::cos(kTwoPi * u2)));
        continue;
      }
      if (a.dist == RandomDist::Exponential) {
        p[i] = cvt<T>(M(-::log1p(-u53(w.x, w.y)) / a.a));
        continue;
      }
    }
    if (a.dist == RandomDist::Bernoulli) {
      p[i] = cvt<T>(M(u53(w.x, w.y) < a.a ? 1 : 0));
    } else if (a.dist == RandomDist::Integer) {
      uint64_t r = (uint64_t(w.x) << 32) | w.y;
      if (a.range != 0) r %= a.range;
      p[i] = cvt<T>(M(int64_t(uint64_t(a.lo) + r)));
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
    U4 w = philox(uint64_t(i), st.offset, st.seed);
    p[i] = cvt<T>(M(u53(w.x, w.y) < prob[i] ? 1 : 0));
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
