#pragma once
// Helpers for functions compiled both by the host compiler (the CPU kernels) and by
// nvcc (the CUDA kernels), so both run the same expressions. The math helpers pick the device
// overloads under nvcc's device pass and <cmath> elsewhere. Most are exact operations (rounding
// to an integer, comparisons), so host and device agree bit for bit; exp, log and lgamma (the
// special functions' kernels) are within the libraries' last-bit error on each side.
#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define TC_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TC_HOST_DEVICE inline
#endif

namespace tc::hd {

template <typename T>
TC_HOST_DEVICE T floor(T x) {
#ifdef __CUDA_ARCH__
  return ::floor(x);
#else
  return std::floor(x);
#endif
}

template <typename T>
TC_HOST_DEVICE T ceil(T x) {
#ifdef __CUDA_ARCH__
  return ::ceil(x);
#else
  return std::ceil(x);
#endif
}

// Round half away from zero (std::round).
template <typename T>
TC_HOST_DEVICE T round(T x) {
#ifdef __CUDA_ARCH__
  return ::round(x);
#else
  return std::round(x);
#endif
}

// Round half to even (std::nearbyint in the default rounding mode).
template <typename T>
TC_HOST_DEVICE T rint(T x) {
#ifdef __CUDA_ARCH__
  return ::rint(x);
#else
  return std::nearbyint(x);
#endif
}

template <typename T>
TC_HOST_DEVICE T max(T a, T b) {
  return a < b ? b : a;  // std::max's choice
}

template <typename T>
TC_HOST_DEVICE T min(T a, T b) {
  return b < a ? b : a;  // std::min's choice
}

// std::clamp's expression (NaN passes through as with std::clamp).
template <typename T>
TC_HOST_DEVICE T clamp(T v, T lo, T hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

}  // namespace tc::hd

namespace tc::hd {

template <typename T>
TC_HOST_DEVICE T fmod(T x, T y) {
#ifdef __CUDA_ARCH__
  return ::fmod(x, y);
#else
  return std::fmod(x, y);
#endif
}

template <typename T>
TC_HOST_DEVICE T exp(T x) {
#ifdef __CUDA_ARCH__
  return ::exp(x);
#else
  return std::exp(x);
#endif
}

template <typename T>
TC_HOST_DEVICE T log(T x) {
#ifdef __CUDA_ARCH__
  return ::log(x);
#else
  return std::log(x);
#endif
}

template <typename T>
TC_HOST_DEVICE T lgamma(T x) {
#ifdef __CUDA_ARCH__
  return ::lgamma(x);
#else
  return std::lgamma(x);
#endif
}

template <typename T>
TC_HOST_DEVICE T abs(T x) {
  if (x < T(0)) return -x;
  return x == T(0) ? T(0) : x;  // +0 for -0, as std::abs
}

}  // namespace tc::hd
