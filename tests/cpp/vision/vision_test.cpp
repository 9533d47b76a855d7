// C++ API of tc::vision: detection ops, image kernels and the deployment pipeline. Semantics are
// covered against torchvision by the Python tests; these check the C++ entry points directly.
#include <gtest/gtest.h>

#include "tensorcore/tensorcore.h"
#include "vision/ops/ops.h"
#include "vision/transforms/geometry.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/pipeline.h"

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

TEST(VisionPipeline, RotationBy90IsATransposeAndBlurKeepsConstants) {
  // degrees [90, 90] leaves no randomness: a 90-degree counter-clockwise rotation of a square
  // image maps output (y, x) to input (x, W-1-y) exactly (nearest taps on pixel centres).
  auto pipe = tc::vision::transforms::Pipeline::from_json(R"({
    "format": "tensorcore.vision.transforms", "version": 1,
    "transforms": [
      {"name": "RandomRotation", "params": {"degrees": [90, 90], "interpolation": "nearest",
                                            "expand": false, "center": null, "fill": 0}}]})");
  const int64_t S = 6;
  Tensor img =
      to_dtype(reshape(arange(0, S * S, 1, TensorOptions(DType::Int64)), {1, S, S}), DType::UInt8);
  Tensor out = pipe(img);
  ASSERT_EQ(out.sizes(), Shape({1, S, S}));
  for (int64_t y = 0; y < S; ++y)
    for (int64_t x = 0; x < S; ++x)
      EXPECT_EQ(out.data<uint8_t>()[y * S + x], img.data<uint8_t>()[x * S + (S - 1 - y)]);

  auto blur = tc::vision::transforms::Pipeline::from_json(R"({
    "format": "tensorcore.vision.transforms", "version": 1,
    "transforms": [{"name": "GaussianBlur", "params": {"kernel_size": [5, 3], "sigma": [0.5, 2]}}]})");
  Tensor flat = full({2, 3, 9, 7}, 0.25, TensorOptions(DType::Float32));
  Tensor b = blur(flat);
  for (int64_t i = 0; i < b.numel(); ++i) EXPECT_NEAR(b.data<float>()[i], 0.25f, 1e-6);
}

TEST(VisionPipeline, ContainersAndErasingFromJson) {
  // RandomApply(p=1) of RandomErasing(p=1, value 0) always erases a non-empty window.
  auto pipe = tc::vision::transforms::Pipeline::from_json(R"({
    "format": "tensorcore.vision.transforms", "version": 1,
    "transforms": [{"name": "RandomApply", "params": {"p": 1.0, "transforms": [
      {"name": "RandomErasing", "params": {"p": 1.0, "scale": [0.1, 0.2], "ratio": [0.5, 2],
                                           "value": 0}}]}}]})");
  EXPECT_EQ(pipe.names(), std::vector<std::string>{"RandomApply"});
  Tensor img = full({3, 3, 20, 20}, 200, TensorOptions(DType::UInt8));
  auto g = std::make_shared<Generator>();
  g->manual_seed(3);
  Tensor out = pipe(img, g);
  for (int64_t n = 0; n < 3; ++n) {
    int64_t zeros = 0;
    const uint8_t* p = out.data<uint8_t>() + n * 3 * 400;
    for (int64_t i = 0; i < 3 * 400; ++i) zeros += p[i] == 0;
    EXPECT_GE(zeros, 3 * 400 / 10 - 3 * 20);  // about 10-20% of the area in every channel
    EXPECT_LE(zeros, 3 * 400 / 4);
  }
  EXPECT_THROW(tc::vision::transforms::Pipeline::from_json(R"({
    "format": "tensorcore.vision.transforms", "version": 1,
    "transforms": [{"name": "RandomOrder", "params": {"transforms": [
      {"name": "NoSuchTransform", "params": {}}]}}]})"),
               ValueError);
}

TEST(VisionKernels, ExpandedSizeAndPerspectiveIdentity) {
  // A 90-degree rotation of a 4x6 image expands to 6x4; identical point sets give the identity.
  auto m = vk::affine_for_image(4, 6, -90.0, 0, 0, 1, 0, 0, std::nullopt);
  auto [h, w] = vk::expanded_size(m, 4, 6);
  EXPECT_EQ(h, 6);
  EXPECT_EQ(w, 4);
  std::array<double, 8> pts{0, 0, 9, 0, 9, 7, 0, 7};
  auto id = vk::perspective_matrix(pts, pts);
  const double expect[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(id[size_t(i)], expect[i], 1e-12);
  std::array<double, 8> line{0, 0, 1, 1, 2, 2, 3, 3};
  EXPECT_THROW(vk::perspective_matrix(pts, line), ValueError);
}
