#pragma once
// Shared by the C++ tests that need a GPU: they skip with a message where none is present.
#include <gtest/gtest.h>

#include "tensorcore/cuda/cuda.h"

namespace tc::gpu_test {

inline const Device kCuda(DeviceType::CUDA, 0);

}  // namespace tc::gpu_test

#define SKIP_WITHOUT_GPU()                                                       \
  do {                                                                           \
    if (!::tc::cuda::is_available()) GTEST_SKIP() << "no CUDA device available"; \
  } while (0)
