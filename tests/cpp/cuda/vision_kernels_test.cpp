// The vision and nn kernels added on CUDA (warp, blur, color, equalize, the RoI ops,
// deform_conv2d, grid_sample, embedding_bag, ctc_loss, the deployment Pipeline), each against the
// CPU kernel on the same input. All skip without a GPU.
#include <gtest/gtest.h>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"
#include "tests/cpp/cuda/gpu_test_util.h"
#include "vision/ops/ops.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/pipeline.h"

namespace tc {
namespace {

using gpu_test::kCuda;
namespace vk = vision::kernels;
namespace vo = vision::ops;
namespace nf = nn::functional;

Tensor host_rand(const Shape& s, uint64_t seed, DType dt = DType::Float32) {
  auto g = std::make_shared<Generator>(Device(), seed);
  return to_dtype(rand(s, g), dt);
}

Tensor host_image_u8(const Shape& s, uint64_t seed) {
  return to_dtype(floor(mul(host_rand(s, seed), 256.0)), DType::UInt8);
}

Tensor cpu(const Tensor& t) { return to_device(t, Device()); }

void expect_equal(const Tensor& gpu, const Tensor& ref) {
  ASSERT_TRUE(gpu.is_cuda());
  ASSERT_EQ(gpu.sizes(), ref.sizes());
  ASSERT_EQ(gpu.dtype(), ref.dtype());
  EXPECT_TRUE(equal(cpu(gpu), ref));
}

void expect_close(const Tensor& gpu, const Tensor& ref, double tol) {
  ASSERT_TRUE(gpu.is_cuda());
  ASSERT_EQ(gpu.sizes(), ref.sizes());
  EXPECT_TRUE(allclose(cpu(gpu), ref, tol, tol));
}

TEST(CudaVisionKernels, WarpAndBlurEqualCpu) {
  SKIP_WITHOUT_GPU();
  // Two samples, per-sample matrices (a rotation and a perspective-like map), fill per channel.
  const std::vector<double> mats = {0.9, -0.3, 4.0,  0.3,   0.9,  -2.0, 0.0,   0.0,    1.0,
                                    1.1, 0.05, -1.5, -0.02, 0.95, 0.7,  0.001, -0.002, 1.0};
  for (DType dt : {DType::UInt8, DType::Float32, DType::Float64}) {
    Tensor x =
        dt == DType::UInt8 ? host_image_u8({2, 3, 21, 26}, 1) : host_rand({2, 3, 21, 26}, 1, dt);
    Tensor xg = to_device(x, kCuda);
    for (auto mode : {vk::Interpolation::Nearest, vk::Interpolation::Bilinear}) {
      std::optional<std::vector<double>> fill = std::vector<double>{3.0, 7.0, 200.0};
      expect_equal(vk::warp(xg, mats, 19, 30, mode, fill), vk::warp(x, mats, 19, 30, mode, fill));
      expect_equal(vk::warp(xg, mats, 19, 30, mode, std::nullopt),
                   vk::warp(x, mats, 19, 30, mode, std::nullopt));
    }
    expect_equal(vk::gaussian_blur(xg, 5, 9, {0.8, 2.0}, {1.5}),
                 vk::gaussian_blur(x, 5, 9, {0.8, 2.0}, {1.5}));
  }
}

TEST(CudaVisionKernels, ColorEqualizeAndFusedCropEqualCpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = host_image_u8({3, 3, 17, 23}, 2), xg = to_device(x, kCuda);
  expect_equal(vk::blend(xg, {0.4, 1.3, 2.0}, vk::BlendOther::Gray),
               vk::blend(x, {0.4, 1.3, 2.0}, vk::BlendOther::Gray));
  expect_equal(vk::blend(xg, {0.7}, vk::BlendOther::Value, {10.0, 90.0, 200.0}),
               vk::blend(x, {0.7}, vk::BlendOther::Value, {10.0, 90.0, 200.0}));
  expect_equal(vk::adjust_hue(xg, {-0.4, 0.1, 0.45}), vk::adjust_hue(x, {-0.4, 0.1, 0.45}));
  expect_equal(vk::equalize(xg), vk::equalize(x));
  const std::vector<int64_t> tops = {0, 3, 5}, lefts = {1, 0, 7};
  const std::vector<uint8_t> hf = {1, 0, 1}, vf = {0, 1, 1};
  expect_close(
      vk::crop_flip_normalize(xg, tops, lefts, hf, vf, 12, 15, {0.01, 0.02, 0.03},
                              {-0.5, 0.1, 0.2}),
      vk::crop_flip_normalize(x, tops, lefts, hf, vf, 12, 15, {0.01, 0.02, 0.03}, {-0.5, 0.1, 0.2}),
      1e-6);
  expect_equal(vk::crop_flip(xg, tops, lefts, hf, vf, 12, 15),
               vk::crop_flip(x, tops, lefts, hf, vf, 12, 15));
}

TEST(CudaVisionKernels, PipelineRunsOnCudaImages) {
  SKIP_WITHOUT_GPU();
  auto p = vision::transforms::Pipeline::from_json(
      R"({"format": "tensorcore.vision.transforms", "version": 1, "transforms": [
          {"name": "RandomRotation", "params": {"degrees": [-30.0, 30.0],
           "interpolation": "bilinear", "expand": false, "center": null, "fill": 5,
           "same_on_batch": false}},
          {"name": "GaussianBlur", "params": {"kernel_size": [3, 5], "sigma": [0.5, 2.0],
           "same_on_batch": false}},
          {"name": "RandomEqualize", "params": {"p": 0.7, "same_on_batch": false}}]})");
  Tensor x = host_image_u8({4, 3, 30, 34}, 3);
  auto gen = [](uint64_t seed) { return std::make_shared<Generator>(Device(), seed); };
  expect_equal(p(to_device(x, kCuda), gen(5)), p(x, gen(5)));
}

TEST(CudaVisionKernels, RoiOpsAndDeformConvMatchCpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = host_rand({2, 8, 16, 18}, 4, DType::Float64);
  Tensor rois = from_vector<double>(
      {0, 1.5, 2.0, 12.0, 9.0, 1, -3.0, 4.0, 20.0, 30.0, 0, 5, 5, 5.5, 5.2}, {3, 5});
  Tensor xg = to_device(x, kCuda), rg = to_device(rois, kCuda);
  expect_close(vo::roi_pool(xg, rg, 0.8, 2, 2), vo::roi_pool(x, rois, 0.8, 2, 2), 1e-12);
  expect_close(vo::ps_roi_pool(xg, rg, 0.8, 2, 2), vo::ps_roi_pool(x, rois, 0.8, 2, 2), 1e-12);
  expect_close(vo::ps_roi_align(xg, rg, 0.8, 2, 2, -1), vo::ps_roi_align(x, rois, 0.8, 2, 2, -1),
               1e-12);
  Tensor off = mul(sub(host_rand({2, 18, 14, 16}, 5, DType::Float64), 0.5), 4.0);
  Tensor w = host_rand({4, 8, 3, 3}, 6, DType::Float64);
  Tensor m = host_rand({2, 9, 14, 16}, 7, DType::Float64);
  expect_close(vo::deform_conv2d(xg, to_device(off, kCuda), to_device(w, kCuda), Tensor(), {1, 1},
                                 {0, 0}, {1, 1}, to_device(m, kCuda)),
               vo::deform_conv2d(x, off, w, Tensor(), {1, 1}, {0, 0}, {1, 1}, m), 1e-10);
}

TEST(CudaNnKernels, GridSampleEmbeddingBagCtcMatchCpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = host_rand({2, 3, 7, 9}, 8, DType::Float64);
  Tensor grid = mul(sub(host_rand({2, 4, 5, 2}, 9, DType::Float64), 0.5), 2.4);
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"})
      expect_close(nf::grid_sample(to_device(x, kCuda), to_device(grid, kCuda), mode, pad, true),
                   nf::grid_sample(x, grid, mode, pad, true), 1e-10);
  Tensor x3 = host_rand({2, 2, 4, 5, 6}, 12, DType::Float64);
  Tensor grid3 = mul(sub(host_rand({2, 3, 2, 4, 3}, 13, DType::Float64), 0.5), 2.4);
  for (const char* mode : {"bilinear", "nearest"})
    expect_close(nf::grid_sample(to_device(x3, kCuda), to_device(grid3, kCuda), mode, "border"),
                 nf::grid_sample(x3, grid3, mode, "border"), 1e-10);
  Tensor weight = host_rand({10, 4}, 10, DType::Float64);
  Tensor idx = from_vector<int64_t>({1, 2, 4, 5, 4, 3, 2, 9}, {8});
  Tensor offsets = from_vector<int64_t>({0, 3, 3, 6}, {4});
  for (const char* mode : {"sum", "mean", "max"}) {
    auto gpu = nf::embedding_bag(to_device(idx, kCuda), to_device(weight, kCuda),
                                 to_device(offsets, kCuda), {}, 2.0, false, mode);
    auto ref = nf::embedding_bag(idx, weight, offsets, {}, 2.0, false, mode);
    expect_close(std::get<0>(gpu), std::get<0>(ref), 1e-12);
  }
  Tensor lp = nf::log_softmax(host_rand({10, 2, 5}, 11, DType::Float64), 2);
  Tensor targets = from_vector<int64_t>({1, 2, 2, 3, 4, 1}, {2, 3});
  Tensor in_len = from_vector<int64_t>({10, 8}, {2}), tg_len = from_vector<int64_t>({3, 2}, {2});
  expect_close(nf::ctc_loss(to_device(lp, kCuda), targets, in_len, tg_len, 0, "none"),
               nf::ctc_loss(lp, targets, in_len, tg_len, 0, "none"), 1e-10);
}

}  // namespace
}  // namespace tc
