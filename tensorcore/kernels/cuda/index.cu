// Indexing kernels on CUDA: offsets from index tensors (bounds errors reported back to the host),
// gather/scatter through offsets, masked_fill, tril/triu. Data movement dispatches on element
// size only. nonzero and the scatter_reduce mean division run the CPU kernel on a host copy.
#include "tensorcore/kernels/cuda/loops.cuh"
#include "tensorcore/kernels/itemsize_dispatch.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index_kernels.h"

namespace tc::cuda_kernels {
namespace {

constexpr int kMaxIndices = 8;
struct IndexArgs {
  const int64_t* idx[kMaxIndices];
  int64_t size[kMaxIndices], stride[kMaxIndices];
  int k = 0;
};

// err[0] = 1 once an index is out of range; err[1], err[2] = the value and which index.
__global__ void index_offsets_kernel_dev(int64_t* out, int64_t n, IndexArgs a, int64_t* err) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t o = 0;
    for (int k = 0; k < a.k; ++k) {
      int64_t v = a.idx[k][i], size = a.size[k];
      if (v < -size || v >= size) {
        if (atomicCAS(reinterpret_cast<unsigned long long*>(err), 0ull, 1ull) == 0ull) {
          err[1] = v;
          err[2] = k;
        }
        v = 0;
      }
      if (v < 0) v += size;
      o += v * a.stride[k];
    }
    out[i] = o;
  }
}

void index_offsets_cuda(const Tensor& out, const TensorList& idx, const Shape& sizes,
                        const Shape& strides, const Shape& dims) {
  int64_t n = out.numel();
  if (n == 0) return;
  TC_CHECK(idx.size() <= size_t(kMaxIndices), "indexing: at most ", kMaxIndices,
           " index tensors on CUDA, got ", idx.size());
  IndexArgs a;
  a.k = int(idx.size());
  for (int k = 0; k < a.k; ++k) {
    TC_CHECK(idx[k].is_cuda(), "indexing: indices must be on ", out.device().str(), ", got ",
             idx[k].device().str());
    a.idx[k] = static_cast<const int64_t*>(idx[k].data_ptr());
    a.size[k] = sizes[k];
    a.stride[k] = strides[k];
  }
  Tensor err = zeros({3}, TensorOptions(DType::Int64).device(out.device()));
  int dev = out.device().index;
  DeviceGuard g(dev);
  index_offsets_kernel_dev<<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
      static_cast<int64_t*>(out.data_ptr()), n, a, static_cast<int64_t*>(err.data_ptr()));
  TC_CUDA_KERNEL_CHECK();
  // Bounds errors must raise like on the CPU: this waits for the kernel.
  Tensor h = to_device(err, Device());
  const int64_t* e = h.data<int64_t>();
  if (e[0])
    throw IndexError(detail::concat("index ", e[1], " is out of bounds for dimension ",
                                    dims[size_t(e[2])], " with size ", sizes[size_t(e[2])]));
}

// Operands: 0 out, 1 source view, 2 int64 offsets (elements).
template <typename T>
__global__ void __launch_bounds__(kBlockSize) gather_kernel(IterMeta<3> m, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[3];
    offsets_of<3>(m, i, off);
    int64_t o = *reinterpret_cast<const int64_t*>(m.data[2] + off[2]);
    *reinterpret_cast<T*>(m.data[0] + off[0]) =
        *reinterpret_cast<const T*>(m.data[1] + off[1] + o * int64_t(sizeof(T)));
  }
}

void prepare(TensorIter& iter, IterMeta<3>& m, size_t itemsize, const char* op) {
  const size_t sizes[3] = {itemsize, itemsize, 8};
  fill_meta<3>(iter, m, 1, sizes);
  // Only a scattered value may be a host scalar; source views and offsets live on the device.
  TC_CHECK((m.scalar_mask & 4u) == 0 && (m.scalar_mask == 0 || std::string(op) == "index scatter"),
           op, ": operands must be on ", iter.operand(0).device().str());
  if (m.mode != 2) {  // offsets_of needs the sizes/strides form even for 1-D
    m.mode = 2;
  }
}

void index_gather_cuda(TensorIter& iter) {
  if (iter.numel() == 0) return;
  IterMeta<3> m;
  size_t is = iter.output().itemsize();
  prepare(iter, m, is, "index gather");
  int dev = iter.output().device().index;
  DeviceGuard g(dev);
  dispatch_itemsize(is, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_kernel<T><<<grid_for(iter.numel()), kBlockSize, 0, stream_of(dev)>>>(m, iter.numel());
  });
  TC_CUDA_KERNEL_CHECK();
}

template <typename T, bool Add>
__global__ void __launch_bounds__(kBlockSize) scatter_kernel(IterMeta<3> m, int64_t n) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[3];
    offsets_of<3>(m, i, off);
    int64_t o = *reinterpret_cast<const int64_t*>(m.data[2] + off[2]);
    T* d = reinterpret_cast<T*>(m.data[0] + off[0] + o * int64_t(sizeof(T)));
    T v;
    if (m.scalar_mask & 2u)
      memcpy(&v, m.scalar[1], sizeof(T));  // a CPU 0-dim value
    else
      v = *reinterpret_cast<const T*>(m.data[1] + off[1]);
    if constexpr (Add) {
      if constexpr (std::is_same_v<T, int64_t>) {
        atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
      } else {
        atomicAdd(d, v);
      }
    } else {
      *d = v;
    }
  }
}

void index_scatter_cuda(TensorIter& iter, ScatterMode mode) {
  if (iter.numel() == 0) return;
  DType dt = iter.output().dtype();
  IterMeta<3> m;
  prepare(iter, m, itemsize(dt), "index scatter");
  int dev = iter.output().device().index;
  DeviceGuard g(dev);
  cudaStream_t s = stream_of(dev);
  int grid = grid_for(iter.numel());
  if (mode == ScatterMode::Assign) {
    // With duplicate indices one of the values wins (unspecified which, as in PyTorch on CUDA).
    dispatch_itemsize(itemsize(dt), [&](auto tag) {
      using T = typename decltype(tag)::type;
      scatter_kernel<T, false><<<grid, kBlockSize, 0, s>>>(m, iter.numel());
    });
  } else if (mode == ScatterMode::Add) {
    constexpr uint32_t kAtomic = (1u << int(DType::Float32)) | (1u << int(DType::Float64)) |
                                 (1u << int(DType::Int32)) | (1u << int(DType::Int64));
    TC_CHECK_AS(NotImplementedError, (kAtomic >> int(dt)) & 1u,
                "scatter add / index_add / "
                "index_put(accumulate=True) on CUDA supports float32, float64, int32 and int64, "
                "got ",
                dtype_name(dt));
    dispatch_dtype<kAtomic>(dt, "scatter add", [&](auto tag) {
      using T = typename decltype(tag)::type;
      scatter_kernel<T, true><<<grid, kBlockSize, 0, s>>>(m, iter.numel());
    });
  } else {
    throw NotImplementedError(
        "scatter_reduce with 'prod', 'amax' or 'amin' is not implemented on CUDA yet");
  }
  TC_CUDA_KERNEL_CHECK();
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    masked_fill_kernel_dev(IterMeta<2> m, int64_t n, T v) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    offsets_of<2>(m, i, off);
    if (*reinterpret_cast<const bool*>(m.data[1] + off[1]))
      *reinterpret_cast<T*>(m.data[0] + off[0]) = v;
  }
}

void masked_fill_cuda(TensorIter& iter, const Tensor& value) {
  if (iter.numel() == 0) return;
  IterMeta<2> m;
  size_t is = iter.output().itemsize();
  const size_t sizes[2] = {is, 1};
  fill_meta<2>(iter, m, 1, sizes);
  TC_CHECK(m.scalar_mask == 0, "masked_fill_: mask must be on ", iter.output().device().str());
  m.mode = 2;
  Tensor hv = to_device(value, Device());
  int dev = iter.output().device().index;
  DeviceGuard g(dev);
  dispatch_itemsize(is, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, hv.data_ptr(), sizeof(T));
    masked_fill_kernel_dev<T>
        <<<grid_for(iter.numel()), kBlockSize, 0, stream_of(dev)>>>(m, iter.numel(), v);
  });
  TC_CUDA_KERNEL_CHECK();
}

template <typename T>
__global__ void tri_kernel_dev(T* out, const T* in, int64_t n, int64_t R, int64_t C, int64_t k,
                               bool lower) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step) {
    int64_t j = e % C, i = (e / C) % R;
    bool keep = lower ? (j - i <= k) : (j - i >= k);
    out[e] = keep ? in[e] : T{};
  }
}

void tri_cuda(const Tensor& out, const Tensor& in, int64_t k, bool lower) {
  int64_t nd = in.dim();
  int64_t R = in.sizes()[nd - 2], C = in.sizes()[nd - 1], n = in.numel();
  if (n == 0) return;
  int dev = out.device().index;
  DeviceGuard g(dev);
  dispatch_itemsize(in.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    tri_kernel_dev<T><<<grid_for(n), kBlockSize, 0, stream_of(dev)>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(in.data_ptr()), n, R, C, k, lower);
  });
  TC_CUDA_KERNEL_CHECK();
}

// nonzero's output size depends on the data, so it syncs anyway: run the CPU kernel on a copy.
Tensor nonzero_cuda(const Tensor& mask) {
  Tensor h = to_device(mask, Device());
  Tensor r = nonzero_kernel.get(DeviceType::CPU)(h);
  return to_device(r, mask.device());
}

void div_count_cuda(const Tensor& out, const Tensor& count) {
  Tensor ho = to_device(out, Device()), hc = to_device(count, Device());
  div_count_kernel.get(DeviceType::CPU)(ho, hc);
  Tensor o = out;
  copy_(o, ho);
}

TC_REGISTER_KERNEL(index_offsets_kernel, CUDA, index_offsets_cuda);
TC_REGISTER_KERNEL(index_gather_kernel, CUDA, index_gather_cuda);
TC_REGISTER_KERNEL(index_scatter_kernel, CUDA, index_scatter_cuda);
TC_REGISTER_KERNEL(masked_fill_kernel, CUDA, masked_fill_cuda);
TC_REGISTER_KERNEL(nonzero_kernel, CUDA, nonzero_cuda);
TC_REGISTER_KERNEL(tri_kernel, CUDA, tri_cuda);
TC_REGISTER_KERNEL(div_count_kernel, CUDA, div_count_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
