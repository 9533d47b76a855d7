// Adadelta, Adamax, NAdam, RAdam (tc::optim, over the fused kernels shared with Python):
// trajectories against their update formulas, and optimizer checkpoints that resume exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "tensorcore/nn/nn.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace optim = tc::optim;

namespace {

// Loss 0.5 * sum(c * p^2): grad = c * p.
void compute_grad(const Tensor& p, const std::vector<double>& c) {
  Tensor cw = from_vector(c, {int64_t(c.size())}, DType::Float64);
  mul(sum(mul(cw, square(p))), 0.5).backward();
}

std::vector<double> vals(const Tensor& t) {
  Tensor d = contiguous(to_dtype(t.detach(), DType::Float64));
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

const std::vector<double> kC = {1.0, 3.0, 0.5}, kP0 = {0.5, -2.0, 1.5};

// Runs `steps` steps of opt on a fresh float64 parameter and checks against `update(step, g, p)`
// applied element-wise in the test.
template <typename MakeOpt, typename Update>
void check_trajectory(const char* what, MakeOpt make, Update update, int steps = 6,
                      double tol = 1e-12) {
  Tensor param = from_vector(kP0, {3}, DType::Float64).requires_grad_();
  std::unique_ptr<optim::Optimizer> opt = make(TensorList{param});
  std::vector<double> p = kP0;
  for (int step = 1; step <= steps; ++step) {
    opt->zero_grad();
    compute_grad(param, kC);
    opt->step();
    update(step, p);
    auto got = vals(param);
    for (size_t i = 0; i < p.size(); ++i)
      ASSERT_NEAR(got[i], p[i], tol) << what << " step " << step << " elem " << i;
  }
}

}  // namespace

TEST(NnCppOptimAdaptive, AdadeltaFormula) {
  for (bool maximize : {false, true}) {
    const double lr = 0.5, rho = 0.8, eps = 1e-6, wd = 0.1;
    std::vector<double> sq(3), acc(3);
    check_trajectory(
        "Adadelta",
        [&](TensorList ps) {
          return std::make_unique<optim::Adadelta>(
              ps, optim::AdadeltaOpts(lr).rho(rho).eps(eps).weight_decay(wd).maximize(maximize));
        },
        [&](int, std::vector<double>& p) {
          for (size_t i = 0; i < 3; ++i) {
            double g = (maximize ? -1 : 1) * kC[i] * p[i] + wd * p[i];
            sq[i] = rho * sq[i] + (1 - rho) * g * g;
            double delta = std::sqrt(acc[i] + eps) / std::sqrt(sq[i] + eps) * g;
            acc[i] = rho * acc[i] + (1 - rho) * delta * delta;
            p[i] -= lr * delta;
          }
        });
  }
}

TEST(NnCppOptimAdaptive, AdamaxFormula) {
  const double lr = 0.05, b1 = 0.8, b2 = 0.95, eps = 1e-8, wd = 0.05;
  std::vector<double> m(3), u(3);
  check_trajectory(
      "Adamax",
      [&](TensorList ps) {
        return std::make_unique<optim::Adamax>(
            ps, optim::AdamaxOpts(lr).betas({b1, b2}).eps(eps).weight_decay(wd));
      },
      [&](int step, std::vector<double>& p) {
        for (size_t i = 0; i < 3; ++i) {
          double g = kC[i] * p[i] + wd * p[i];
          m[i] = b1 * m[i] + (1 - b1) * g;
          u[i] = std::max(b2 * u[i], std::abs(g) + eps);
          p[i] -= lr / (1 - std::pow(b1, step)) * m[i] / u[i];
        }
      });
}

TEST(NnCppOptimAdaptive, NAdamFormula) {
  const double lr = 0.02, b1 = 0.9, b2 = 0.99, eps = 1e-8, wd = 0.01, psi = 4e-3;
  std::vector<double> m(3), v(3);
  double mu_product = 1;
  check_trajectory(
      "NAdam",
      [&](TensorList ps) {
        return std::make_unique<optim::NAdam>(
            ps, optim::NAdamOpts(lr).betas({b1, b2}).weight_decay(wd));
      },
      [&](int step, std::vector<double>& p) {
        // Dozat's NAdam with the momentum schedule mu_t = b1 (1 - 0.5 * 0.96^(t psi)); the fused
        // kernel keeps mu_product in float32 as torch's state does.
        double mu = b1 * (1 - 0.5 * std::pow(0.96, step * psi));
        double mu_next = b1 * (1 - 0.5 * std::pow(0.96, (step + 1) * psi));
        mu_product = double(float(mu_product * mu));
        double bc2 = 1 - std::pow(b2, step);
        for (size_t i = 0; i < 3; ++i) {
          double g = kC[i] * p[i] + wd * p[i];
          m[i] = b1 * m[i] + (1 - b1) * g;
          v[i] = b2 * v[i] + (1 - b2) * g * g;
          double denom = std::sqrt(v[i] / bc2) + eps;
          p[i] -= lr * (1 - mu) / (1 - mu_product) * g / denom +
                  lr * mu_next / (1 - mu_product * mu_next) * m[i] / denom;
        }
      },
      6, 1e-9);
}

TEST(NnCppOptimAdaptive, RAdamFormula) {
  // beta2 = 0.9: rho_inf = 19, so the first steps are un-rectified (rho_t <= 5) and later ones
  // rectified; both branches are exercised.
  const double lr = 0.05, b1 = 0.9, b2 = 0.9, eps = 1e-8, wd = 0.02;
  std::vector<double> m(3), v(3);
  int rectified = 0;
  check_trajectory(
      "RAdam",
      [&](TensorList ps) {
        return std::make_unique<optim::RAdam>(
            ps, optim::RAdamOpts(lr).betas({b1, b2}).weight_decay(wd));
      },
      [&](int step, std::vector<double>& p) {
        double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
        double rho_inf = 2 / (1 - b2) - 1;
        double rho_t = rho_inf - 2 * step * std::pow(b2, step) / bc2;
        for (size_t i = 0; i < 3; ++i) {
          double g = kC[i] * p[i] + wd * p[i];
          m[i] = b1 * m[i] + (1 - b1) * g;
          v[i] = b2 * v[i] + (1 - b2) * g * g;
          double m_hat = m[i] / bc1;
          if (rho_t > 5) {
            double r = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                 ((rho_inf - 4) * (rho_inf - 2) * rho_t));
            p[i] -=
                lr * m_hat * r * std::sqrt(bc2) / (std::sqrt(v[i]) + eps);  // torch's eps placement
          } else {
            p[i] -= lr * m_hat;
          }
        }
        rectified += rho_t > 5;
      },
      8, 1e-9);
  EXPECT_GT(rectified, 0);
  EXPECT_LT(rectified, 8);
}

TEST(NnCppOptimAdaptive, InvalidOptions) {
  Tensor p = zeros({2}).requires_grad_();
  EXPECT_THROW(optim::Adadelta({p}, optim::AdadeltaOpts(1.0).rho(1.5)), ValueError);
  EXPECT_THROW(optim::Adamax({p}, optim::AdamaxOpts(-1.0)), ValueError);
  EXPECT_THROW(optim::NAdam({p}, optim::NAdamOpts().betas({1.0, 0.9})), ValueError);
  EXPECT_THROW(optim::RAdam({p}, optim::RAdamOpts().eps(-1)), ValueError);
}

// Save the optimizer (and model) mid-training, restore into fresh objects, and continue: the
// resumed run matches the uninterrupted one exactly, for every optimizer.
TEST(NnCppOptimAdaptive, CheckpointResumesExactly) {
  namespace nn = tc::nn;
  auto fresh_model = [] {
    manual_seed(3);
    return nn::Sequential({nn::AnyModule(nn::Linear(4, 8)), nn::AnyModule(nn::GELU()),
                           nn::AnyModule(nn::Linear(8, 2))});
  };
  using Make = std::function<std::unique_ptr<optim::Optimizer>(TensorList)>;
  std::vector<std::pair<std::string, Make>> makers = {
      {"SGD",
       [](TensorList p) {
         return std::make_unique<optim::SGD>(p,
                                             optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
       }},
      {"Adam",
       [](TensorList p) {
         return std::make_unique<optim::Adam>(p, optim::AdamOpts(0.01).amsgrad(true));
       }},
      {"AdamW",
       [](TensorList p) { return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(0.01)); }},
      {"Adagrad",
       [](TensorList p) { return std::make_unique<optim::Adagrad>(p, optim::AdagradOpts(0.05)); }},
      {"RMSprop",
       [](TensorList p) {
         return std::make_unique<optim::RMSprop>(
             p, optim::RMSpropOpts(0.01).momentum(0.5).centered(true));
       }},
      {"Adadelta",
       [](TensorList p) { return std::make_unique<optim::Adadelta>(p, optim::AdadeltaOpts(1.0)); }},
      {"Adamax",
       [](TensorList p) { return std::make_unique<optim::Adamax>(p, optim::AdamaxOpts(0.01)); }},
      {"NAdam",
       [](TensorList p) { return std::make_unique<optim::NAdam>(p, optim::NAdamOpts(0.01)); }},
      {"RAdam",
       [](TensorList p) { return std::make_unique<optim::RAdam>(p, optim::RAdamOpts(0.01)); }},
  };
  manual_seed(11);
  Tensor x = randn({16, 4}), y = randint(0, 2, {16});
  auto train = [&](nn::Sequential& m, optim::Optimizer& o, int steps) {
    for (int i = 0; i < steps; ++i) {
      o.zero_grad();
      nn::functional::cross_entropy(m(x), y).backward();
      o.step();
    }
  };
  auto dir = std::filesystem::temp_directory_path() / "nncpp_optim_ckpt";
  std::filesystem::create_directories(dir);
  for (auto& [name, make] : makers) {
    nn::Sequential ref = fresh_model();
    auto ref_opt = make(ref->parameters());
    train(ref, *ref_opt, 6);

    nn::Sequential a = fresh_model();
    auto a_opt = make(a->parameters());
    train(a, *a_opt, 3);
    a->save(dir / "model.pt");
    serialize::save(a_opt->state_dict(), dir / "optim.pt");

    nn::Sequential b = fresh_model();
    auto b_opt = make(b->parameters());
    b->load(dir / "model.pt");
    b_opt->load_state_dict(serialize::load(dir / "optim.pt"));
    train(b, *b_opt, 3);
    auto pr = ref->parameters(), pb = b->parameters();
    for (size_t i = 0; i < pr.size(); ++i)
      EXPECT_TRUE(allclose(pr[i], pb[i], 0, 0))
          << name << ": parameter " << i << " differs after resuming";
  }
  std::filesystem::remove_all(dir);
}
