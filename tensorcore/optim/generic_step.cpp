// Device-generic optimizer updates (see generic_step.h). Each comment gives the fused loop's
// expression that the ops below reproduce, in the same evaluation order.
#include "tensorcore/optim/generic_step.h"

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/elementwise.h"

namespace tc::optim::generic {
namespace {

// sign * g + wd * p, as a new tensor.
Tensor grad_term(const Tensor& g, const Tensor& p, double sign, double wd) {
  Tensor d = mul(g, Scalar(sign));
  if (wd != 0) add_(d, p, Scalar(wd));
  return d;
}

// s = a * s + ((1 - a) * x) * x
void ema_square(Tensor s, const Tensor& x, double a, double one_minus_a) {
  mul_(s, Scalar(a));
  Tensor t = mul(x, Scalar(one_minus_a));
  mul_(t, x);
  add_(s, t);
}

// m = m + (x - m) * (1 - b1)
void ema(Tensor m, const Tensor& x, double one_minus_b1) {
  add_(m, sub(x, m), Scalar(one_minus_b1));
}

// The Adam family's moments (fused.cpp's update_moments): m = ema of gj, v = ema of gj^2.
void update_moments(const Tensor& m, const Tensor& v, const Tensor& gj, double one_minus_b1,
                    double b2, double one_minus_b2) {
  ema(m, gj, one_minus_b1);
  ema_square(v, gj, b2, one_minus_b2);
}

// p -= (c * num) / denom
void sub_scaled_ratio(Tensor p, const Tensor& num, double c, const Tensor& denom) {
  Tensor t = mul(num, Scalar(c));
  div_(t, denom);
  sub_(p, t);
}

}  // namespace

Tensor sgd(const Tensor& param, const Tensor& g, Tensor buf, bool use_momentum, double lr,
           double wd, double mom, double damp, double sign, bool nesterov) {
  autograd::NoGradGuard no_grad;
  Tensor p = param;
  Tensor d = grad_term(g, p, sign, wd);
  if (!use_momentum) {
    sub_(p, d, Scalar(lr));  // p -= lr * d
    return buf;
  }
  if (!buf.defined()) {
    // First step: buf = d; p -= lr * (nesterov ? d + mom * d : d)
    buf = contiguous(d);
    sub_(p, nesterov ? add(d, d, Scalar(mom)) : d, Scalar(lr));
    return buf;
  }
  // buf = mom * buf + damp * d
  mul_(buf, Scalar(mom));
  add_(buf, d, Scalar(damp));
  // p -= lr * (nesterov ? d + mom * buf : buf)
  sub_(p, nesterov ? add(d, buf, Scalar(mom)) : buf, Scalar(lr));
  return buf;
}

void adam(const Tensor& param, const Tensor& g, const Tensor& m, const Tensor& v,
          const Tensor& vmax, double decay, double sign, double l2, double one_minus_b1, double b2,
          double one_minus_b2, double step_size, double inv_bc2_sqrt, double eps) {
  autograd::NoGradGuard no_grad;
  Tensor p = param;
  Tensor gj = grad_term(g, p, sign, l2);  // uses p before the decoupled decay
  if (decay != 1) mul_(p, Scalar(decay));
  update_moments(m, v, gj, one_minus_b1, b2, one_minus_b2);
  Tensor vhat = v;
  if (vmax.defined()) {
    Tensor vm = vmax;
    maximum_(vm, v);
    vhat = vm;
  }
  // p -= (step_size * m) / (sqrt(vhat) * inv_bc2_sqrt + eps)
  Tensor denom = sqrt(vhat);
  mul_(denom, Scalar(inv_bc2_sqrt));
  add_(denom, Scalar(eps));
  sub_scaled_ratio(p, m, step_size, denom);
}

void adagrad(const Tensor& param, const Tensor& g, const Tensor& sum, double clr, double wd,
             double eps, double sign) {
  autograd::NoGradGuard no_grad;
  Tensor p = param, s = sum;
  Tensor gj = grad_term(g, p, sign, wd);
  add_(s, mul(gj, gj));  // s += gj * gj
  // p -= (clr * gj) / (sqrt(s) + eps)
  Tensor denom = sqrt(s);
  add_(denom, Scalar(eps));
  sub_scaled_ratio(p, gj, clr, denom);
}

void rmsprop(const Tensor& param, const Tensor& g, const Tensor& square_avg, const Tensor& buf,
             const Tensor& grad_avg, double lr, double alpha, double one_minus_alpha, double eps,
             double wd, double mom, double sign) {
  autograd::NoGradGuard no_grad;
  Tensor p = param;
  Tensor gj = grad_term(g, p, sign, wd);
  ema_square(square_avg, gj, alpha, one_minus_alpha);
  // avg = sqrt(sq - ga * ga) + eps (centered) or sqrt(sq) + eps
  Tensor avg;
  if (grad_avg.defined()) {
    ema(grad_avg, gj, one_minus_alpha);
    avg = sub(square_avg, mul(grad_avg, grad_avg));
    sqrt_(avg);
  } else {
    avg = sqrt(square_avg);
  }
  add_(avg, Scalar(eps));
  if (buf.defined()) {
    // buf = mom * buf + gj / avg; p -= lr * buf
    Tensor b = buf;
    mul_(b, Scalar(mom));
    add_(b, div(gj, avg));
    sub_(p, b, Scalar(lr));
  } else {
    sub_scaled_ratio(p, gj, lr, avg);  // p -= (lr * gj) / avg
  }
}

void adadelta(const Tensor& param, const Tensor& g, const Tensor& square_avg,
              const Tensor& acc_delta, double lr, double rho, double one_minus_rho, double eps,
              double wd, double sign) {
  autograd::NoGradGuard no_grad;
  Tensor p = param;
  Tensor gj = grad_term(g, p, sign, wd);
  ema_square(square_avg, gj, rho, one_minus_rho);
  // delta = sqrt(acc + eps) / sqrt(sq + eps) * gj
  Tensor delta = sqrt(add(acc_delta, Scalar(eps)));
  div_(delta, sqrt(add(square_avg, Scalar(eps))));
  mul_(delta, gj);
  ema_square(acc_delta, delta, rho, one_minus_rho);
  sub_(p, delta, Scalar(lr));  // p -= lr * delta
}

void adamax(const Tensor& param, const Tensor& g, const Tensor& m, const Tensor& u, double clr,
            double one_minus_b1, double b2, double eps, double wd, double sign) {
  autograd::NoGradGuard no_grad;
  Tensor p = param, un = u;
  Tensor gj = grad_term(g, p, sign, wd);
  ema(m, gj, one_minus_b1);
  // u = max(b2 * u, |gj| + eps)
  mul_(un, Scalar(b2));
  Tensor c = abs(gj);
  add_(c, Scalar(eps));
  maximum_(un, c);
  sub_scaled_ratio(p, m, clr, un);  // p -= (clr * m) / u
}

void nadam(const Tensor& param, const Tensor& g, const Tensor& m, const Tensor& v, double c_grad,
           double c_avg, double inv_bc2, double one_minus_b1, double b2, double one_minus_b2,
           double eps, double wd) {
  autograd::NoGradGuard no_grad;
  Tensor p = param;
  Tensor gj = grad_term(g, p, 1.0, wd);
  update_moments(m, v, gj, one_minus_b1, b2, one_minus_b2);
  // p -= (c_grad * gj) / denom + (c_avg * m) / denom, denom = sqrt(v * inv_bc2) + eps
  Tensor denom = mul(v, Scalar(inv_bc2));
  sqrt_(denom);
  add_(denom, Scalar(eps));
  Tensor upd = mul(gj, Scalar(c_grad));
  div_(upd, denom);
  Tensor t = mul(m, Scalar(c_avg));
  div_(t, denom);
  add_(upd, t);
  sub_(p, upd);
}

void radam(const Tensor& param, const Tensor& g, const Tensor& m, const Tensor& v, bool rectify,
           double c_rect, double c_plain, double one_minus_b1, double b2, double one_minus_b2,
           double eps, double wd) {
  autograd::NoGradGuard no_grad;
  Tensor p = param;
  Tensor gj = grad_term(g, p, 1.0, wd);
  update_moments(m, v, gj, one_minus_b1, b2, one_minus_b2);
  if (rectify) {
    // p -= (c_rect * m) / (sqrt(v) + eps)
    Tensor denom = sqrt(v);
    add_(denom, Scalar(eps));
    sub_scaled_ratio(p, m, c_rect, denom);
  } else {
    sub_(p, m, Scalar(c_plain));  // p -= c_plain * m
  }
}

}  // namespace tc::optim::generic
