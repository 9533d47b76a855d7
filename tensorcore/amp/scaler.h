#pragma once
// tc::amp::GradScaler: dynamic loss scaling for C++ training loops, the same object as Python's
// tc.amp.GradScaler (torch.cuda.amp.GradScaler's rules and messages) over tc::optim optimizers.
//
//   tc::amp::GradScaler scaler;
//   { tc::amp::AutocastMode region(tc::DeviceType::CPU); loss = criterion(model->forward(x), y); }
//   scaler.scale(loss).backward();
//   scaler.step(opt);     // skipped when a gradient holds inf/nan
//   scaler.update();
//
// Works for tensors on any device; the scale lives where the first scaled output lives.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/optim/optimizer.h"

namespace tc::amp {

struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  // output * scale (output itself when disabled).
  Tensor scale(const Tensor& output);
  TensorList scale(const TensorList& outputs);
  // Divides the optimizer's gradients by the scale in place; once per optimizer per iteration.
  void unscale_(optim::Optimizer& opt);
  // Unscales if needed, then opt.step() unless a gradient holds inf/nan. Returns whether it
  // stepped.
  bool step(optim::Optimizer& opt);
  // Backoff / growth from this iteration's inf checks, or the given scale.
  void update(std::optional<double> new_scale = {});

  double get_scale() const;
  int64_t get_growth_tracker() const;
  bool is_enabled() const { return options_.enabled; }
  const GradScalerOptions& options() const { return options_; }
  // torch's keys: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker (empty
  // when disabled).
  std::vector<std::pair<std::string, double>> state_dict() const;
  void load_state_dict(const std::vector<std::pair<std::string, double>>& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct OptState {
    Stage stage = Stage::Ready;
    std::map<std::string, Tensor> found_inf_per_device;
  };

  void check_initialized(const char* fn) const;
  void lazy_init(Device device);
  std::map<std::string, Tensor> unscale_grads(optim::Optimizer& opt, const Tensor& inv_scale,
                                              const Tensor& found_inf);

  GradScalerOptions options_;
  Tensor scale_, growth_tracker_;  // undefined until the first scale()
  int64_t init_growth_tracker_ = 0;
  std::map<const optim::Optimizer*, OptState> states_;
};

}  // namespace tc::amp
