// copy_ (same-dtype copies and dtype casts) and fill_ on CUDA.
#include "tensorcore/kernels/cuda/loops.cuh"
#include "tensorcore/kernels/itemsize_dispatch.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc::cuda_kernels {
namespace {

struct Identity {
  template <typename T>
  __device__ T operator()(T x) const {
    return x;
  }
};

template <typename Src, typename Dst>
__device__ __forceinline__ void cast_one(char* dst, const char* src) {
  *reinterpret_cast<Dst*>(dst) = cvt<Dst>(*reinterpret_cast<const Src*>(src));
}

// Casts to Dst from a source dtype chosen at run time (13 instantiations instead of 169).
template <typename Dst>
__global__ void __launch_bounds__(kBlockSize) cast_kernel(IterMeta<2> m, int64_t n, DType src) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t off[2];
    if (m.mode != 2) {
      off[0] = i * m.strides[0][0];
      off[1] = i * m.strides[0][1];
    } else {
      offsets_of<2>(m, i, off);
    }
    char* d = m.data[0] + off[0];
    const char* s =
        (m.scalar_mask & 2u) ? reinterpret_cast<const char*>(m.scalar[1]) : m.data[1] + off[1];
    switch (src) {
#define TC_CAST_CASE(E, T, N, S)   \
  case DType::E:                   \
    cast_one<dev_t<T>, Dst>(d, s); \
    break;
      TC_FORALL_DTYPES(TC_CAST_CASE)
#undef TC_CAST_CASE
    }
  }
}

void copy_cuda(TensorIter& iter) {
  DType dst = iter.output_dtype(), src = iter.input_dtype(0);
  if (iter.numel() == 0) return;
  if (dst == src) {
    switch (itemsize(dst)) {
      case 1:
        return gpu_kernel<uint8_t, uint8_t>(iter, Identity{});
      case 2:
        return gpu_kernel<uint16_t, uint16_t>(iter, Identity{});
      case 4:
        return gpu_kernel<uint32_t, uint32_t>(iter, Identity{});
      case 8:
        return gpu_kernel<uint64_t, uint64_t>(iter, Identity{});
      default:
        return gpu_kernel<Bytes16, Bytes16>(iter, Identity{});
    }
  }
  IterMeta<2> m;
  const size_t sizes[2] = {itemsize(dst), itemsize(src)};
  fill_meta<2>(iter, m, 1, sizes);
  int dev = iter.operand(0).device().index;
  DeviceGuard g(dev);
  dispatch_dev<kAllTypes>(dst, "copy_", [&](auto tag) {
    using D = typename decltype(tag)::type;
    cast_kernel<D><<<grid_for(iter.numel()), kBlockSize, 0, stream_of(dev)>>>(m, iter.numel(), src);
  });
  TC_CUDA_KERNEL_CHECK();
}

template <typename T>
struct FillF {
  T v;
  __device__ T operator()() const { return v; }
};

void fill_cuda(const Tensor& t, const Scalar& value) {
  if (t.numel() == 0) return;
  TensorIterConfig cfg;
  cfg.op_name = "fill_";
  TensorIter iter(t, {}, cfg);
  // Fill by bit pattern: one kernel per element size.
  dispatch_dtype<kAllTypes>(t.dtype(), "fill_", [&](auto tag) {
    using H = typename decltype(tag)::type;
    dev_t<H> v = scalar_as<H>(value);
    if constexpr (sizeof(H) == 1)
      gpu_kernel<uint8_t>(iter, FillF<uint8_t>{*reinterpret_cast<uint8_t*>(&v)});
    else if constexpr (sizeof(H) == 2)
      gpu_kernel<uint16_t>(iter, FillF<uint16_t>{*reinterpret_cast<uint16_t*>(&v)});
    else if constexpr (sizeof(H) == 4)
      gpu_kernel<uint32_t>(iter, FillF<uint32_t>{*reinterpret_cast<uint32_t*>(&v)});
    else if constexpr (sizeof(H) == 8)
      gpu_kernel<uint64_t>(iter, FillF<uint64_t>{*reinterpret_cast<uint64_t*>(&v)});
    else
      gpu_kernel<Bytes16>(iter, FillF<Bytes16>{*reinterpret_cast<Bytes16*>(&v)});
  });
}

TC_REGISTER_KERNEL(copy_kernel, CUDA, copy_cuda);
TC_REGISTER_KERNEL(fill_kernel, CUDA, fill_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
