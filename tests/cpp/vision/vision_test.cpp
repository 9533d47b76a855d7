// C++ API of tc::vision: detection ops, image kernels and the deployment pipeline. Semantics are
// covered against torchvision by the Python tests; these check the C++ entry points directly.
#include <gtest/gtest.h>

#include "tensorcore/tensorcore.h"
#include "tensorcore/vision/ops/ops.h"
#include "tensorcore/vision/transforms/kernels.h"
#include "tensorcore/vision/transforms/pipeline.h"

using namespace tc;
namespace vops = tc::vision::ops;
namespace vk = tc::vision::kernels;

TEST(VisionOps, NmsKeepsHighestOfOverlappingPair) {
  Tensor boxes = reshape(tensor<float>({0, 0, 10, 10, 1, 1, 11, 11, 20, 20, 30, 30}), {3, 4});
  Tensor scores = tensor<float>({0.5f, 0.9f, 0.1f});
  Tensor keep = vops::nms(boxes, scores, 0.5);
  ASSERT_EQ(keep.numel(), 2);
  EXPECT_EQ(keep.data<int64_t>()[0], 1);
  EXPECT_EQ(keep.data<int64_t>()[1], 2);
  EXPECT_THROW(vops::nms(reshape(boxes, {4, 3}), scores, 0.5), ValueError);
}

TEST(VisionOps, RoiAlignOfConstantImageIsConstantAndBackwardSumsToCount) {
  Tensor x = full({1, 2, 8, 8}, 3.0, TensorOptions(DType::Float64));
  Tensor rois = reshape(tensor<double>({0, 1, 1, 6, 5}), {1, 5});
  Tensor out = vops::roi_align(x, rois, 1.0, 2, 2, 2, true);
  ASSERT_EQ(out.sizes(), Shape({1, 2, 2, 2}));
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(out.data<double>()[i], 3.0, 1e-12);
  Tensor g = vops::roi_align_backward(ones({1, 2, 2, 2}, TensorOptions(DType::Float64)), rois, 1.0,
                                      2, 2, 2, true, {1, 2, 8, 8});
  // Each output bin averages weights summing to one, so the gradient sums to the bin count.
  EXPECT_NEAR(sum(g).item<double>(), 8.0, 1e-9);
  EXPECT_THROW(
      vops::roi_align(x, reshape(tensor<double>({3, 0, 0, 1, 1}), {1, 5}), 1.0, 2, 2, 2, true),
      IndexError);
}

TEST(VisionKernels, ResizeKeepsConstantImagesAndChecksArguments) {
  Tensor img = full({3, 50, 70}, 200, TensorOptions(DType::UInt8));
  for (auto mode :
       {vk::Interpolation::Nearest, vk::Interpolation::Bilinear, vk::Interpolation::Bicubic}) {
    Tensor out = vk::resize(img, 17, 33, mode, true);
    ASSERT_EQ(out.sizes(), Shape({3, 17, 33}));
    for (int64_t i = 0; i < out.numel(); ++i) ASSERT_EQ(out.data<uint8_t>()[i], 200);
  }
  EXPECT_THROW(vk::resize(img, 0, 10, vk::Interpolation::Bilinear, true), ValueError);
  EXPECT_THROW(vk::resize(zeros({2, 4, 4}, TensorOptions(DType::Int32)), 2, 2,
                          vk::Interpolation::Bilinear, true),
               TypeError);
}

TEST(VisionKernels, CropFlipNormalizeReadsMirroredWindow) {
  Tensor img = reshape(arange(0, 2 * 1 * 4 * 5, 1, TensorOptions(DType::Int64)), {2, 1, 4, 5});
  img = to_dtype(img, DType::UInt8);
  Tensor out = vk::crop_flip_normalize(img, {1, 0}, {2, 1}, {1, 0}, {0, 1}, 2, 3, {0.5}, {1.0});
  ASSERT_EQ(out.sizes(), Shape({2, 1, 2, 3}));
  // Sample 0: rows 1-2, cols 2-4 mirrored: first value is pixel (1, 4) = 9.
  EXPECT_FLOAT_EQ(out.data<float>()[0], 9 * 0.5f + 1);
  // Sample 1: rows 0-1 flipped vertically, cols 1-3: first value is pixel (1, 1) of image 1.
  EXPECT_FLOAT_EQ(out.data<float>()[6], (20 + 6) * 0.5f + 1);
  EXPECT_THROW(vk::crop_flip_normalize(img, {3}, {0}, {0}, {0}, 2, 3, {1.0}, {0.0}), ValueError);
}

TEST(VisionPipeline, DeterministicStepsFromJson) {
  auto pipe = tc::vision::transforms::Pipeline::from_json(R"({
    "format": "tensorcore.vision.transforms", "version": 1,
    "transforms": [
      {"name": "CenterCrop", "params": {"size": [4, 4]}},
      {"name": "ConvertImageDtype", "params": {"dtype": "float32"}},
      {"name": "Normalize", "params": {"mean": [0.5], "std": [0.5]}}]})");
  EXPECT_EQ(pipe.size(), 3u);
  Tensor img = full({3, 8, 8}, 255, TensorOptions(DType::UInt8));
  Tensor out = pipe(img);
  ASSERT_EQ(out.sizes(), Shape({3, 4, 4}));
  for (int64_t i = 0; i < out.numel(); ++i) EXPECT_NEAR(out.data<float>()[i], 1.0f, 1e-6);
  EXPECT_THROW(tc::vision::transforms::Pipeline::from_json("{\"transforms\": []}"), ValueError);
  EXPECT_ANY_THROW(tc::vision::transforms::Pipeline::from_json("not json"));
}

TEST(VisionPipeline, RandomStepsAreReproducibleForASeed) {
  auto pipe = tc::vision::transforms::Pipeline::from_json(R"({
    "format": "tensorcore.vision.transforms", "version": 1,
    "transforms": [
      {"name": "RandomCrop", "params": {"size": [5, 5]}},
      {"name": "RandomHorizontalFlip", "params": {"p": 0.5}}]})");
  Tensor img =
      to_dtype(reshape(arange(0, 4 * 12 * 12, 1, TensorOptions(DType::Int64)), {4, 1, 12, 12}),
               DType::UInt8);
  auto g1 = std::make_shared<Generator>(), g2 = std::make_shared<Generator>();
  g1->manual_seed(7);
  g2->manual_seed(7);
  Tensor a = pipe(img, g1), b = pipe(img, g2);
  ASSERT_EQ(a.sizes(), Shape({4, 1, 5, 5}));
  EXPECT_TRUE(equal(a, b));
}
