// The device-generic optimizer path (core tensor ops) against the fused CPU loops, through the C++
// frontend (tc::optim::Adam, ...): forced on the CPU, taken by strided parameters, and on CUDA
// (skipped without a GPU).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/cuda/cuda.h"
#include "tensorcore/optim/adaptive.h"
#include "tensorcore/optim/fused.h"
#include "tensorcore/optim/optimizer.h"
#include "tensorcore/tensorcore.h"
#include "tests/cpp/cuda/gpu_test_util.h"

using namespace tc;

namespace {

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(TensorList)>;

struct ForceGeneric {
  explicit ForceGeneric(bool on) { optim::set_force_generic(on); }
  ~ForceGeneric() { optim::set_force_generic(false); }
};

struct Case {
  const char* name;
  MakeOptimizer make;
};

std::vector<Case> cases() {
  using namespace optim;
  auto wrap = [](auto fn) -> MakeOptimizer { return fn; };
  return {
      {"SGD", wrap([](TensorList ps) { return std::make_unique<SGD>(ps, SGDOptions(0.1)); })},
      {"SGD-nesterov", wrap([](TensorList ps) {
         return std::make_unique<SGD>(
             ps, SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
       })},
      {"SGD-dampening", wrap([](TensorList ps) {
         return std::make_unique<SGD>(ps,
                                      SGDOptions(0.05).momentum(0.9).dampening(0.2).maximize(true));
       })},
      {"Adam", wrap([](TensorList ps) {
         return std::make_unique<Adam>(ps, AdamOpts(0.01).weight_decay(0.1));
       })},
      {"Adam-amsgrad", wrap([](TensorList ps) {
         return std::make_unique<Adam>(ps, AdamOpts(0.01).amsgrad(true).maximize(true));
       })},
      {"AdamW-amsgrad", wrap([](TensorList ps) {
         return std::make_unique<AdamW>(
             ps, AdamWOptions(AdamWOptions(0.01).weight_decay(0.3).amsgrad(true)));
       })},
      {"Adagrad", wrap([](TensorList ps) {
         return std::make_unique<Adagrad>(ps, AdagradOpts(0.1).lr_decay(0.01).weight_decay(0.1));
       })},
      {"RMSprop",
       wrap([](TensorList ps) { return std::make_unique<RMSprop>(ps, RMSpropOpts(0.01)); })},
      {"RMSprop-centered-momentum", wrap([](TensorList ps) {
         return std::make_unique<RMSprop>(
             ps, RMSpropOpts(0.01).momentum(0.9).centered(true).weight_decay(0.1));
       })},
      {"Adadelta", wrap([](TensorList ps) {
         return std::make_unique<Adadelta>(ps, AdadeltaOpts(1.0).weight_decay(0.05));
       })},
      {"Adamax", wrap([](TensorList ps) {
         return std::make_unique<Adamax>(ps, AdamaxOpts(0.02).maximize(true));
       })},
      {"NAdam", wrap([](TensorList ps) {
         return std::make_unique<NAdam>(ps, NAdamOpts(0.02).weight_decay(0.05));
       })},
      {"RAdam", wrap([](TensorList ps) {
         return std::make_unique<RAdam>(ps, RAdamOpts(0.02).weight_decay(0.05));
       })},
  };
}

// 8 steps (RAdam rectifies from about step 6) with parameter-dependent gradients; returns the
// final parameter on the CPU.
Tensor trajectory(const MakeOptimizer& make, const Tensor& init, Device device, bool strided) {
  // A strided parameter: the transposed view of a buffer holding the transposed values.
  Tensor p = strided ? t(contiguous(to_device(t(init), device)))
                     : contiguous(to_device(init, device, true));
  EXPECT_EQ(p.is_contiguous(), !strided);
  p.requires_grad_(true);
  auto opt = make({p});
  for (int step = 0; step < 8; ++step) {
    {
      autograd::NoGradGuard no_grad;
      Tensor g = add(sin(add(mul(p, Scalar(3.0)), Scalar(double(step)))), mul(p, Scalar(0.5)));
      p.set_grad(contiguous(g));
    }
    opt->step();
  }
  return contiguous(to_device(p.detach(), Device()));
}

void expect_close(const Tensor& a, const Tensor& b, double tol, const char* what) {
  const double diff = amax(abs(sub(a, b))).item<double>();
  EXPECT_LE(diff, tol) << what;
}

Tensor initial(DType dtype) {
  auto gen = std::make_shared<Generator>(Device(), 7);
  return to_dtype(randn({37, 29}, gen, TensorOptions(DType::Float64)), dtype);
}

}  // namespace

TEST(OptimGeneric, ForcedGenericMatchesFusedOnCpu) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const double tol = dtype == DType::Float32 ? 2e-6 : 1e-12;
    const Tensor init = initial(dtype);
    for (auto& c : cases()) {
      Tensor fused = trajectory(c.make, init, Device(), false);
      EXPECT_GT(amax(abs(sub(fused, init))).item<double>(), 1e-3) << c.name << " did not move";
      Tensor generic;
      {
        ForceGeneric force(true);
        generic = trajectory(c.make, init, Device(), false);
      }
      expect_close(generic, fused, tol, c.name);
    }
  }
  EXPECT_FALSE(optim::force_generic());
}

TEST(OptimGeneric, StridedParametersMatchFused) {
  const Tensor init = initial(DType::Float64);
  for (auto& c : cases())
    expect_close(trajectory(c.make, init, Device(), true),
                 trajectory(c.make, init, Device(), false), 1e-12, c.name);
}

TEST(OptimGeneric, StepCounterMustBeOnTheHostAndStateOnTheParamDevice) {
  Tensor p = zeros({3});
  p.requires_grad_(true);
  p.set_grad(ones({3}));
  ForceGeneric force(true);
  Tensor step = zeros({});
  EXPECT_THROW(optim::adam_step({p}, {zeros({4})}, {zeros({3})}, {}, {step}, {}), ValueError);
  EXPECT_EQ(step.item<float>(), 0.0f);
  optim::adam_step({p}, {zeros({3})}, {zeros({3})}, {}, {step}, {});
  EXPECT_EQ(step.item<float>(), 1.0f);
}

TEST(CudaOptim, EveryOptimizerOnCudaMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const double tol = dtype == DType::Float32 ? 1e-5 : 1e-10;
    const Tensor init = initial(dtype);
    for (auto& c : cases()) {
      Tensor cpu = trajectory(c.make, init, Device(), false);
      expect_close(trajectory(c.make, init, gpu_test::kCuda, false), cpu, tol, c.name);
      expect_close(trajectory(c.make, init, gpu_test::kCuda, true), cpu, tol, c.name);
    }
  }
}

TEST(CudaOptim, StateLivesOnTheDeviceAndCounterOnTheHost) {
  SKIP_WITHOUT_GPU();
  Tensor p = zeros({5}, TensorOptions().device(gpu_test::kCuda));
  p.requires_grad_(true);
  p.set_grad(ones({5}, TensorOptions().device(gpu_test::kCuda)));
  optim::Adam opt({p}, optim::AdamOpts(0.1).amsgrad(true));
  opt.step();
  optim::NamedTensors st = opt.state_dict();
  bool saw_step = false;
  for (auto& [k, v] : st) {
    if (k.find("state.0.step") == 0) {
      saw_step = true;
      EXPECT_EQ(v.item<float>(), 1.0f);
    }
  }
  EXPECT_TRUE(saw_step);
  EXPECT_NEAR(to_device(p.detach(), Device()).data<float>()[0], -0.1f, 1e-6);
}
