// sort / argsort, topk, kthvalue, median / nanmedian and mode on CUDA, over contiguous [rows, n]
// rows (float32, float64, int64), all built on one stable radix sort of (key, index) pairs
// (cub::DeviceRadixSort, instantiated once for uint64 keys and int64 values):
//  * each value becomes an unsigned key whose integer order is torch's sort order (NaN largest,
//    every NaN equal, -0.0 == +0.0); descending order sorts the complemented keys, which keeps
//    the sort stable in both directions;
//  * float32 rows sort in one pass with the row number in the key's upper bits; 64-bit keys with
//    several rows sort by key and then, stably, by row number (two passes);
//  * topk / kthvalue / median / mode read their answer from the sorted rows.
#include <cub/device/device_radix_sort.cuh>

#include <bit>

#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/reduce_kernels.h"
#include "tensorcore/ops/shape.h"

namespace tc::cuda_kernels {
namespace {

constexpr uint32_t kRowTypes =
    (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | (1u << int(DType::Int64));

__device__ __forceinline__ uint64_t order_key(float x) {
  if (x != x) return 0xFFFFFFFFull;
  if (x == 0.0f) x = 0.0f;  // -0.0 -> +0.0
  const uint32_t b = __float_as_uint(x);
  return (b & 0x80000000u) ? uint64_t(~b) : uint64_t(b | 0x80000000u);
}
__device__ __forceinline__ uint64_t order_key(double x) {
  if (x != x) return ~0ull;
  if (x == 0.0) x = 0.0;
  const uint64_t b = uint64_t(__double_as_longlong(x));
  return (b >> 63) ? ~b : (b | (1ull << 63));
}
__device__ __forceinline__ uint64_t order_key(int64_t x) { return uint64_t(x) ^ (1ull << 63); }

// keys[i] and vals[i] for element i of [rows, n]. Float32 keys use 32 bits; with row_in_key the
// row number goes above them. vals: the column (one-pass sorts) or the flat index (two-pass).
template <typename T>
__global__ void make_keys_kernel(const T* in, uint64_t* keys, int64_t* vals, int64_t total,
                                 int64_t n, bool descending, bool row_in_key, bool flat_vals) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    uint64_t k = order_key(in[i]);
    if constexpr (sizeof(T) == 4) {
      if (descending) k = (~k) & 0xFFFFFFFFull;
      if (row_in_key) k |= uint64_t(i / n) << 32;
    } else {
      if (descending) k = ~k;
    }
    keys[i] = k;
    vals[i] = flat_vals ? i : i % n;
  }
}

__global__ void row_of_kernel(const int64_t* flat, uint64_t* keys, int64_t total, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step)
    keys[i] = uint64_t(flat[i] / n);
}

// idx[i] = column of the sorted element; vals[i] = in[row, idx[i]] (when vals is given).
template <typename T>
__global__ void finish_sort_kernel(const T* in, const int64_t* sorted, T* vals, int64_t* idx,
                                   int64_t total, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t col = sorted[i] % n;
    idx[i] = col;
    if (vals) vals[i] = in[(i / n) * n + col];
  }
}

void radix_sort_pairs(const uint64_t* keys_in, uint64_t* keys_out, const int64_t* vals_in,
                      int64_t* vals_out, int64_t count, int end_bit, int device,
                      cudaStream_t stream) {
  size_t temp_bytes = 0;
  TC_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, vals_in,
                                                vals_out, count, 0, end_bit, stream));
  Tensor temp = empty({int64_t(std::max<size_t>(temp_bytes, 1))},
                      TensorOptions(DType::UInt8).device(Device(DeviceType::CUDA, device)));
  TC_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data_ptr(), temp_bytes, keys_in, keys_out,
                                                vals_in, vals_out, count, 0, end_bit, stream));
}

// Stable sort of every row of the contiguous [rows, n] `in` into values (optional) and indices.
void sort_rows(const Tensor& in, const Tensor& values, const Tensor& indices, bool descending) {
  const int64_t rows = in.size(0), n = in.size(1), total = rows * n;
  if (total == 0) return;
  const int dev = in.device().index;
  DeviceGuard guard(dev);
  cudaStream_t stream = stream_of(dev);
  auto i64 = TensorOptions(DType::Int64).device(in.device());
  Tensor keys_a = empty({total}, i64), keys_b = empty({total}, i64);
  Tensor vals_a = empty({total}, i64), vals_b = empty({total}, i64);
  auto* ka = static_cast<uint64_t*>(keys_a.data_ptr());
  auto* kb = static_cast<uint64_t*>(keys_b.data_ptr());
  auto* va = static_cast<int64_t*>(vals_a.data_ptr());
  auto* vb = static_cast<int64_t*>(vals_b.data_ptr());
  const int row_bits = rows > 1 ? int(std::bit_width(uint64_t(rows - 1))) : 0;
  TC_CHECK(row_bits <= 32, "sort: too many rows (", rows, ") for the CUDA sort");
  dispatch_dtype<kRowTypes>(in.dtype(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = static_cast<const T*>(in.data_ptr());
    const bool one_pass = sizeof(T) == 4 || rows == 1;
    make_keys_kernel<T><<<grid_for(total), kBlockSize, 0, stream>>>(
        src, ka, va, total, n, descending, sizeof(T) == 4 && rows > 1, !one_pass);
    TC_CUDA_KERNEL_CHECK();
    const int64_t* sorted = vb;
    if (one_pass) {
      radix_sort_pairs(ka, kb, va, vb, total, sizeof(T) == 4 ? 32 + row_bits : 64, dev, stream);
    } else {
      radix_sort_pairs(ka, kb, va, vb, total, 64, dev, stream);
      row_of_kernel<<<grid_for(total), kBlockSize, 0, stream>>>(vb, ka, total, n);
      TC_CUDA_KERNEL_CHECK();
      radix_sort_pairs(ka, kb, vb, va, total, row_bits, dev, stream);
      sorted = va;
    }
    T* out = values.defined() ? static_cast<T*>(values.data_ptr()) : nullptr;
    finish_sort_kernel<T><<<grid_for(total), kBlockSize, 0, stream>>>(
        src, sorted, out, static_cast<int64_t*>(indices.data_ptr()), total, n);
    TC_CUDA_KERNEL_CHECK();
  });
}

void sort_cuda(const Tensor& in, const Tensor& values, const Tensor& indices,
               const RowParams& prm) {
  sort_rows(in, values, indices, prm.flag);
}

// Sorted copies of the rows, for the selection ops.
std::pair<Tensor, Tensor> sorted_rows(const Tensor& in, bool descending) {
  Tensor v = empty(in.sizes(), TensorOptions(in.dtype()).device(in.device()));
  Tensor i = empty(in.sizes(), TensorOptions(DType::Int64).device(in.device()));
  sort_rows(in, v, i, descending);
  return {v, i};
}

// topk = the first k columns of the rows sorted largest (or smallest) first; ties keep the
// lower index first, as on the CPU.
void topk_cuda(const Tensor& in, const Tensor& values, const Tensor& indices,
               const RowParams& prm) {
  if (prm.k == in.size(1)) return sort_rows(in, values, indices, prm.flag);
  auto [v, i] = sorted_rows(in, prm.flag);
  copy_(values, narrow(v, 1, 0, prm.k));
  copy_(indices, narrow(i, 1, 0, prm.k));
}

void kthvalue_cuda(const Tensor& in, const Tensor& values, const Tensor& indices,
                   const RowParams& prm) {
  auto [v, i] = sorted_rows(in, false);
  copy_(values, reshape(narrow(v, 1, prm.k - 1, 1), values.sizes()));
  copy_(indices, reshape(narrow(i, 1, prm.k - 1, 1), indices.sizes()));
}

// Lower median of each sorted row. NaNs sort last in index order, so the first NaN of a row
// is at its count of non-NaN values: that is the answer when NaNs propagate (median) or when the
// row is all NaN (nanmedian).
template <typename T>
__global__ void median_kernel_dev(const T* sorted, const int64_t* order, T* vals, int64_t* idx,
                                  int64_t rows, int64_t n, bool ignore_nan) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const T* row = sorted + r * n;
  int64_t lo = 0, hi = n;  // first NaN
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (row[mid] != row[mid])
      hi = mid;
    else
      lo = mid + 1;
  }
  const int64_t valid = lo;
  const int64_t pos = (valid < n && (!ignore_nan || valid == 0)) ? valid : (valid - 1) / 2;
  if (vals) vals[r] = row[pos];
  if (idx) idx[r] = order[r * n + pos];
}

void median_cuda(const Tensor& in, const Tensor& values, const Tensor& indices,
                 const RowParams& prm) {
  const int64_t rows = in.size(0), n = in.size(1);
  auto [v, i] = sorted_rows(in, false);
  const int dev = in.device().index;
  DeviceGuard guard(dev);
  dispatch_dtype<kRowTypes>(in.dtype(), "median", [&](auto tag) {
    using T = typename decltype(tag)::type;
    median_kernel_dev<T><<<unsigned((rows + 127) / 128), 128, 0, stream_of(dev)>>>(
        static_cast<const T*>(v.data_ptr()), static_cast<const int64_t*>(i.data_ptr()),
        values.defined() ? static_cast<T*>(values.data_ptr()) : nullptr,
        indices.defined() ? static_cast<int64_t*>(indices.data_ptr()) : nullptr, rows, n, prm.flag);
  });
  TC_CUDA_KERNEL_CHECK();
}

// Most frequent value of each sorted row (ties: the smallest value) and the index of its last
// occurrence, as on the CPU. One thread walks each row's runs.
template <typename T>
__global__ void mode_kernel_dev(const T* sorted, const int64_t* order, T* vals, int64_t* idx,
                                int64_t rows, int64_t n) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const T* row = sorted + r * n;
  int64_t best_len = 0, best_end = 0;
  for (int64_t s = 0; s < n;) {
    int64_t e = s + 1;
    while (e < n && (row[e] == row[s] || (row[e] != row[e] && row[s] != row[s]))) ++e;
    if (e - s > best_len) {
      best_len = e - s;
      best_end = e - 1;
    }
    s = e;
  }
  vals[r] = row[best_end];
  idx[r] = order[r * n + best_end];
}

void mode_cuda(const Tensor& in, const Tensor& values, const Tensor& indices, const RowParams&) {
  const int64_t rows = in.size(0), n = in.size(1);
  auto [v, i] = sorted_rows(in, false);
  const int dev = in.device().index;
  DeviceGuard guard(dev);
  dispatch_dtype<kRowTypes>(in.dtype(), "mode", [&](auto tag) {
    using T = typename decltype(tag)::type;
    mode_kernel_dev<T><<<unsigned((rows + 127) / 128), 128, 0, stream_of(dev)>>>(
        static_cast<const T*>(v.data_ptr()), static_cast<const int64_t*>(i.data_ptr()),
        static_cast<T*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()), rows, n);
  });
  TC_CUDA_KERNEL_CHECK();
}

TC_REGISTER_KERNEL(sort_kernel, CUDA, sort_cuda);
TC_REGISTER_KERNEL(topk_kernel, CUDA, topk_cuda);
TC_REGISTER_KERNEL(kthvalue_kernel, CUDA, kthvalue_cuda);
TC_REGISTER_KERNEL(median_kernel, CUDA, median_cuda);
TC_REGISTER_KERNEL(mode_kernel, CUDA, mode_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
