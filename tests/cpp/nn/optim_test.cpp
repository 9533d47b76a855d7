// tc::optim: trajectories against the update formulas, param groups, state_dict, schedulers.
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace optim = tc::optim;

namespace {

// Loss 0.5 * sum(c * p^2): grad = c * p, so gradients change along the trajectory.
void compute_grad(const Tensor& p, const std::vector<double>& c) {
  Tensor cw = from_vector(c, {int64_t(c.size())});
  Tensor loss = mul(sum(mul(cw, square(p))), 0.5);
  loss.backward();
}

std::vector<double> vals(const Tensor& t) {
  Tensor d = contiguous(to_dtype(t.detach(), DType::Float64));
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

}  // namespace

TEST(NnCppOptim, SgdMomentumNesterovWeightDecay) {
  for (bool nesterov : {false, true}) {
    std::vector<double> c = {1.0, 2.0, 0.5}, p = {1.0, -1.0, 2.0}, buf(3);
    Tensor param = from_vector(p, {3}).requires_grad_();
    optim::SGD opt({param},
                   optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.01).nesterov(nesterov));
    for (int step = 0; step < 4; ++step) {
      opt.zero_grad();
      compute_grad(param, c);
      opt.step();
      for (int i = 0; i < 3; ++i) {
        double d = c[i] * p[i] + 0.01 * p[i];
        buf[i] = step == 0 ? d : 0.9 * buf[i] + d;
        p[i] -= 0.1 * (nesterov ? d + 0.9 * buf[i] : buf[i]);
      }
      auto got = vals(param);
      for (int i = 0; i < 3; ++i)
        ASSERT_NEAR(got[i], p[i], 1e-5) << "step " << step << " nesterov " << nesterov;
    }
  }
  Tensor q = zeros({2}).requires_grad_();
  EXPECT_THROW(optim::SGD({q}, optim::SGDOptions(0.1).nesterov(true)), ValueError);
}

TEST(NnCppOptim, AdamAndAdamWAmsgrad) {
  for (bool decoupled : {false, true}) {
    for (bool ams : {false, true}) {
      std::vector<double> c = {1.0, 3.0}, p = {0.5, -2.0}, m(2), v(2), vmax(2);
      Tensor param = from_vector(p, {2}, DType::Float64).requires_grad_();
      std::unique_ptr<optim::Optimizer> opt;
      const double lr = 0.05, wd = 0.1, b1 = 0.9, b2 = 0.99, eps = 1e-8;
      if (decoupled)
        opt = std::make_unique<optim::AdamW>(
            TensorList{param},
            optim::AdamWOptions(lr).betas({b1, b2}).weight_decay(wd).amsgrad(ams));
      else
        opt = std::make_unique<optim::Adam>(
            TensorList{param}, optim::AdamOpts(lr).betas({b1, b2}).weight_decay(wd).amsgrad(ams));
      for (int step = 1; step <= 5; ++step) {
        opt->zero_grad();
        compute_grad(param, c);
        opt->step();
        for (int i = 0; i < 2; ++i) {
          double g = c[i] * p[i];
          if (decoupled)
            p[i] *= 1 - lr * wd;
          else
            g += wd * p[i];
          m[i] = b1 * m[i] + (1 - b1) * g;
          v[i] = b2 * v[i] + (1 - b2) * g * g;
          vmax[i] = std::max(vmax[i], v[i]);
          double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
          double denom = std::sqrt(ams ? vmax[i] : v[i]) / std::sqrt(bc2) + eps;
          p[i] -= lr / bc1 * m[i] / denom;
        }
        auto got = vals(param);
        for (int i = 0; i < 2; ++i)
          ASSERT_NEAR(got[i], p[i], 1e-10) << decoupled << ams << " step " << step;
      }
    }
  }
}

TEST(NnCppOptim, ParamGroupsAndStateDict) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(TensorList{a});
  groups.emplace_back(TensorList{b},
                      std::make_unique<optim::SGDOptions>(optim::SGDOptions(1.0).momentum(0.5)));
  optim::SGD opt(groups, optim::SGDOptions(0.1).momentum(0.5));
  for (int s = 0; s < 2; ++s) {
    opt.zero_grad();
    sum(add(a, b)).backward();
    opt.step();
  }
  // a: lr 0.1, b: lr 1.0; both saw gradient 1 twice with momentum 0.5: buf 1 then 1.5.
  EXPECT_NEAR(vals(a)[0], 1 - 0.1 * 2.5, 1e-6);
  EXPECT_NEAR(vals(b)[0], 1 - 1.0 * 2.5, 1e-6);
  EXPECT_THROW(opt.add_param_group(optim::OptimizerParamGroup({a})), ValueError);

  auto sd = opt.state_dict();
  Tensor a2 = clone(a.detach()).requires_grad_(), b2 = clone(b.detach()).requires_grad_();
  std::vector<optim::OptimizerParamGroup> g2;
  g2.emplace_back(TensorList{a2});
  g2.emplace_back(TensorList{b2});
  optim::SGD opt2(g2, optim::SGDOptions(0.3));
  opt2.load_state_dict(sd);
  EXPECT_DOUBLE_EQ(opt2.param_groups()[1].options->get_lr(), 1.0);
  for (auto* o : {&opt, &opt2}) {
    o->zero_grad();
    Tensor x = o == &opt ? add(a, b) : add(a2, b2);
    sum(x).backward();
    o->step();
  }
  EXPECT_TRUE(allclose(a, a2));
  EXPECT_TRUE(allclose(b, b2));
  nn::NamedTensors bad = {{"state.0.momentum_buffer", zeros({3})}};
  EXPECT_THROW(opt2.load_state_dict(bad), ValueError);
}

TEST(NnCppOptim, Schedulers) {
  Tensor p = zeros({1}).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(1.0));
  optim::StepLR step(opt, 2, 0.5);
  std::vector<double> got;
  for (int e = 0; e < 5; ++e) {
    got.push_back(opt.param_groups()[0].options->get_lr());
    step.step();
  }
  EXPECT_EQ(got, (std::vector<double>{1, 1, 0.5, 0.5, 0.25}));

  optim::SGD opt2({p}, optim::SGDOptions(0.1));
  optim::CosineAnnealingLR cos(opt2, 10, 0.001);
  for (int e = 0; e < 10; ++e) {
    double expect = 0.001 + (0.1 - 0.001) * (1 + std::cos(M_PI * e / 10)) / 2;
    ASSERT_NEAR(opt2.param_groups()[0].options->get_lr(), expect, 1e-12);
    cos.step();
  }

  // OneCycleLR(max_lr=0.1, total_steps=10): values printed by torch 1.13.
  optim::SGD opt3({p}, optim::SGDOptions(0.5));
  optim::OneCycleLR one(opt3, 0.1, 10);
  const double torch_lrs[10] = {0.0040000000000000036,
                                0.052000000000000005,
                                0.1,
                                0.09504846320134738,
                                0.0811745653949763,
                                0.06112620219362893,
                                0.03887419780637107,
                                0.0188258346050237,
                                0.004951936798652629,
                                4e-07};
  for (int s = 0; s < 10; ++s) {
    ASSERT_NEAR(opt3.param_groups()[0].options->get_lr(), torch_lrs[s], 1e-9) << s;
    one.step();
  }
}

TEST(NnCppOptim, ClipGrad) {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_(),
         c = zeros({1}).requires_grad_();
  a.set_grad(tensor<float>({3.f, 0.f}));
  b.set_grad(tensor<float>({4.f}));
  double total = nn::utils::clip_grad_norm_({a, b, c}, 1.0);  // c has no gradient
  EXPECT_NEAR(total, 5.0, 1e-6);
  EXPECT_NEAR(vals(a.grad())[0], 3.0 / (5 + 1e-6), 1e-6);
  EXPECT_NEAR(vals(b.grad())[0], 4.0 / (5 + 1e-6), 1e-6);
  // Below the limit: untouched. Infinity norm: largest |g|.
  EXPECT_NEAR(nn::utils::clip_grad_norm_({a, b}, 10.0, INFINITY), 0.8, 1e-5);
  EXPECT_NEAR(vals(b.grad())[0], 0.8, 1e-5);
  nn::utils::clip_grad_value_({a, b}, 0.7);
  EXPECT_EQ(vals(b.grad())[0], vals(tensor<float>({0.7f}))[0]);
  EXPECT_THROW(nn::utils::clip_grad_norm_({a}, -1.0), ValueError);
}

TEST(NnCppOptim, AdagradAndRmsprop) {
  {
    std::vector<double> c = {1.0, 2.0}, p = {1.0, -0.5}, acc = {0.1, 0.1};
    Tensor param = from_vector(p, {2}, DType::Float64).requires_grad_();
    optim::Adagrad opt(
        {param},
        optim::AdagradOpts(0.1).lr_decay(0.01).weight_decay(0.05).initial_accumulator_value(0.1));
    for (int step = 1; step <= 4; ++step) {
      opt.zero_grad();
      compute_grad(param, c);
      opt.step();
      double clr = 0.1 / (1 + (step - 1) * 0.01);
      for (int i = 0; i < 2; ++i) {
        double g = c[i] * p[i] + 0.05 * p[i];
        acc[i] += g * g;
        p[i] -= clr * g / (std::sqrt(acc[i]) + 1e-10);
      }
      auto got = vals(param);
      for (int i = 0; i < 2; ++i) ASSERT_NEAR(got[i], p[i], 1e-10) << "Adagrad step " << step;
    }
  }
  for (bool centered : {false, true}) {
    std::vector<double> c = {1.0, 2.0}, p = {1.0, -0.5}, sq(2), ga(2), buf(2);
    Tensor param = from_vector(p, {2}, DType::Float64).requires_grad_();
    optim::RMSprop opt({param},
                       optim::RMSpropOpts(0.01).alpha(0.9).momentum(0.5).centered(centered));
    for (int step = 1; step <= 4; ++step) {
      opt.zero_grad();
      compute_grad(param, c);
      opt.step();
      for (int i = 0; i < 2; ++i) {
        double g = c[i] * p[i];
        sq[i] = 0.9 * sq[i] + 0.1 * g * g;
        double avg;
        if (centered) {
          ga[i] = 0.9 * ga[i] + 0.1 * g;
          avg = std::sqrt(sq[i] - ga[i] * ga[i]) + 1e-8;
        } else {
          avg = std::sqrt(sq[i]) + 1e-8;
        }
        buf[i] = 0.5 * buf[i] + g / avg;
        p[i] -= 0.01 * buf[i];
      }
      auto got = vals(param);
      for (int i = 0; i < 2; ++i)
        ASSERT_NEAR(got[i], p[i], 1e-10) << "RMSprop centered " << centered << " step " << step;
    }
  }
}
