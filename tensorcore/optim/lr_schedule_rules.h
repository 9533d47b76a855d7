#pragma once
// The learning-rate schedules of torch.optim.lr_scheduler (torch 1.13) as pure functions on
// vectors of per-group values: the ONE place where their formulas, argument rules and messages
// live. tc::optim's LRScheduler classes (lr_scheduler.h) and tensorcore.optim.lr_scheduler
// (Python, over param_group dicts) both call these, so the two frontends step identically.
//
// Naming: <name>_lr(lrs, ...) is torch's chainable get_lr() (the new lrs from the groups'
// current ones at `epoch`); <name>_closed(base_lrs, ...) is its _get_closed_form_lr().
// check_<name>(...) throws tc::ValueError with torch's message for an invalid argument.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tc::optim::sched {

using Values = std::vector<double>;

// One value for every group, or exactly one per group (torch's _format_param):
// "expected {groups} values for {name}, got {n}".
Values per_group(const Values& values, size_t groups, const std::string& name);

// "Adjusting learning rate of group {g} to {lr:.4e}." or, with an epoch, "Epoch {epoch:05d}:
// adjusting ..." (torch's print_lr; a fractional epoch prints as %.2f).
std::string adjust_message(int64_t group, double lr, std::optional<double> epoch,
                           bool epoch_is_float = false);

// ---- LambdaLR / MultiplicativeLR: the factors are lr_lambda(epoch) per group ----
void check_lambda_count(size_t groups, size_t lambdas);  // "Expected {} lr_lambdas, but got {}"
Values lambda_lr(const Values& base_lrs, const Values& factors);
Values multiplicative_lr(const Values& lrs, int64_t epoch, const Values& factors);

// ---- StepLR / MultiStepLR ----
void check_step_lr(int64_t step_size);
Values step_lr(const Values& lrs, int64_t epoch, int64_t step_size, double gamma);
Values step_closed(const Values& base_lrs, int64_t epoch, int64_t step_size, double gamma);
// Milestones in any order; a repeated milestone multiplies by gamma once per repetition.
Values multistep_lr(const Values& lrs, int64_t epoch, const std::vector<int64_t>& milestones,
                    double gamma);
Values multistep_closed(const Values& base_lrs, int64_t epoch,
                        const std::vector<int64_t>& milestones, double gamma);

// ---- ConstantLR / LinearLR ----
void check_constant_lr(double factor);
Values constant_lr(const Values& lrs, int64_t epoch, double factor, int64_t total_iters);
Values constant_closed(const Values& base_lrs, int64_t epoch, double factor, int64_t total_iters);
void check_linear_lr(double start_factor, double end_factor, int64_t total_iters);
Values linear_lr(const Values& lrs, int64_t epoch, double start_factor, double end_factor,
                 int64_t total_iters);
Values linear_closed(const Values& base_lrs, int64_t epoch, double start_factor, double end_factor,
                     int64_t total_iters);

// ---- ExponentialLR / PolynomialLR ----
Values exponential_lr(const Values& lrs, int64_t epoch, double gamma);
Values exponential_closed(const Values& base_lrs, int64_t epoch, double gamma);
void check_polynomial_lr(int64_t total_iters);
Values polynomial_lr(const Values& lrs, int64_t epoch, int64_t total_iters, double power);
Values polynomial_closed(const Values& base_lrs, int64_t epoch, int64_t total_iters, double power);

// ---- CosineAnnealingLR (step_count: the scheduler's _step_count after this step's increment) ----
void check_cosine_annealing_lr(int64_t T_max);
Values cosine_annealing_lr(const Values& lrs, const Values& base_lrs, int64_t epoch,
                           int64_t step_count, int64_t T_max, double eta_min);
Values cosine_annealing_closed(const Values& base_lrs, int64_t epoch, int64_t T_max,
                               double eta_min);

// ---- CosineAnnealingWarmRestarts (SGDR) ----
// T_0 / T_mult arrive as doubles so that a non-integer is reported the way torch reports it.
void check_warm_restarts(double T_0, double T_mult);
struct WarmRestartsPosition {
  double T_i, T_cur;
  int64_t last_epoch;
};
// step() without an epoch (the first one, at last_epoch -1, is step(0)).
WarmRestartsPosition warm_restarts_advance(WarmRestartsPosition at, int64_t T_0, int64_t T_mult);
// step(epoch): "Expected non-negative epoch, but got {}".
WarmRestartsPosition warm_restarts_jump(double epoch, int64_t T_0, int64_t T_mult, double T_i);
Values warm_restarts_lr(const Values& base_lrs, double T_cur, double T_i, double eta_min);

// ---- CyclicLR ----
// mode is used when custom_scale_fn is false: "mode is invalid and scale_fn is None".
void check_cyclic_lr(const std::string& mode, bool custom_scale_fn, const std::string& scale_mode);
// The cycle geometry from step_size_up / step_size_down (absent: = up).
struct CyclicSizes {
  double total_size, step_ratio;
};
CyclicSizes cyclic_sizes(double step_size_up, std::optional<double> step_size_down);
struct CyclicPosition {
  double cycle, scale_factor;
};
CyclicPosition cyclic_position(int64_t epoch, double total_size, double step_ratio);
// The built-in scale functions: "triangular" 1, "triangular2" 1/2^(x-1), "exp_range" gamma^x.
double cyclic_scale(const std::string& mode, double gamma, double x);
// Whether a built-in mode scales by cycle number ("cycle") or by iteration ("iterations").
std::string cyclic_scale_mode(const std::string& mode);
// lr = base + (max - base) * scale_factor * scale;
// momentum = max_m - (max_m - base_m) * scale_factor * scale.
Values cyclic_lr(const Values& base_lrs, const Values& max_lrs, double scale_factor, double scale);
Values cyclic_momentum(const Values& base_momentums, const Values& max_momentums,
                       double scale_factor, double scale);
// "optimizer must support momentum with `cycle_momentum` option enabled"; returns whether the
// optimizer's betas[0] is cycled (Adam-like) rather than momentum.
bool cycled_momentum_uses_beta1(bool has_momentum, bool has_betas);

// ---- OneCycleLR ----
// total_steps / epochs / steps_per_epoch as doubles (absent: nullopt) for torch's messages;
// returns the total number of steps.
int64_t check_one_cycle(std::optional<double> total_steps, std::optional<double> epochs,
                        std::optional<double> steps_per_epoch, double pct_start,
                        const std::string& anneal_strategy);
// The lr and momentum of one group at `step`: warm-up from initial to max, anneal to min (with
// three_phase: back to initial first); momentum runs inversely between max and base.
// "Tried to step {step + 1} times. The specified number of total steps is {total}".
struct OneCyclePoint {
  double lr, momentum;
};
OneCyclePoint one_cycle_at(int64_t step, int64_t total_steps, double pct_start, bool three_phase,
                           const std::string& anneal_strategy, double initial_lr, double max_lr,
                           double min_lr, double base_momentum, double max_momentum);

// ---- SequentialLR / ChainedScheduler (the optimizer identity tests are the caller's) ----
// same_optimizer[i]: scheduler i uses the given optimizer (SequentialLR) / the first one's
// (ChainedScheduler).
void check_sequential_lr(const std::vector<bool>& same_optimizer, size_t milestones);
void check_chained(const std::vector<bool>& same_optimizer);
// The index of the scheduler that owns `epoch` and whether it restarts there (step(0)).
struct SequentialPick {
  size_t index;
  bool restart;
};
SequentialPick sequential_pick(const std::vector<int64_t>& milestones, int64_t epoch);

// ---- ReduceLROnPlateau ----
void check_plateau(double factor, const std::string& mode, const std::string& threshold_mode);
// One min_lr for every group or one per group: "expected {groups} min_lrs, got {n}".
Values plateau_min_lrs(const Values& min_lr, size_t groups);
// "Epoch {epoch:05d}: reducing learning rate of group {g} to {lr:.4e}."
std::string reduce_message(int64_t group, double lr, double epoch, bool epoch_is_float = false);
double plateau_worst(const std::string& mode);  // inf for "min", -inf for "max"
bool plateau_is_better(double a, double best, const std::string& mode,
                       const std::string& threshold_mode, double threshold);
struct PlateauState {
  double best;
  int64_t num_bad_epochs, cooldown_counter, last_epoch;
};
// One metric: updates best / bad-epoch / cooldown counters; true when the lrs are to be reduced
// (the counters are then already reset for the cooldown).
bool plateau_step(PlateauState& state, double metric, std::optional<int64_t> epoch,
                  const std::string& mode, const std::string& threshold_mode, double threshold,
                  int64_t patience, int64_t cooldown);
// max(lr * factor, min_lr) where that lowers the lr by more than eps; changed[g] tells which.
Values plateau_reduce(const Values& lrs, double factor, const Values& min_lrs, double eps,
                      std::vector<bool>* changed = nullptr);

}  // namespace tc::optim::sched
