#include "tensorcore/optim/lr_scheduler.h"

#include <cmath>
#include <numbers>

namespace tc::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (auto& g : optimizer.param_groups()) base_lrs_.push_back(g.options->get_lr());
}

void LRScheduler::apply() {
  last_lr_.clear();
  auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size() && g < base_lrs_.size(); ++g) {
    double lr = lr_at(g, last_epoch_);
    groups[g].options->set_lr(lr);
    last_lr_.push_back(lr);
  }
}

void LRScheduler::step() {
  ++last_epoch_;
  apply();
}

StepLR::StepLR(Optimizer& o, int64_t step_size, double gamma)
    : LRScheduler(o), step_size_(step_size), gamma_(gamma) {
  TC_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  apply();
}
double StepLR::lr_at(size_t g, int64_t epoch) const {
  return base_lrs_[g] * std::pow(gamma_, double(epoch / step_size_));
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& o, int64_t T_max, double eta_min)
    : LRScheduler(o), t_max_(T_max), eta_min_(eta_min) {
  TC_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  apply();
}
double CosineAnnealingLR::lr_at(size_t g, int64_t epoch) const {
  return eta_min_ + (base_lrs_[g] - eta_min_) * (1 + std::cos(std::numbers::pi * double(epoch) / double(t_max_))) / 2;
}

OneCycleLR::OneCycleLR(Optimizer& o, double max_lr, int64_t total_steps, double pct_start, std::string anneal,
                       double div_factor, double final_div_factor, bool three_phase)
    : LRScheduler(o), max_lr_(max_lr), total_steps_(total_steps), pct_start_(pct_start), cos_(anneal == "cos"),
      div_factor_(div_factor), final_div_factor_(final_div_factor), three_phase_(three_phase) {
  TC_CHECK(total_steps > 0, "OneCycleLR: total_steps must be positive, got ", total_steps);
  TC_CHECK(pct_start >= 0 && pct_start <= 1, "OneCycleLR: pct_start must be in [0, 1], got ", pct_start);
  TC_CHECK(anneal == "cos" || anneal == "linear", "OneCycleLR: anneal_strategy must be 'cos' or 'linear', got '",
           anneal, "'");
  for (auto& b : base_lrs_) b = max_lr / div_factor;
  apply();
}

double OneCycleLR::lr_at(size_t, int64_t step) const {
  TC_CHECK(step < total_steps_ + 1, "OneCycleLR: tried to step ", step, " times, more than total_steps (",
           total_steps_, ")");
  double initial = max_lr_ / div_factor_, min_lr = initial / final_div_factor_;
  auto anneal = [&](double start, double end, double pct) {
    if (cos_) return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
    return (end - start) * pct + start;
  };
  struct Phase { double end_step, start_lr, end_lr; };
  std::vector<Phase> phases;
  double up = pct_start_ * double(total_steps_) - 1;
  if (three_phase_) {
    phases = {{up, initial, max_lr_}, {2 * up, max_lr_, initial}, {double(total_steps_ - 1), initial, min_lr}};
  } else {
    phases = {{up, initial, max_lr_}, {double(total_steps_ - 1), max_lr_, min_lr}};
  }
  double start_step = 0, s = double(step);
  for (size_t i = 0; i < phases.size(); ++i) {
    if (s <= phases[i].end_step || i + 1 == phases.size()) {
      double pct = (s - start_step) / (phases[i].end_step - start_step);
      return anneal(phases[i].start_lr, phases[i].end_lr, pct);
    }
    start_step = phases[i].end_step;
  }
  return min_lr;
}

}  // namespace tc::optim
