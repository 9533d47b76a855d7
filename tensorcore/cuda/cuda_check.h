#pragma once
// Internal helpers for code that talks to the CUDA runtime (needs cuda_runtime.h).
#include <cuda_runtime.h>

#include "tensorcore/core/error.h"
#include "tensorcore/cuda/cuda.h"

#define TC_CUDA_CHECK(expr)                                                                     \
  do {                                                                                          \
    cudaError_t tc_err_ = (expr);                                                               \
    if (tc_err_ != cudaSuccess) {                                                               \
      cudaGetLastError();                                                                       \
      throw ::tc::Error(::tc::detail::concat("CUDA error: ", cudaGetErrorString(tc_err_), " (", \
                                             #expr, " at ", __FILE__, ":", __LINE__, ")"));     \
    }                                                                                           \
  } while (0)

namespace tc::cuda {

// Makes `device` current for the scope (no-op when it already is).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cudaGetDevice(&prev_);
    if (device >= 0 && device != prev_) {
      TC_CUDA_CHECK(cudaSetDevice(device));
      changed_ = true;
    }
  }
  ~DeviceGuard() {
    if (changed_) cudaSetDevice(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = 0;
  bool changed_ = false;
};

inline cudaStream_t stream_of(int device) {
  return static_cast<cudaStream_t>(current_stream(device).handle);
}

// Out-of-memory gets its own type so Python can map it (tc.cuda.OutOfMemoryError).
struct OutOfMemoryError : Error {
  using Error::Error;
};

}  // namespace tc::cuda
