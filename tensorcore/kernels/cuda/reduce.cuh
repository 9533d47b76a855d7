#pragma once
// Generic GPU reduction. The input is seen as [n_out, n_red]: output index -> base offset through
// the kept dims, reduction index -> offset through the reduced dims. A block is split into
// "output lanes" x "reduction lanes":
//   * reduction contiguous in memory: lanes along the reduction are adjacent threads (coalesced);
//   * otherwise adjacent threads take adjacent outputs (coalesced when outputs are contiguous).
// Each thread folds a strided slice (4 independent accumulators for ILP), a shared-memory tree
// merges the lanes, and when there are too few outputs to fill the GPU the reduction is also
// split over grid.y with a second pass merging the partial accumulators.
//
// An Op provides: acc_t; init(); fold(acc, in_t x, int64 idx); merge(a, b);
// write(OutPtrs, int64 out_index, acc, int64 n_red).
#include <vector>

#include "tensorcore/kernels/cuda/common.cuh"

namespace tc::cuda_kernels {

constexpr int kReduceMaxDims = 12;

struct ReduceGeom {
  int nk = 0, nr = 0;
  int64_t ksize[kReduceMaxDims], kstride[kReduceMaxDims];  // kept dims, innermost output dim first
  int64_t rsize[kReduceMaxDims], rstride[kReduceMaxDims];  // reduced dims, smallest stride first
  int64_t n_out = 1, n_red = 1;
};

struct OutPtrs {
  void* p0 = nullptr;
  void* p1 = nullptr;
};

struct ReduceLaunch {
  int out_lanes = 1, red_lanes = 256;
  bool red_inner = true;  // reduction lanes are the fast-varying thread index
  int splits = 1;
};

__device__ __forceinline__ int64_t kept_offset(const ReduceGeom& g, int64_t o) {
  int64_t off = 0;
  for (int d = 0; d < g.nk; ++d) {
    int64_t idx = o % g.ksize[d];
    o /= g.ksize[d];
    off += idx * g.kstride[d];
  }
  return off;
}

__device__ __forceinline__ int64_t red_offset(const ReduceGeom& g, int64_t r) {
  if (g.nr == 1) return r * g.rstride[0];
  int64_t off = 0;
  for (int d = 0; d < g.nr; ++d) {
    int64_t idx = r % g.rsize[d];
    r /= g.rsize[d];
    off += idx * g.rstride[d];
  }
  return off;
}

template <typename In, typename Op>
__global__ void __launch_bounds__(kBlockSize)
    reduce_kernel(const In* __restrict__ in, ReduceGeom g, ReduceLaunch L, Op op, OutPtrs out,
                  typename Op::acc_t* partial) {
  using Acc = typename Op::acc_t;
  // Raw storage: accumulators may have constructors, which __shared__ arrays cannot run.
  __shared__ alignas(16) unsigned char smem_raw[kBlockSize * sizeof(Acc)];
  Acc* smem = reinterpret_cast<Acc*>(smem_raw);
  const int t = threadIdx.x;
  const int o_lane = L.red_inner ? t / L.red_lanes : t % L.out_lanes;
  const int r_lane = L.red_inner ? t % L.red_lanes : t / L.out_lanes;
  const int64_t o = int64_t(blockIdx.x) * L.out_lanes + o_lane;
  const int split = blockIdx.y;
  Acc acc = op.init();
  if (o < g.n_out) {
    const In* base = in + kept_offset(g, o);
    const int64_t step = int64_t(L.red_lanes) * L.splits;
    int64_t r = int64_t(split) * L.red_lanes + r_lane;
    Acc a1 = op.init(), a2 = op.init(), a3 = op.init();
    // Four independent chains keep several loads in flight per thread.
    for (; r + 3 * step < g.n_red; r += 4 * step) {
      In x0 = base[red_offset(g, r)], x1 = base[red_offset(g, r + step)];
      In x2 = base[red_offset(g, r + 2 * step)], x3 = base[red_offset(g, r + 3 * step)];
      acc = op.fold(acc, x0, r);
      a1 = op.fold(a1, x1, r + step);
      a2 = op.fold(a2, x2, r + 2 * step);
      a3 = op.fold(a3, x3, r + 3 * step);
    }
    for (; r < g.n_red; r += step) acc = op.fold(acc, base[red_offset(g, r)], r);
    acc = op.merge(op.merge(acc, a1), op.merge(a2, a3));
  }
  const int idx = L.red_inner ? o_lane * L.red_lanes + r_lane : r_lane * L.out_lanes + o_lane;
  smem[idx] = acc;
  __syncthreads();
  for (int s = L.red_lanes / 2; s > 0; s >>= 1) {
    if (r_lane < s) {
      const int other = L.red_inner ? idx + s : idx + s * L.out_lanes;
      smem[idx] = op.merge(smem[idx], smem[other]);
    }
    __syncthreads();
  }
  if (r_lane == 0 && o < g.n_out) {
    if (L.splits == 1)
      op.write(out, o, smem[idx], g.n_red);
    else
      partial[o * L.splits + split] = smem[idx];
  }
}

template <typename Op>
__global__ void reduce_finish_kernel(ReduceGeom g, int splits, Op op, OutPtrs out,
                                     const typename Op::acc_t* partial) {
  int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= g.n_out) return;
  auto acc = partial[o * splits];
  for (int s = 1; s < splits; ++s) acc = op.merge(acc, partial[o * splits + s]);
  op.write(out, o, acc, g.n_red);
}

// Host side: geometry from (in, mask) and the launch shape.
ReduceGeom reduce_geometry(const Tensor& in, const std::vector<bool>& mask);
ReduceLaunch reduce_launch(const ReduceGeom& g);

template <typename In, typename Op>
void launch_reduce(const Tensor& in, const std::vector<bool>& mask, const Op& op, OutPtrs out) {
  ReduceGeom g = reduce_geometry(in, mask);
  if (g.n_out == 0) return;
  ReduceLaunch L = reduce_launch(g);
  int dev = in.device().index;
  DeviceGuard guard(dev);
  cudaStream_t stream = stream_of(dev);
  using Acc = typename Op::acc_t;
  dim3 grid(unsigned((g.n_out + L.out_lanes - 1) / L.out_lanes), unsigned(L.splits));
  const In* data = static_cast<const In*>(in.data_ptr());
  if (L.splits == 1) {
    reduce_kernel<In, Op><<<grid, kBlockSize, 0, stream>>>(data, g, L, op, out, nullptr);
    TC_CUDA_KERNEL_CHECK();
    return;
  }
  // Partial accumulators live in a scratch tensor from the caching allocator.
  Tensor scratch = empty_strided_raw({int64_t(g.n_out * L.splits * sizeof(Acc))}, {1}, DType::UInt8,
                                     in.device());
  Acc* partial = static_cast<Acc*>(scratch.data_ptr());
  reduce_kernel<In, Op><<<grid, kBlockSize, 0, stream>>>(data, g, L, op, out, partial);
  TC_CUDA_KERNEL_CHECK();
  reduce_finish_kernel<Op>
      <<<unsigned((g.n_out + 127) / 128), 128, 0, stream>>>(g, L.splits, op, out, partial);
  TC_CUDA_KERNEL_CHECK();
}

}  // namespace tc::cuda_kernels
