// Autocast from C++ (AutocastMode regions reach every op with a TC_AUTOCAST hook) and the
// GradScaler primitives on the CPU; the CUDA variants skip without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/grad_scaler.h"
#include "tensorcore/amp/scaler.h"
#include "tensorcore/cuda/cuda.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/loss.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"
#include "tests/cpp/cuda/gpu_test_util.h"

using namespace tc;

TEST(AmpAutocast, RegionCastsListedOpsOnly) {
  Tensor a = randn({4, 8}), b = randn({8, 3});
  EXPECT_FALSE(amp::hook_armed());
  {
    amp::AutocastMode region(DeviceType::CPU);
    EXPECT_TRUE(amp::hook_armed());
    EXPECT_EQ(mm(a, b).dtype(), DType::BFloat16);
    EXPECT_EQ(matmul(a, b).dtype(), DType::BFloat16);
    EXPECT_EQ(nn::functional::linear(a, randn({5, 8}), randn({5})).dtype(), DType::BFloat16);
    EXPECT_EQ(exp(to_dtype(a, DType::BFloat16)).dtype(), DType::BFloat16);  // not on the CPU list
    EXPECT_EQ(cat({a, to_dtype(a, DType::BFloat16)}).dtype(), DType::Float32);  // promote
    EXPECT_EQ(mm(to_dtype(a, DType::Float64), to_dtype(b, DType::Float64)).dtype(), DType::Float64);
    {
      amp::AutocastMode off(DeviceType::CPU, std::nullopt, false);
      EXPECT_EQ(mm(a, b).dtype(), DType::Float32);
    }
    amp::AutocastMode half(DeviceType::CPU, DType::Float16);
    EXPECT_EQ(mm(a, b).dtype(), DType::Float16);
  }
  EXPECT_FALSE(amp::hook_armed());
  EXPECT_EQ(mm(a, b).dtype(), DType::Float32);
}

TEST(AmpAutocast, Fp32PolicyAndGradients) {
  Tensor w = randn({3, 8}).requires_grad_();
  Tensor x = randn({4, 8});
  Tensor loss;
  {
    amp::AutocastMode region(DeviceType::CPU);
    Tensor logits = nn::functional::linear(x, w);
    EXPECT_EQ(logits.dtype(), DType::BFloat16);
    loss = nn::functional::cross_entropy(logits, tensor<int64_t>({0, 1, 2, 0}));
    EXPECT_EQ(loss.dtype(), DType::Float32);
    EXPECT_EQ(amp::cache_size(), 1u);
  }
  EXPECT_EQ(amp::cache_size(), 0u);
  loss.backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().dtype(), DType::Float32);
}

TEST(AmpAutocast, PolicyTable) {
  EXPECT_EQ(amp::cast_policy("conv2d", DeviceType::CPU), amp::CastPolicy::LowerPrecision);
  EXPECT_EQ(amp::cast_policy("softmax", DeviceType::CPU), amp::CastPolicy::None);
  EXPECT_EQ(amp::cast_policy("softmax", DeviceType::CUDA), amp::CastPolicy::Fp32SetOptDtype);
  EXPECT_EQ(amp::cast_policy("binary_cross_entropy", DeviceType::CUDA), amp::CastPolicy::Banned);
  EXPECT_GT(amp::policy_table(DeviceType::CPU).size(), 90u);
  EXPECT_THROW(amp::set_autocast_dtype(DeviceType::CPU, DType::Int32), TypeError);
}

TEST(AmpGradScaler, UnscaleAndUpdate) {
  Tensor g = tensor<float>({2.f, 4.f, -8.f});
  Tensor found = zeros({1}), inv = full({1}, 0.5);
  amp::foreach_non_finite_check_and_unscale_({g}, found, inv);
  EXPECT_FLOAT_EQ(g.data<float>()[2], -4.f);
  EXPECT_EQ(found.item<float>(), 0.f);
  g.data<float>()[1] = std::numeric_limits<float>::quiet_NaN();
  amp::foreach_non_finite_check_and_unscale_({g}, found, inv);
  EXPECT_EQ(found.item<float>(), 1.f);

  Tensor scale = full({1}, 16.0), tracker = zeros({1}, TensorOptions(DType::Int32));
  amp::update_scale_(scale, tracker, zeros({1}), 2.0, 0.5, 1);
  EXPECT_EQ(scale.item<float>(), 32.f);
  amp::update_scale_(scale, tracker, ones({1}), 2.0, 0.5, 1);
  EXPECT_EQ(scale.item<float>(), 16.f);
  EXPECT_THROW(amp::update_scale_(scale, zeros({1}), ones({1}), 2.0, 0.5, 1), TypeError);
}

TEST(AmpCuda, GradScalerKernels) {
  SKIP_WITHOUT_GPU();
  const Device& dev = gpu_test::kCuda;
  Tensor g = to_device(tensor<float>({2.f, std::numeric_limits<float>::infinity()}), dev);
  Tensor found = to_device(zeros({1}), dev), inv = to_device(full({1}, 0.5), dev);
  amp::foreach_non_finite_check_and_unscale_({g}, found, inv);
  EXPECT_EQ(found.item<float>(), 1.f);
  EXPECT_FLOAT_EQ(to_device(g, Device()).data<float>()[0], 1.f);
  Tensor scale = to_device(full({1}, 8.0), dev);
  Tensor tracker = to_device(zeros({1}, TensorOptions(DType::Int32)), dev);
  amp::update_scale_(scale, tracker, found, 2.0, 0.5, 10);
  EXPECT_EQ(scale.item<float>(), 4.f);
}

TEST(AmpGradScaler, CppScalerTrajectoryAndSkippedSteps) {
  Tensor w = ones({3}).requires_grad_();
  optim::SGD opt(TensorList{w}, optim::SGDOptions(0.1));
  amp::GradScaler scaler({/*init_scale=*/8.0, /*growth_factor=*/2.0, /*backoff_factor=*/0.5,
                          /*growth_interval=*/2, /*enabled=*/true});
  const bool inf_at[] = {false, false, true, false, false};
  const double expected_scale[] = {8, 16, 8, 8, 16};
  for (int it = 0; it < 5; ++it) {
    opt.zero_grad();
    Tensor loss = sum(mul(w, w));
    Tensor scaled = scaler.scale(loss);
    EXPECT_FLOAT_EQ(scaled.item<float>(), loss.item<float>() * float(scaler.get_scale()));
    scaled.backward();
    if (inf_at[it]) w.grad().data<float>()[1] = std::numeric_limits<float>::infinity();
    float before = w.data<float>()[0];
    bool stepped = scaler.step(opt);
    EXPECT_EQ(stepped, !inf_at[it]);
    // Unscaled gradient 2w: w -= 0.1 * 2w.
    EXPECT_FLOAT_EQ(w.data<float>()[0], inf_at[it] ? before : before * 0.8f);
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), expected_scale[it]) << "iteration " << it;
  }
}

TEST(AmpGradScaler, CppStagesAndStateDict) {
  Tensor w = ones({2}).requires_grad_();
  optim::SGD opt(TensorList{w}, optim::SGDOptions(0.1));
  amp::GradScaler scaler;
  scaler.scale(sum(w)).backward();
  scaler.unscale_(opt);
  EXPECT_FLOAT_EQ(w.grad().data<float>()[0], 1.f);
  EXPECT_THROW(scaler.unscale_(opt), ValueError);
  scaler.step(opt);
  EXPECT_THROW(scaler.step(opt), ValueError);
  scaler.update();
  EXPECT_THROW(scaler.update(), ValueError);
  auto sd = scaler.state_dict();
  ASSERT_EQ(sd.size(), 5u);
  EXPECT_EQ(sd[0].first, "scale");
  EXPECT_EQ(sd[4].second, 1.0);  // one good step
  amp::GradScaler other;
  other.load_state_dict(sd);
  EXPECT_EQ(other.state_dict(), sd);
  amp::GradScaler off({65536.0, 2.0, 0.5, 2000, false});
  EXPECT_TRUE(off.state_dict().empty());
  EXPECT_EQ(off.get_scale(), 1.0);
  EXPECT_THROW(amp::GradScaler({1.0, 1.0, 0.5, 10, true}), ValueError);
}
