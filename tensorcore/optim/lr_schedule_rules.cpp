#include "tensorcore/optim/lr_schedule_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "tensorcore/core/error.h"
#include "tensorcore/optim/optimizer_args.h"

namespace tc::optim::sched {
namespace {

constexpr double kPi = std::numbers::pi;

Values scaled(Values v, double factor) {
  for (auto& x : v) x *= factor;
  return v;
}

// Python's floor division and modulo (torch computes these on Python ints).
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t py_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

// An integer-valued argument as Python prints it: "3" for an integer, repr(float) otherwise.
std::string repr_number(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 1e15)
    return std::to_string(int64_t(v));
  return repr_float(v);
}

bool is_positive_integer(double v) { return v > 0 && v == std::trunc(v); }

std::string epoch_text(double epoch, bool epoch_is_float) {
  char buf[64];
  if (epoch_is_float)
    std::snprintf(buf, sizeof buf, "%.2f", epoch);
  else
    std::snprintf(buf, sizeof buf, "%.5lld", static_cast<long long>(epoch));
  return buf;
}

std::string sci4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4e", v);
  return buf;
}

}  // namespace

Values per_group(const Values& values, size_t groups, const std::string& name) {
  if (values.size() == 1) return Values(groups, values[0]);
  TC_CHECK(values.size() == groups, "expected ", groups, " values for ", name, ", got ",
           values.size());
  return values;
}

std::string adjust_message(int64_t group, double lr, std::optional<double> epoch,
                           bool epoch_is_float) {
  if (!epoch)
    return "Adjusting learning rate of group " + std::to_string(group) + " to " + sci4(lr) + ".";
  return "Epoch " + epoch_text(*epoch, epoch_is_float) + ": adjusting learning rate of group " +
         std::to_string(group) + " to " + sci4(lr) + ".";
}

// ---- LambdaLR / MultiplicativeLR ----
void check_lambda_count(size_t groups, size_t lambdas) {
  TC_CHECK(groups == lambdas, "Expected ", groups, " lr_lambdas, but got ", lambdas);
}

Values lambda_lr(const Values& base_lrs, const Values& factors) {
  Values out(base_lrs);
  for (size_t g = 0; g < out.size() && g < factors.size(); ++g) out[g] *= factors[g];
  return out;
}

Values multiplicative_lr(const Values& lrs, int64_t epoch, const Values& factors) {
  if (epoch <= 0) return lrs;
  return lambda_lr(lrs, factors);
}

// ---- StepLR / MultiStepLR ----
void check_step_lr(int64_t step_size) {
  TC_CHECK(step_size > 0, "StepLR: expected positive integer step_size, but got ", step_size);
}

Values step_lr(const Values& lrs, int64_t epoch, int64_t step_size, double gamma) {
  check_step_lr(step_size);
  if (epoch == 0 || py_mod(epoch, step_size) != 0) return lrs;
  return scaled(lrs, gamma);
}

Values step_closed(const Values& base_lrs, int64_t epoch, int64_t step_size, double gamma) {
  check_step_lr(step_size);
  return scaled(base_lrs, std::pow(gamma, double(floor_div(epoch, step_size))));
}

Values multistep_lr(const Values& lrs, int64_t epoch, const std::vector<int64_t>& milestones,
                    double gamma) {
  auto n = std::count(milestones.begin(), milestones.end(), epoch);
  if (n == 0) return lrs;
  return scaled(lrs, std::pow(gamma, double(n)));
}

Values multistep_closed(const Values& base_lrs, int64_t epoch,
                        const std::vector<int64_t>& milestones, double gamma) {
  auto passed = std::count_if(milestones.begin(), milestones.end(),
                              [epoch](int64_t m) { return m <= epoch; });
  return scaled(base_lrs, std::pow(gamma, double(passed)));
}

// ---- ConstantLR / LinearLR ----
void check_constant_lr(double factor) {
  TC_CHECK(!(factor > 1.0 || factor < 0),
           "Constant multiplicative factor expected to be between 0 and 1.");
}

Values constant_lr(const Values& lrs, int64_t epoch, double factor, int64_t total_iters) {
  if (epoch == 0) return scaled(lrs, factor);
  if (epoch > total_iters || epoch != total_iters) return lrs;
  return scaled(lrs, 1.0 / factor);
}

Values constant_closed(const Values& base_lrs, int64_t epoch, double factor, int64_t total_iters) {
  return scaled(base_lrs, factor + double(epoch >= total_iters) * (1 - factor));
}

void check_linear_lr(double start_factor, double end_factor, int64_t total_iters) {
  // 0 is rejected (torch >= 2.0's rule and message): 1.13 accepted it and then stepped to NaN.
  TC_CHECK(!(start_factor > 1.0 || start_factor <= 0),
           "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  TC_CHECK(!(end_factor > 1.0 || end_factor < 0),
           "Ending multiplicative factor expected to be between 0 and 1.");
  TC_CHECK(total_iters > 0, "LinearLR: expected positive integer total_iters, but got ",
           total_iters);
}

Values linear_lr(const Values& lrs, int64_t epoch, double start, double end, int64_t total_iters) {
  if (epoch == 0) return scaled(lrs, start);
  if (epoch > total_iters) return lrs;
  return scaled(
      lrs, 1. + (end - start) / (double(total_iters) * start + double(epoch - 1) * (end - start)));
}

Values linear_closed(const Values& base_lrs, int64_t epoch, double start, double end,
                     int64_t total_iters) {
  return scaled(base_lrs,
                start + (end - start) * double(std::min(total_iters, epoch)) / double(total_iters));
}

// ---- ExponentialLR / PolynomialLR ----
Values exponential_lr(const Values& lrs, int64_t epoch, double gamma) {
  return epoch == 0 ? lrs : scaled(lrs, gamma);
}

Values exponential_closed(const Values& base_lrs, int64_t epoch, double gamma) {
  return scaled(base_lrs, std::pow(gamma, double(epoch)));
}

void check_polynomial_lr(int64_t total_iters) {
  TC_CHECK(total_iters > 0, "PolynomialLR: expected positive integer total_iters, but got ",
           total_iters);
}

Values polynomial_lr(const Values& lrs, int64_t epoch, int64_t total_iters, double power) {
  if (epoch == 0 || epoch > total_iters) return lrs;
  const double t = double(total_iters), e = double(epoch);
  return scaled(lrs, std::pow((1.0 - e / t) / (1.0 - (e - 1) / t), power));
}

Values polynomial_closed(const Values& base_lrs, int64_t epoch, int64_t total_iters, double power) {
  return scaled(base_lrs,
                std::pow(1.0 - double(std::min(total_iters, epoch)) / double(total_iters), power));
}

// ---- CosineAnnealingLR ----
void check_cosine_annealing_lr(int64_t T_max) {
  TC_CHECK(T_max > 0, "CosineAnnealingLR: expected positive integer T_max, but got ", T_max);
}

Values cosine_annealing_lr(const Values& lrs, const Values& base_lrs, int64_t epoch,
                           int64_t step_count, int64_t T_max, double eta_min) {
  check_cosine_annealing_lr(T_max);
  if (epoch == 0) return lrs;
  if (step_count == 1 && epoch > 0) return cosine_annealing_closed(base_lrs, epoch, T_max, eta_min);
  const double e = double(epoch), T = double(T_max);
  Values out(lrs);
  if (py_mod(epoch - 1 - T_max, 2 * T_max) == 0) {
    for (size_t g = 0; g < out.size(); ++g)
      out[g] = lrs[g] + (base_lrs[g] - eta_min) * (1 - std::cos(kPi / T)) / 2;
    return out;
  }
  for (auto& lr : out)
    lr = (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (lr - eta_min) + eta_min;
  return out;
}

Values cosine_annealing_closed(const Values& base_lrs, int64_t epoch, int64_t T_max,
                               double eta_min) {
  return warm_restarts_lr(base_lrs, double(epoch), double(T_max), eta_min);
}

// ---- CosineAnnealingWarmRestarts ----
void check_warm_restarts(double T_0, double T_mult) {
  TC_CHECK(is_positive_integer(T_0), "Expected positive integer T_0, but got ", repr_number(T_0));
  TC_CHECK(T_mult >= 1 && T_mult == std::trunc(T_mult), "Expected integer T_mult >= 1, but got ",
           repr_number(T_mult));
}

WarmRestartsPosition warm_restarts_advance(WarmRestartsPosition at, int64_t T_0, int64_t T_mult) {
  if (at.last_epoch < 0) return warm_restarts_jump(0, T_0, T_mult, at.T_i);
  at.last_epoch += 1;
  at.T_cur += 1;
  if (at.T_cur >= at.T_i) {
    at.T_cur -= at.T_i;
    at.T_i *= double(T_mult);
  }
  return at;
}

WarmRestartsPosition warm_restarts_jump(double epoch, int64_t T_0, int64_t T_mult, double T_i) {
  TC_CHECK(epoch >= 0, "Expected non-negative epoch, but got ", repr_number(epoch));
  const double t0 = double(T_0), m = double(T_mult);
  WarmRestartsPosition at{T_i, 0, int64_t(std::floor(epoch))};
  if (epoch >= t0) {
    if (T_mult == 1) {
      at.T_cur = std::fmod(epoch, t0);
    } else {
      const double n = std::trunc(std::log(epoch / t0 * (m - 1) + 1) / std::log(m));
      at.T_cur = epoch - t0 * (std::pow(m, n) - 1) / (m - 1);
      at.T_i = t0 * std::pow(m, n);
    }
  } else {
    at.T_i = t0;
    at.T_cur = epoch;
  }
  return at;
}

Values warm_restarts_lr(const Values& base_lrs, double T_cur, double T_i, double eta_min) {
  Values out;
  out.reserve(base_lrs.size());
  for (double b : base_lrs)
    out.push_back(eta_min + (b - eta_min) * (1 + std::cos(kPi * T_cur / T_i)) / 2);
  return out;
}

// ---- CyclicLR ----
void check_cyclic_lr(const std::string& mode, bool custom_scale_fn, const std::string& scale_mode) {
  TC_CHECK(custom_scale_fn || mode == "triangular" || mode == "triangular2" || mode == "exp_range",
           "mode is invalid and scale_fn is None");
  TC_CHECK(!custom_scale_fn || scale_mode == "cycle" || scale_mode == "iterations",
           "CyclicLR: scale_mode must be 'cycle' or 'iterations', got '", scale_mode, "'");
}

CyclicSizes cyclic_sizes(double step_size_up, std::optional<double> step_size_down) {
  const double up = step_size_up, down = step_size_down.value_or(up);
  TC_CHECK(up > 0 && down >= 0,
           "CyclicLR: expected step_size_up > 0 and step_size_down >= 0, but got ", repr_float(up),
           " and ", repr_float(down));
  return {up + down, up / (up + down)};
}

CyclicPosition cyclic_position(int64_t epoch, double total_size, double step_ratio) {
  const double e = double(epoch);
  const double cycle = std::floor(1 + e / total_size);
  const double x = 1. + e / total_size - cycle;
  return {cycle, x <= step_ratio ? x / step_ratio : (x - 1) / (step_ratio - 1)};
}

double cyclic_scale(const std::string& mode, double gamma, double x) {
  if (mode == "triangular") return 1.;
  if (mode == "triangular2") return 1 / std::pow(2., x - 1);
  if (mode == "exp_range") return std::pow(gamma, x);
  throw ValueError("mode is invalid and scale_fn is None");
}

std::string cyclic_scale_mode(const std::string& mode) {
  return mode == "exp_range" ? "iterations" : "cycle";
}

Values cyclic_lr(const Values& base_lrs, const Values& max_lrs, double scale_factor, double scale) {
  Values out;
  out.reserve(base_lrs.size());
  for (size_t g = 0; g < base_lrs.size(); ++g)
    out.push_back(base_lrs[g] + (max_lrs[g] - base_lrs[g]) * scale_factor * scale);
  return out;
}

Values cyclic_momentum(const Values& base_momentums, const Values& max_momentums,
                       double scale_factor, double scale) {
  Values out;
  out.reserve(base_momentums.size());
  for (size_t g = 0; g < base_momentums.size(); ++g)
    out.push_back(max_momentums[g] - (max_momentums[g] - base_momentums[g]) * scale_factor * scale);
  return out;
}

bool cycled_momentum_uses_beta1(bool has_momentum, bool has_betas) {
  TC_CHECK(has_momentum || has_betas,
           "optimizer must support momentum with `cycle_momentum` option enabled");
  return has_betas;
}

// ---- OneCycleLR ----
int64_t check_one_cycle(std::optional<double> total_steps, std::optional<double> epochs,
                        std::optional<double> steps_per_epoch, double pct_start,
                        const std::string& anneal_strategy) {
  TC_CHECK(total_steps || epochs || steps_per_epoch,
           "You must define either total_steps OR (epochs AND steps_per_epoch)");
  int64_t total = 0;
  if (total_steps) {
    TC_CHECK(is_positive_integer(*total_steps), "Expected positive integer total_steps, but got ",
             repr_number(*total_steps));
    total = int64_t(*total_steps);
  } else {
    TC_CHECK(epochs && is_positive_integer(*epochs), "Expected positive integer epochs, but got ",
             epochs ? repr_number(*epochs) : "None");
    TC_CHECK(steps_per_epoch && is_positive_integer(*steps_per_epoch),
             "Expected positive integer steps_per_epoch, but got ",
             steps_per_epoch ? repr_number(*steps_per_epoch) : "None");
    total = int64_t(*epochs) * int64_t(*steps_per_epoch);
  }
  TC_CHECK(!(pct_start < 0 || pct_start > 1), "Expected float between 0 and 1 pct_start, but got ",
           repr_float(pct_start));
  TC_CHECK(anneal_strategy == "cos" || anneal_strategy == "linear",
           "anneal_strategy must by one of 'cos' or 'linear', instead got ", anneal_strategy);
  return total;
}

OneCyclePoint one_cycle_at(int64_t step, int64_t total_steps, double pct_start, bool three_phase,
                           const std::string& anneal_strategy, double initial_lr, double max_lr,
                           double min_lr, double base_momentum, double max_momentum) {
  TC_CHECK(step <= total_steps, "Tried to step ", step + 1,
           " times. The specified number of total steps is ", total_steps);
  const bool cos = anneal_strategy == "cos";
  auto anneal = [cos](double start, double end, double pct) {
    if (cos) return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
    return (end - start) * pct + start;
  };
  struct Phase {
    double end_step, lr_from, lr_to, m_from, m_to;
  };
  const double t = double(total_steps);
  Phase phases[3];
  size_t n = 0;
  if (three_phase) {
    phases[n++] = {pct_start * t - 1, initial_lr, max_lr, max_momentum, base_momentum};
    phases[n++] = {2 * pct_start * t - 2, max_lr, initial_lr, base_momentum, max_momentum};
    phases[n++] = {t - 1, initial_lr, min_lr, max_momentum, max_momentum};
  } else {
    phases[n++] = {pct_start * t - 1, initial_lr, max_lr, max_momentum, base_momentum};
    phases[n++] = {t - 1, max_lr, min_lr, base_momentum, max_momentum};
  }
  const double s = double(step);
  double start_step = 0;
  for (size_t i = 0; i < n; ++i) {
    const Phase& ph = phases[i];
    if (s <= ph.end_step || i + 1 == n) {
      const double pct = (s - start_step) / (ph.end_step - start_step);
      return {anneal(ph.lr_from, ph.lr_to, pct), anneal(ph.m_from, ph.m_to, pct)};
    }
    start_step = ph.end_step;
  }
  return {max_lr, max_momentum};  // unreachable: the last phase always matches
}

// ---- SequentialLR / ChainedScheduler ----
void check_sequential_lr(const std::vector<bool>& same_optimizer, size_t milestones) {
  for (size_t i = 0; i < same_optimizer.size(); ++i)
    TC_CHECK(same_optimizer[i],
             "Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
             "got schedulers at index ",
             i, " to be different than the optimizer passed in.");
  TC_CHECK(milestones + 1 == same_optimizer.size(),
           "Sequential Schedulers expects number of schedulers provided to be one more than the "
           "number of milestone points, but got number of schedulers ",
           same_optimizer.size(), " and the number of milestones to be equal to ", milestones);
}

void check_chained(const std::vector<bool>& same_optimizer) {
  TC_CHECK(!same_optimizer.empty(), "ChainedScheduler expects at least one scheduler");
  for (size_t i = 1; i < same_optimizer.size(); ++i)
    TC_CHECK(same_optimizer[i],
             "ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
             "schedulers at index 0 and ",
             i, " to be different");
}

SequentialPick sequential_pick(const std::vector<int64_t>& milestones, int64_t epoch) {
  const size_t idx =
      size_t(std::upper_bound(milestones.begin(), milestones.end(), epoch) - milestones.begin());
  return {idx, idx > 0 && milestones[idx - 1] == epoch};
}

// ---- ReduceLROnPlateau ----
void check_plateau(double factor, const std::string& mode, const std::string& threshold_mode) {
  TC_CHECK(factor < 1.0, "Factor should be < 1.0.");
  TC_CHECK(mode == "min" || mode == "max", "mode ", mode, " is unknown!");
  TC_CHECK(threshold_mode == "rel" || threshold_mode == "abs", "threshold mode ", threshold_mode,
           " is unknown!");
}

Values plateau_min_lrs(const Values& min_lr, size_t groups) {
  if (min_lr.size() == 1) return Values(groups, min_lr[0]);
  TC_CHECK(min_lr.size() == groups, "expected ", groups, " min_lrs, got ", min_lr.size());
  return min_lr;
}

std::string reduce_message(int64_t group, double lr, double epoch, bool epoch_is_float) {
  return "Epoch " + epoch_text(epoch, epoch_is_float) + ": reducing learning rate of group " +
         std::to_string(group) + " to " + sci4(lr) + ".";
}

double plateau_worst(const std::string& mode) {
  return mode == "min" ? std::numeric_limits<double>::infinity()
                       : -std::numeric_limits<double>::infinity();
}

bool plateau_is_better(double a, double best, const std::string& mode,
                       const std::string& threshold_mode, double threshold) {
  if (mode == "min" && threshold_mode == "rel") return a < best * (1. - threshold);
  if (mode == "min") return a < best - threshold;
  if (threshold_mode == "rel") return a > best * (threshold + 1.);
  return a > best + threshold;
}

bool plateau_step(PlateauState& s, double metric, std::optional<int64_t> epoch,
                  const std::string& mode, const std::string& threshold_mode, double threshold,
                  int64_t patience, int64_t cooldown) {
  s.last_epoch = epoch ? *epoch : s.last_epoch + 1;
  if (plateau_is_better(metric, s.best, mode, threshold_mode, threshold)) {
    s.best = metric;
    s.num_bad_epochs = 0;
  } else {
    s.num_bad_epochs += 1;
  }
  if (s.cooldown_counter > 0) {
    s.cooldown_counter -= 1;
    s.num_bad_epochs = 0;  // bad epochs in cooldown do not count
  }
  if (s.num_bad_epochs <= patience) return false;
  s.cooldown_counter = cooldown;
  s.num_bad_epochs = 0;
  return true;
}

Values plateau_reduce(const Values& lrs, double factor, const Values& min_lrs, double eps,
                      std::vector<bool>* changed) {
  Values out(lrs);
  if (changed) changed->assign(lrs.size(), false);
  for (size_t g = 0; g < lrs.size(); ++g) {
    const double new_lr = std::max(lrs[g] * factor, min_lrs[g]);
    if (lrs[g] - new_lr > eps) {
      out[g] = new_lr;
      if (changed) (*changed)[g] = true;
    }
  }
  return out;
}

}  // namespace tc::optim::sched
