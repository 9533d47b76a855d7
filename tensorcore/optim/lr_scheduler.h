#pragma once
// Learning-rate schedules with torch.optim.lr_scheduler's names and update rules; the formulas,
// argument rules and messages are the pure functions of lr_schedule_rules.h, which
// tensorcore.optim.lr_scheduler (Python) calls too. Each scheduler
// uses torch's chainable rule (the new lr is computed from the group's current lr), so sequences
// agree with torch's and with tensorcore.optim.lr_scheduler, and schedulers compose
// (ChainedScheduler, SequentialLR). Construction performs torch's initial step (epoch 0);
// step() advances one epoch (one batch for OneCycleLR / CyclicLR); step(epoch) jumps, using the
// closed form where torch has one.
//
//   tc::optim::SGD opt(params, tc::optim::SGDOptions(0.1).momentum(0.9));
//   tc::optim::MultiStepLR sched(opt, {30, 80}, 0.1);
//   for (...) { train_one_epoch(); sched.step(); }
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/optim/lr_schedule_rules.h"
#include "tensorcore/optim/optimizer.h"

namespace tc::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  virtual void step();
  // Deprecated in torch but used by SequentialLR: sets the epoch and recomputes.
  virtual void step(int64_t epoch);
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return optimizer_; }
  // torch's verbose=True: each step prints "Adjusting learning rate of group g to ..." to stdout.
  void set_verbose(bool on) { verbose_ = on; }

  // Counters and per-scheduler values as named float64 scalars ("last_epoch", "_step_count",
  // "base_lrs.<g>", ...); load_state_dict restores them (it does not touch the optimizer).
  virtual NamedTensors state_dict() const;
  virtual void load_state_dict(const NamedTensors& state);

 protected:
  friend class SequentialLR;
  // The chainable rule at last_epoch_ (may read the groups' current lrs).
  virtual std::vector<double> get_lr() = 0;
  // The lr at last_epoch_ from base_lrs alone, where there is one.
  virtual std::optional<std::vector<double>> closed_form() const { return std::nullopt; }
  // torch's _initial_step: every derived constructor ends with it (base lrs from the groups'
  // initial_lr, set to the current lr where absent; then the epoch-0 step).
  void initial_step() {
    init_base_lrs();
    step_count_ = 0;
    step();
  }
  void init_base_lrs();
  std::vector<double> group_lrs() const;
  void set_lrs(const std::vector<double>& lrs);
  void print_lrs(std::optional<double> epoch) const;
  // Named values beyond the common ones, for state_dict.
  virtual std::vector<std::pair<std::string, double*>> extra_state() { return {}; }

  Optimizer& optimizer_;
  std::vector<double> base_lrs_, last_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  bool verbose_ = false;
};

// lr = base * lambda(epoch), one function for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Fn = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Fn lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas);

 protected:
  LambdaLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas, bool initial);
  std::vector<double> get_lr() override;
  std::vector<double> factors() const;  // lr_lambda(last_epoch) per group
  std::vector<Fn> fns_;
};

// lr *= lambda(epoch) for epoch > 0.
class MultiplicativeLR : public LambdaLR {
 public:
  MultiplicativeLR(Optimizer& optimizer, Fn lr_lambda);
  MultiplicativeLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas);

 protected:
  std::vector<double> get_lr() override;
};

// lr = base * gamma^(epoch / step_size)
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  int64_t step_size_;
  double gamma_;
};

// lr = base * gamma^(number of milestones <= epoch); repeated milestones count repeatedly.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr = base * factor until total_iters, then base.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  double factor_;
  int64_t total_iters_;
};

// The factor goes linearly from start_factor to end_factor over total_iters epochs.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  double start_, end_;
  int64_t total_iters_;
};

// lr = base * gamma^epoch
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  double gamma_;
};

// lr = base * (1 - epoch / total_iters)^power, constant after total_iters.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  int64_t total_iters_;
  double power_;
};

// lr = eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2 (chainable form, which
// keeps going past T_max as torch's does).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form() const override;
  int64_t t_max_;
  double eta_min_;
};

// SGDR: cosine annealing restarted every T_i epochs, T_i = T_0 * T_mult^k.
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0);
  void step() override;
  void step(int64_t epoch) override;
  double T_cur() const { return t_cur_; }
  double T_i() const { return t_i_; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<std::pair<std::string, double*>> extra_state() override;
  void apply(const sched::WarmRestartsPosition& at, std::optional<double> epoch);
  int64_t t_0_, t_mult_;
  double eta_min_, t_i_, t_cur_;
};

// Cycles each group's lr between base_lr and max_lr (Smith 2017); also cycles momentum (or
// beta1 for Adam-like optimizers) inversely when cycle_momentum. One step() per batch.
struct CyclicLROptions {
  std::vector<double> base_lr, max_lr;  // one value (all groups) or one per group
  double step_size_up = 2000;
  std::optional<double> step_size_down;
  std::string mode = "triangular";  // "triangular", "triangular2", "exp_range"
  double gamma = 1.0;
  std::function<double(double)> scale_fn;  // overrides mode
  std::string scale_mode = "cycle";        // for scale_fn: "cycle" or "iterations"
  bool cycle_momentum = true;
  std::vector<double> base_momentum{0.8}, max_momentum{0.9};
};

class CyclicLR : public LRScheduler {
 public:
  CyclicLR(Optimizer& optimizer, CyclicLROptions options);
  CyclicLR(Optimizer& optimizer, double base_lr, double max_lr, double step_size_up = 2000);

 protected:
  std::vector<double> get_lr() override;
  CyclicLROptions o_;
  std::vector<double> max_lrs_, base_momentums_, max_momentums_;
  double total_size_, step_ratio_;
  bool cycle_iterations_;
  std::string momentum_name_;
};

// One cycle (Smith & Topin) per batch: lr warms up from max_lr/div_factor to max_lr over
// pct_start of total_steps, then anneals to max_lr/(div_factor*final_div_factor); with
// three_phase the second phase returns to the initial lr and the third anneals to the minimum.
// Momentum (or beta1) cycles inversely between max_momentum and base_momentum.
struct OneCycleLROptions {
  std::vector<double> max_lr;  // one value (all groups) or one per group
  int64_t total_steps = 0;     // or epochs * steps_per_epoch
  int64_t epochs = 0, steps_per_epoch = 0;
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // or "linear"
  bool cycle_momentum = true;
  double base_momentum = 0.85, max_momentum = 0.95;
  double div_factor = 25.0, final_div_factor = 1e4;
  bool three_phase = false;
};

class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);
  OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps, double pct_start = 0.3,
             std::string anneal_strategy = "cos", double div_factor = 25.0,
             double final_div_factor = 1e4, bool three_phase = false, bool cycle_momentum = true);
  int64_t total_steps() const { return total_steps_; }

 protected:
  std::vector<double> get_lr() override;
  OneCycleLROptions o_;
  int64_t total_steps_;
  std::vector<double> initial_lrs_, max_lrs_, min_lrs_;
  std::string momentum_name_;
};

// Runs schedulers[i] from milestones[i-1] on (each restarted at epoch 0 at its milestone).
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);
  void step() override;
  void step(int64_t) override;
  NamedTensors state_dict() const override;
  void load_state_dict(const NamedTensors& state) override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Steps every scheduler in turn (their multiplicative rules compose).
class ChainedScheduler : public LRScheduler {
 public:
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  void step() override;
  void step(int64_t) override;
  NamedTensors state_dict() const override;
  void load_state_dict(const NamedTensors& state) override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

// Lowers the lr by `factor` when a metric has not improved for `patience` epochs.
struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // or "max"
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // or "abs"
  int64_t cooldown = 0;
  std::vector<double> min_lr{0.0};  // one value or one per group
  double eps = 1e-8;
};

class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  void step(double metric);
  bool in_cooldown() const { return state_.cooldown_counter > 0; }
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return state_.last_epoch; }
  double best() const { return state_.best; }
  int64_t num_bad_epochs() const { return state_.num_bad_epochs; }
  // torch's verbose=True: each reduction prints "Epoch e: reducing learning rate of group ...".
  void set_verbose(bool on) { verbose_ = on; }
  NamedTensors state_dict() const;
  void load_state_dict(const NamedTensors& state);

 private:
  Optimizer& optimizer_;
  ReduceLROnPlateauOptions o_;
  std::vector<double> min_lrs_, last_lr_;
  sched::PlateauState state_{0, 0, 0, 0};
  bool verbose_ = false;
};

}  // namespace tc::optim
