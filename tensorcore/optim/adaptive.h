#pragma once
// Adadelta, Adamax, NAdam and RAdam for the C++ frontend: each step() is one call per param group
// to the fused kernels that tensorcore.optim (Python) also uses, with torch's per-parameter state
// names ("square_avg", "acc_delta", "exp_avg", "exp_inf", "exp_avg_sq", "mu_product", "step").
#include "tensorcore/optim/optimizer.h"

namespace tc::optim {

struct AdadeltaOpts : OptimizerOptions {
  explicit AdadeltaOpts(double lr = 1.0) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, rho) = 0.9;
  TC_OPTIM_ARG(double, eps) = 1e-6;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(bool, maximize) = false;
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdadeltaOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

class Adadelta : public Optimizer {
 public:
  Adadelta(std::vector<OptimizerParamGroup> groups, AdadeltaOpts defaults = AdadeltaOpts());
  Adadelta(TensorList params, AdadeltaOpts defaults = AdadeltaOpts())
      : Adadelta(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                 defaults) {}
  void step() override;
  using Options = AdadeltaOpts;
};

// Adamax, NAdam and RAdam share Adam's (lr, betas, eps, weight_decay).
struct AdamaxOpts : OptimizerOptions {
  explicit AdamaxOpts(double lr = 2e-3) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, beta1) = 0.9;
  TC_OPTIM_ARG(double, beta2) = 0.999;
  TC_OPTIM_ARG(double, eps) = 1e-8;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(bool, maximize) = false;
  auto& betas(std::pair<double, double> b) {
    beta1_ = b.first;
    beta2_ = b.second;
    return *this;
  }
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdamaxOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

class Adamax : public Optimizer {
 public:
  Adamax(std::vector<OptimizerParamGroup> groups, AdamaxOpts defaults = AdamaxOpts());
  Adamax(TensorList params, AdamaxOpts defaults = AdamaxOpts())
      : Adamax(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {
  }
  void step() override;
  using Options = AdamaxOpts;
};

struct NAdamOpts : OptimizerOptions {
  explicit NAdamOpts(double lr = 2e-3) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, beta1) = 0.9;
  TC_OPTIM_ARG(double, beta2) = 0.999;
  TC_OPTIM_ARG(double, eps) = 1e-8;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(double, momentum_decay) = 4e-3;
  auto& betas(std::pair<double, double> b) {
    beta1_ = b.first;
    beta2_ = b.second;
    return *this;
  }
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<NAdamOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

// NAdam follows the published update (mu_product * mu_next), like tensorcore.optim.NAdam.
class NAdam : public Optimizer {
 public:
  NAdam(std::vector<OptimizerParamGroup> groups, NAdamOpts defaults = NAdamOpts());
  NAdam(TensorList params, NAdamOpts defaults = NAdamOpts())
      : NAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  void step() override;
  using Options = NAdamOpts;
};

struct RAdamOpts : OptimizerOptions {
  explicit RAdamOpts(double lr = 1e-3) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, beta1) = 0.9;
  TC_OPTIM_ARG(double, beta2) = 0.999;
  TC_OPTIM_ARG(double, eps) = 1e-8;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  auto& betas(std::pair<double, double> b) {
    beta1_ = b.first;
    beta2_ = b.second;
    return *this;
  }
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<RAdamOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

class RAdam : public Optimizer {
 public:
  RAdam(std::vector<OptimizerParamGroup> groups, RAdamOpts defaults = RAdamOpts());
  RAdam(TensorList params, RAdamOpts defaults = RAdamOpts())
      : RAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  void step() override;
  using Options = RAdamOpts;
};

}  // namespace tc::optim
