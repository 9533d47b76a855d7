// LR schedulers: closed forms and composition here; NnCppSchedInterop.Sequences writes every
// scheduler's lr/momentum sequence for tests/python/nn/cpp/test_nncpp_sched.py to compare with
// torch.optim.lr_scheduler.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numbers>

#include "tensorcore/nn/nn.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace optim = tc::optim;
using optim::NamedTensors;

namespace {

// Two param groups (lr 0.1 and 0.05), like the Python side of the interop test.
std::vector<optim::OptimizerParamGroup> two_groups() {
  std::vector<optim::OptimizerParamGroup> g;
  g.emplace_back(TensorList{zeros({2}).requires_grad_()});
  g.emplace_back(TensorList{zeros({3}).requires_grad_()},
                 std::make_unique<optim::SGDOptions>(0.05));
  return g;
}
std::vector<optim::OptimizerParamGroup> two_adam_groups() {
  std::vector<optim::OptimizerParamGroup> g;
  g.emplace_back(TensorList{zeros({2}).requires_grad_()});
  g.emplace_back(TensorList{zeros({3}).requires_grad_()}, std::make_unique<optim::AdamOpts>(0.05));
  return g;
}

double option(optim::Optimizer& opt, size_t g, const std::string& name) {
  for (auto& [n, v] : opt.param_groups()[g].options->values())
    if (n == name) return v;
  return NAN;
}

// Rows: after construction, then after each of `steps` steps; columns: the two groups.
struct Recorder {
  std::vector<double> lr, momentum;
  void record(optim::Optimizer& opt, const std::string& momentum_name = "") {
    for (size_t g = 0; g < 2; ++g) {
      lr.push_back(opt.param_groups()[g].options->get_lr());
      if (!momentum_name.empty()) momentum.push_back(option(opt, g, momentum_name));
    }
  }
  void save(NamedTensors& out, const std::string& name) const {
    int64_t rows = int64_t(lr.size() / 2);
    out.emplace_back(name + ".lr", from_vector(lr, {rows, 2}));
    if (!momentum.empty()) out.emplace_back(name + ".momentum", from_vector(momentum, {rows, 2}));
  }
};

template <typename Step>
Recorder run(optim::Optimizer& opt, int steps, Step step, const std::string& momentum_name = "") {
  Recorder r;
  r.record(opt, momentum_name);
  for (int i = 0; i < steps; ++i) {
    step(i);
    r.record(opt, momentum_name);
  }
  return r;
}

}  // namespace

TEST(NnCppSched, ClosedFormsAndErrors) {
  optim::SGD opt(two_groups(), optim::SGDOptions(0.1).momentum(0.9));
  optim::MultiStepLR ms(opt, {2, 5, 5}, 0.5);
  std::vector<double> expect = {0.1, 0.1, 0.05, 0.05, 0.05, 0.0125, 0.0125};
  for (size_t e = 0; e < expect.size(); ++e) {
    EXPECT_NEAR(ms.get_last_lr()[0], expect[e], 1e-15) << "epoch " << e;
    EXPECT_NEAR(ms.get_last_lr()[1], expect[e] / 2, 1e-15) << "epoch " << e;
    ms.step();
  }
  ms.step(6);  // closed form: three milestones passed
  EXPECT_NEAR(ms.get_last_lr()[0], 0.0125, 1e-15);

  optim::SGD opt2(two_groups(), optim::SGDOptions(0.1));
  optim::CosineAnnealingWarmRestarts sgdr(opt2, 2, 2, 0.0);
  // T_i: 2, 4, 8 ...; epochs 0..6 -> T_cur 0,1 | 0,1,2,3 | 0
  const double pi = std::numbers::pi;
  std::vector<double> tcur = {0, 1, 0, 1, 2, 3, 0}, ti = {2, 2, 4, 4, 4, 4, 8};
  for (size_t e = 0; e < tcur.size(); ++e) {
    EXPECT_NEAR(sgdr.get_last_lr()[0], 0.1 * (1 + std::cos(pi * tcur[e] / ti[e])) / 2, 1e-15)
        << "epoch " << e;
    sgdr.step();
  }

  optim::SGD opt3(two_groups(), optim::SGDOptions(0.1));
  EXPECT_THROW(optim::LinearLR(opt3, 0.0), ValueError);
  EXPECT_THROW(optim::ConstantLR(opt3, 1.5), ValueError);
  EXPECT_THROW(optim::OneCycleLR(opt3, 0.1, 0), ValueError);
  optim::CyclicLROptions three;
  three.base_lr = {0.1, 0.2, 0.3};  // three values for two groups
  three.max_lr = {1.0};
  EXPECT_THROW(optim::CyclicLR(opt3, three), ValueError);
  optim::ReduceLROnPlateauOptions bad;
  bad.factor = 1.0;
  EXPECT_THROW(optim::ReduceLROnPlateau(opt3, bad), ValueError);
  // OneCycleLR refuses to run past total_steps.
  optim::OneCycleLR one(opt3, 0.1, 3, 0.3, "cos", 25, 1e4, false, false);
  one.step();
  one.step();
  one.step();
  EXPECT_THROW(one.step(), ValueError);
}

TEST(NnCppSched, StateDictRoundTrip) {
  optim::SGD opt(two_groups(), optim::SGDOptions(0.1));
  optim::CosineAnnealingWarmRestarts a(opt, 3, 2, 0.01);
  for (int i = 0; i < 5; ++i) a.step();
  NamedTensors sd = a.state_dict();
  optim::SGD opt2(two_groups(), optim::SGDOptions(0.1));
  optim::CosineAnnealingWarmRestarts b(opt2, 3, 2, 0.01);
  b.load_state_dict(sd);
  EXPECT_EQ(b.last_epoch(), 5);
  EXPECT_EQ(b.T_cur(), a.T_cur());
  EXPECT_EQ(b.T_i(), a.T_i());
  a.step();
  b.step();
  EXPECT_EQ(a.get_last_lr(), b.get_last_lr());

  // The optimizer's state_dict carries initial_lr, so a resumed optimizer has the same base.
  NamedTensors osd = opt.state_dict();
  bool found = false;
  for (auto& [k, t] : osd) found |= k == "param_groups.1.initial_lr" && t.item<double>() == 0.05;
  EXPECT_TRUE(found);
  optim::SGD opt3(two_groups(), optim::SGDOptions(0.1));
  opt3.load_state_dict(osd);
  ASSERT_TRUE(opt3.param_groups()[1].initial_lr.has_value());
  EXPECT_EQ(*opt3.param_groups()[1].initial_lr, 0.05);

  optim::ReduceLROnPlateau p(opt, {});
  p.step(1.0);
  p.step(2.0);
  optim::ReduceLROnPlateau q(opt, {});
  q.load_state_dict(p.state_dict());
  EXPECT_EQ(q.best(), 1.0);
  EXPECT_EQ(q.num_bad_epochs(), 1);
}

TEST(NnCppSchedInterop, Sequences) {
  const char* dir_env = std::getenv("NNCPP_SCHED_DIR");
  if (!dir_env)
    GTEST_SKIP() << "NNCPP_SCHED_DIR not set (run by tests/python/nn/cpp/test_nncpp_sched.py)";
  NamedTensors out;
  const int steps = 20;
  auto sgd = [] {
    return std::make_unique<optim::SGD>(two_groups(), optim::SGDOptions(0.1).momentum(0.9));
  };
  auto adam = [] { return std::make_unique<optim::Adam>(two_adam_groups(), optim::AdamOpts(0.1)); };
  auto simple = [&](const std::string& name, auto make_sched) {
    auto opt = sgd();
    auto s = make_sched(*opt);
    run(*opt, steps, [&](int) { s->step(); }).save(out, name);
  };
  simple("lambda", [](optim::Optimizer& o) {
    return std::make_unique<optim::LambdaLR>(o,
                                             [](int64_t e) { return std::pow(0.95, double(e)); });
  });
  simple("multiplicative", [](optim::Optimizer& o) {
    return std::make_unique<optim::MultiplicativeLR>(o, [](int64_t) { return 0.9; });
  });
  simple("step", [](optim::Optimizer& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); });
  simple("multistep", [](optim::Optimizer& o) {
    return std::make_unique<optim::MultiStepLR>(o, std::vector<int64_t>{2, 5, 5, 8}, 0.3);
  });
  simple("constant",
         [](optim::Optimizer& o) { return std::make_unique<optim::ConstantLR>(o, 0.25, 4); });
  simple("linear",
         [](optim::Optimizer& o) { return std::make_unique<optim::LinearLR>(o, 0.2, 1.0, 5); });
  simple("exponential",
         [](optim::Optimizer& o) { return std::make_unique<optim::ExponentialLR>(o, 0.9); });
  simple("polynomial",
         [](optim::Optimizer& o) { return std::make_unique<optim::PolynomialLR>(o, 6, 2.0); });
  simple("cosine", [](optim::Optimizer& o) {
    return std::make_unique<optim::CosineAnnealingLR>(o, 7, 0.001);
  });
  simple("warm_restarts", [](optim::Optimizer& o) {
    return std::make_unique<optim::CosineAnnealingWarmRestarts>(o, 3, 2, 0.001);
  });
  {
    auto opt = sgd();
    optim::CyclicLROptions o;
    o.base_lr = {0.01};
    o.max_lr = {0.1, 0.2};
    o.step_size_up = 3;
    o.step_size_down = 2;
    o.mode = "triangular2";
    optim::CyclicLR s(*opt, o);
    run(
        *opt, steps, [&](int) { s.step(); }, "momentum")
        .save(out, "cyclic_tri2");
  }
  {
    auto opt = sgd();
    optim::CyclicLROptions o;
    o.base_lr = {0.01};
    o.max_lr = {0.1};
    o.step_size_up = 4;
    o.mode = "exp_range";
    o.gamma = 0.9;
    o.base_momentum = {0.7, 0.75};
    optim::CyclicLR s(*opt, o);
    run(
        *opt, steps, [&](int) { s.step(); }, "momentum")
        .save(out, "cyclic_exp");
  }
  {
    auto opt = sgd();
    optim::OneCycleLR s(*opt, 0.1, steps);
    run(
        *opt, steps - 1, [&](int) { s.step(); }, "momentum")
        .save(out, "onecycle");
  }
  {
    auto opt = adam();
    optim::OneCycleLROptions o;
    o.max_lr = {0.1, 0.3};
    o.total_steps = steps;
    o.anneal_strategy = "linear";
    o.three_phase = true;
    o.pct_start = 0.25;
    optim::OneCycleLR s(*opt, o);
    run(
        *opt, steps - 1, [&](int) { s.step(); }, "beta1")
        .save(out, "onecycle3_adam");
  }
  {
    auto opt = sgd();
    optim::ReduceLROnPlateauOptions o;
    o.patience = 2;
    o.cooldown = 1;
    o.factor = 0.5;
    o.min_lr = {0.01, 0.0};
    optim::ReduceLROnPlateau s(*opt, o);
    const double metrics[] = {5, 4, 4, 4, 4, 3.9999, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2};
    run(*opt, steps, [&](int i) { s.step(metrics[i]); }).save(out, "plateau");
  }
  {
    auto opt = sgd();
    auto a = std::make_shared<optim::LinearLR>(*opt, 0.1, 1.0, 3);
    auto b = std::make_shared<optim::ExponentialLR>(*opt, 0.9);
    optim::SequentialLR s(*opt, {a, b}, {3});
    run(*opt, steps, [&](int) { s.step(); }).save(out, "sequential");
  }
  {
    auto opt = sgd();
    auto a = std::make_shared<optim::ConstantLR>(*opt, 0.5, 3);
    auto b = std::make_shared<optim::ExponentialLR>(*opt, 0.9);
    optim::ChainedScheduler s({a, b});
    run(*opt, steps, [&](int) { s.step(); }).save(out, "chained");
  }
  serialize::save(out, std::filesystem::path(dir_env) / "cpp_sched.pt");
}
