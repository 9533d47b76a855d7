#include "tensorcore/optim/adaptive.h"

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/optim/optimizer_args.h"

namespace tc::optim {

#define TC_OPTIM_VALUE(name) \
  { #name, double(name##_) }
#define TC_OPTIM_SET(name)          \
  if (n == #name) {                 \
    name##_ = decltype(name##_)(v); \
    return;                         \
  }

// ---- Adadelta ----
std::vector<std::pair<std::string, double>> AdadeltaOpts::values() const {
  return {TC_OPTIM_VALUE(lr), TC_OPTIM_VALUE(rho), TC_OPTIM_VALUE(eps),
          TC_OPTIM_VALUE(weight_decay), TC_OPTIM_VALUE(maximize)};
}
void AdadeltaOpts::set_value(const std::string& n, double v) {
  TC_OPTIM_SET(lr);
  TC_OPTIM_SET(rho);
  TC_OPTIM_SET(eps);
  TC_OPTIM_SET(weight_decay);
  TC_OPTIM_SET(maximize);
  throw ValueError("Adadelta.load_state_dict: unknown option '" + n + "'");
}

Adadelta::Adadelta(std::vector<OptimizerParamGroup> groups, AdadeltaOpts d)
    : Optimizer({}, std::make_unique<AdadeltaOpts>(d)) {
  check_adadelta_args(d.lr(), d.rho(), d.eps(), d.weight_decay());
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adadelta::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<AdadeltaOpts&>(*g.options);
    auto in = step_inputs(g, {"square_avg", "acc_delta"});
    adadelta_step(in.params, in.state[0], in.state[1], in.steps,
                  AdadeltaOptions{o.lr(), o.rho(), o.eps(), o.weight_decay(), o.maximize()});
  }
}

// ---- Adamax ----
std::vector<std::pair<std::string, double>> AdamaxOpts::values() const {
  return {TC_OPTIM_VALUE(lr),  TC_OPTIM_VALUE(beta1),        TC_OPTIM_VALUE(beta2),
          TC_OPTIM_VALUE(eps), TC_OPTIM_VALUE(weight_decay), TC_OPTIM_VALUE(maximize)};
}
void AdamaxOpts::set_value(const std::string& n, double v) {
  TC_OPTIM_SET(lr);
  TC_OPTIM_SET(beta1);
  TC_OPTIM_SET(beta2);
  TC_OPTIM_SET(eps);
  TC_OPTIM_SET(weight_decay);
  TC_OPTIM_SET(maximize);
  throw ValueError("Adamax.load_state_dict: unknown option '" + n + "'");
}

Adamax::Adamax(std::vector<OptimizerParamGroup> groups, AdamaxOpts d)
    : Optimizer({}, std::make_unique<AdamaxOpts>(d)) {
  check_adam_args(d.lr(), d.beta1(), d.beta2(), d.eps(), d.weight_decay());
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adamax::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<AdamaxOpts&>(*g.options);
    auto in = step_inputs(g, {"exp_avg", "exp_inf"});
    adamax_step(
        in.params, in.state[0], in.state[1], in.steps,
        AdamaxOptions{o.lr(), o.beta1(), o.beta2(), o.eps(), o.weight_decay(), o.maximize()});
  }
}

// ---- NAdam ----
std::vector<std::pair<std::string, double>> NAdamOpts::values() const {
  return {TC_OPTIM_VALUE(lr),  TC_OPTIM_VALUE(beta1),        TC_OPTIM_VALUE(beta2),
          TC_OPTIM_VALUE(eps), TC_OPTIM_VALUE(weight_decay), TC_OPTIM_VALUE(momentum_decay)};
}
void NAdamOpts::set_value(const std::string& n, double v) {
  TC_OPTIM_SET(lr);
  TC_OPTIM_SET(beta1);
  TC_OPTIM_SET(beta2);
  TC_OPTIM_SET(eps);
  TC_OPTIM_SET(weight_decay);
  TC_OPTIM_SET(momentum_decay);
  throw ValueError("NAdam.load_state_dict: unknown option '" + n + "'");
}

NAdam::NAdam(std::vector<OptimizerParamGroup> groups, NAdamOpts d)
    : Optimizer({}, std::make_unique<NAdamOpts>(d)) {
  check_nadam_args(d.lr(), d.beta1(), d.beta2(), d.eps(), d.weight_decay(), d.momentum_decay());
  for (auto& g : groups) add_param_group(std::move(g));
}

void NAdam::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<NAdamOpts&>(*g.options);
    auto in = step_inputs(g, {"exp_avg", "exp_avg_sq"});
    TensorList mu_products;
    for (auto& p : in.params) {
      auto& st = state_of(p);
      if (!st.count("mu_product")) st["mu_product"] = ones({}, DType::Float32);
      mu_products.push_back(st["mu_product"]);
    }
    nadam_step(
        in.params, in.state[0], in.state[1], mu_products, in.steps,
        NadamOptions{o.lr(), o.beta1(), o.beta2(), o.eps(), o.weight_decay(), o.momentum_decay()});
  }
}

// ---- RAdam ----
std::vector<std::pair<std::string, double>> RAdamOpts::values() const {
  return {TC_OPTIM_VALUE(lr), TC_OPTIM_VALUE(beta1), TC_OPTIM_VALUE(beta2), TC_OPTIM_VALUE(eps),
          TC_OPTIM_VALUE(weight_decay)};
}
void RAdamOpts::set_value(const std::string& n, double v) {
  TC_OPTIM_SET(lr);
  TC_OPTIM_SET(beta1);
  TC_OPTIM_SET(beta2);
  TC_OPTIM_SET(eps);
  TC_OPTIM_SET(weight_decay);
  throw ValueError("RAdam.load_state_dict: unknown option '" + n + "'");
}

RAdam::RAdam(std::vector<OptimizerParamGroup> groups, RAdamOpts d)
    : Optimizer({}, std::make_unique<RAdamOpts>(d)) {
  check_adam_args(d.lr(), d.beta1(), d.beta2(), d.eps(), d.weight_decay());
  for (auto& g : groups) add_param_group(std::move(g));
}

void RAdam::step() {
  autograd::NoGradGuard no_grad;
  for (auto& g : groups_) {
    auto& o = static_cast<RAdamOpts&>(*g.options);
    auto in = step_inputs(g, {"exp_avg", "exp_avg_sq"});
    radam_step(in.params, in.state[0], in.state[1], in.steps,
               RadamOptions{o.lr(), o.beta1(), o.beta2(), o.eps(), o.weight_decay()});
  }
}

}  // namespace tc::optim
