#pragma once
// Device-generic optimizer updates (internal to fused.cpp): the same per-element math as the fused
// CPU loops, written as in-place core tensor ops on one parameter and its state, so they run on any
// device (CUDA) and any layout (non-contiguous). The caller computes every scalar on the host,
// already rounded to the parameter's dtype, so both paths use identical coefficients; the
// operation order follows the fused loops so results agree to rounding.
#include <tensorcore/core/tensor.h>

namespace tc::optim::generic {

// Returns the momentum buffer: `buf` updated in place, or a new one on the first step (undefined
// when momentum is off).
Tensor sgd(const Tensor& p, const Tensor& g, Tensor buf, bool use_momentum, double lr, double wd,
           double mom, double damp, double sign, bool nesterov);

// vmax undefined = no AMSGrad. `decay` multiplies the parameter first (AdamW), `l2` adds l2 * p to
// the gradient (Adam).
void adam(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const Tensor& vmax,
          double decay, double sign, double l2, double one_minus_b1, double b2, double one_minus_b2,
          double step_size, double inv_bc2_sqrt, double eps);

void adagrad(const Tensor& p, const Tensor& g, const Tensor& sum, double clr, double wd, double eps,
             double sign);

// buf undefined = no momentum, grad_avg undefined = not centered.
void rmsprop(const Tensor& p, const Tensor& g, const Tensor& square_avg, const Tensor& buf,
             const Tensor& grad_avg, double lr, double alpha, double one_minus_alpha, double eps,
             double wd, double mom, double sign);

void adadelta(const Tensor& p, const Tensor& g, const Tensor& square_avg, const Tensor& acc_delta,
              double lr, double rho, double one_minus_rho, double eps, double wd, double sign);

void adamax(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& u, double clr,
            double one_minus_b1, double b2, double eps, double wd, double sign);

void nadam(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, double c_grad,
           double c_avg, double inv_bc2, double one_minus_b1, double b2, double one_minus_b2,
           double eps, double wd);

// rectify false: plain momentum step p -= c_plain * m.
void radam(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, bool rectify,
           double c_rect, double c_plain, double one_minus_b1, double b2, double one_minus_b2,
           double eps, double wd);

}  // namespace tc::optim::generic
