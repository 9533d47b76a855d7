#pragma once
// Learning-rate schedules (torch.optim.lr_scheduler), closed forms in the epoch counter:
// construction sets each group's lr for epoch 0, step() advances one epoch (or one batch for
// OneCycleLR) and writes the new lr into the optimizer's param groups.
#include <string>
#include <vector>

#include "tensorcore/optim/optimizer.h"

namespace tc::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  void step();
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

 protected:
  // The lr of group g at epoch `epoch`.
  virtual double lr_at(size_t group, int64_t epoch) const = 0;
  void apply();  // call at the end of each derived constructor
  Optimizer& optimizer_;
  std::vector<double> base_lrs_, last_lr_;
  int64_t last_epoch_ = 0;
};

// lr = base * gamma^(epoch / step_size)
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  double lr_at(size_t group, int64_t epoch) const override;
  int64_t step_size_;
  double gamma_;
};

// lr = eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  double lr_at(size_t group, int64_t epoch) const override;
  int64_t t_max_;
  double eta_min_;
};

// One cycle (Smith & Topin) per batch: warm up from max_lr/div_factor to max_lr over
// pct_start of total_steps, then anneal to max_lr/(div_factor*final_div_factor); with three_phase
// the second phase returns to the initial lr and the third anneals to the minimum.
// anneal_strategy "cos" or "linear". (Momentum cycling is not done.)
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps, double pct_start = 0.3,
             std::string anneal_strategy = "cos", double div_factor = 25.0, double final_div_factor = 1e4,
             bool three_phase = false);

 protected:
  double lr_at(size_t group, int64_t step) const override;
  double max_lr_;
  int64_t total_steps_;
  double pct_start_;
  bool cos_;
  double div_factor_, final_div_factor_;
  bool three_phase_;
};

}  // namespace tc::optim
