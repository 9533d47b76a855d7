// tc::amp::GradScaler (see scaler.h): torch 1.13's GradScaler over tc::optim optimizers.
#include "tensorcore/amp/scaler.h"

#include "tensorcore/amp/grad_scaler.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"

namespace tc::amp {

GradScaler::GradScaler(GradScalerOptions options) : options_(options) {
  if (!options_.enabled) return;
  TC_CHECK(options_.growth_factor > 1.0, "GradScaler: the growth factor must be > 1.0, got ",
           options_.growth_factor);
  TC_CHECK(options_.backoff_factor > 0.0 && options_.backoff_factor < 1.0,
           "GradScaler: the backoff factor must be in (0, 1), got ", options_.backoff_factor);
  TC_CHECK(options_.growth_interval > 0, "GradScaler: growth_interval must be positive, got ",
           options_.growth_interval);
}

void GradScaler::check_initialized(const char* fn) const {
  TC_CHECK(scale_.defined() && growth_tracker_.defined(), "GradScaler: attempted ", fn,
           " but the scale is not initialized. This may indicate your script did not use "
           "scaler.scale(loss or outputs) earlier in the iteration.");
}

void GradScaler::lazy_init(Device device) {
  scale_ = full({1}, options_.init_scale, TensorOptions(DType::Float32).device(device));
  growth_tracker_ = full({1}, init_growth_tracker_, TensorOptions(DType::Int32).device(device));
}

Tensor GradScaler::scale(const Tensor& output) {
  if (!options_.enabled) return output;
  TC_CHECK(output.defined(), "GradScaler.scale: output must be a tensor");
  if (!scale_.defined()) lazy_init(output.device());
  return mul(output, to_device(scale_, output.device()));
}

TensorList GradScaler::scale(const TensorList& outputs) {
  TensorList out;
  out.reserve(outputs.size());
  for (const Tensor& t : outputs) out.push_back(scale(t));
  return out;
}

std::map<std::string, Tensor> GradScaler::unscale_grads(optim::Optimizer& opt,
                                                        const Tensor& inv_scale,
                                                        const Tensor& found_inf) {
  autograd::NoGradGuard no_grad;
  // Grads grouped by device and dtype: one native call per group; one found_inf per device.
  std::map<std::pair<std::string, int>, TensorList> groups;
  std::map<std::string, Device> devices;
  for (auto& group : opt.param_groups()) {
    for (const Tensor& p : group.params) {
      Tensor g = p.grad();
      if (!g.defined()) continue;
      TC_CHECK(g.dtype() != DType::Float16, "Attempting to unscale FP16 gradients.");
      std::string dev = g.device().str();
      devices.emplace(dev, g.device());
      groups[{dev, int(g.dtype())}].push_back(g);
    }
  }
  std::map<std::string, Tensor> found_per_device, inv_per_device;
  for (auto& [dev, device] : devices) {
    found_per_device[dev] = to_device(found_inf, device);
    inv_per_device[dev] = to_device(inv_scale, device);
  }
  for (auto& [key, grads] : groups)
    foreach_non_finite_check_and_unscale_(grads, found_per_device[key.first],
                                          inv_per_device[key.first]);
  return found_per_device;
}

void GradScaler::unscale_(optim::Optimizer& opt) {
  if (!options_.enabled) return;
  check_initialized("unscale_");
  OptState& state = states_[&opt];
  TC_CHECK(state.stage != Stage::Unscaled,
           "unscale_() has already been called on this optimizer since the last update().");
  TC_CHECK(state.stage != Stage::Stepped, "unscale_() is being called after step().");
  // 1/scale in double, as torch, so powers of two stay exact.
  Tensor inv_scale = to_dtype(reciprocal(to_dtype(scale_, DType::Float64)), DType::Float32);
  Tensor found_inf = zeros({1}, TensorOptions(DType::Float32).device(scale_.device()));
  state.found_inf_per_device = unscale_grads(opt, inv_scale, found_inf);
  state.stage = Stage::Unscaled;
}

bool GradScaler::step(optim::Optimizer& opt) {
  if (!options_.enabled) {
    opt.step();
    return true;
  }
  check_initialized("step");
  OptState& state = states_[&opt];
  TC_CHECK(state.stage != Stage::Stepped,
           "step() has already been called since the last update().");
  if (state.stage == Stage::Ready) unscale_(opt);
  TC_CHECK(!state.found_inf_per_device.empty(), "No inf checks were recorded for this optimizer.");
  double found = 0;
  for (auto& [dev, f] : state.found_inf_per_device) found += f.item<double>();
  state.stage = Stage::Stepped;
  if (found != 0) return false;
  opt.step();
  return true;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!options_.enabled) return;
  check_initialized("update");
  if (new_scale) {
    fill_(scale_, *new_scale);
  } else {
    Tensor combined;
    for (auto& [opt, state] : states_)
      for (auto& [dev, f] : state.found_inf_per_device) {
        Tensor here = to_device(f, scale_.device());
        combined = combined.defined() ? add(combined, here) : here;
      }
    TC_CHECK(combined.defined(), "No inf checks were recorded prior to update.");
    update_scale_(scale_, growth_tracker_, combined, options_.growth_factor,
                  options_.backoff_factor, options_.growth_interval);
  }
  states_.clear();
}

double GradScaler::get_scale() const {
  if (!options_.enabled) return 1.0;
  return scale_.defined() ? scale_.item<double>() : options_.init_scale;
}

int64_t GradScaler::get_growth_tracker() const {
  if (!options_.enabled) return 0;
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : init_growth_tracker_;
}

std::vector<std::pair<std::string, double>> GradScaler::state_dict() const {
  if (!options_.enabled) return {};
  return {{"scale", get_scale()},
          {"growth_factor", options_.growth_factor},
          {"backoff_factor", options_.backoff_factor},
          {"growth_interval", double(options_.growth_interval)},
          {"_growth_tracker", double(get_growth_tracker())}};
}

void GradScaler::load_state_dict(const std::vector<std::pair<std::string, double>>& state) {
  if (!options_.enabled) return;
  TC_CHECK(!state.empty(),
           "The source state dict is empty, possibly because it was saved from a "
           "disabled instance of GradScaler.");
  std::map<std::string, double> m(state.begin(), state.end());
  for (const char* key :
       {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"})
    TC_CHECK(m.count(key), "GradScaler.load_state_dict: missing key '", key, "'");
  options_.init_scale = m["scale"];
  options_.growth_factor = m["growth_factor"];
  options_.backoff_factor = m["backoff_factor"];
  options_.growth_interval = int64_t(m["growth_interval"]);
  init_growth_tracker_ = int64_t(m["_growth_tracker"]);
  if (scale_.defined()) fill_(scale_, options_.init_scale);
  if (growth_tracker_.defined()) fill_(growth_tracker_, init_growth_tracker_);
}

}  // namespace tc::amp
