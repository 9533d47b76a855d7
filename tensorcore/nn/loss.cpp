// The loss functions of tc::nn::functional (declared in nn/functional.h) other than
// cross_entropy's fused kernel (cross_entropy.cpp) and ctc_loss (ctc.cpp): torch's semantics and
// reductions, written with tensor ops.
#include <cmath>
#include <numbers>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/core/warning.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/loss_util.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace functional {

namespace loss_detail {

void check_reduction(const char* op, const std::string& r, bool batchmean) {
  TC_CHECK(r == "mean" || r == "sum" || r == "none" || (batchmean && r == "batchmean"), op, ": ", r,
           " is not a valid value for reduction (reduction must be 'none', 'mean' or 'sum'",
           batchmean ? " or 'batchmean'" : "", ")");
}

Tensor reduce(const Tensor& loss, const std::string& r) {
  if (r == "sum") return sum(loss);
  if (r == "mean") return mean(loss);
  return loss;
}

void warn_if_broadcast(const char* op, const Tensor& input, const Tensor& target) {
  TC_CHECK(input.defined() && target.defined(), op, ": expected defined tensors");
  if (input.sizes() != target.sizes())
    TC_WARN(op, ": Using a target size (", shape_str(target.sizes()),
            ") that is different to the input size (", shape_str(input.sizes()),
            "). This will likely lead to incorrect results due to broadcasting. Please ensure "
            "they have the same size.");
}

void check_same(const char* op, const Tensor& a, const Tensor& b, const char* an, const char* bn) {
  TC_CHECK(a.defined() && b.defined(), op, ": expected defined tensors");
  TC_CHECK(a.sizes() == b.sizes(), op, ": ", an, " ", shape_str(a.sizes()), " and ", bn, " ",
           shape_str(b.sizes()), " must have the same shape");
}

void check_triplet_dims(const char* op, const Tensor& a, const Tensor& p, const Tensor& n) {
  TC_CHECK(a.defined() && p.defined() && n.defined(), op, ": expected defined tensors");
  TC_CHECK(a.dim() == p.dim() && p.dim() == n.dim(), op,
           ": The anchor, positive, and negative tensors are expected to have the same number of "
           "dimensions, but got: anchor ",
           a.dim(), "D, positive ", p.dim(), "D, and negative ", n.dim(), "D inputs");
}

Tensor class_indices(const char* op, const Tensor& target) {
  TC_CHECK(target.defined(), op, ": expected a defined target");
  TC_CHECK_TYPE(is_integral(target.dtype()), op,
                ": expected target of an integer dtype (class indices), got ",
                dtype_name(target.dtype()));
  return target.dtype() == DType::Int64 ? target : to_dtype(target, DType::Int64);
}

Tensor pairwise_distance_default(const Tensor& x1, const Tensor& x2, double p, double eps) {
  const int64_t d = std::max(x1.dim(), x2.dim());
  return norm(add(sub(x1, x2), eps), p, {d == 0 ? 0 : d - 1});
}

}  // namespace loss_detail

std::string legacy_reduction(std::optional<bool> size_average, std::optional<bool> reduce,
                             const std::string& reduction) {
  if (!size_average && !reduce) return reduction;
  const bool avg = size_average.value_or(true), red = reduce.value_or(true);
  if (!red) return "none";
  return avg ? "mean" : "sum";
}

namespace {

using namespace loss_detail;

// [N, C, *] -> [M, C] with the class dim last; target [N, *] -> [M] (int64).
std::pair<Tensor, Tensor> flatten_classes(const char* op, const Tensor& input,
                                          const Tensor& target_in) {
  TC_CHECK(input.defined(), op, ": expected a defined input");
  TC_CHECK(input.dim() >= 1, op,
           ": input must have at least 1 dimension (C) or 2 (N, C), got a 0-d tensor");
  Tensor target = class_indices(op, target_in);
  if (input.dim() == 1) {
    TC_CHECK(target.dim() == 0, op, ": for a 1-D input of shape ", shape_str(input.sizes()),
             " expected a 0-d target, got shape ", shape_str(target.sizes()));
    return {unsqueeze(input, 0), reshape(target, {1})};
  }
  Shape expect = input.sizes();
  expect.erase(expect.begin() + 1);
  TC_CHECK(target.sizes() == expect, op, ": expected target of shape ", shape_str(expect),
           " for input of shape ", shape_str(input.sizes()), ", but got ",
           shape_str(target.sizes()));
  int64_t C = input.size(1);
  Tensor x = input.dim() == 2 ? input : reshape(movedim(input, {1}, {-1}), {-1, C});
  return {x, reshape(target, {-1})};
}

void check_class_weight(const char* op, const Tensor& weight, int64_t C) {
  if (weight.defined())
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C, op,
             ": weight tensor should be defined either for all ", C,
             " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
}

// Per-element weighted NLL of a [M, C] log-prob matrix, plus the per-element weights (0 where
// the target is ignore_index).
std::pair<Tensor, Tensor> nll_terms(const char* op, const Tensor& lp, const Tensor& tgt,
                                    const Tensor& weight, int64_t ignore_index) {
  int64_t C = lp.size(1);
  check_class_weight(op, weight, C);
  Tensor keep = ne(tgt, scalar_tensor(ignore_index, DType::Int64));
  Tensor safe = where(keep, tgt, zeros_like(tgt));
  if (safe.numel() > 0) {
    const int64_t lo = amin(safe).item<int64_t>(), hi = amax(safe).item<int64_t>();
    TC_CHECK_INDEX(lo >= 0 && hi < C, op, ": Target ", lo < 0 ? lo : hi,
                   " is out of bounds (number of classes: ", C, ").");
  }
  Tensor picked = squeeze(gather(lp, 1, unsqueeze(safe, 1)), 1);
  Tensor w = to_dtype(keep, lp.dtype());
  if (weight.defined()) w = mul(w, index_select(to_dtype(weight, lp.dtype()), 0, safe));
  return {neg(mul(picked, w)), w};
}

// Class-probability targets (same shape as input): -sum_c w_c q_c log p_c per sample, with
// q = (1 - s) target + s / C; "mean" divides by the number of samples (weights do not), as torch.
Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight,
                           const std::string& reduction, double label_smoothing) {
  TC_CHECK(input.dim() >= 1 && target.sizes() == input.sizes(),
           "cross_entropy: expected probability targets of the input's shape ",
           shape_str(input.sizes()), ", but got ", shape_str(target.sizes()));
  const int64_t cdim = input.dim() == 1 ? 0 : 1, C = input.size(cdim);
  check_class_weight("cross_entropy", weight, C);
  Tensor lp = log_softmax(input, cdim);
  Tensor q = label_smoothing > 0
                 ? add(mul(target, 1 - label_smoothing), label_smoothing / double(C))
                 : target;
  Tensor terms = mul(lp, q);
  if (weight.defined()) {
    Shape ws(size_t(input.dim()), 1);
    ws[size_t(cdim)] = C;
    terms = mul(terms, reshape(weight, ws));
  }
  Tensor loss = neg(sum(terms, {cdim}));
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean")
    return input.dim() == 1 ? loss : div(sum(loss), double(input.numel() / C));
  return loss;
}

// The elementwise BCE as torch computes it: each log clamped at -100 (so a probability of exactly
// 0 or 1 gives a finite loss) and the input gradient (x - y) / max(x (1 - x), 1e-12), finite at 0
// and 1 where differentiating the clamped logs would give 0 * inf = NaN. The backward is written
// in differentiable ops, so double backward works.
Tensor bce_elementwise(const Tensor& x, const Tensor& y) {
  Tensor loss;
  {
    autograd::NoGradGuard no_grad;
    Tensor xd = x.detach(), yd = y.detach();
    Tensor log_x = clamp(log(xd), Scalar(-100.0), std::nullopt);
    Tensor log_1mx = clamp(log(rsub(xd, 1.0)), Scalar(-100.0), std::nullopt);
    loss = neg(add(mul(yd, log_x), mul(rsub(yd, 1.0), log_1mx)));
  }
  if (autograd::needs_grad({x, y}))
    autograd::record("BinaryCrossEntropyBackward0", {x, y}, {loss}, {x, y},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       const Tensor &xs = s[0], &ys = s[1];
                       Tensor denom = clamp(mul(rsub(xs, 1.0), xs), Scalar(1e-12), std::nullopt);
                       Tensor gx = div(mul(g[0], sub(xs, ys)), denom);
                       Tensor gy = mul(g[0], sub(log(rsub(xs, 1.0)), log(xs)));  // unclamped
                       return {gx, gy};
                     });
  return loss;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                int64_t ignore_index, const std::string& reduction) {
  TC_AUTOCAST("nll_loss", nll_loss, input, target, weight, ignore_index, reduction);
  check_reduction("nll_loss", reduction);
  auto [lp, tgt] = flatten_classes("nll_loss", input, target);
  auto [loss, w] = nll_terms("nll_loss", lp, tgt, weight, ignore_index);
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean") return div(sum(loss), sum(w));
  return input.dim() == 1 ? reshape(loss, {}) : reshape(loss, target.sizes());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target_in, const Tensor& weight,
                     int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  TC_AUTOCAST("cross_entropy_loss", cross_entropy, input, target_in, weight, ignore_index,
              reduction, label_smoothing);
  check_reduction("cross_entropy", reduction);
  TC_CHECK(input.defined() && target_in.defined(), "cross_entropy: expected defined tensors");
  TC_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
           "cross_entropy: label_smoothing must be between 0.0 and 1.0, got ", label_smoothing);
  if (is_floating(target_in.dtype()))
    return cross_entropy_probs(input, target_in, weight, reduction, label_smoothing);
  Tensor target = class_indices("cross_entropy", target_in);
  if ((input.dtype() == DType::Float32 || input.dtype() == DType::Float64) && input.is_cpu())
    return cross_entropy_fused(input, target, weight, ignore_index, reduction, label_smoothing);
  auto [x, tgt] = flatten_classes("cross_entropy", input, target);
  Tensor lp = log_softmax(x, 1);
  auto [loss, w] = nll_terms("cross_entropy", lp, tgt, weight, ignore_index);
  if (label_smoothing > 0) {
    int64_t C = lp.size(1);
    Tensor keep = to_dtype(ne(tgt, scalar_tensor(ignore_index, DType::Int64)), lp.dtype());
    Tensor weighted = weight.defined() ? mul(lp, unsqueeze(weight, 0)) : lp;
    Tensor smooth = mul(neg(sum(weighted, {1})), keep);
    Tensor nll = loss;
    Tensor s_red, n_red;
    if (reduction == "none") {
      Tensor out = add(mul(nll, 1 - label_smoothing), mul(smooth, label_smoothing / double(C)));
      return input.dim() == 1 ? reshape(out, {}) : reshape(out, target.sizes());
    }
    n_red = sum(nll);
    s_red = sum(smooth);
    if (reduction == "mean") {
      Tensor denom = weight.defined() ? sum(w) : sum(keep);
      n_red = div(n_red, denom);
      s_red = div(s_red, denom);
    }
    return add(mul(n_red, 1 - label_smoothing), mul(s_red, label_smoothing / double(C)));
  }
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean") return div(sum(loss), sum(w));
  return input.dim() == 1 ? reshape(loss, {}) : reshape(loss, target.sizes());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  TC_AUTOCAST("mse_loss", mse_loss, input, target, reduction);
  check_reduction("mse_loss", reduction);
  warn_if_broadcast("mse_loss", input, target);
  return reduce(square(sub(input, target)), reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& x, const Tensor& y, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  TC_AUTOCAST("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, x, y, weight,
              reduction, pos_weight);
  check_reduction("binary_cross_entropy_with_logits", reduction);
  TC_CHECK(x.defined() && y.defined(),
           "binary_cross_entropy_with_logits: expected defined tensors");
  TC_CHECK(x.sizes() == y.sizes(), "binary_cross_entropy_with_logits: Target size (",
           shape_str(y.sizes()), ") must be the same as input size (", shape_str(x.sizes()), ")");
  // log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow.
  Tensor softplus_neg = add(log1p(exp(neg(abs(x)))), clamp(neg(x), Scalar(0.0), std::nullopt));
  Tensor loss;
  if (pos_weight.defined()) {
    Tensor log_weight = add(mul(sub(pos_weight, 1.0), y), 1.0);
    loss = add(mul(rsub(y, 1.0), x), mul(log_weight, softplus_neg));
  } else {
    loss = add(mul(rsub(y, 1.0), x), softplus_neg);
  }
  if (weight.defined()) loss = mul(loss, weight);
  return reduce(loss, reduction);
}

Tensor l1_loss(const Tensor& x, const Tensor& t, const std::string& r) {
  TC_AUTOCAST("l1_loss", l1_loss, x, t, r);
  check_reduction("l1_loss", r);
  warn_if_broadcast("l1_loss", x, t);
  return reduce(abs(sub(x, t)), r);
}

Tensor smooth_l1_loss(const Tensor& x, const Tensor& t, const std::string& r, double beta) {
  TC_AUTOCAST("smooth_l1_loss", smooth_l1_loss, x, t, r, beta);
  check_reduction("smooth_l1_loss", r);
  TC_CHECK(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  warn_if_broadcast("smooth_l1_loss", x, t);
  Tensor d = abs(sub(x, t));
  if (beta == 0) return reduce(d, r);
  // 0.5 m^2 / beta + (d - m) with m = min(d, beta): the two branches without a `where` (which
  // costs several times the other elementwise ops here, forward and backward).
  Tensor m = clamp(d, std::nullopt, Scalar(beta));
  return reduce(add(mul(square(m), 0.5 / beta), sub(d, m)), r);
}

Tensor huber_loss(const Tensor& x, const Tensor& t, const std::string& r, double delta) {
  TC_AUTOCAST("huber_loss", huber_loss, x, t, r, delta);
  check_reduction("huber_loss", r);
  TC_CHECK(delta > 0, "huber_loss: delta must be positive, got ", delta);
  warn_if_broadcast("huber_loss", x, t);
  // 0.5 m^2 + delta (d - m) with m = min(d, delta), as smooth_l1_loss.
  Tensor d = abs(sub(x, t));
  Tensor m = clamp(d, std::nullopt, Scalar(delta));
  return reduce(add(mul(square(m), 0.5), mul(sub(d, m), delta)), r);
}

Tensor binary_cross_entropy(const Tensor& x, const Tensor& t, const Tensor& w,
                            const std::string& r) {
  TC_AUTOCAST("binary_cross_entropy", binary_cross_entropy, x, t, w, r);
  check_reduction("binary_cross_entropy", r);
  TC_CHECK(x.defined() && t.defined(), "binary_cross_entropy: expected defined tensors");
  TC_CHECK(x.sizes() == t.sizes(), "binary_cross_entropy: Using a target size (",
           shape_str(t.sizes()), ") that is different to the input size (", shape_str(x.sizes()),
           ") is deprecated. Please ensure they have the same size.");
  if (x.numel() > 0) {
    double lo = amin(x.detach()).item<double>(), hi = amax(x.detach()).item<double>();
    TC_CHECK(lo >= 0 && hi <= 1,
             "binary_cross_entropy: all elements of input should be between 0 and 1");
  }
  Tensor loss = bce_elementwise(x, t);
  if (w.defined()) loss = mul(loss, w);
  return reduce(loss, r);
}

Tensor kl_div(const Tensor& x, const Tensor& t, const std::string& r, bool log_target) {
  TC_AUTOCAST("kl_div", kl_div, x, t, r, log_target);
  check_reduction("kl_div", r, true);
  TC_CHECK(x.defined() && t.defined(), "kl_div: expected defined tensors");
  Tensor loss;
  if (log_target) {
    loss = mul(exp(t), sub(t, x));
  } else {
    // t * (log t - x), with 0 where t == 0 (xlogy; the where keeps the unused branch out of the
    // gradient).
    Tensor zero = scalar_like(0.0, t);
    Tensor safe_t = where(gt(t, zero), t, scalar_like(1.0, t));
    loss = where(gt(t, zero), mul(t, sub(log(safe_t), x)), mul(t, neg(x)));
  }
  if (r == "batchmean") return x.dim() == 0 ? sum(loss) : div(sum(loss), double(x.size(0)));
  return reduce(loss, r);
}

Tensor margin_ranking_loss(const Tensor& a, const Tensor& b, const Tensor& y, double margin,
                           const std::string& r) {
  TC_AUTOCAST("margin_ranking_loss", margin_ranking_loss, a, b, y, margin, r);
  check_reduction("margin_ranking_loss", r);
  TC_CHECK(a.defined() && b.defined() && y.defined(),
           "margin_ranking_loss: expected defined tensors");
  TC_CHECK(a.dim() == b.dim() && a.dim() == y.dim(),
           "margin_ranking_loss: All input tensors should have same dimension but got sizes: "
           "input1: ",
           shape_str(a.sizes()), ", input2: ", shape_str(b.sizes()),
           ", target: ", shape_str(y.sizes()));
  return reduce(::tc::relu(add(mul(neg(y), sub(a, b)), margin)), r);
}

Tensor cosine_embedding_loss(const Tensor& a, const Tensor& b, const Tensor& y, double margin,
                             const std::string& r) {
  TC_AUTOCAST("cosine_embedding_loss", cosine_embedding_loss, a, b, y, margin, r);
  check_reduction("cosine_embedding_loss", r);
  check_same("cosine_embedding_loss", a, b, "input1", "input2");
  TC_CHECK(a.dim() == 1 || a.dim() == 2, "cosine_embedding_loss: expected 1-d or 2-d inputs, got ",
           shape_str(a.sizes()));
  const int64_t d = a.dim() - 1;
  Shape ys = a.dim() == 2 ? Shape{a.size(0)} : Shape{};
  TC_CHECK(y.defined() && y.sizes() == ys, "cosine_embedding_loss: expected target of shape ",
           shape_str(ys), ", got ", y.defined() ? shape_str(y.sizes()) : "None");
  const double eps = 1e-12;  // torch's EPSILON
  Tensor prod = sum(mul(a, b), {d});
  Tensor mag = sqrt(mul(add(sum(square(a), {d}), eps), add(sum(square(b), {d}), eps)));
  Tensor cos = div(prod, mag);
  Tensor zero = scalar_like(0.0, cos);
  Tensor pos = rsub(cos, 1.0), negl = ::tc::relu(sub(cos, margin));
  Tensor yf = to_dtype(y, cos.dtype());
  Tensor loss =
      where(eq(yf, scalar_like(1.0, yf)), pos, where(eq(yf, scalar_like(-1.0, yf)), negl, zero));
  return reduce(loss, r);
}

Tensor triplet_margin_loss(const Tensor& a, const Tensor& p, const Tensor& n, double margin,
                           double norm_p, double eps, bool swap, const std::string& r) {
  TC_AUTOCAST("triplet_margin_loss", triplet_margin_loss, a, p, n, margin, norm_p, eps, swap, r);
  check_reduction("triplet_margin_loss", r);
  check_triplet_dims("triplet_margin_loss", a, p, n);
  Tensor d_ap = pairwise_distance_default(a, p, norm_p, eps);
  Tensor d_an = pairwise_distance_default(a, n, norm_p, eps);
  if (swap) d_an = minimum(d_an, pairwise_distance_default(p, n, norm_p, eps));
  return reduce(::tc::relu(add(sub(d_ap, d_an), margin)), r);
}

Tensor poisson_nll_loss(const Tensor& x, const Tensor& t, bool log_input, bool full, double eps,
                        const std::string& r) {
  TC_AUTOCAST("poisson_nll_loss", poisson_nll_loss, x, t, log_input, full, eps, r);
  check_reduction("poisson_nll_loss", r);
  TC_CHECK(x.defined() && t.defined(), "poisson_nll_loss: expected defined tensors");
  Tensor loss = log_input ? sub(exp(x), mul(t, x)) : sub(x, mul(t, log(add(x, eps))));
  if (full) {
    // Stirling term t log t - t + 0.5 log(2 pi t), for t > 1.
    Tensor one = scalar_like(1.0, t);
    Tensor safe = where(gt(t, one), t, one);
    Tensor stirling =
        add(sub(mul(safe, log(safe)), safe), mul(log(mul(safe, 2 * std::numbers::pi)), 0.5));
    loss = add(loss, where(gt(t, one), stirling, zeros_like(stirling)));
  }
  return reduce(loss, r);
}

Tensor gaussian_nll_loss(const Tensor& x, const Tensor& t, const Tensor& var_in, bool full,
                         double eps, const std::string& r) {
  TC_CHECK(x.defined() && t.defined() && var_in.defined(),
           "gaussian_nll_loss: expected defined tensors");
  Tensor var = var_in;
  // torch: var may lack the last dim, or have it of size 1 (homoscedastic).
  if (var.sizes() != x.sizes()) {
    const Shape lead(x.sizes().begin(), x.sizes().end() - (x.dim() > 0 ? 1 : 0));
    if (x.dim() > 0 && var.sizes() == lead) {
      var = unsqueeze(var, -1);
    } else {
      const bool homo = x.dim() > 0 && var.dim() == x.dim() && var.size(-1) == 1 &&
                        Shape(var.sizes().begin(), var.sizes().end() - 1) == lead;
      TC_CHECK(homo, "gaussian_nll_loss: var is of incorrect size ", shape_str(var_in.sizes()),
               " for input of shape ", shape_str(x.sizes()));
    }
  }
  check_reduction("gaussian_nll_loss", r);
  TC_CHECK(var.numel() == 0 || amin(var.detach()).item<double>() >= 0,
           "gaussian_nll_loss: var has negative entry/entries");
  // The clamp is not differentiated, as torch's in-place clamp under no_grad.
  Tensor v = add(var, sub(clamp(var.detach(), Scalar(eps), std::nullopt), var.detach()));
  Tensor loss = mul(add(log(v), div(square(sub(x, t)), v)), 0.5);
  if (full) loss = add(loss, 0.5 * std::log(2 * std::numbers::pi));
  return reduce(loss, r);
}

}  // namespace functional
}  // namespace tc::nn
