#pragma once
// Host stand-ins for the CUDA helpers the kernels use (scripts/cuda_host_emulation/run.sh). A
// launch runs the grid's blocks one after another, each as blockDim.x std::threads:
// __syncthreads is a std::barrier, __shared__ variables are statics (one block at a time), and
// atomicAdd is an atomic fetch_add, so missing barriers and unsynchronized writes have a chance
// to show.
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/scalar.h"
#include "tensorcore/core/tensor.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct EmuDim {
  unsigned x = 0, y = 0;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
inline EmuDim blockIdx, blockDim{1, 1}, gridDim{1, 1};
inline thread_local EmuDim threadIdx;
inline std::barrier<>* emu_block_barrier = nullptr;
#define __syncthreads() emu_block_barrier->arrive_and_wait()
typedef void* cudaStream_t;

// kernel<<<grid, block>>>(args) becomes emu_launch(grid, block, [&] { kernel(args); }).
template <typename F>
void emu_launch(dim3 grid, dim3 block, F&& body) {
  gridDim = {grid.x, grid.y};
  blockDim = {block.x, 1};
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      blockIdx = {bx, by};
      std::barrier<> barrier(block.x);
      emu_block_barrier = &barrier;
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < block.x; ++t)
        threads.emplace_back([&body, t] {
          threadIdx = {t, 0};
          body();
        });
      for (auto& th : threads) th.join();
    }
  blockIdx = {0, 0};
}

template <typename T>
inline T atomicAdd(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_add(v);
}
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
using std::exp;
using std::fabs;
using std::isinf;
using std::isnan;
using std::log;
using std::log1p;

namespace tc::cuda_kernels {
template <typename T>
using dev_t = T;
struct DeviceGuard {
  explicit DeviceGuard(int) {}
};
inline cudaStream_t stream_of(int) { return nullptr; }
constexpr int kBlockSize = 256;
// Few blocks, so that each launch's threads share the grid-stride loop.
inline int grid_for(int64_t, int = kBlockSize) { return 2; }
template <uint32_t Set, typename F>
decltype(auto) dispatch_dev(DType dt, const char* op, F&& f) {
  return dispatch_dtype<Set>(dt, op, f);
}
// The host types stand for half / bf16 (random.cu).
template <typename T>
constexpr bool is_float_v = ::tc::is_floating_v<T>;
template <typename T>
using opmath_t = ::tc::opmath_t<T>;
template <typename To, typename From>
inline To cvt(From x) {
  if constexpr (std::is_same_v<To, From>)
    return x;
  else if constexpr (::tc::is_reduced_float_v<From>)
    return cvt<To>(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, bool>)
    return x != From(0);
  else
    return To(x);
}
}  // namespace tc::cuda_kernels
inline uint32_t __umulhi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }

#define TC_CUDA_KERNEL_CHECK() ((void)0)
