#include "tensorcore/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "tensorcore/ops/creation.h"

namespace tc::optim {
namespace {

constexpr double kPi = std::numbers::pi;

// One value for every group, or one per group.
std::vector<double> per_group(const std::vector<double>& v, size_t groups, const char* who,
                              const char* what) {
  if (v.size() == 1) return std::vector<double>(groups, v[0]);
  TC_CHECK(v.size() == groups, who, ": expected 1 or ", groups, " values for ", what, ", got ",
           v.size());
  return v;
}

// "beta1" for Adam-like optimizers, "momentum" for SGD/RMSprop (torch's use_beta1 rule).
std::string momentum_option(Optimizer& opt, const char* who) {
  bool has_momentum = false;
  for (auto& [name, v] : opt.defaults().values()) {
    if (name == "beta1") return name;
    if (name == "momentum") has_momentum = true;
  }
  TC_CHECK(has_momentum, who,
           ": optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
  return "momentum";
}

Tensor scalar(double v) { return scalar_tensor(v, DType::Float64); }

// Each lr times `factor`.
std::vector<double> scaled(std::vector<double> lrs, double factor) {
  for (auto& lr : lrs) lr *= factor;
  return lrs;
}

// Cosine annealing from each base lr (at t = 0) down to eta_min (at t = T).
std::vector<double> cosine_annealed(const std::vector<double>& base_lrs, double eta_min, double t,
                                    double T) {
  std::vector<double> out;
  for (double b : base_lrs)
    out.push_back(eta_min + (b - eta_min) * (1 + std::cos(kPi * t / T)) / 2);
  return out;
}

void put_list(NamedTensors& out, const std::string& name, const std::vector<double>& v) {
  for (size_t i = 0; i < v.size(); ++i)
    out.emplace_back(name + "." + std::to_string(i), scalar(v[i]));
}

}  // namespace

// ---- base ----
LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}

void LRScheduler::init_base_lrs() {
  base_lrs_.clear();
  for (auto& g : optimizer_.param_groups()) {
    if (!g.initial_lr) g.initial_lr = g.options->get_lr();
    base_lrs_.push_back(*g.initial_lr);
  }
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> out;
  for (auto& g : optimizer_.param_groups()) out.push_back(g.options->get_lr());
  return out;
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size() && g < lrs.size(); ++g) groups[g].options->set_lr(lrs[g]);
  last_lr_ = group_lrs();
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  set_lrs(get_lr());
}

void LRScheduler::step(int64_t epoch) {
  ++step_count_;
  last_epoch_ = epoch;
  auto closed = closed_form();
  set_lrs(closed ? *closed : get_lr());
}

NamedTensors LRScheduler::state_dict() const {
  NamedTensors out{{"last_epoch", scalar(double(last_epoch_))},
                   {"_step_count", scalar(double(step_count_))}};
  put_list(out, "base_lrs", base_lrs_);
  put_list(out, "_last_lr", last_lr_);
  for (auto& [name, ptr] : const_cast<LRScheduler*>(this)->extra_state())
    out.emplace_back(name, scalar(*ptr));
  return out;
}

void LRScheduler::load_state_dict(const NamedTensors& state) {
  auto extra = extra_state();
  for (auto& [key, t] : state) {
    double v = t.item<double>();
    auto list_index = [&](const std::string& prefix) -> std::optional<size_t> {
      if (key.rfind(prefix + ".", 0) != 0) return std::nullopt;
      return std::stoul(key.substr(prefix.size() + 1));
    };
    if (key == "last_epoch") {
      last_epoch_ = int64_t(v);
    } else if (key == "_step_count") {
      step_count_ = int64_t(v);
    } else if (auto i = list_index("base_lrs")) {
      if (base_lrs_.size() <= *i) base_lrs_.resize(*i + 1);
      base_lrs_[*i] = v;
    } else if (auto j = list_index("_last_lr")) {
      if (last_lr_.size() <= *j) last_lr_.resize(*j + 1);
      last_lr_[*j] = v;
    } else {
      auto it = std::find_if(extra.begin(), extra.end(), [&](auto& e) { return e.first == key; });
      TC_CHECK(it != extra.end(), "LRScheduler.load_state_dict: unexpected key '", key, "'");
      *it->second = v;
    }
  }
}

// ---- LambdaLR / MultiplicativeLR ----
LambdaLR::LambdaLR(Optimizer& o, Fn fn)
    : LambdaLR(o, std::vector<Fn>(o.param_groups().size(), fn)) {}
LambdaLR::LambdaLR(Optimizer& o, std::vector<Fn> fns) : LambdaLR(o, std::move(fns), true) {}
LambdaLR::LambdaLR(Optimizer& o, std::vector<Fn> fns, bool initial)
    : LRScheduler(o), fns_(std::move(fns)) {
  TC_CHECK(fns_.size() == o.param_groups().size(), "LambdaLR: expected ", o.param_groups().size(),
           " lr_lambdas, but got ", fns_.size());
  for (auto& f : fns_) TC_CHECK(bool(f), "LambdaLR: lr_lambda is empty");
  if (initial) initial_step();
}
std::vector<double> LambdaLR::get_lr() {
  std::vector<double> out;
  for (size_t g = 0; g < base_lrs_.size(); ++g) out.push_back(base_lrs_[g] * fns_[g](last_epoch_));
  return out;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& o, Fn fn)
    : MultiplicativeLR(o, std::vector<Fn>(o.param_groups().size(), fn)) {}
MultiplicativeLR::MultiplicativeLR(Optimizer& o, std::vector<Fn> fns)
    : LambdaLR(o, std::move(fns), false) {
  initial_step();
}
std::vector<double> MultiplicativeLR::get_lr() {
  if (last_epoch_ <= 0) return group_lrs();
  std::vector<double> out = group_lrs();
  for (size_t g = 0; g < out.size(); ++g) out[g] *= fns_[g](last_epoch_);
  return out;
}

// ---- StepLR / MultiStepLR ----
StepLR::StepLR(Optimizer& o, int64_t step_size, double gamma)
    : LRScheduler(o), step_size_(step_size), gamma_(gamma) {
  TC_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}
std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  return scaled(std::move(lrs), gamma_);
}
std::optional<std::vector<double>> StepLR::closed_form() const {
  return scaled(base_lrs_, std::pow(gamma_, double(last_epoch_ / step_size_)));
}

MultiStepLR::MultiStepLR(Optimizer& o, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(o), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}
std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  auto n = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (n == 0) return lrs;
  return scaled(std::move(lrs), std::pow(gamma_, double(n)));
}
std::optional<std::vector<double>> MultiStepLR::closed_form() const {
  auto passed =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  return scaled(base_lrs_, std::pow(gamma_, double(passed)));
}

// ---- ConstantLR / LinearLR ----
ConstantLR::ConstantLR(Optimizer& o, double factor, int64_t total_iters)
    : LRScheduler(o), factor_(factor), total_iters_(total_iters) {
  TC_CHECK(factor >= 0 && factor <= 1, "ConstantLR: factor must be in [0, 1], got ", factor);
  initial_step();
}
std::vector<double> ConstantLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    for (auto& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}
std::optional<std::vector<double>> ConstantLR::closed_form() const {
  return scaled(base_lrs_, factor_ + (last_epoch_ >= total_iters_) * (1 - factor_));
}

LinearLR::LinearLR(Optimizer& o, double start, double end, int64_t total_iters)
    : LRScheduler(o), start_(start), end_(end), total_iters_(total_iters) {
  TC_CHECK(start > 0 && start <= 1, "LinearLR: start_factor must be in (0, 1], got ", start);
  TC_CHECK(end >= 0 && end <= 1, "LinearLR: end_factor must be in [0, 1], got ", end);
  TC_CHECK(total_iters > 0, "LinearLR: total_iters must be positive, got ", total_iters);
  initial_step();
}
std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : lrs) lr *= start_;
  } else if (last_epoch_ <= total_iters_) {
    double ratio = 1.0 + (end_ - start_) / (double(total_iters_) * start_ +
                                            double(last_epoch_ - 1) * (end_ - start_));
    for (auto& lr : lrs) lr *= ratio;
  }
  return lrs;
}
std::optional<std::vector<double>> LinearLR::closed_form() const {
  double t = double(std::min(total_iters_, last_epoch_)) / double(total_iters_);
  return scaled(base_lrs_, start_ + (end_ - start_) * t);
}

// ---- ExponentialLR / PolynomialLR ----
ExponentialLR::ExponentialLR(Optimizer& o, double gamma) : LRScheduler(o), gamma_(gamma) {
  initial_step();
}
std::vector<double> ExponentialLR::get_lr() {
  return last_epoch_ == 0 ? group_lrs() : scaled(group_lrs(), gamma_);
}
std::optional<std::vector<double>> ExponentialLR::closed_form() const {
  return scaled(base_lrs_, std::pow(gamma_, double(last_epoch_)));
}

PolynomialLR::PolynomialLR(Optimizer& o, int64_t total_iters, double power)
    : LRScheduler(o), total_iters_(total_iters), power_(power) {
  TC_CHECK(total_iters > 0, "PolynomialLR: total_iters must be positive, got ", total_iters);
  initial_step();
}
std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return lrs;
  double t = double(total_iters_), e = double(last_epoch_);
  return scaled(std::move(lrs), std::pow((1.0 - e / t) / (1.0 - (e - 1) / t), power_));
}
std::optional<std::vector<double>> PolynomialLR::closed_form() const {
  const double t = double(std::min(total_iters_, last_epoch_)) / double(total_iters_);
  return scaled(base_lrs_, std::pow(1.0 - t, power_));
}

// ---- CosineAnnealingLR ----
CosineAnnealingLR::CosineAnnealingLR(Optimizer& o, int64_t T_max, double eta_min)
    : LRScheduler(o), t_max_(T_max), eta_min_(eta_min) {
  TC_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}
std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const double e = double(last_epoch_), T = double(t_max_);
  if (last_epoch_ == 0) return lrs;
  if (step_count_ == 1 && last_epoch_ > 0) return *closed_form();
  for (size_t g = 0; g < lrs.size(); ++g) {
    if ((last_epoch_ - 1 - t_max_) % (2 * t_max_) == 0)
      lrs[g] += (base_lrs_[g] - eta_min_) * (1 - std::cos(kPi / T)) / 2;
    else
      lrs[g] =
          (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (lrs[g] - eta_min_) +
          eta_min_;
  }
  return lrs;
}
std::optional<std::vector<double>> CosineAnnealingLR::closed_form() const {
  return cosine_annealed(base_lrs_, eta_min_, double(last_epoch_), double(t_max_));
}

// ---- CosineAnnealingWarmRestarts ----
CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& o, int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(o), t_0_(T_0), t_mult_(T_mult), eta_min_(eta_min), t_i_(double(T_0)), t_cur_(-1) {
  TC_CHECK(T_0 > 0, "CosineAnnealingWarmRestarts: expected positive integer T_0, but got ", T_0);
  TC_CHECK(T_mult >= 1, "CosineAnnealingWarmRestarts: expected integer T_mult >= 1, but got ",
           T_mult);
  initial_step();
}
std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  return cosine_annealed(base_lrs_, eta_min_, t_cur_, t_i_);
}
void CosineAnnealingWarmRestarts::apply() {
  ++step_count_;
  set_lrs(get_lr());
}
void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) return step(0);
  last_epoch_ += 1;
  t_cur_ += 1;
  if (t_cur_ >= t_i_) {
    t_cur_ -= t_i_;
    t_i_ *= double(t_mult_);
  }
  apply();
}
void CosineAnnealingWarmRestarts::step(int64_t epoch) {
  TC_CHECK(epoch >= 0, "CosineAnnealingWarmRestarts: expected non-negative epoch, but got ", epoch);
  const double e = double(epoch), t0 = double(t_0_), m = double(t_mult_);
  if (epoch >= t_0_) {
    if (t_mult_ == 1) {
      t_cur_ = double(epoch % t_0_);
    } else {
      double n = std::floor(std::log(e / t0 * (m - 1) + 1) / std::log(m));
      t_cur_ = e - t0 * (std::pow(m, n) - 1) / (m - 1);
      t_i_ = t0 * std::pow(m, n);
    }
  } else {
    t_i_ = t0;
    t_cur_ = e;
  }
  last_epoch_ = epoch;
  apply();
}
std::vector<std::pair<std::string, double*>> CosineAnnealingWarmRestarts::extra_state() {
  return {{"T_i", &t_i_}, {"T_cur", &t_cur_}};
}

// ---- CyclicLR ----
CyclicLR::CyclicLR(Optimizer& opt, double base_lr, double max_lr, double step_size_up)
    : CyclicLR(opt, [&] {
        CyclicLROptions o;
        o.base_lr = {base_lr};
        o.max_lr = {max_lr};
        o.step_size_up = step_size_up;
        return o;
      }()) {}

CyclicLR::CyclicLR(Optimizer& opt, CyclicLROptions o) : LRScheduler(opt), o_(std::move(o)) {
  auto& groups = opt.param_groups();
  std::vector<double> base = per_group(o_.base_lr, groups.size(), "CyclicLR", "base_lr");
  max_lrs_ = per_group(o_.max_lr, groups.size(), "CyclicLR", "max_lr");
  for (size_t g = 0; g < groups.size(); ++g) groups[g].options->set_lr(base[g]);
  TC_CHECK(o_.step_size_up > 0 && (!o_.step_size_down || *o_.step_size_down >= 0),
           "CyclicLR: step sizes must be positive");
  double up = o_.step_size_up, down = o_.step_size_down ? *o_.step_size_down : up;
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  if (!o_.scale_fn) {
    TC_CHECK(o_.mode == "triangular" || o_.mode == "triangular2" || o_.mode == "exp_range",
             "CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range', got '", o_.mode,
             "'");
    cycle_iterations_ = o_.mode == "exp_range";
    double gamma = o_.gamma;
    if (o_.mode == "triangular")
      o_.scale_fn = [](double) { return 1.0; };
    else if (o_.mode == "triangular2")
      o_.scale_fn = [](double x) { return 1.0 / std::pow(2.0, x - 1); };
    else
      o_.scale_fn = [gamma](double x) { return std::pow(gamma, x); };
  } else {
    TC_CHECK(o_.scale_mode == "cycle" || o_.scale_mode == "iterations",
             "CyclicLR: scale_mode must be 'cycle' or 'iterations', got '", o_.scale_mode, "'");
    cycle_iterations_ = o_.scale_mode == "iterations";
  }
  if (o_.cycle_momentum) {
    momentum_name_ = momentum_option(opt, "CyclicLR");
    base_momentums_ = per_group(o_.base_momentum, groups.size(), "CyclicLR", "base_momentum");
    max_momentums_ = per_group(o_.max_momentum, groups.size(), "CyclicLR", "max_momentum");
    for (size_t g = 0; g < groups.size(); ++g)
      groups[g].options->set_value(momentum_name_, max_momentums_[g]);
  }
  init_base_lrs();
  base_lrs_ = base;  // torch overrides the initial_lr-derived base lrs with base_lr
  step_count_ = 0;
  step();
}

std::vector<double> CyclicLR::get_lr() {
  const double e = double(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1.0 + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double scale = o_.scale_fn(cycle_iterations_ ? e : cycle);
  std::vector<double> lrs;
  for (size_t g = 0; g < base_lrs_.size(); ++g)
    lrs.push_back(base_lrs_[g] + (max_lrs_[g] - base_lrs_[g]) * scale_factor * scale);
  if (o_.cycle_momentum) {
    auto& groups = optimizer_.param_groups();
    for (size_t g = 0; g < groups.size(); ++g)
      groups[g].options->set_value(
          momentum_name_,
          max_momentums_[g] - (max_momentums_[g] - base_momentums_[g]) * scale_factor * scale);
  }
  return lrs;
}

// ---- OneCycleLR ----
OneCycleLR::OneCycleLR(Optimizer& opt, double max_lr, int64_t total_steps, double pct_start,
                       std::string anneal, double div_factor, double final_div_factor,
                       bool three_phase, bool cycle_momentum)
    : OneCycleLR(opt, [&] {
        OneCycleLROptions o;
        o.max_lr = {max_lr};
        o.total_steps = total_steps;
        o.pct_start = pct_start;
        o.anneal_strategy = std::move(anneal);
        o.div_factor = div_factor;
        o.final_div_factor = final_div_factor;
        o.three_phase = three_phase;
        o.cycle_momentum = cycle_momentum;
        return o;
      }()) {}

OneCycleLR::OneCycleLR(Optimizer& opt, OneCycleLROptions o) : LRScheduler(opt), o_(std::move(o)) {
  if (o_.total_steps > 0) {
    total_steps_ = o_.total_steps;
  } else {
    TC_CHECK(o_.epochs > 0 && o_.steps_per_epoch > 0,
             "OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch) as "
             "positive integers, "
             "got total_steps=",
             o_.total_steps, ", epochs=", o_.epochs, ", steps_per_epoch=", o_.steps_per_epoch);
    total_steps_ = o_.epochs * o_.steps_per_epoch;
  }
  TC_CHECK(o_.pct_start >= 0 && o_.pct_start <= 1, "OneCycleLR: pct_start must be in [0, 1], got ",
           o_.pct_start);
  TC_CHECK(o_.anneal_strategy == "cos" || o_.anneal_strategy == "linear",
           "OneCycleLR: anneal_strategy must be 'cos' or 'linear', got '", o_.anneal_strategy, "'");
  auto& groups = opt.param_groups();
  max_lrs_ = per_group(o_.max_lr, groups.size(), "OneCycleLR", "max_lr");
  for (size_t g = 0; g < groups.size(); ++g) {
    initial_lrs_.push_back(max_lrs_[g] / o_.div_factor);
    min_lrs_.push_back(initial_lrs_[g] / o_.final_div_factor);
    groups[g].initial_lr = initial_lrs_[g];
  }
  if (o_.cycle_momentum) {
    momentum_name_ = momentum_option(opt, "OneCycleLR");
    for (auto& g : groups) g.options->set_value(momentum_name_, o_.max_momentum);
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (o_.anneal_strategy == "cos") return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const double step = double(last_epoch_);
  TC_CHECK(last_epoch_ <= total_steps_, "OneCycleLR: tried to step ", last_epoch_,
           " times; the specified number of total steps is ", total_steps_);
  const double t = double(total_steps_), p = o_.pct_start;
  enum Level { kInitial, kMax, kMin };
  struct Phase {
    double end_step;
    Level lr_from, lr_to;
    bool momentum_from_max, momentum_to_max;
  };
  std::vector<Phase> phases;
  if (o_.three_phase)
    phases = {{p * t - 1, kInitial, kMax, true, false},
              {2 * p * t - 2, kMax, kInitial, false, true},
              {t - 1, kInitial, kMin, true, true}};
  else
    phases = {{p * t - 1, kInitial, kMax, true, false}, {t - 1, kMax, kMin, false, true}};
  std::vector<double> lrs;
  auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const double levels[3] = {initial_lrs_[g], max_lrs_[g], min_lrs_[g]};
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phases.size(); ++i) {
      const Phase& ph = phases[i];
      if (step <= ph.end_step || i + 1 == phases.size()) {
        const double pct = (step - start_step) / (ph.end_step - start_step);
        lr = anneal(levels[ph.lr_from], levels[ph.lr_to], pct);
        momentum = anneal(ph.momentum_from_max ? o_.max_momentum : o_.base_momentum,
                          ph.momentum_to_max ? o_.max_momentum : o_.base_momentum, pct);
        break;
      }
      start_step = ph.end_step;
    }
    lrs.push_back(lr);
    if (o_.cycle_momentum) groups[g].options->set_value(momentum_name_, momentum);
  }
  return lrs;
}

// ---- SequentialLR ----
SequentialLR::SequentialLR(Optimizer& opt, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(opt), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  TC_CHECK(!schedulers_.empty(), "SequentialLR: expected at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    TC_CHECK(schedulers_[i] != nullptr, "SequentialLR: scheduler ", i, " is null");
    TC_CHECK(&schedulers_[i]->optimizer() == &opt,
             "SequentialLR: expects all schedulers to belong to the same "
             "optimizer, but got scheduler at index ",
             i, " to be different than the optimizer passed in");
  }
  TC_CHECK(milestones_.size() + 1 == schedulers_.size(),
           "SequentialLR: expects number of schedulers provided to "
           "be one more than the number of milestone points, but got ",
           schedulers_.size(), " schedulers and ", milestones_.size(), " milestones");
  last_epoch_ = 0;
  // Back to the initial lrs, undo the other schedulers' initial steps, then start the first.
  for (auto& g : opt.param_groups())
    if (g.initial_lr) g.options->set_lr(*g.initial_lr);
  for (auto& s : schedulers_) s->last_epoch_ -= 1;
  schedulers_[0]->step_count_ = 0;
  schedulers_[0]->step();
  base_lrs_ = schedulers_[0]->base_lrs_;
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  size_t idx = size_t(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                      milestones_.begin());
  auto& s = schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    s->step(0);
  else
    s->step();
  last_lr_ = s->get_last_lr();
}

void SequentialLR::step(int64_t) {
  throw ValueError("SequentialLR.step: an explicit epoch is not supported; call step()");
}

NamedTensors SequentialLR::state_dict() const {
  NamedTensors out = LRScheduler::state_dict();
  for (size_t i = 0; i < schedulers_.size(); ++i)
    for (auto& [k, t] : schedulers_[i]->state_dict())
      out.emplace_back("_schedulers." + std::to_string(i) + "." + k, t);
  return out;
}

// Splits "_schedulers.<i>.<key>" entries off to the wrapped schedulers.
static NamedTensors split_children(const NamedTensors& state, std::vector<NamedTensors>& children) {
  NamedTensors own;
  const std::string prefix = "_schedulers.";
  for (auto& [k, t] : state) {
    if (k.rfind(prefix, 0) != 0) {
      own.emplace_back(k, t);
      continue;
    }
    auto rest = k.substr(prefix.size());
    auto dot = rest.find('.');
    TC_CHECK(dot != std::string::npos, "LRScheduler.load_state_dict: malformed key '", k, "'");
    size_t i = std::stoul(rest.substr(0, dot));
    TC_CHECK(i < children.size(), "LRScheduler.load_state_dict: state for scheduler ", i,
             " but there are ", children.size());
    children[i].emplace_back(rest.substr(dot + 1), t);
  }
  return own;
}

void SequentialLR::load_state_dict(const NamedTensors& state) {
  std::vector<NamedTensors> children(schedulers_.size());
  LRScheduler::load_state_dict(split_children(state, children));
  for (size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(children[i]);
}

// ---- ChainedScheduler ----
static Optimizer& first_optimizer(const std::vector<std::shared_ptr<LRScheduler>>& s) {
  TC_CHECK(!s.empty() && s[0] != nullptr, "ChainedScheduler: expected at least one scheduler");
  return s[0]->optimizer();
}

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(first_optimizer(schedulers)), schedulers_(std::move(schedulers)) {
  for (size_t i = 1; i < schedulers_.size(); ++i) {
    TC_CHECK(schedulers_[i] != nullptr, "ChainedScheduler: scheduler ", i, " is null");
    TC_CHECK(&schedulers_[i]->optimizer() == &optimizer_,
             "ChainedScheduler: expects all schedulers to belong to the same optimizer, but got "
             "scheduler at index ",
             i, " to be different");
  }
  last_lr_ = group_lrs();
}

void ChainedScheduler::step() {
  for (auto& s : schedulers_) s->step();
  last_lr_ = group_lrs();
}

void ChainedScheduler::step(int64_t) {
  throw ValueError("ChainedScheduler.step: an explicit epoch is not supported; call step()");
}

NamedTensors ChainedScheduler::state_dict() const {
  NamedTensors out;
  put_list(out, "_last_lr", last_lr_);
  for (size_t i = 0; i < schedulers_.size(); ++i)
    for (auto& [k, t] : schedulers_[i]->state_dict())
      out.emplace_back("_schedulers." + std::to_string(i) + "." + k, t);
  return out;
}

void ChainedScheduler::load_state_dict(const NamedTensors& state) {
  std::vector<NamedTensors> children(schedulers_.size());
  LRScheduler::load_state_dict(split_children(state, children));
  for (size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(children[i]);
}

// ---- ReduceLROnPlateau ----
ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& opt, ReduceLROnPlateauOptions o)
    : optimizer_(opt), o_(std::move(o)) {
  TC_CHECK(o_.factor < 1.0, "ReduceLROnPlateau: factor should be < 1.0, got ", o_.factor);
  TC_CHECK(o_.mode == "min" || o_.mode == "max", "ReduceLROnPlateau: mode ", o_.mode,
           " is unknown!");
  TC_CHECK(o_.threshold_mode == "rel" || o_.threshold_mode == "abs",
           "ReduceLROnPlateau: threshold mode ", o_.threshold_mode, " is unknown!");
  min_lrs_ = per_group(o_.min_lr, opt.param_groups().size(), "ReduceLROnPlateau", "min_lr");
  best_ = o_.mode == "min" ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
  for (auto& g : opt.param_groups()) last_lr_.push_back(g.options->get_lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  if (o_.mode == "min" && o_.threshold_mode == "rel") return a < best * (1.0 - o_.threshold);
  if (o_.mode == "min") return a < best - o_.threshold;
  if (o_.threshold_mode == "rel") return a > best * (o_.threshold + 1.0);
  return a > best + o_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  auto& groups = optimizer_.param_groups();
  if (num_bad_epochs_ > o_.patience) {
    for (size_t g = 0; g < groups.size(); ++g) {
      double old_lr = groups[g].options->get_lr();
      double new_lr = std::max(old_lr * o_.factor, min_lrs_[g]);
      if (old_lr - new_lr > o_.eps) groups[g].options->set_lr(new_lr);
    }
    cooldown_counter_ = o_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (auto& g : groups) last_lr_.push_back(g.options->get_lr());
}

NamedTensors ReduceLROnPlateau::state_dict() const {
  NamedTensors out{{"best", scalar(best_)},
                   {"num_bad_epochs", scalar(double(num_bad_epochs_))},
                   {"cooldown_counter", scalar(double(cooldown_counter_))},
                   {"last_epoch", scalar(double(last_epoch_))}};
  put_list(out, "_last_lr", last_lr_);
  return out;
}

void ReduceLROnPlateau::load_state_dict(const NamedTensors& state) {
  for (auto& [k, t] : state) {
    double v = t.item<double>();
    if (k == "best")
      best_ = v;
    else if (k == "num_bad_epochs")
      num_bad_epochs_ = int64_t(v);
    else if (k == "cooldown_counter")
      cooldown_counter_ = int64_t(v);
    else if (k == "last_epoch")
      last_epoch_ = int64_t(v);
    else if (k.rfind("_last_lr.", 0) == 0) {
      size_t i = std::stoul(k.substr(9));
      if (last_lr_.size() <= i) last_lr_.resize(i + 1);
      last_lr_[i] = v;
    } else {
      throw ValueError("ReduceLROnPlateau.load_state_dict: unexpected key '" + k + "'");
    }
  }
}

}  // namespace tc::optim
