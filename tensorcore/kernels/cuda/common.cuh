#pragma once
// Shared pieces of the CUDA kernels: device types for each dtype, conversions, math helpers and
// host-side dispatch that maps tensorcore's host types to device ones.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <cuda/std/complex>
#include <type_traits>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/scalar.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/cuda/cuda_check.h"

namespace tc::cuda_kernels {

using ::tc::cuda::DeviceGuard;
using ::tc::cuda::stream_of;
using half = __half;
using bf16 = __nv_bfloat16;
template <typename R>
using cplx = ::cuda::std::complex<R>;

// Host storage type -> device type with the same bits.
template <typename T>
struct DevType {
  using type = T;
};
template <>
struct DevType<::tc::Half> {
  using type = half;
};
template <>
struct DevType<::tc::BFloat16> {
  using type = bf16;
};
template <>
struct DevType<::tc::complex64> {
  using type = cplx<float>;
};
template <>
struct DevType<::tc::complex128> {
  using type = cplx<double>;
};
template <typename T>
using dev_t = typename DevType<T>::type;

template <typename T>
struct IsComplex : std::false_type {};
template <typename R>
struct IsComplex<cplx<R>> : std::true_type {};
template <typename T>
constexpr bool is_cplx_v = IsComplex<T>::value;
template <typename T>
constexpr bool is_reduced_v = std::is_same_v<T, half> || std::is_same_v<T, bf16>;
template <typename T>
constexpr bool is_float_v = is_reduced_v<T> || std::is_floating_point_v<T>;

// Arithmetic type for a storage type: 16-bit floats compute in float.
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<half> {
  using type = float;
};
template <>
struct OpMath<bf16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

template <typename T>
struct RealOf {
  using type = T;
};
template <typename R>
struct RealOf<cplx<R>> {
  using type = R;
};
template <typename T>
using real_t = typename RealOf<T>::type;

template <typename To, typename From>
__host__ __device__ __forceinline__ To cvt(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_cplx_v<From>) {
    if constexpr (is_cplx_v<To>) {
      using R = typename To::value_type;
      return To(R(x.real()), R(x.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return x.real() != 0 || x.imag() != 0;
    } else {
      return cvt<To>(x.real());
    }
  } else if constexpr (is_cplx_v<To>) {
    using R = typename To::value_type;
    return To(cvt<R>(x), R(0));
  } else if constexpr (is_reduced_v<From>) {
    return cvt<To>(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, half>) {
    if constexpr (std::is_same_v<From, double>)
      return __double2half(x);
    else
      return __float2half_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, bf16>) {
    if constexpr (std::is_same_v<From, double>)
      return __double2bfloat16(x);
    else
      return __float2bfloat16_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else {
    return static_cast<To>(x);
  }
}

// Host Scalar -> device value of T (through the host type with the same bits).
template <typename H>
dev_t<H> scalar_as(const Scalar& s) {
  H h;
  if constexpr (std::is_same_v<H, ::tc::Half> || std::is_same_v<H, ::tc::BFloat16>)
    h = H(s.to<float>());
  else
    h = s.to<H>();
  dev_t<H> d;
  std::memcpy(static_cast<void*>(&d), &h, sizeof(H));
  return d;
}

// dispatch_dtype, handing the lambda a TypeTag of the device type.
template <uint32_t Set, typename F>
decltype(auto) dispatch_dev(DType dt, const char* op, F&& f) {
  return dispatch_dtype<Set>(dt, op, [&](auto tag) {
    using H = typename decltype(tag)::type;
    return f(TypeTag<dev_t<H>>{});
  });
}

template <typename T>
__device__ __forceinline__ bool is_nan(T x) {
  if constexpr (is_cplx_v<T>)
    return x.real() != x.real() || x.imag() != x.imag();
  else if constexpr (is_float_v<T>)
    return opmath_t<T>(x) != opmath_t<T>(x);
  else
    return false;
}

constexpr int kBlockSize = 256;

// Blocks for a grid-stride loop over `work` items: enough to fill the GPU a few times over.
int grid_for(int64_t work, int block = kBlockSize);
int sm_count(int device = -1);
cudaStream_t current_stream_for(const Tensor& t);

#define TC_CUDA_KERNEL_CHECK() TC_CUDA_CHECK(cudaGetLastError())

}  // namespace tc::cuda_kernels
