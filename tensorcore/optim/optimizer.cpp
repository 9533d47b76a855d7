#include "tensorcore/optim/optimizer.h"

#include <set>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/autograd/zero_grad.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/optim/optimizer_args.h"

namespace tc::optim {

Optimizer::Optimizer(std::vector<OptimizerParamGroup> groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(OptimizerParamGroup group) {
  std::set<const TensorImpl*> seen;
  for (auto& p : parameters()) seen.insert(p.impl());
  std::vector<bool> is_leaf;
  bool overlaps = false;
  for (size_t i = 0; i < group.params.size(); ++i) {
    const Tensor& p = group.params[i];
    TC_CHECK(p.defined(), "Optimizer: parameter ", i, " of a param group is undefined");
    is_leaf.push_back(p.is_leaf());
    overlaps |= !seen.insert(p.impl()).second;
  }
  check_param_group(is_leaf, overlaps);
  if (!group.options) group.options = defaults_->clone();
  groups_.push_back(std::move(group));
}

TensorList Optimizer::parameters() const {
  TensorList out;
  for (auto& g : groups_) out.insert(out.end(), g.params.begin(), g.params.end());
  return out;
}

void Optimizer::zero_grad(bool set_to_none) { autograd::zero_grad(parameters(), set_to_none); }

NamedTensors Optimizer::state_dict() const {
  NamedTensors out;
  size_t index = 0;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    for (auto& [k, v] : groups_[gi].options->values())
      out.emplace_back("param_groups." + std::to_string(gi) + "." + k,
                       scalar_tensor(v, DType::Float64));
    if (groups_[gi].initial_lr)
      out.emplace_back("param_groups." + std::to_string(gi) + ".initial_lr",
                       scalar_tensor(*groups_[gi].initial_lr, DType::Float64));
    for (auto& p : groups_[gi].params) {
      auto it = state_.find(p.impl());
      if (it != state_.end())
        for (auto& [k, t] : it->second)
          if (t.defined()) out.emplace_back("state." + std::to_string(index) + "." + k, clone(t));
      ++index;
    }
  }
  return out;
}

void Optimizer::load_state_dict(const NamedTensors& state) {
  TensorList params = parameters();
  std::map<size_t, ParamState> loaded;
  for (auto& [key, t] : state) {
    if (key.rfind("param_groups.", 0) == 0) {
      auto rest = key.substr(13);
      auto dot = rest.find('.');
      TC_CHECK(dot != std::string::npos, "Optimizer.load_state_dict: malformed key '", key, "'");
      size_t gi = std::stoul(rest.substr(0, dot));
      TC_CHECK(gi < groups_.size(), "Optimizer.load_state_dict: state has param group ", gi,
               " but the optimizer has ", groups_.size(), " groups");
      std::string option = rest.substr(dot + 1);
      if (option == "initial_lr")
        groups_[gi].initial_lr = t.item<double>();
      else
        groups_[gi].options->set_value(option, t.item<double>());
    } else if (key.rfind("state.", 0) == 0) {
      auto rest = key.substr(6);
      auto dot = rest.find('.');
      TC_CHECK(dot != std::string::npos, "Optimizer.load_state_dict: malformed key '", key, "'");
      size_t pi = std::stoul(rest.substr(0, dot));
      TC_CHECK(pi < params.size(), "Optimizer.load_state_dict: state for parameter ", pi,
               " but the optimizer has ", params.size(), " parameters");
      std::string name = rest.substr(dot + 1);
      Tensor v = clone(t);
      // 0-d entries are counters kept in float32 (torch's step, NAdam's mu_product); the rest
      // are per-element buffers shaped like the parameter.
      const bool counter = name == "step" || name == "mu_product";
      if (!counter && v.sizes() != params[pi].sizes())
        throw ValueError("Optimizer.load_state_dict: state '" + key + "' has shape " +
                         shape_str(v.sizes()) + " but parameter " + std::to_string(pi) +
                         " has shape " + shape_str(params[pi].sizes()));
      // Buffers follow the parameter's device (a CPU checkpoint loads into a CUDA model); counters
      // stay on the host, where the steps read them.
      if (!counter)
        v = contiguous(to_device(to_dtype(v, params[pi].dtype()), params[pi].device()));
      else
        v = contiguous(to_device(to_dtype(reshape(v, {}), DType::Float32), Device()));
      loaded[pi][name] = v;
    } else {
      throw ValueError("Optimizer.load_state_dict: unexpected key '" + key + "'");
    }
  }
  state_.clear();
  for (auto& [pi, st] : loaded) state_[params[pi].impl()] = std::move(st);
}

Optimizer::StepInputs Optimizer::step_inputs(const OptimizerParamGroup& group,
                                             std::initializer_list<const char*> keys) {
  StepInputs in;
  in.state.resize(keys.size());
  for (auto& p : group.params) {
    if (!p.grad().defined()) continue;
    auto& st = state_of(p);
    if (!st.count("step")) st["step"] = zeros({}, DType::Float32);
    in.params.push_back(p);
    in.steps.push_back(st["step"]);
    size_t k = 0;
    for (const char* key : keys) {
      Tensor t;
      if (key) {
        auto it = st.find(key);
        t = it != st.end() ? it->second : (st[key] = zeros_like(p));
      }
      in.state[k++].push_back(t);
    }
  }
  return in;
}

// ---- SGD ----
std::vector<std::pair<std::string, double>> SGDOptions::values() const {
  return {{"lr", lr_},
          {"momentum", momentum_},
          {"dampening", dampening_},
          {"weight_decay", weight_decay_},
          {"nesterov", double(nesterov_)},
          {"maximize", double(maximize_)}};
}
void SGDOptions::set_value(const std::string& n, double v) {
  if (n == "lr")
    lr_ = v;
  else if (n == "momentum")
    momentum_ = v;
  else if (n == "dampening")
    dampening_ = v;
  else if (n == "weight_decay")
    weight_decay_ = v;
  else if (n == "nesterov")
    nesterov_ = v != 0;
  else if (n == "maximize")
    maximize_ = v != 0;
  else
    throw ValueError("SGD.load_state_dict: unknown option '" + n + "'");
}

SGD::SGD(std::vector<OptimizerParamGroup> groups, SGDOptions d)
    : Optimizer({}, std::make_unique<SGDOptions>(d)) {
  check_sgd_args(d.lr(), d.momentum(), d.dampening(), d.weight_decay(), d.nesterov());
  for (auto& g : groups) add_param_group(std::move(g));
}

void SGD::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<SGDOptions&>(*g.options);
    SgdOptions f{o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov(), o.maximize()};
    TensorList bufs;
    for (auto& p : g.params) {
      auto& st = state_of(p);
      bufs.push_back(st.count("momentum_buffer") ? st["momentum_buffer"] : Tensor());
    }
    TensorList out = sgd_step(g.params, bufs, f);
    for (size_t i = 0; i < g.params.size(); ++i)
      if (out[i].defined()) state_of(g.params[i])["momentum_buffer"] = out[i];
  }
}

// ---- Adam / AdamW ----
std::vector<std::pair<std::string, double>> AdamOpts::values() const {
  return {{"lr", lr_},
          {"beta1", beta1_},
          {"beta2", beta2_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"amsgrad", double(amsgrad_)},
          {"maximize", double(maximize_)}};
}
void AdamOpts::set_value(const std::string& n, double v) {
  if (n == "lr")
    lr_ = v;
  else if (n == "beta1")
    beta1_ = v;
  else if (n == "beta2")
    beta2_ = v;
  else if (n == "eps")
    eps_ = v;
  else if (n == "weight_decay")
    weight_decay_ = v;
  else if (n == "amsgrad")
    amsgrad_ = v != 0;
  else if (n == "maximize")
    maximize_ = v != 0;
  else
    throw ValueError("Adam.load_state_dict: unknown option '" + n + "'");
}

Adam::Adam(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> d,
           bool decoupled)
    : Optimizer({}, std::move(d)), decoupled_(decoupled) {
  auto& o = static_cast<const AdamOpts&>(*defaults_);
  check_adam_args(o.lr(), o.beta1(), o.beta2(), o.eps(), o.weight_decay());
  for (auto& g : groups) add_param_group(std::move(g));
}

Adam::Adam(std::vector<OptimizerParamGroup> groups, AdamOpts d)
    : Adam(std::move(groups), std::make_unique<AdamOpts>(d), false) {}

AdamW::AdamW(std::vector<OptimizerParamGroup> groups, AdamWOptions d)
    : Adam(std::move(groups), std::make_unique<AdamWOptions>(d), true) {}

void Adam::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<AdamOpts&>(*g.options);
    AdamOptions f;
    f.lr = o.lr();
    f.beta1 = o.beta1();
    f.beta2 = o.beta2();
    f.eps = o.eps();
    f.weight_decay = o.weight_decay();
    f.amsgrad = o.amsgrad();
    f.maximize = o.maximize();
    f.decoupled_weight_decay = decoupled_;
    auto in = step_inputs(g, {"exp_avg", "exp_avg_sq", o.amsgrad() ? "max_exp_avg_sq" : nullptr});
    adam_step(in.params, in.state[0], in.state[1], in.state[2], in.steps, f);
  }
}

// ---- Adagrad ----
std::vector<std::pair<std::string, double>> AdagradOpts::values() const {
  return {{"lr", lr_},
          {"lr_decay", lr_decay_},
          {"weight_decay", weight_decay_},
          {"initial_accumulator_value", initial_accumulator_value_},
          {"eps", eps_},
          {"maximize", double(maximize_)}};
}
void AdagradOpts::set_value(const std::string& n, double v) {
  if (n == "lr")
    lr_ = v;
  else if (n == "lr_decay")
    lr_decay_ = v;
  else if (n == "weight_decay")
    weight_decay_ = v;
  else if (n == "initial_accumulator_value")
    initial_accumulator_value_ = v;
  else if (n == "eps")
    eps_ = v;
  else if (n == "maximize")
    maximize_ = v != 0;
  else
    throw ValueError("Adagrad.load_state_dict: unknown option '" + n + "'");
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> groups, AdagradOpts d)
    : Optimizer({}, std::make_unique<AdagradOpts>(d)) {
  check_adagrad_args(d.lr(), d.lr_decay(), d.weight_decay(), d.initial_accumulator_value(),
                     d.eps());
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adagrad::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<AdagradOpts&>(*g.options);
    AdagradOptions f;
    f.lr = o.lr();
    f.lr_decay = o.lr_decay();
    f.weight_decay = o.weight_decay();
    f.eps = o.eps();
    f.maximize = o.maximize();
    TensorList params, sums, steps;
    for (auto& p : g.params) {
      if (!p.grad().defined()) continue;
      auto& st = state_of(p);
      if (!st.count("step")) {
        st["step"] = zeros({}, DType::Float32);
        st["sum"] = full_like(p, o.initial_accumulator_value());
      }
      params.push_back(p);
      sums.push_back(st["sum"]);
      steps.push_back(st["step"]);
    }
    adagrad_step(params, sums, steps, f);
  }
}

// ---- RMSprop ----
std::vector<std::pair<std::string, double>> RMSpropOpts::values() const {
  return {{"lr", lr_},
          {"alpha", alpha_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"momentum", momentum_},
          {"centered", double(centered_)},
          {"maximize", double(maximize_)}};
}
void RMSpropOpts::set_value(const std::string& n, double v) {
  if (n == "lr")
    lr_ = v;
  else if (n == "alpha")
    alpha_ = v;
  else if (n == "eps")
    eps_ = v;
  else if (n == "weight_decay")
    weight_decay_ = v;
  else if (n == "momentum")
    momentum_ = v;
  else if (n == "centered")
    centered_ = v != 0;
  else if (n == "maximize")
    maximize_ = v != 0;
  else
    throw ValueError("RMSprop.load_state_dict: unknown option '" + n + "'");
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> groups, RMSpropOpts d)
    : Optimizer({}, std::make_unique<RMSpropOpts>(d)) {
  check_rmsprop_args(d.lr(), d.alpha(), d.eps(), d.weight_decay(), d.momentum());
  for (auto& g : groups) add_param_group(std::move(g));
}

void RMSprop::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<RMSpropOpts&>(*g.options);
    RmspropOptions f;
    f.lr = o.lr();
    f.alpha = o.alpha();
    f.eps = o.eps();
    f.weight_decay = o.weight_decay();
    f.momentum = o.momentum();
    f.centered = o.centered();
    f.maximize = o.maximize();
    auto in = step_inputs(g, {"square_avg", o.momentum() > 0 ? "momentum_buffer" : nullptr,
                              o.centered() ? "grad_avg" : nullptr});
    rmsprop_step(in.params, in.state[0], in.state[1], in.state[2], in.steps, f);
  }
}

}  // namespace tc::optim
