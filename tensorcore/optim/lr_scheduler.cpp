#include "tensorcore/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tensorcore/ops/creation.h"
#include "tensorcore/optim/lr_schedule_rules.h"

namespace tc::optim {
namespace {

// "beta1" for Adam-like optimizers, "momentum" for SGD/RMSprop (torch's use_beta1 rule).
std::string momentum_option(Optimizer& opt) {
  bool has_momentum = false, has_beta1 = false;
  for (auto& [name, v] : opt.defaults().values()) {
    has_beta1 |= name == "beta1";
    has_momentum |= name == "momentum";
  }
  return sched::cycled_momentum_uses_beta1(has_momentum, has_beta1) ? "beta1" : "momentum";
}

Tensor scalar(double v) { return scalar_tensor(v, DType::Float64); }

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
  print_lrs(std::nullopt);
}

void LRScheduler::step(int64_t epoch) {
  ++step_count_;
  last_epoch_ = epoch;
  auto closed = closed_form();
  set_lrs(closed ? *closed : get_lr());
  print_lrs(double(epoch));
}

void LRScheduler::print_lrs(std::optional<double> epoch) const {
  if (!verbose_) return;
  for (size_t g = 0; g < last_lr_.size(); ++g)
    std::printf("%s\n", sched::adjust_message(int64_t(g), last_lr_[g], epoch).c_str());
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
  sched::check_lambda_count(o.param_groups().size(), fns_.size());
  for (auto& f : fns_) TC_CHECK(bool(f), "LambdaLR: lr_lambda is empty");
  if (initial) initial_step();
}
std::vector<double> LambdaLR::factors() const {
  std::vector<double> out;
  for (auto& fn : fns_) out.push_back(fn(last_epoch_));
  return out;
}
std::vector<double> LambdaLR::get_lr() { return sched::lambda_lr(base_lrs_, factors()); }

MultiplicativeLR::MultiplicativeLR(Optimizer& o, Fn fn)
    : MultiplicativeLR(o, std::vector<Fn>(o.param_groups().size(), fn)) {}
MultiplicativeLR::MultiplicativeLR(Optimizer& o, std::vector<Fn> fns)
    : LambdaLR(o, std::move(fns), false) {
  initial_step();
}
std::vector<double> MultiplicativeLR::get_lr() {
  if (last_epoch_ <= 0) return group_lrs();  // the lambdas are not called at epoch 0 (torch)
  return sched::multiplicative_lr(group_lrs(), last_epoch_, factors());
}

// ---- StepLR / MultiStepLR ----
StepLR::StepLR(Optimizer& o, int64_t step_size, double gamma)
    : LRScheduler(o), step_size_(step_size), gamma_(gamma) {
  sched::check_step_lr(step_size);
  initial_step();
}
std::vector<double> StepLR::get_lr() {
  return sched::step_lr(group_lrs(), last_epoch_, step_size_, gamma_);
}
std::optional<std::vector<double>> StepLR::closed_form() const {
  return sched::step_closed(base_lrs_, last_epoch_, step_size_, gamma_);
}

MultiStepLR::MultiStepLR(Optimizer& o, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(o), milestones_(std::move(milestones)), gamma_(gamma) {
  initial_step();
}
std::vector<double> MultiStepLR::get_lr() {
  return sched::multistep_lr(group_lrs(), last_epoch_, milestones_, gamma_);
}
std::optional<std::vector<double>> MultiStepLR::closed_form() const {
  return sched::multistep_closed(base_lrs_, last_epoch_, milestones_, gamma_);
}

// ---- ConstantLR / LinearLR ----
ConstantLR::ConstantLR(Optimizer& o, double factor, int64_t total_iters)
    : LRScheduler(o), factor_(factor), total_iters_(total_iters) {
  sched::check_constant_lr(factor);
  initial_step();
}
std::vector<double> ConstantLR::get_lr() {
  return sched::constant_lr(group_lrs(), last_epoch_, factor_, total_iters_);
}
std::optional<std::vector<double>> ConstantLR::closed_form() const {
  return sched::constant_closed(base_lrs_, last_epoch_, factor_, total_iters_);
}

LinearLR::LinearLR(Optimizer& o, double start, double end, int64_t total_iters)
    : LRScheduler(o), start_(start), end_(end), total_iters_(total_iters) {
  sched::check_linear_lr(start, end, total_iters);
  initial_step();
}
std::vector<double> LinearLR::get_lr() {
  return sched::linear_lr(group_lrs(), last_epoch_, start_, end_, total_iters_);
}
std::optional<std::vector<double>> LinearLR::closed_form() const {
  return sched::linear_closed(base_lrs_, last_epoch_, start_, end_, total_iters_);
}

// ---- ExponentialLR / PolynomialLR ----
ExponentialLR::ExponentialLR(Optimizer& o, double gamma) : LRScheduler(o), gamma_(gamma) {
  initial_step();
}
std::vector<double> ExponentialLR::get_lr() {
  return sched::exponential_lr(group_lrs(), last_epoch_, gamma_);
}
std::optional<std::vector<double>> ExponentialLR::closed_form() const {
  return sched::exponential_closed(base_lrs_, last_epoch_, gamma_);
}

PolynomialLR::PolynomialLR(Optimizer& o, int64_t total_iters, double power)
    : LRScheduler(o), total_iters_(total_iters), power_(power) {
  sched::check_polynomial_lr(total_iters);
  initial_step();
}
std::vector<double> PolynomialLR::get_lr() {
  return sched::polynomial_lr(group_lrs(), last_epoch_, total_iters_, power_);
}
std::optional<std::vector<double>> PolynomialLR::closed_form() const {
  return sched::polynomial_closed(base_lrs_, last_epoch_, total_iters_, power_);
}

// ---- CosineAnnealingLR ----
CosineAnnealingLR::CosineAnnealingLR(Optimizer& o, int64_t T_max, double eta_min)
    : LRScheduler(o), t_max_(T_max), eta_min_(eta_min) {
  sched::check_cosine_annealing_lr(T_max);
  initial_step();
}
std::vector<double> CosineAnnealingLR::get_lr() {
  return sched::cosine_annealing_lr(group_lrs(), base_lrs_, last_epoch_, step_count_, t_max_,
                                    eta_min_);
}
std::optional<std::vector<double>> CosineAnnealingLR::closed_form() const {
  return sched::cosine_annealing_closed(base_lrs_, last_epoch_, t_max_, eta_min_);
}

// ---- CosineAnnealingWarmRestarts ----
CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& o, int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(o), t_0_(T_0), t_mult_(T_mult), eta_min_(eta_min), t_i_(double(T_0)), t_cur_(-1) {
  sched::check_warm_restarts(double(T_0), double(T_mult));
  initial_step();
}
std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  return sched::warm_restarts_lr(base_lrs_, t_cur_, t_i_, eta_min_);
}
void CosineAnnealingWarmRestarts::apply(const sched::WarmRestartsPosition& at,
                                        std::optional<double> epoch) {
  t_i_ = at.T_i;
  t_cur_ = at.T_cur;
  last_epoch_ = at.last_epoch;
  ++step_count_;
  set_lrs(get_lr());
  print_lrs(epoch);
}
void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) return step(0);  // torch's first step is step(0)
  apply(sched::warm_restarts_advance({t_i_, t_cur_, last_epoch_}, t_0_, t_mult_), std::nullopt);
}
void CosineAnnealingWarmRestarts::step(int64_t epoch) {
  apply(sched::warm_restarts_jump(double(epoch), t_0_, t_mult_, t_i_), double(epoch));
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
  std::vector<double> base = sched::per_group(o_.base_lr, groups.size(), "base_lr");
  for (size_t g = 0; g < groups.size(); ++g) groups[g].options->set_lr(base[g]);
  max_lrs_ = sched::per_group(o_.max_lr, groups.size(), "max_lr");
  auto sizes = sched::cyclic_sizes(o_.step_size_up, o_.step_size_down);
  total_size_ = sizes.total_size;
  step_ratio_ = sizes.step_ratio;
  sched::check_cyclic_lr(o_.mode, bool(o_.scale_fn), o_.scale_mode);
  if (!o_.scale_fn) {
    o_.scale_mode = sched::cyclic_scale_mode(o_.mode);
    o_.scale_fn = [mode = o_.mode, gamma = o_.gamma](double x) {
      return sched::cyclic_scale(mode, gamma, x);
    };
  }
  cycle_iterations_ = o_.scale_mode == "iterations";
  if (o_.cycle_momentum) {
    momentum_name_ = momentum_option(opt);
    base_momentums_ = sched::per_group(o_.base_momentum, groups.size(), "base_momentum");
    max_momentums_ = sched::per_group(o_.max_momentum, groups.size(), "max_momentum");
    for (size_t g = 0; g < groups.size(); ++g)
      groups[g].options->set_value(momentum_name_, base_momentums_[g]);
  }
  init_base_lrs();
  base_lrs_ = base;  // torch overrides the initial_lr-derived base lrs with base_lr
  step_count_ = 0;
  step();
}

std::vector<double> CyclicLR::get_lr() {
  auto at = sched::cyclic_position(last_epoch_, total_size_, step_ratio_);
  const double scale = o_.scale_fn(cycle_iterations_ ? double(last_epoch_) : at.cycle);
  if (o_.cycle_momentum) {
    auto momenta = sched::cyclic_momentum(base_momentums_, max_momentums_, at.scale_factor, scale);
    auto& groups = optimizer_.param_groups();
    for (size_t g = 0; g < groups.size(); ++g)
      groups[g].options->set_value(momentum_name_, momenta[g]);
  }
  return sched::cyclic_lr(base_lrs_, max_lrs_, at.scale_factor, scale);
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
  auto given = [](int64_t v) { return v != 0 ? std::optional<double>(double(v)) : std::nullopt; };
  total_steps_ =
      sched::check_one_cycle(given(o_.total_steps), given(o_.epochs), given(o_.steps_per_epoch),
                             o_.pct_start, o_.anneal_strategy);
  auto& groups = opt.param_groups();
  max_lrs_ = sched::per_group(o_.max_lr, groups.size(), "max_lr");
  for (size_t g = 0; g < groups.size(); ++g) {
    initial_lrs_.push_back(max_lrs_[g] / o_.div_factor);
    min_lrs_.push_back(initial_lrs_[g] / o_.final_div_factor);
    groups[g].initial_lr = initial_lrs_[g];
  }
  if (o_.cycle_momentum) {
    momentum_name_ = momentum_option(opt);
    for (auto& g : groups) g.options->set_value(momentum_name_, o_.max_momentum);
  }
  initial_step();
}

std::vector<double> OneCycleLR::get_lr() {
  std::vector<double> lrs;
  auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    auto at = sched::one_cycle_at(last_epoch_, total_steps_, o_.pct_start, o_.three_phase,
                                  o_.anneal_strategy, initial_lrs_[g], max_lrs_[g], min_lrs_[g],
                                  o_.base_momentum, o_.max_momentum);
    lrs.push_back(at.lr);
    if (o_.cycle_momentum) groups[g].options->set_value(momentum_name_, at.momentum);
  }
  return lrs;
}

// ---- SequentialLR ----
SequentialLR::SequentialLR(Optimizer& opt, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(opt), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  std::vector<bool> same;
  for (auto& sch : schedulers_) same.push_back(sch != nullptr && &sch->optimizer() == &opt);
  TC_CHECK(!schedulers_.empty(), "SequentialLR: expected at least one scheduler");
  sched::check_sequential_lr(same, milestones_.size());
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
  auto pick = sched::sequential_pick(milestones_, last_epoch_);
  auto& s = schedulers_[pick.index];
  if (pick.restart)
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
  std::vector<bool> same;
  for (auto& sch : schedulers_) same.push_back(sch != nullptr && &sch->optimizer() == &optimizer_);
  sched::check_chained(same);
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
  sched::check_plateau(o_.factor, o_.mode, o_.threshold_mode);
  min_lrs_ = sched::plateau_min_lrs(o_.min_lr, opt.param_groups().size());
  state_.best = sched::plateau_worst(o_.mode);
  for (auto& g : opt.param_groups()) last_lr_.push_back(g.options->get_lr());
}

void ReduceLROnPlateau::step(double metric) {
  auto& groups = optimizer_.param_groups();
  if (sched::plateau_step(state_, metric, std::nullopt, o_.mode, o_.threshold_mode, o_.threshold,
                          o_.patience, o_.cooldown)) {
    std::vector<double> lrs;
    for (auto& g : groups) lrs.push_back(g.options->get_lr());
    std::vector<bool> changed;
    lrs = sched::plateau_reduce(lrs, o_.factor, min_lrs_, o_.eps, &changed);
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!changed[g]) continue;
      groups[g].options->set_lr(lrs[g]);
      if (verbose_)
        std::printf("%s\n",
                    sched::reduce_message(int64_t(g), lrs[g], double(state_.last_epoch)).c_str());
    }
  }
  last_lr_.clear();
  for (auto& g : groups) last_lr_.push_back(g.options->get_lr());
}

NamedTensors ReduceLROnPlateau::state_dict() const {
  NamedTensors out{{"best", scalar(state_.best)},
                   {"num_bad_epochs", scalar(double(state_.num_bad_epochs))},
                   {"cooldown_counter", scalar(double(state_.cooldown_counter))},
                   {"last_epoch", scalar(double(state_.last_epoch))}};
  put_list(out, "_last_lr", last_lr_);
  return out;
}

void ReduceLROnPlateau::load_state_dict(const NamedTensors& state) {
  for (auto& [k, t] : state) {
    double v = t.item<double>();
    if (k == "best")
      state_.best = v;
    else if (k == "num_bad_epochs")
      state_.num_bad_epochs = int64_t(v);
    else if (k == "cooldown_counter")
      state_.cooldown_counter = int64_t(v);
    else if (k == "last_epoch")
      state_.last_epoch = int64_t(v);
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
