#pragma once
// Inclusive scans along the rows of a contiguous [rows, n] tensor (cumsum, cumprod,
// logcumsumexp, cummax, cummin). An op supplies an accumulator type, its identity, an
// associative combine(earlier, later), a load and a store:
//  * short rows (n <= kWarpRowMax): one warp per row, 32 elements per step (cub::WarpScan),
//    the running prefix in registers;
//  * long rows: blocks of kScanThreads x kScanItems elements per step (cub::BlockScan with a
//    prefix callback). With too few rows to fill the GPU, each row is split into chunks: pass 1
//    reduces every chunk, pass 2 (one thread per row) turns the chunk totals into exclusive
//    prefixes, pass 3 rescans every chunk starting from its prefix.
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/creation.h"

namespace tc::cuda_kernels::scan {

constexpr int kScanThreads = 256;
constexpr int kScanItems = 4;
constexpr int64_t kTile = int64_t(kScanThreads) * kScanItems;
constexpr int64_t kWarpRowMax = 512;
constexpr int kWarpsPerBlock = 8;

// Where the p-th element of a row (in scan order) lives: reverse scans walk rows backwards.
__device__ __forceinline__ int64_t physical(int64_t p, int64_t n, bool reverse) {
  return reverse ? n - 1 - p : p;
}

template <typename Op>
__global__ void warp_rows_kernel(Op op, int64_t rows, int64_t n, bool reverse) {
  using A = typename Op::Acc;
  using WarpScan = cub::WarpScan<A>;
  __shared__ typename WarpScan::TempStorage temp[kWarpsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + warp;
  if (row >= rows) return;  // whole warps exit together
  A running = op.identity();
  for (int64_t base = 0; base < n; base += 32) {
    const int64_t p = base + lane;
    const int64_t j = physical(p, n, reverse);
    A v = p < n ? op.load(row, j) : op.identity();
    A incl, total;
    WarpScan(temp[warp]).InclusiveScan(v, incl, op, total);
    incl = op(running, incl);
    if (p < n) op.store(row, j, incl);
    running = op(running, total);
  }
}

// Prefix callback for BlockScan: warp 0 calls it with each tile's aggregate; lane 0's return
// value is the prefix of that tile. Every lane of warp 0 keeps the same running value.
template <typename Op>
struct RunningPrefix {
  Op op;
  typename Op::Acc running;
  __device__ typename Op::Acc operator()(typename Op::Acc tile_total) {
    typename Op::Acc prev = running;
    running = op(running, tile_total);
    return prev;
  }
};

// One block per (row, chunk). carry (optional): exclusive prefix of each chunk. totals (when
// given): only each chunk's total is written there, nothing is stored.
template <typename Op>
__global__ void block_rows_kernel(Op op, int64_t n, int64_t chunk, int64_t chunks, bool reverse,
                                  const typename Op::Acc* carry, typename Op::Acc* totals) {
  using A = typename Op::Acc;
  using BlockScan = cub::BlockScan<A, kScanThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const int64_t id = blockIdx.x;
  const int64_t row = id / chunks, c = id % chunks;
  const int64_t begin = c * chunk, end = min(n, begin + chunk);
  RunningPrefix<Op> prefix{op, carry ? carry[id] : op.identity()};
  for (int64_t base = begin; base < end; base += kTile) {
    A items[kScanItems];
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      const int64_t p = base + int64_t(threadIdx.x) * kScanItems + k;
      items[k] = p < end ? op.load(row, physical(p, n, reverse)) : op.identity();
    }
    BlockScan(temp).InclusiveScan(items, items, op, prefix);
    __syncthreads();  // temp is reused by the next tile
    if (!totals) {
#pragma unroll
      for (int k = 0; k < kScanItems; ++k) {
        const int64_t p = base + int64_t(threadIdx.x) * kScanItems + k;
        if (p < end) op.store(row, physical(p, n, reverse), items[k]);
      }
    }
  }
  if (totals && threadIdx.x == 0) totals[id] = prefix.running;
}

// totals [rows, chunks] -> exclusive prefixes, one thread per row (chunks is small).
template <typename Op>
__global__ void carry_kernel(Op op, const typename Op::Acc* totals, typename Op::Acc* carry,
                             int64_t rows, int64_t chunks) {
  const int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  typename Op::Acc run = op.identity();
  for (int64_t c = 0; c < chunks; ++c) {
    carry[row * chunks + c] = run;
    run = op(run, totals[row * chunks + c]);
  }
}

// Runs the scan of `op` over [rows, n] on the current stream of `device`.
template <typename Op>
void scan_rows(const Op& op, int64_t rows, int64_t n, bool reverse, int device) {
  if (rows == 0 || n == 0) return;
  DeviceGuard guard(device);
  cudaStream_t stream = stream_of(device);
  if (n <= kWarpRowMax) {
    const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    warp_rows_kernel<Op>
        <<<unsigned(blocks), 32 * kWarpsPerBlock, 0, stream>>>(op, rows, n, reverse);
    TC_CUDA_KERNEL_CHECK();
    return;
  }
  // Chunks so that there are a few blocks per SM, each chunk at least four tiles long.
  const int64_t want_blocks = int64_t(sm_count(device)) * 4;
  int64_t chunks = rows >= want_blocks ? 1 : (want_blocks + rows - 1) / rows;
  int64_t chunk = (n + chunks - 1) / chunks;
  chunk = std::max<int64_t>(4 * kTile, (chunk + kTile - 1) / kTile * kTile);
  chunks = (n + chunk - 1) / chunk;
  using A = typename Op::Acc;
  if (chunks == 1) {
    block_rows_kernel<Op>
        <<<unsigned(rows), kScanThreads, 0, stream>>>(op, n, n, 1, reverse, nullptr, nullptr);
    TC_CUDA_KERNEL_CHECK();
    return;
  }
  const int64_t parts = rows * chunks;
  const int64_t bytes = parts * int64_t(sizeof(A));
  auto opts = TensorOptions(DType::UInt8).device(Device(DeviceType::CUDA, device));
  Tensor totals = empty({bytes}, opts), carry = empty({bytes}, opts);
  A* totals_p = static_cast<A*>(totals.data_ptr());
  A* carry_p = static_cast<A*>(carry.data_ptr());
  block_rows_kernel<Op><<<unsigned(parts), kScanThreads, 0, stream>>>(op, n, chunk, chunks, reverse,
                                                                      nullptr, totals_p);
  TC_CUDA_KERNEL_CHECK();
  carry_kernel<Op>
      <<<unsigned((rows + 127) / 128), 128, 0, stream>>>(op, totals_p, carry_p, rows, chunks);
  TC_CUDA_KERNEL_CHECK();
  block_rows_kernel<Op><<<unsigned(parts), kScanThreads, 0, stream>>>(op, n, chunk, chunks, reverse,
                                                                      carry_p, nullptr);
  TC_CUDA_KERNEL_CHECK();
}

}  // namespace tc::cuda_kernels::scan
