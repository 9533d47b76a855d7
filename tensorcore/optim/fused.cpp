// Fused optimizer steps (see fused.h). Each parameter's update is one pass over its elements with
// every state tensor read and written once, split over threads for large tensors.
#include "tensorcore/optim/fused.h"

#include <atomic>
#include <cmath>

#include "tensorcore/core/error.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/optim/generic_step.h"

namespace tc::optim {
namespace {

std::atomic<bool> g_force_generic{false};

void check_state(const char* op, size_t i, const Tensor& p, const TensorList& list,
                 const char* name) {
  TC_CHECK(list.size() > i, op, ": expected one ", name, " tensor per parameter, got ", list.size(),
           " for ", "parameter index ", i);
  const Tensor& s = list[i];
  TC_CHECK(s.defined(), op, ": ", name, " state of parameter ", i, " is missing");
  TC_CHECK(s.sizes() == p.sizes(), op, ": ", name, " state of parameter ", i,
           " has a different shape from the parameter (was the state loaded for another model?)");
  TC_CHECK_TYPE(s.dtype() == p.dtype(), op, ": ", name, " state of parameter ", i, " has dtype ",
                dtype_name(s.dtype()), " but the parameter has ", dtype_name(p.dtype()));
  TC_CHECK(s.device() == p.device(), op, ": ", name, " state of parameter ", i, " is on ",
           s.device().str(), " but the parameter is on ", p.device().str(),
           " (move the optimizer state with the model)");
}

// The fused loops need contiguous CPU tensors; anything else (CUDA, strided views) takes the
// generic path, per parameter.
bool fusable(const Tensor& t) { return !t.defined() || (t.is_cpu() && t.is_contiguous()); }
bool fusable(std::initializer_list<Tensor> ts) {
  for (auto& t : ts)
    if (!fusable(t)) return false;
  return true;
}

float& step_of(const char* op, const TensorList& steps, size_t i) {
  TC_CHECK(steps.size() > i && steps[i].defined() && steps[i].dtype() == DType::Float32 &&
               steps[i].numel() == 1,
           op, ": expected a float32 step counter for parameter ", i);
  // Counters stay on the host even for CUDA parameters, so the step's scalars need no sync.
  TC_CHECK(steps[i].is_cpu(), op, ": the step counter of parameter ", i,
           " must be a CPU tensor, got one on ", steps[i].device().str());
  return *steps[i].data<float>();
}

// Calls fn(i, param, grad, T{}, generic) for each parameter that has a gradient, after checking it,
// and bumps the version counter of the parameter (state tensors share nothing with autograd).
// `generic` says the parameter or its gradient cannot go through the fused CPU loops.
template <typename Fn>
void each_param(const char* op, const TensorList& params, Fn&& fn) {
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    TC_CHECK_TYPE(p.dtype() == DType::Float32 || p.dtype() == DType::Float64, op,
                  ": fused step supports float32 and float64 parameters, parameter ", i,
                  " has dtype ", dtype_name(p.dtype()));
    TC_CHECK(g.sizes() == p.sizes(), op, ": gradient of parameter ", i,
             " has a different shape from the parameter");
    TC_CHECK_TYPE(g.dtype() == p.dtype(), op, ": gradient of parameter ", i, " has dtype ",
                  dtype_name(g.dtype()), " but the parameter has ", dtype_name(p.dtype()));
    TC_CHECK(g.device() == p.device(), op, ": gradient of parameter ", i, " is on ",
             g.device().str(), " but the parameter is on ", p.device().str());
    const bool generic =
        g_force_generic.load(std::memory_order_relaxed) || !fusable(p) || !g.is_cpu();
    if (!generic && !g.is_contiguous()) g = contiguous(g);
    if (p.dtype() == DType::Float32)
      fn(i, p, g, float{}, generic);
    else
      fn(i, p, g, double{}, generic);
    p.bump_version();
  }
}

template <typename Body>
void elems(int64_t n, Body&& body) {
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) { body(b, e); });
}

// Adam-family moment update of one element (torch's lerp form for the first moment), shared by
// Adam, AMSGrad, NAdam and RAdam; inlined into each loop, so it vectorizes there.
template <typename T>
[[gnu::always_inline]] inline void update_moments(T gj, T& m, T& v, T b1, T b2) {
  m = m + (gj - m) * (T(1) - b1);
  v = b2 * v + (T(1) - b2) * gj * gj;
}

// The element loop NAdam and RAdam share: L2 weight decay, the moment update, then
// `step(p, g, m, v)` returns the parameter's decrement.
template <typename T, typename Step>
void moments_loop(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                  T b1, T b2, T wd, Step step) {
  T* pd = p.data<T>();
  const T* gd = g.data<T>();
  T* m = exp_avg.template data<T>();
  T* v = exp_avg_sq.template data<T>();
  elems(p.numel(), [=](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      const T gj = gd[j] + wd * pd[j];
      T mj = m[j], vj = v[j];
      update_moments(gj, mj, vj, b1, b2);
      m[j] = mj;
      v[j] = vj;
      pd[j] -= step(gj, mj, vj);
    }
  });
}

// AMSGrad's Adam loop as a function of its own: GCC vectorizes it with restrict parameters, but
// not inside the capturing lambda.
template <typename T>
void adam_amsgrad_loop(int64_t b, int64_t e, T* __restrict pd, const T* __restrict gd,
                       T* __restrict m, T* __restrict v, T* __restrict vmax, T decay, T sign, T l2,
                       T b1, T b2, T step_size, T inv_bc2_sqrt, T eps) {
  for (int64_t j = b; j < e; ++j) {
    const T pj = pd[j] * decay;
    const T gj = sign * gd[j] + l2 * pd[j];
    T mj = m[j], vj = v[j];
    update_moments(gj, mj, vj, b1, b2);
    const T vmj = vmax[j] > vj ? vmax[j] : vj;
    m[j] = mj;
    v[j] = vj;
    vmax[j] = vmj;
    pd[j] = pj - step_size * mj / (std::sqrt(vmj) * inv_bc2_sqrt + eps);
  }
}

// RMSprop's loop, one branch-free instantiation per (centered, momentum) case. A function of its
// own with restrict parameters: inside the capturing lambda GCC left the centered-momentum case
// scalar (7x slower). c = {sign, weight_decay, alpha, eps, momentum, lr}.
template <typename T, bool centered, bool momentum>
void rmsprop_loop(int64_t b, int64_t e, T* __restrict P, const T* __restrict G, T* __restrict S,
                  T* __restrict B, T* __restrict A, const T* c) {
  const T sign = c[0], wd = c[1], alpha = c[2], eps = c[3], mom = c[4], lr = c[5];
  for (int64_t j = b; j < e; ++j) {
    const T gj = sign * G[j] + wd * P[j];
    const T sj = alpha * S[j] + (T(1) - alpha) * gj * gj;
    S[j] = sj;
    T avg;
    if constexpr (centered) {
      const T gaj = A[j] + (gj - A[j]) * (T(1) - alpha);
      A[j] = gaj;
      avg = std::sqrt(sj - gaj * gaj) + eps;
    } else {
      avg = std::sqrt(sj) + eps;
    }
    if constexpr (momentum) {
      const T bj = mom * B[j] + gj / avg;
      B[j] = bj;
      P[j] -= lr * bj;
    } else {
      P[j] -= lr * gj / avg;
    }
  }
}

}  // namespace

void set_force_generic(bool on) { g_force_generic.store(on, std::memory_order_relaxed); }
bool force_generic() { return g_force_generic.load(std::memory_order_relaxed); }

TensorList sgd_step(const TensorList& params, const TensorList& bufs, const SgdOptions& o) {
  TensorList out(params.size());
  for (size_t i = 0; i < params.size() && i < bufs.size(); ++i) out[i] = bufs[i];
  const char* op = "SGD.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    const T lr = T(o.lr), wd = T(o.weight_decay), mom = T(o.momentum), damp = T(1 - o.dampening);
    const T sign = o.maximize ? T(-1) : T(1);
    if (o.momentum != 0 && out[i].defined()) check_state(op, i, p, out, "momentum_buffer");
    if (generic || !fusable(out[i])) {
      out[i] = generic::sgd(p, g, out[i], o.momentum != 0, lr, wd, mom, damp, sign, o.nesterov);
      return;
    }
    T* pd = p.data<T>();
    const T* gd = g.data<T>();
    bool first = false;
    T* bd = nullptr;
    if (o.momentum != 0) {
      if (!out[i].defined()) {
        out[i] = empty_like(p);
        first = true;
      }
      bd = out[i].data<T>();
    }
    const bool nesterov = o.nesterov;
    // Separate loops per case so each one is branch-free and vectorizes.
    elems(p.numel(), [=](int64_t b, int64_t e) {
      if (!bd) {
        for (int64_t j = b; j < e; ++j) pd[j] -= lr * (sign * gd[j] + wd * pd[j]);
      } else if (first) {
        for (int64_t j = b; j < e; ++j) {
          const T d = sign * gd[j] + wd * pd[j];
          bd[j] = d;
          pd[j] -= lr * (nesterov ? d + mom * d : d);
        }
      } else if (nesterov) {
        for (int64_t j = b; j < e; ++j) {
          const T d = sign * gd[j] + wd * pd[j];
          const T buf = mom * bd[j] + damp * d;
          bd[j] = buf;
          pd[j] -= lr * (d + mom * buf);
        }
      } else {
        for (int64_t j = b; j < e; ++j) {
          const T d = sign * gd[j] + wd * pd[j];
          const T buf = mom * bd[j] + damp * d;
          bd[j] = buf;
          pd[j] -= lr * buf;
        }
      }
    });
  });
  return out;
}

void adam_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
               const TensorList& max_exp_avg_sqs, const TensorList& steps, const AdamOptions& o) {
  const char* op = o.decoupled_weight_decay ? "AdamW.step" : "Adam.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, exp_avgs, "exp_avg");
    check_state(op, i, p, exp_avg_sqs, "exp_avg_sq");
    if (o.amsgrad) check_state(op, i, p, max_exp_avg_sqs, "max_exp_avg_sq");
    float& step = step_of(op, steps, i);
    step += 1;
    const double bc1 = 1 - std::pow(o.beta1, double(step));
    const double bc2 = 1 - std::pow(o.beta2, double(step));
    const T step_size = T(o.lr / bc1), inv_bc2_sqrt = T(1 / std::sqrt(bc2)), eps = T(o.eps);
    const T b1 = T(o.beta1), b2 = T(o.beta2), sign = o.maximize ? T(-1) : T(1);
    const T l2 = o.decoupled_weight_decay ? T(0) : T(o.weight_decay);
    const T decay = o.decoupled_weight_decay ? T(1 - o.lr * o.weight_decay) : T(1);
    const Tensor vmax_state = o.amsgrad ? max_exp_avg_sqs[i] : Tensor();
    if (generic || !fusable({exp_avgs[i], exp_avg_sqs[i], vmax_state})) {
      generic::adam(p, g, exp_avgs[i], exp_avg_sqs[i], vmax_state, decay, sign, l2, T(1) - b1, b2,
                    T(1) - b2, step_size, inv_bc2_sqrt, eps);
      return;
    }
    T* pd = p.data<T>();
    const T* gd = g.data<T>();
    T* m = exp_avgs[i].template data<T>();
    T* v = exp_avg_sqs[i].template data<T>();
    T* vmax = o.amsgrad ? max_exp_avg_sqs[i].template data<T>() : nullptr;
    elems(p.numel(), [=](int64_t b, int64_t e) {
      if (vmax) {
        adam_amsgrad_loop<T>(b, e, pd, gd, m, v, vmax, decay, sign, l2, b1, b2, step_size,
                             inv_bc2_sqrt, eps);
      } else {
        for (int64_t j = b; j < e; ++j) {
          const T pj = pd[j] * decay;
          const T gj = sign * gd[j] + l2 * pd[j];
          T mj = m[j], vj = v[j];
          update_moments(gj, mj, vj, b1, b2);
          m[j] = mj;
          v[j] = vj;
          pd[j] = pj - step_size * mj / (std::sqrt(vj) * inv_bc2_sqrt + eps);
        }
      }
    });
  });
}

void adagrad_step(const TensorList& params, const TensorList& sums, const TensorList& steps,
                  const AdagradOptions& o) {
  const char* op = "Adagrad.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, sums, "sum");
    float& step = step_of(op, steps, i);
    step += 1;
    const T clr = T(o.lr / (1 + (double(step) - 1) * o.lr_decay));
    const T wd = T(o.weight_decay), eps = T(o.eps), sign = o.maximize ? T(-1) : T(1);
    if (generic || !fusable(sums[i])) {
      generic::adagrad(p, g, sums[i], clr, wd, eps, sign);
      return;
    }
    T* pd = p.data<T>();
    const T* gd = g.data<T>();
    T* s = sums[i].template data<T>();
    elems(p.numel(), [=](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const T gj = sign * gd[j] + wd * pd[j];
        const T sj = s[j] + gj * gj;
        s[j] = sj;
        pd[j] -= clr * gj / (std::sqrt(sj) + eps);
      }
    });
  });
}

void rmsprop_step(const TensorList& params, const TensorList& square_avgs,
                  const TensorList& momentum_buffers, const TensorList& grad_avgs,
                  const TensorList& steps, const RmspropOptions& o) {
  const char* op = "RMSprop.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, square_avgs, "square_avg");
    if (o.momentum > 0) check_state(op, i, p, momentum_buffers, "momentum_buffer");
    if (o.centered) check_state(op, i, p, grad_avgs, "grad_avg");
    step_of(op, steps, i) += 1;
    const T lr = T(o.lr), alpha = T(o.alpha), eps = T(o.eps), wd = T(o.weight_decay),
            mom = T(o.momentum);
    const T sign = o.maximize ? T(-1) : T(1);
    const Tensor buf_state = o.momentum > 0 ? momentum_buffers[i] : Tensor();
    const Tensor avg_state = o.centered ? grad_avgs[i] : Tensor();
    if (generic || !fusable({square_avgs[i], buf_state, avg_state})) {
      generic::rmsprop(p, g, square_avgs[i], buf_state, avg_state, lr, alpha, T(1) - alpha, eps, wd,
                       mom, sign);
      return;
    }
    T* pd = p.data<T>();
    const T* gd = g.data<T>();
    T* sq = square_avgs[i].template data<T>();
    T* buf = o.momentum > 0 ? momentum_buffers[i].template data<T>() : nullptr;
    T* ga = o.centered ? grad_avgs[i].template data<T>() : nullptr;
    const T c[] = {sign, wd, alpha, eps, mom, lr};
    auto run = [&](auto loop) {
      elems(p.numel(), [=](int64_t b, int64_t e) { loop(b, e, pd, gd, sq, buf, ga, c); });
    };
    if (ga && buf)
      run(rmsprop_loop<T, true, true>);
    else if (ga)
      run(rmsprop_loop<T, true, false>);
    else if (buf)
      run(rmsprop_loop<T, false, true>);
    else
      run(rmsprop_loop<T, false, false>);
  });
}

void adadelta_step(const TensorList& params, const TensorList& square_avgs,
                   const TensorList& acc_deltas, const TensorList& steps,
                   const AdadeltaOptions& o) {
  const char* op = "Adadelta.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, square_avgs, "square_avg");
    check_state(op, i, p, acc_deltas, "acc_delta");
    step_of(op, steps, i) += 1;
    const T lr = T(o.lr), rho = T(o.rho), eps = T(o.eps), wd = T(o.weight_decay);
    const T sign = o.maximize ? T(-1) : T(1);
    if (generic || !fusable({square_avgs[i], acc_deltas[i]})) {
      generic::adadelta(p, g, square_avgs[i], acc_deltas[i], lr, rho, T(1) - rho, eps, wd, sign);
      return;
    }
    T* pd = p.data<T>();
    const T* gd = g.data<T>();
    T* sq = square_avgs[i].template data<T>();
    T* acc = acc_deltas[i].template data<T>();
    elems(p.numel(), [=](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const T gj = sign * gd[j] + wd * pd[j];
        const T sj = rho * sq[j] + (T(1) - rho) * gj * gj;
        sq[j] = sj;
        const T delta = std::sqrt(acc[j] + eps) / std::sqrt(sj + eps) * gj;
        acc[j] = rho * acc[j] + (T(1) - rho) * delta * delta;
        pd[j] -= lr * delta;
      }
    });
  });
}

void adamax_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_infs,
                 const TensorList& steps, const AdamaxOptions& o) {
  const char* op = "Adamax.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, exp_avgs, "exp_avg");
    check_state(op, i, p, exp_infs, "exp_inf");
    float& step = step_of(op, steps, i);
    step += 1;
    const T clr = T(o.lr / (1 - std::pow(o.beta1, double(step))));
    const T b1 = T(o.beta1), b2 = T(o.beta2), eps = T(o.eps), wd = T(o.weight_decay);
    const T sign = o.maximize ? T(-1) : T(1);
    if (generic || !fusable({exp_avgs[i], exp_infs[i]})) {
      generic::adamax(p, g, exp_avgs[i], exp_infs[i], clr, T(1) - b1, b2, eps, wd, sign);
      return;
    }
    T* pd = p.data<T>();
    const T* gd = g.data<T>();
    T* m = exp_avgs[i].template data<T>();
    T* u = exp_infs[i].template data<T>();
    elems(p.numel(), [=](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const T gj = sign * gd[j] + wd * pd[j];
        const T mj = m[j] + (gj - m[j]) * (T(1) - b1);
        const T a = b2 * u[j], c = std::abs(gj) + eps;
        const T uj = a > c ? a : c;
        m[j] = mj;
        u[j] = uj;
        pd[j] -= clr * mj / uj;
      }
    });
  });
}

void nadam_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
                const TensorList& mu_products, const TensorList& steps, const NadamOptions& o) {
  const char* op = "NAdam.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, exp_avgs, "exp_avg");
    check_state(op, i, p, exp_avg_sqs, "exp_avg_sq");
    float& step = step_of(op, steps, i);
    step += 1;
    TC_CHECK(mu_products.size() > i && mu_products[i].defined() &&
                 mu_products[i].dtype() == DType::Float32 && mu_products[i].numel() == 1 &&
                 mu_products[i].is_cpu(),
             op, ": expected a float32 CPU mu_product for parameter ", i);
    float& mu_product = *mu_products[i].data<float>();
    const double t = step;
    const double bc2 = 1 - std::pow(o.beta2, t);
    const double mu = o.beta1 * (1 - 0.5 * std::pow(0.96, t * o.momentum_decay));
    const double mu_next = o.beta1 * (1 - 0.5 * std::pow(0.96, (t + 1) * o.momentum_decay));
    mu_product = float(double(mu_product) * mu);
    const double mu_product_next = double(mu_product) * mu_next;
    const T c_grad = T(o.lr * (1 - mu) / (1 - double(mu_product)));
    const T c_avg = T(o.lr * mu_next / (1 - mu_product_next));
    const T inv_bc2 = T(1 / bc2), b1 = T(o.beta1), b2 = T(o.beta2), eps = T(o.eps),
            wd = T(o.weight_decay);
    if (generic || !fusable({exp_avgs[i], exp_avg_sqs[i]})) {
      generic::nadam(p, g, exp_avgs[i], exp_avg_sqs[i], c_grad, c_avg, inv_bc2, T(1) - b1, b2,
                     T(1) - b2, eps, wd);
      return;
    }
    moments_loop(p, g, exp_avgs[i], exp_avg_sqs[i], b1, b2, wd, [=](T gj, T mj, T vj) {
      const T denom = std::sqrt(vj * inv_bc2) + eps;
      return c_grad * gj / denom + c_avg * mj / denom;
    });
  });
}

void radam_step(const TensorList& params, const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
                const TensorList& steps, const RadamOptions& o) {
  const char* op = "RAdam.step";
  each_param(op, params, [&](size_t i, const Tensor& p, const Tensor& g, auto tag, bool generic) {
    using T = decltype(tag);
    check_state(op, i, p, exp_avgs, "exp_avg");
    check_state(op, i, p, exp_avg_sqs, "exp_avg_sq");
    float& step = step_of(op, steps, i);
    step += 1;
    const double t = step;
    const double bc1 = 1 - std::pow(o.beta1, t);
    const double bc2 = 1 - std::pow(o.beta2, t);
    const double rho_inf = 2 / (1 - o.beta2) - 1;
    const double rho_t = rho_inf - 2 * t * std::pow(o.beta2, t) / bc2;
    const bool rectify = rho_t > 5;
    double rect = 0;
    if (rectify)
      rect =
          std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    const T c_rect = T(o.lr / bc1 * rect * std::sqrt(bc2)), c_plain = T(o.lr / bc1);
    const T b1 = T(o.beta1), b2 = T(o.beta2), eps = T(o.eps), wd = T(o.weight_decay);
    if (generic || !fusable({exp_avgs[i], exp_avg_sqs[i]})) {
      generic::radam(p, g, exp_avgs[i], exp_avg_sqs[i], rectify, c_rect, c_plain, T(1) - b1, b2,
                     T(1) - b2, eps, wd);
      return;
    }
    moments_loop(p, g, exp_avgs[i], exp_avg_sqs[i], b1, b2, wd, [=](T, T mj, T vj) {
      return rectify ? c_rect * mj / (std::sqrt(vj) + eps) : c_plain * mj;
    });
  });
}

}  // namespace tc::optim
