#pragma once
// tc::optim: libtorch-style optimizers over the fused steps of tensorcore/optim/fused.h.
//
//   tc::optim::SGD opt(model->parameters(), tc::optim::SGDOptions(0.1).momentum(0.9));
//   opt.zero_grad(); loss.backward(); opt.step();
//
// Param groups each carry their own options (a copy of the defaults unless given). Per-parameter
// state lives in the optimizer keyed by the parameter; state_dict() flattens it to named tensors
// ("state.<i>.<name>", "param_groups.<g>.lr", ...) that save through tc::serialize.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/optim/fused.h"

namespace tc::optim {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

struct OptimizerOptions {
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // Hyper-parameters as (name, value) for state_dict.
  virtual std::vector<std::pair<std::string, double>> values() const = 0;
  virtual void set_value(const std::string& name, double v) = 0;
};

struct OptimizerParamGroup {
  TensorList params;
  std::unique_ptr<OptimizerOptions> options;  // null: the optimizer's defaults
  // The lr before any scheduler touched it (torch's group["initial_lr"]); set by the first
  // LRScheduler attached, read by later ones as their base lr.
  std::optional<double> initial_lr;
  OptimizerParamGroup(TensorList p) : params(std::move(p)) {}
  OptimizerParamGroup(TensorList p, std::unique_ptr<OptimizerOptions> o)
      : params(std::move(p)), options(std::move(o)) {}
  OptimizerParamGroup(const OptimizerParamGroup& o)
      : params(o.params),
        options(o.options ? o.options->clone() : nullptr),
        initial_lr(o.initial_lr) {}
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;
};

class Optimizer {
 public:
  Optimizer(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  virtual void step() = 0;
  void zero_grad(bool set_to_none = true);
  void add_param_group(OptimizerParamGroup group);
  std::vector<OptimizerParamGroup>& param_groups() { return groups_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  TensorList parameters() const;

  // Per-parameter state: named tensors (e.g. "momentum_buffer", "exp_avg", "step").
  using ParamState = std::map<std::string, Tensor>;
  NamedTensors state_dict() const;
  void load_state_dict(const NamedTensors& state);

 protected:
  ParamState& state_of(const Tensor& p) { return state_[p.impl()]; }

  // What a fused step takes for one group: the parameters that have a gradient, their step
  // counters and, per name in `keys`, their state tensors (zeros like the parameter on first
  // use). A null key stands for a disabled buffer (e.g. amsgrad off): its list holds undefined
  // tensors.
  struct StepInputs {
    TensorList params, steps;
    std::vector<TensorList> state;
  };
  StepInputs step_inputs(const OptimizerParamGroup& group, std::initializer_list<const char*> keys);

  std::vector<OptimizerParamGroup> groups_;
  std::unique_ptr<OptimizerOptions> defaults_;
  std::map<const TensorImpl*, ParamState> state_;
};

#define TC_OPTIM_ARG(T, name)        \
  auto& name(T v) {                  \
    this->name##_ = v;               \
    return *this;                    \
  }                                  \
  T name() const { return name##_; } \
  T name##_

struct SGDOptions : OptimizerOptions {
  explicit SGDOptions(double lr) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, momentum) = 0;
  TC_OPTIM_ARG(double, dampening) = 0;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(bool, nesterov) = false;
  TC_OPTIM_ARG(bool, maximize) = false;
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<SGDOptions>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> groups, SGDOptions defaults);
  SGD(TensorList params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  void step() override;
  using Options = SGDOptions;
};

// (AdamOptions is taken by the fused kernel's plain struct in fused.h; Adam::Options aliases this.)
struct AdamOpts : OptimizerOptions {
  explicit AdamOpts(double lr = 1e-3) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, beta1) = 0.9;
  TC_OPTIM_ARG(double, beta2) = 0.999;
  TC_OPTIM_ARG(double, eps) = 1e-8;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(bool, amsgrad) = false;
  TC_OPTIM_ARG(bool, maximize) = false;
  auto& betas(std::pair<double, double> b) {
    beta1_ = b.first;
    beta2_ = b.second;
    return *this;
  }
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdamOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

// AdamW: decoupled weight decay (default 1e-2, as torch).
struct AdamWOptions : AdamOpts {
  explicit AdamWOptions(double lr = 1e-3) : AdamOpts(lr) { weight_decay_ = 1e-2; }
  // From a chained AdamOpts expression (AdamWOptions(1e-3).amsgrad(true) returns AdamOpts&).
  AdamWOptions(const AdamOpts& o) : AdamOpts(o) {}
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdamWOptions>(*this);
  }
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> groups, AdamOpts defaults = AdamOpts());
  Adam(TensorList params, AdamOpts defaults = AdamOpts())
      : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  void step() override;
  using Options = AdamOpts;

 protected:
  Adam(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults,
       bool decoupled);
  bool decoupled_ = false;
};

class AdamW : public Adam {
 public:
  AdamW(std::vector<OptimizerParamGroup> groups, AdamWOptions defaults = AdamWOptions());
  AdamW(TensorList params, AdamWOptions defaults = AdamWOptions())
      : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  using Options = AdamWOptions;
};

struct AdagradOpts : OptimizerOptions {
  explicit AdagradOpts(double lr = 1e-2) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, lr_decay) = 0;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(double, initial_accumulator_value) = 0;
  TC_OPTIM_ARG(double, eps) = 1e-10;
  TC_OPTIM_ARG(bool, maximize) = false;
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdagradOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<OptimizerParamGroup> groups, AdagradOpts defaults = AdagradOpts());
  Adagrad(TensorList params, AdagradOpts defaults = AdagradOpts())
      : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                defaults) {}
  void step() override;
  using Options = AdagradOpts;
};

struct RMSpropOpts : OptimizerOptions {
  explicit RMSpropOpts(double lr = 1e-2) : lr_(lr) {}
  TC_OPTIM_ARG(double, lr);
  TC_OPTIM_ARG(double, alpha) = 0.99;
  TC_OPTIM_ARG(double, eps) = 1e-8;
  TC_OPTIM_ARG(double, weight_decay) = 0;
  TC_OPTIM_ARG(double, momentum) = 0;
  TC_OPTIM_ARG(bool, centered) = false;
  TC_OPTIM_ARG(bool, maximize) = false;
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<RMSpropOpts>(*this);
  }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  void set_value(const std::string& name, double v) override;
};

class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<OptimizerParamGroup> groups, RMSpropOpts defaults = RMSpropOpts());
  RMSprop(TensorList params, RMSpropOpts defaults = RMSpropOpts())
      : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                defaults) {}
  void step() override;
  using Options = RMSpropOpts;
};

}  // namespace tc::optim
