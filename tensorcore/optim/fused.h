#pragma once
// Fused optimizer steps: one call updates every parameter of a param group in place (params and
// state tensors), reading each parameter's .grad and skipping those without one. The per-element
// math follows torch.optim's single-tensor implementations. Params, grads and state are float32 or
// float64 tensors of one dtype and on the parameter's device; `steps` holds one 0-d float32 CPU
// step counter per parameter (torch's state['step']), incremented here.
// Two paths, chosen per parameter: when the parameter, its gradient and its state are all CPU
// tensors (and parameter and state contiguous) a fused loop does the update in one pass; otherwise
// (CUDA tensors, strided views) the same formulas run as in-place core tensor ops on the tensors'
// own device (generic_step.h), with the scalars computed on the host from the CPU step counters.
#include <tensorcore/core/tensor.h>

namespace tc::optim {

// Test-only switch: route every parameter through the generic path (to compare it with the fused
// loops on the CPU). Process-wide; off by default.
void set_force_generic(bool on);
bool force_generic();

struct SgdOptions {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
};
// momentum_buffers[i] undefined means "first step": it is created (a copy of the gradient) and
// returned in the result, which has one entry per parameter.
TensorList sgd_step(const TensorList& params, const TensorList& momentum_buffers,
                    const SgdOptions& o);

struct AdamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool amsgrad = false, maximize = false, decoupled_weight_decay = false;  // decoupled = AdamW
};
void adam_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
               const TensorList& max_exp_avg_sqs, const TensorList& steps, const AdamOptions& o);

struct AdagradOptions {
  double lr = 1e-2, lr_decay = 0, weight_decay = 0, eps = 1e-10;
  bool maximize = false;
};
void adagrad_step(const TensorList& params, const TensorList& sums, const TensorList& steps,
                  const AdagradOptions& o);

struct RmspropOptions {
  double lr = 1e-2, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0;
  bool centered = false, maximize = false;
};
void rmsprop_step(const TensorList& params, const TensorList& square_avgs,
                  const TensorList& momentum_buffers, const TensorList& grad_avgs,
                  const TensorList& steps, const RmspropOptions& o);

struct AdadeltaOptions {
  double lr = 1.0, rho = 0.9, eps = 1e-6, weight_decay = 0;
  bool maximize = false;
};
void adadelta_step(const TensorList& params, const TensorList& square_avgs,
                   const TensorList& acc_deltas, const TensorList& steps, const AdadeltaOptions& o);

struct AdamaxOptions {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool maximize = false;
};
void adamax_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_infs,
                 const TensorList& steps, const AdamaxOptions& o);

struct NadamOptions {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, momentum_decay = 4e-3;
};
// mu_products: one 0-d float32 tensor per parameter (torch's state['mu_product']).
void nadam_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
                const TensorList& mu_products, const TensorList& steps, const NadamOptions& o);

struct RadamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
};
void radam_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
                const TensorList& steps, const RadamOptions& o);

}  // namespace tc::optim
