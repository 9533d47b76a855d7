// tc::cudnn settings and the nn ops on CUDA from C++ (the Python suite in
// tests/python/cuda/test_cuda_nn.py covers them in depth). GPU tests skip without a device.
#include <gtest/gtest.h>

#include "tensorcore/core/deterministic.h"
#include "tensorcore/cuda/cuda.h"
#include "tensorcore/cudnn/cudnn.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"
#include "tests/cpp/cuda/gpu_test_util.h"

namespace tc {
namespace {

namespace F = nn::functional;

using gpu_test::kCuda;

Tensor host_randn(const Shape& s, uint64_t seed) {
  auto g = std::make_shared<Generator>(Device(), seed);
  return randn(s, g, TensorOptions(DType::Float64));
}

TEST(CudnnSettings, FlagsRoundTripAndAvailability) {
  bool bench = cudnn::benchmark(), det = cudnn::deterministic(), tf32 = cudnn::allow_tf32();
  cudnn::set_benchmark(!bench);
  cudnn::set_deterministic(!det);
  cudnn::set_allow_tf32(!tf32);
  EXPECT_EQ(cudnn::benchmark(), !bench);
  EXPECT_EQ(cudnn::deterministic(), !det);
  EXPECT_EQ(cudnn::allow_tf32(), !tf32);
  cudnn::set_benchmark(bench);
  cudnn::set_deterministic(det);
  cudnn::set_allow_tf32(tf32);
  use_deterministic_algorithms(true);
  EXPECT_TRUE(cudnn::deterministic_requested());
  use_deterministic_algorithms(false);
  EXPECT_EQ(cudnn::deterministic_requested(), det);
  if (cudnn::is_compiled())
    EXPECT_GE(cudnn::version(), 8000);
  else
    EXPECT_FALSE(cudnn::is_available());
}

TEST(CudaCudnn, Conv2dForwardBackwardMatchesCpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = host_randn({2, 4, 9, 9}, 1), w = host_randn({6, 2, 3, 3}, 2), b = host_randn({6}, 3);
  Tensor xg = to_device(x, kCuda), wg = to_device(w, kCuda), bg = to_device(b, kCuda);
  x.requires_grad_(true);
  xg.requires_grad_(true);
  Tensor y = F::conv2d(x, w, b, {2}, {1}, {1}, 2);
  Tensor yg = F::conv2d(xg, wg, bg, {2}, {1}, {1}, 2);
  EXPECT_TRUE(yg.is_cuda());
  EXPECT_TRUE(allclose(to_device(yg, Device()), y, 1e-10, 1e-10));
  sum(y).backward();
  sum(yg).backward();
  EXPECT_TRUE(allclose(to_device(xg.grad(), Device()), x.grad(), 1e-10, 1e-10));
}

TEST(CudaCudnn, PoolingAndBatchNormMatchCpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = host_randn({2, 3, 8, 7}, 4);
  Tensor xg = to_device(x, kCuda);
  auto [y, i] = F::max_pool2d_with_indices(x, {3}, {2}, {1});
  auto [yg, ig] = F::max_pool2d_with_indices(xg, {3}, {2}, {1});
  EXPECT_TRUE(allclose(to_device(yg, Device()), y));
  EXPECT_TRUE(equal(to_device(ig, Device()), i));
  Tensor rm = zeros({3}, TensorOptions(DType::Float64)),
         rv = ones({3}, TensorOptions(DType::Float64));
  Tensor rmg = to_device(rm, kCuda), rvg = to_device(rv, kCuda);
  Tensor z = F::batch_norm(x, rm, rv, Tensor(), Tensor(), true);
  Tensor zg = F::batch_norm(xg, rmg, rvg, Tensor(), Tensor(), true);
  EXPECT_TRUE(allclose(to_device(zg, Device()), z, 1e-10, 1e-10));
  EXPECT_TRUE(allclose(to_device(rvg, Device()), rv, 1e-10, 1e-10));
}

}  // namespace
}  // namespace tc
