// CUDA backend tests: each compares with the CPU result; all skip without a GPU.
#include <gtest/gtest.h>

#include "tensorcore/cuda/cuda.h"
#include "tensorcore/tensorcore.h"
#include "tests/cpp/cuda/gpu_test_util.h"

namespace tc {
namespace {

using gpu_test::kCuda;

Tensor host_rand(const Shape& s, uint64_t seed = 1) {
  auto g = std::make_shared<Generator>(Device(), seed);
  return rand(s, g);
}

TEST(CudaBuild, DeviceFactoriesWithoutGpuRaiseClearly) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  try {
    empty({2}, TensorOptions().device(Device(DeviceType::CUDA)));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_TRUE(msg.find("CUDA") != std::string::npos || msg.find("cuda") != std::string::npos)
        << msg;
  }
  EXPECT_EQ(cuda::device_count(), 0);
}

TEST(CudaRuntime, DevicePropertiesAndStreams) {
  SKIP_WITHOUT_GPU();
  EXPECT_GT(cuda::device_count(), 0);
  auto p = cuda::get_device_properties(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.major, 7);
  cuda::Stream s = cuda::new_stream(0);
  EXPECT_NE(s.handle, nullptr);
  cuda::Stream prev = cuda::current_stream(0);
  cuda::set_current_stream(s);
  Tensor a = to_device(host_rand({1000}), kCuda);
  Tensor b = mul(a, 2.0);
  cuda::Event e(true);
  e.record(s);
  e.synchronize();
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(s.query());
  cuda::set_current_stream(prev);
  EXPECT_TRUE(allclose(to_device(b, Device()), mul(to_device(a, Device()), 2.0)));
}

TEST(CudaAllocator, ReusesCachedBlocksAndCounts) {
  SKIP_WITHOUT_GPU();
  cuda::synchronize();
  int64_t before = cuda::memory_allocated(0);
  {
    Tensor t = empty({1 << 18}, TensorOptions(DType::Float32).device(kCuda));  // 1 MiB
    EXPECT_EQ(cuda::memory_allocated(0) - before, int64_t(1) << 20);
  }
  EXPECT_EQ(cuda::memory_allocated(0), before);
  int64_t reserved = cuda::memory_reserved(0);
  {
    Tensor t = empty({1 << 18}, TensorOptions(DType::Float32).device(kCuda));
    EXPECT_EQ(cuda::memory_reserved(0), reserved) << "the cached block should be reused";
  }
  auto stats = cuda::memory_stats(0);
  EXPECT_GE(stats["num_allocs"], 2);
  cuda::empty_cache();
  EXPECT_LE(cuda::memory_reserved(0), reserved);
}

TEST(CudaOps, ElementwiseMatchesCpu) {
  SKIP_WITHOUT_GPU();
  Tensor a = host_rand({33, 65}, 1), b = host_rand({65}, 2);
  Tensor ga = to_device(a, kCuda), gb = to_device(b, kCuda);
  EXPECT_TRUE(allclose(to_device(add(ga, gb, 2), Device()), add(a, b, 2), 1e-6, 1e-6));
  EXPECT_TRUE(
      allclose(to_device(exp(transpose(ga, 0, 1)), Device()), exp(transpose(a, 0, 1)), 1e-5, 1e-6));
  EXPECT_TRUE(equal(to_device(gt(ga, gb), Device()), gt(a, b)));
}

TEST(CudaOps, ReductionsAndMatmulMatchCpu) {
  SKIP_WITHOUT_GPU();
  Tensor a = host_rand({64, 300}, 3);
  Tensor ga = to_device(a, kCuda);
  EXPECT_TRUE(allclose(to_device(sum(ga, {1}), Device()), sum(a, {1}), 1e-5, 1e-4));
  EXPECT_TRUE(allclose(to_device(sum(ga, {0}), Device()), sum(a, {0}), 1e-5, 1e-4));
  Tensor b = host_rand({300, 17}, 4);
  EXPECT_TRUE(
      allclose(to_device(matmul(ga, to_device(b, kCuda)), Device()), matmul(a, b), 1e-4, 1e-4));
}

TEST(CudaOps, MixingDevicesNamesBoth) {
  SKIP_WITHOUT_GPU();
  Tensor a = host_rand({4}), g = to_device(a, kCuda);
  try {
    add(a, g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("cpu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cuda:0"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tc
