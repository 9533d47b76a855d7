// nn_parity_optim: runs every LR scheduler and optimizer of the C++ frontend (tc::optim) on a
// fixed list of cases and writes what they produce, for tests/python/optim/
// test_nn_parity_optim.py to compare with tensorcore.optim (Python) and torch.
//
//   nn_parity_optim IN.safetensors OUT.safetensors
//
// IN holds the optimizer inputs: "p.<i>" (initial parameters) and "g.<step>.<i>" (the gradient
// of parameter i at each step). OUT holds
//   "sched.<case>.lr"        [steps + 1, groups] float64: get_last_lr() after construction and
//                            after each step; "sched.<case>.momentum" likewise where cycled;
//   "opt.<name>.<i>"         parameter i after every step of optimizer <name>;
// and, as safetensors metadata, "error.<case>" = "<ExceptionClass>: <message>" for the invalid
// arguments. The case list is mirrored by the Python test.
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorcore/optim/adaptive.h"
#include "tensorcore/optim/lr_scheduler.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace optim = tc::optim;
using optim::NamedTensors;

namespace {

constexpr int kSteps = 12;
NamedTensors g_out;
std::map<std::string, std::string> g_errors;

Tensor rows(const std::vector<std::vector<double>>& v) {
  const int64_t n = int64_t(v.size()), m = v.empty() ? 0 : int64_t(v[0].size());
  Tensor t = zeros({n, m}, DType::Float64);
  double* d = t.data<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) d[i * m + j] = v[size_t(i)][size_t(j)];
  return t;
}

double option(optim::Optimizer& opt, size_t g, const std::string& name) {
  for (auto& [n, v] : opt.param_groups()[g].options->values())
    if (n == name) return v;
  return NAN;
}

// Two groups with lrs 0.1 and 0.05 (the second group's options differ only in lr).
template <class Opt, class Opts>
std::unique_ptr<Opt> make_opt(Opts defaults) {
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(TensorList{zeros({2}).requires_grad_()});
  auto second = std::make_unique<Opts>(defaults);
  second->lr(0.05);
  groups.emplace_back(TensorList{zeros({3}).requires_grad_()}, std::move(second));
  return std::make_unique<Opt>(std::move(groups), defaults);
}
std::unique_ptr<optim::SGD> sgd() {
  return make_opt<optim::SGD>(optim::SGDOptions(0.1).momentum(0.9));
}
std::unique_ptr<optim::Adam> adam() { return make_opt<optim::Adam>(optim::AdamOpts(0.1)); }

// Records get_last_lr (and a cycled momentum option) after construction and after each step.
template <class Sched>
void record(const std::string& name, optim::Optimizer& opt, Sched& s, int steps,
            const std::function<void(Sched&, int)>& step, const std::string& momentum = "") {
  std::vector<std::vector<double>> lr, mom;
  auto snap = [&] {
    lr.push_back(s.get_last_lr());
    if (!momentum.empty()) {
      std::vector<double> m;
      for (size_t g = 0; g < opt.param_groups().size(); ++g) m.push_back(option(opt, g, momentum));
      mom.push_back(m);
    }
  };
  snap();
  for (int i = 0; i < steps; ++i) {
    step(s, i);
    snap();
  }
  g_out.emplace_back("sched." + name + ".lr", rows(lr));
  if (!momentum.empty()) g_out.emplace_back("sched." + name + ".momentum", rows(mom));
}

template <class Sched>
void run(const std::string& name, optim::Optimizer& opt, Sched& s, int steps = kSteps,
         const std::string& momentum = "") {
  record<Sched>(
      name, opt, s, steps, [](Sched& x, int) { x.step(); }, momentum);
}

void expect_error(const std::string& name, const std::function<void()>& fn) {
  try {
    fn();
    g_errors["error." + name] = "no error";
  } catch (const TypeError& e) {
    g_errors["error." + name] = std::string("TypeError: ") + e.what();
  } catch (const IndexError& e) {
    g_errors["error." + name] = std::string("IndexError: ") + e.what();
  } catch (const ValueError& e) {
    g_errors["error." + name] = std::string("ValueError: ") + e.what();
  } catch (const std::exception& e) {
    g_errors["error." + name] = std::string("RuntimeError: ") + e.what();
  }
}

void schedulers() {
  {
    auto o = sgd();
    optim::LambdaLR s(*o, [](int64_t e) { return std::pow(0.95, double(e)); });
    run("lambda", *o, s);
  }
  {
    auto o = sgd();
    optim::MultiplicativeLR s(*o, [](int64_t e) { return e % 2 ? 0.9 : 0.8; });
    run("multiplicative", *o, s);
  }
  {
    auto o = sgd();
    optim::StepLR s(*o, 3, 0.5);
    run("step", *o, s);
  }
  {
    auto o = sgd();
    optim::MultiStepLR s(*o, {5, 2, 5}, 0.5);
    run("multistep", *o, s);
  }
  {
    auto o = sgd();
    optim::ConstantLR s(*o, 0.25, 4);
    run("constant", *o, s);
  }
  {
    auto o = sgd();
    optim::LinearLR s(*o, 0.2, 0.9, 5);
    run("linear", *o, s);
  }
  {
    auto o = sgd();
    optim::ExponentialLR s(*o, 0.8);
    run("exponential", *o, s);
  }
  {
    auto o = sgd();
    optim::PolynomialLR s(*o, 6, 2.0);
    run("polynomial", *o, s);
  }
  {
    auto o = sgd();
    optim::CosineAnnealingLR s(*o, 4, 0.01);
    run("cosine", *o, s);
  }
  {
    auto o = sgd();
    optim::CosineAnnealingWarmRestarts s(*o, 3, 2, 0.001);
    run("warm_restarts", *o, s);
  }
  {
    auto o = sgd();
    optim::CyclicLROptions c;
    c.base_lr = {0.01, 0.02};
    c.max_lr = {0.1};
    c.step_size_up = 3;
    c.step_size_down = 2;
    c.mode = "triangular2";
    optim::CyclicLR s(*o, c);
    run("cyclic_triangular2", *o, s, kSteps, "momentum");
  }
  {
    auto o = sgd();
    optim::CyclicLROptions c;
    c.base_lr = {0.01};
    c.max_lr = {0.1};
    c.step_size_up = 4;
    c.mode = "exp_range";
    c.gamma = 0.9;
    c.base_momentum = {0.7, 0.75};
    c.max_momentum = {0.95};
    optim::CyclicLR s(*o, c);
    run("cyclic_exp_range", *o, s, kSteps, "momentum");
  }
  {
    auto o = adam();
    optim::CyclicLROptions c;
    c.base_lr = {0.01};
    c.max_lr = {0.1};
    c.step_size_up = 2;
    optim::CyclicLR s(*o, c);
    run("cyclic_adam", *o, s, kSteps, "beta1");
  }
  {
    auto o = sgd();
    optim::OneCycleLR s(*o, 1.0, kSteps);
    run("one_cycle_cos", *o, s, kSteps - 1, "momentum");
  }
  {
    auto o = adam();
    optim::OneCycleLROptions c;
    c.max_lr = {1.0, 0.5};
    c.epochs = 3;
    c.steps_per_epoch = 4;
    c.pct_start = 0.25;
    c.anneal_strategy = "linear";
    c.three_phase = true;
    optim::OneCycleLR s(*o, c);
    run("one_cycle_linear3", *o, s, kSteps - 1, "beta1");
  }
  {
    auto o = sgd();
    auto a = std::make_shared<optim::ConstantLR>(*o, 0.5, 2);
    auto b = std::make_shared<optim::ExponentialLR>(*o, 0.9);
    optim::SequentialLR s(*o, {a, b}, {3});
    run("sequential", *o, s);
  }
  {
    auto o = sgd();
    auto a = std::make_shared<optim::ConstantLR>(*o, 0.5, 3);
    auto b = std::make_shared<optim::ExponentialLR>(*o, 0.9);
    optim::ChainedScheduler s({a, b});
    run("chained", *o, s);
  }
  const std::vector<double> metrics = {1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6,
                                       0.7, 0.8, 0.9,  0.4,  0.41, 0.42};
  {
    auto o = sgd();
    optim::ReduceLROnPlateauOptions c;
    c.patience = 1;
    c.cooldown = 1;
    c.factor = 0.5;
    c.min_lr = {0.02, 0.001};
    optim::ReduceLROnPlateau s(*o, c);
    record<optim::ReduceLROnPlateau>("plateau_min_rel", *o, s, int(metrics.size()),
                                     [&](auto& x, int i) { x.step(metrics[size_t(i)]); });
  }
  {
    auto o = sgd();
    optim::ReduceLROnPlateauOptions c;
    c.mode = "max";
    c.threshold_mode = "abs";
    c.threshold = 0.1;
    c.patience = 0;
    optim::ReduceLROnPlateau s(*o, c);
    record<optim::ReduceLROnPlateau>("plateau_max_abs", *o, s, int(metrics.size()),
                                     [&](auto& x, int i) { x.step(metrics[size_t(i)]); });
  }
  // step(epoch): the closed forms (SGDR: its epoch arithmetic), at a fixed list of epochs.
  const std::vector<int64_t> epochs = {7, 2, 6, 0, 11, 5};
  auto jumps = [&](const std::string& name, auto make) {
    auto o = sgd();
    auto s = make(*o);
    record<std::decay_t<decltype(*s)>>(name, *o, *s, int(epochs.size()),
                                       [&](auto& x, int i) { x.step(epochs[size_t(i)]); });
  };
  jumps("closed_step", [](auto& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); });
  jumps("closed_multistep", [](auto& o) {
    return std::make_unique<optim::MultiStepLR>(o, std::vector<int64_t>{5, 2, 5}, 0.5);
  });
  jumps("closed_constant", [](auto& o) { return std::make_unique<optim::ConstantLR>(o, 0.25, 4); });
  jumps("closed_linear", [](auto& o) { return std::make_unique<optim::LinearLR>(o, 0.2, 0.9, 5); });
  jumps("closed_exponential",
        [](auto& o) { return std::make_unique<optim::ExponentialLR>(o, 0.8); });
  jumps("closed_polynomial",
        [](auto& o) { return std::make_unique<optim::PolynomialLR>(o, 6, 2.0); });
  jumps("closed_cosine",
        [](auto& o) { return std::make_unique<optim::CosineAnnealingLR>(o, 4, 0.01); });
  jumps("closed_warm_restarts", [](auto& o) {
    return std::make_unique<optim::CosineAnnealingWarmRestarts>(o, 3, 2, 0.001);
  });
  jumps("closed_lambda", [](auto& o) {
    return std::make_unique<optim::LambdaLR>(o, [](int64_t e) { return 1.0 / double(e + 1); });
  });
}

void scheduler_errors() {
  expect_error("constant_factor", [] { optim::ConstantLR(*sgd(), 1.5); });
  expect_error("linear_start", [] { optim::LinearLR(*sgd(), 0.0); });
  expect_error("linear_end", [] { optim::LinearLR(*sgd(), 0.5, 1.5); });
  expect_error("step_size", [] { optim::StepLR(*sgd(), 0); });
  expect_error("polynomial_total", [] { optim::PolynomialLR(*sgd(), 0); });
  expect_error("cosine_tmax", [] { optim::CosineAnnealingLR(*sgd(), 0); });
  expect_error("sgdr_t0", [] { optim::CosineAnnealingWarmRestarts(*sgd(), 0); });
  expect_error("sgdr_tmult", [] { optim::CosineAnnealingWarmRestarts(*sgd(), 2, 0); });
  expect_error("sgdr_negative_epoch", [] {
    auto o = sgd();
    optim::CosineAnnealingWarmRestarts s(*o, 2);
    s.step(-1);
  });
  expect_error("lambda_count", [] {
    auto o = sgd();
    optim::LambdaLR(*o, std::vector<optim::LambdaLR::Fn>{[](int64_t) { return 1.0; }});
  });
  expect_error("one_cycle_undefined", [] {
    optim::OneCycleLROptions c;
    c.max_lr = {0.1};
    optim::OneCycleLR(*sgd(), c);
  });
  expect_error("one_cycle_total", [] { optim::OneCycleLR(*sgd(), 0.1, -3); });
  expect_error("one_cycle_epochs", [] {
    optim::OneCycleLROptions c;
    c.max_lr = {0.1};
    c.epochs = -2;
    c.steps_per_epoch = 4;
    optim::OneCycleLR(*sgd(), c);
  });
  expect_error("one_cycle_pct", [] { optim::OneCycleLR(*sgd(), 0.1, 10, 1.5); });
  expect_error("one_cycle_anneal", [] { optim::OneCycleLR(*sgd(), 0.1, 10, 0.3, "exp"); });
  expect_error("one_cycle_max_lr", [] {
    optim::OneCycleLROptions c;
    c.max_lr = {0.1, 0.2, 0.3};
    c.total_steps = 10;
    optim::OneCycleLR(*sgd(), c);
  });
  expect_error("one_cycle_overrun", [] {
    auto o = sgd();
    optim::OneCycleLR s(*o, 0.1, 3);
    for (int i = 0; i < 4; ++i) s.step();
  });
  expect_error("cyclic_mode", [] {
    optim::CyclicLROptions c;
    c.base_lr = {0.01};
    c.max_lr = {0.1};
    c.mode = "sawtooth";
    optim::CyclicLR(*sgd(), c);
  });
  expect_error("cyclic_base_lr", [] {
    optim::CyclicLROptions c;
    c.base_lr = {0.01, 0.02, 0.03};
    c.max_lr = {0.1};
    optim::CyclicLR(*sgd(), c);
  });
  expect_error("cyclic_no_momentum", [] {
    auto o = make_opt<optim::Adagrad>(optim::AdagradOpts(0.1));
    optim::CyclicLR(*o, 0.01, 0.1);
  });
  expect_error("plateau_factor", [] {
    optim::ReduceLROnPlateauOptions c;
    c.factor = 1.0;
    optim::ReduceLROnPlateau(*sgd(), c);
  });
  expect_error("plateau_mode", [] {
    optim::ReduceLROnPlateauOptions c;
    c.mode = "avg";
    optim::ReduceLROnPlateau(*sgd(), c);
  });
  expect_error("plateau_threshold_mode", [] {
    optim::ReduceLROnPlateauOptions c;
    c.threshold_mode = "pct";
    optim::ReduceLROnPlateau(*sgd(), c);
  });
  expect_error("plateau_min_lr", [] {
    optim::ReduceLROnPlateauOptions c;
    c.min_lr = {0.1, 0.2, 0.3};
    optim::ReduceLROnPlateau(*sgd(), c);
  });
  expect_error("sequential_milestones", [] {
    auto o = sgd();
    auto a = std::make_shared<optim::ConstantLR>(*o, 0.5, 2);
    auto b = std::make_shared<optim::ExponentialLR>(*o, 0.9);
    optim::SequentialLR(*o, {a, b}, {2, 4});
  });
  expect_error("sequential_optimizer", [] {
    auto o = sgd(), other = sgd();
    auto a = std::make_shared<optim::ConstantLR>(*o, 0.5, 2);
    auto b = std::make_shared<optim::ExponentialLR>(*other, 0.9);
    optim::SequentialLR(*o, {a, b}, {2});
  });
  expect_error("chained_optimizer", [] {
    auto o = sgd(), other = sgd();
    auto a = std::make_shared<optim::ConstantLR>(*o, 0.5, 2);
    auto b = std::make_shared<optim::ExponentialLR>(*other, 0.9);
    optim::ChainedScheduler({a, b});
  });
}

TensorList single() { return {zeros({2}).requires_grad_()}; }

void optimizer_errors() {
  expect_error("param_non_leaf", [] {
    Tensor x = zeros({2}).requires_grad_();
    optim::SGD(TensorList{x * 2.0}, optim::SGDOptions(0.1));
  });
  expect_error("param_in_two_groups", [] {
    Tensor x = zeros({2}).requires_grad_();
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(TensorList{x});
    groups.emplace_back(TensorList{x});
    optim::SGD(std::move(groups), optim::SGDOptions(0.1));
  });
  expect_error("sgd_lr", [] { optim::SGD(single(), optim::SGDOptions(-0.1)); });
  expect_error("sgd_momentum", [] { optim::SGD(single(), optim::SGDOptions(0.1).momentum(-1)); });
  expect_error("sgd_weight_decay",
               [] { optim::SGD(single(), optim::SGDOptions(0.1).weight_decay(-1e-05)); });
  expect_error("sgd_nesterov", [] { optim::SGD(single(), optim::SGDOptions(0.1).nesterov(true)); });
  expect_error("adam_lr", [] { optim::Adam(single(), optim::AdamOpts(-0.001)); });
  expect_error("adam_beta1", [] { optim::Adam(single(), optim::AdamOpts(0.1).beta1(1.0)); });
  expect_error("adam_beta2", [] { optim::Adam(single(), optim::AdamOpts(0.1).beta2(-0.5)); });
  expect_error("adam_eps", [] { optim::Adam(single(), optim::AdamOpts(0.1).eps(-1e-08)); });
  expect_error("adamw_weight_decay",
               [] { optim::AdamW(single(), optim::AdamWOptions(0.1).weight_decay(-0.01)); });
  expect_error("adagrad_lr_decay",
               [] { optim::Adagrad(single(), optim::AdagradOpts(0.1).lr_decay(-0.5)); });
  expect_error("adagrad_initial_accumulator", [] {
    optim::Adagrad(single(), optim::AdagradOpts(0.1).initial_accumulator_value(-1));
  });
  expect_error("rmsprop_alpha",
               [] { optim::RMSprop(single(), optim::RMSpropOpts(0.1).alpha(-0.99)); });
  expect_error("rmsprop_momentum",
               [] { optim::RMSprop(single(), optim::RMSpropOpts(0.1).momentum(-0.9)); });
  expect_error("adadelta_rho",
               [] { optim::Adadelta(single(), optim::AdadeltaOpts(1.0).rho(1.5)); });
  expect_error("adamax_eps", [] { optim::Adamax(single(), optim::AdamaxOpts(0.1).eps(-1e-20)); });
  expect_error("nadam_momentum_decay",
               [] { optim::NAdam(single(), optim::NAdamOpts(0.1).momentum_decay(-0.004)); });
  expect_error("radam_weight_decay",
               [] { optim::RAdam(single(), optim::RAdamOpts(0.1).weight_decay(-1e+20)); });
}

// Every optimizer over the input's parameters and per-step gradients.
void optimizers(const NamedTensors& in) {
  std::map<std::string, Tensor> by_name(in.begin(), in.end());
  size_t n_params = 0, n_steps = 0;
  while (by_name.count("p." + std::to_string(n_params))) ++n_params;
  while (by_name.count("g." + std::to_string(n_steps) + ".0")) ++n_steps;
  auto go = [&](const std::string& name, auto make) {
    TensorList params;
    for (size_t i = 0; i < n_params; ++i)
      params.push_back(clone(by_name["p." + std::to_string(i)]).requires_grad_());
    auto opt = make(params);
    for (size_t s = 0; s < n_steps; ++s) {
      for (size_t i = 0; i < n_params; ++i)
        params[i].set_grad(clone(by_name["g." + std::to_string(s) + "." + std::to_string(i)]));
      opt->step();
    }
    for (size_t i = 0; i < n_params; ++i)
      g_out.emplace_back("opt." + name + "." + std::to_string(i), clone(params[i].detach()));
  };
  using namespace optim;
  go("sgd", [](TensorList p) {
    return std::make_unique<SGD>(p,
                                 SGDOptions(0.1).momentum(0.9).dampening(0.1).weight_decay(0.01));
  });
  go("sgd_nesterov", [](TensorList p) {
    return std::make_unique<SGD>(p, SGDOptions(0.05).momentum(0.8).nesterov(true).maximize(true));
  });
  go("adam", [](TensorList p) {
    return std::make_unique<Adam>(
        p, AdamOpts(0.01).betas({0.8, 0.99}).weight_decay(0.1).amsgrad(true));
  });
  go("adamw", [](TensorList p) { return std::make_unique<AdamW>(p, AdamWOptions(0.01)); });
  go("adagrad", [](TensorList p) {
    return std::make_unique<Adagrad>(
        p, AdagradOpts(0.1).lr_decay(0.01).initial_accumulator_value(0.1).weight_decay(0.01));
  });
  go("rmsprop", [](TensorList p) {
    return std::make_unique<RMSprop>(
        p, RMSpropOpts(0.01).momentum(0.9).centered(true).weight_decay(0.01));
  });
  go("adadelta", [](TensorList p) {
    return std::make_unique<Adadelta>(p, AdadeltaOpts(1.0).rho(0.8).weight_decay(0.01));
  });
  go("adamax",
     [](TensorList p) { return std::make_unique<Adamax>(p, AdamaxOpts(0.02).weight_decay(0.01)); });
  go("nadam", [](TensorList p) {
    return std::make_unique<NAdam>(p, NAdamOpts(0.02).momentum_decay(0.005));
  });
  go("radam",
     [](TensorList p) { return std::make_unique<RAdam>(p, RAdamOpts(0.02).weight_decay(0.01)); });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.safetensors OUT.safetensors\n", argv[0]);
    return 2;
  }
  try {
    NamedTensors in = serialize::load_safetensors(argv[1]);
    schedulers();
    scheduler_errors();
    optimizer_errors();
    optimizers(in);
    serialize::save_safetensors(g_out, argv[2], g_errors);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nn_parity_optim: %s\n", e.what());
    return 1;
  }
  return 0;
}
