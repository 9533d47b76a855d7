#pragma once
// Thread-local autograd switches: no_grad / enable_grad / inference_mode.

namespace tc::autograd {

bool grad_enabled();
void set_grad_enabled(bool enabled);
bool inference_mode_enabled();
void set_inference_mode(bool enabled);

struct GradModeGuard {
  explicit GradModeGuard(bool enabled) : prev_(grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};
struct NoGradGuard : GradModeGuard {
  NoGradGuard() : GradModeGuard(false) {}
};
struct InferenceModeGuard {
  explicit InferenceModeGuard(bool enabled = true)
      : prev_grad_(grad_enabled()), prev_inf_(inference_mode_enabled()) {
    set_inference_mode(enabled);
    if (enabled) set_grad_enabled(false);
  }
  ~InferenceModeGuard() {
    set_inference_mode(prev_inf_);
    set_grad_enabled(prev_grad_);
  }
  InferenceModeGuard(const InferenceModeGuard&) = delete;
  InferenceModeGuard& operator=(const InferenceModeGuard&) = delete;

 private:
  bool prev_grad_, prev_inf_;
};

}  // namespace tc::autograd
