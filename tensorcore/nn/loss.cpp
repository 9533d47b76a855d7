// The loss functions of tc::nn::functional (declared in nn/functional.h) other than
// cross_entropy's fused kernel (cross_entropy.cpp) and ctc_loss (ctc.cpp): torch's semantics and
// reductions, written with tensor ops.
#include <cmath>
#include <numbers>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace functional {
namespace {

void check_reduction(const char* op, const std::string& r, bool batchmean = false) {
  TC_CHECK(r == "mean" || r == "sum" || r == "none" || (batchmean && r == "batchmean"), op,
           ": reduction must be 'mean', 'sum' or 'none'", batchmean ? " (or 'batchmean')" : "",
           ", got '", r, "'");
}

Tensor reduce(const Tensor& loss, const std::string& r) {
  if (r == "sum") return sum(loss);
  if (r == "mean") return mean(loss);
  return loss;
}

void check_same(const char* op, const Tensor& a, const Tensor& b, const char* an = "input",
                const char* bn = "target") {
  TC_CHECK(a.defined() && b.defined(), op, ": expected defined tensors");
  TC_CHECK(a.sizes() == b.sizes(), op, ": ", an, " ", shape_str(a.sizes()), " and ", bn, " ",
           shape_str(b.sizes()), " must have the same shape");
}

Tensor scalar_like(double v, const Tensor& t) { return scalar_tensor(v, t.dtype()); }

// [N, C, *] -> [M, C] with the class dim last; target [N, *] -> [M].
std::pair<Tensor, Tensor> flatten_classes(const char* op, const Tensor& input,
                                          const Tensor& target) {
  TC_CHECK(input.dim() >= 1, op, ": input must have a class dim, got a 0-d tensor");
  TC_CHECK_TYPE(target.dtype() == DType::Int64, op,
                ": expected int64 class indices as target, got ", dtype_name(target.dtype()));
  if (input.dim() == 1) {
    TC_CHECK(target.dim() == 0, op, ": for unbatched input ", shape_str(input.sizes()),
             " expected a 0-d target, got ", shape_str(target.sizes()));
    return {unsqueeze(input, 0), reshape(target, {1})};
  }
  Shape expect = input.sizes();
  expect.erase(expect.begin() + 1);
  TC_CHECK(target.sizes() == expect, op, ": expected target of shape ", shape_str(expect),
           " for input ", shape_str(input.sizes()), ", but got ", shape_str(target.sizes()));
  int64_t C = input.size(1);
  Tensor x = input.dim() == 2 ? input : reshape(movedim(input, {1}, {-1}), {-1, C});
  return {x, reshape(target, {-1})};
}

// Per-element weighted NLL of a [M, C] log-prob matrix, plus the per-element weights.
std::pair<Tensor, Tensor> nll_terms(const char* op, const Tensor& lp, const Tensor& tgt,
                                    const Tensor& weight, int64_t ignore_index) {
  int64_t C = lp.size(1);
  Tensor keep = ne(tgt, scalar_tensor(ignore_index, DType::Int64));
  Tensor safe = where(keep, tgt, zeros_like(tgt));
  TC_CHECK_INDEX(
      safe.numel() == 0 || (amin(safe).item<int64_t>() >= 0 && amax(safe).item<int64_t>() < C), op,
      ": target classes must be in [0, ", C, ") or ignore_index (", ignore_index, ")");
  Tensor picked = squeeze(gather(lp, 1, unsqueeze(safe, 1)), 1);
  Tensor w = to_dtype(keep, lp.dtype());
  if (weight.defined()) {
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C, op, ": weight must have shape [", C,
             "], got ", shape_str(weight.sizes()));
    w = mul(w, index_select(weight, 0, safe));
  }
  return {neg(mul(picked, w)), w};
}

// Class-probability targets (same shape as input): -sum_c w_c q_c log p_c per sample, with
// q = (1 - s) target + s / C; "mean" divides by the number of samples (weights do not), as torch.
Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight,
                           const std::string& reduction, double label_smoothing) {
  TC_CHECK(input.dim() >= 1 && target.sizes() == input.sizes(),
           "cross_entropy: expected probability targets of "
           "the input's shape ",
           shape_str(input.sizes()), ", but got ", shape_str(target.sizes()));
  const int64_t cdim = input.dim() == 1 ? 0 : 1, C = input.size(cdim);
  Tensor lp = log_softmax(input, cdim);
  Tensor q = label_smoothing > 0
                 ? add(mul(target, 1 - label_smoothing), label_smoothing / double(C))
                 : target;
  Tensor terms = mul(lp, q);
  if (weight.defined()) {
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C, "cross_entropy: weight must have shape [", C,
             "], got ", shape_str(weight.sizes()));
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

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  TC_AUTOCAST("cross_entropy_loss", cross_entropy, input, target, weight, ignore_index, reduction,
              label_smoothing);
  check_reduction("cross_entropy", reduction);
  TC_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
           "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  if (is_floating(target.dtype()))
    return cross_entropy_probs(input, target, weight, reduction, label_smoothing);
  if ((input.dtype() == DType::Float32 || input.dtype() == DType::Float64) && input.is_cpu() &&
      target.dtype() == DType::Int64)
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
  TC_CHECK(input.sizes() == target.sizes(), "mse_loss: input ", shape_str(input.sizes()),
           " and target ", shape_str(target.sizes()), " must have the same shape");
  return reduce(square(sub(input, target)), reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& x, const Tensor& y, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  TC_AUTOCAST("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, x, y, weight,
              reduction, pos_weight);
  check_reduction("binary_cross_entropy_with_logits", reduction);
  TC_CHECK(x.sizes() == y.sizes(), "binary_cross_entropy_with_logits: input ", shape_str(x.sizes()),
           " and target ", shape_str(y.sizes()), " must have the same shape");
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
  check_reduction("l1_loss", r);
  check_same("l1_loss", x, t);
  return reduce(abs(sub(x, t)), r);
}

Tensor smooth_l1_loss(const Tensor& x, const Tensor& t, const std::string& r, double beta) {
  check_reduction("smooth_l1_loss", r);
  check_same("smooth_l1_loss", x, t);
  TC_CHECK(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  Tensor d = abs(sub(x, t));
  if (beta == 0) return reduce(d, r);
  Tensor quad = mul(square(d), 0.5 / beta);
  return reduce(where(lt(d, scalar_like(beta, d)), quad, sub(d, 0.5 * beta)), r);
}

Tensor huber_loss(const Tensor& x, const Tensor& t, const std::string& r, double delta) {
  check_reduction("huber_loss", r);
  check_same("huber_loss", x, t);
  TC_CHECK(delta > 0, "huber_loss: delta must be positive, got ", delta);
  Tensor d = abs(sub(x, t));
  return reduce(
      where(le(d, scalar_like(delta, d)), mul(square(d), 0.5), mul(sub(d, 0.5 * delta), delta)), r);
}

Tensor binary_cross_entropy(const Tensor& x, const Tensor& t, const Tensor& w,
                            const std::string& r) {
  check_reduction("binary_cross_entropy", r);
  check_same("binary_cross_entropy", x, t);
  if (x.numel() > 0) {
    double lo = amin(x.detach()).item<double>(), hi = amax(x.detach()).item<double>();
    TC_CHECK(lo >= 0 && hi <= 1,
             "binary_cross_entropy: all elements of input should be between 0 and 1");
  }
  Tensor log_x = clamp(log(x), Scalar(-100.0), std::nullopt);
  Tensor log_1mx = clamp(log(rsub(x, 1.0)), Scalar(-100.0), std::nullopt);
  Tensor loss = neg(add(mul(t, log_x), mul(rsub(t, 1.0), log_1mx)));
  if (w.defined()) loss = mul(loss, w);
  return reduce(loss, r);
}

Tensor kl_div(const Tensor& x, const Tensor& t, const std::string& r, bool log_target) {
  check_reduction("kl_div", r, true);
  TC_CHECK(x.defined() && t.defined(), "kl_div: expected defined tensors");
  Tensor loss;
  if (log_target) {
    loss = mul(exp(t), sub(t, x));
  } else {
    // t * (log t - x), with 0 where t == 0 (xlogy)
    Tensor zero = scalar_like(0.0, t);
    Tensor safe_t = where(gt(t, zero), t, scalar_like(1.0, t));
    loss = where(gt(t, zero), mul(t, sub(log(safe_t), x)), mul(t, neg(x)));
  }
  if (r == "batchmean") return x.dim() == 0 ? sum(loss) : div(sum(loss), double(x.size(0)));
  return reduce(loss, r);
}

Tensor margin_ranking_loss(const Tensor& a, const Tensor& b, const Tensor& y, double margin,
                           const std::string& r) {
  check_reduction("margin_ranking_loss", r);
  check_same("margin_ranking_loss", a, b, "input1", "input2");
  check_same("margin_ranking_loss", a, y, "input1", "target");
  return reduce(::tc::relu(add(mul(neg(y), sub(a, b)), margin)), r);
}

Tensor cosine_embedding_loss(const Tensor& a, const Tensor& b, const Tensor& y, double margin,
                             const std::string& r) {
  check_reduction("cosine_embedding_loss", r);
  check_same("cosine_embedding_loss", a, b, "input1", "input2");
  TC_CHECK(a.dim() == 1 || a.dim() == 2, "cosine_embedding_loss: expected 1-d or 2-d inputs, got ",
           shape_str(a.sizes()));
  const int64_t d = a.dim() - 1;
  Shape ys = a.dim() == 2 ? Shape{a.size(0)} : Shape{};
  TC_CHECK(y.sizes() == ys, "cosine_embedding_loss: expected target of shape ", shape_str(ys),
           ", got ", shape_str(y.sizes()));
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
  check_reduction("triplet_margin_loss", r);
  check_same("triplet_margin_loss", a, p, "anchor", "positive");
  check_same("triplet_margin_loss", a, n, "anchor", "negative");
  TC_CHECK(a.dim() == 1 || a.dim() == 2, "triplet_margin_loss: expected 1-d or 2-d inputs, got ",
           shape_str(a.sizes()));
  TC_CHECK(margin > 0, "triplet_margin_loss: margin must be greater than 0, got ", margin);
  auto dist = [&](const Tensor& u, const Tensor& v) {
    return norm(add(sub(u, v), eps), norm_p, {-1});
  };
  Tensor d_ap = dist(a, p), d_an = dist(a, n);
  if (swap) d_an = minimum(d_an, dist(p, n));
  return reduce(::tc::relu(add(sub(d_ap, d_an), margin)), r);
}

Tensor poisson_nll_loss(const Tensor& x, const Tensor& t, bool log_input, bool full, double eps,
                        const std::string& r) {
  check_reduction("poisson_nll_loss", r);
  check_same("poisson_nll_loss", x, t);
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
  check_reduction("gaussian_nll_loss", r);
  check_same("gaussian_nll_loss", x, t);
  TC_CHECK(var_in.defined(), "gaussian_nll_loss: var is undefined");
  Tensor var = var_in;
  // torch: var may lack the last dim, or have it of size 1 (homoscedastic).
  if (var.dim() == x.dim() - 1 && x.dim() > 0 &&
      Shape(x.sizes().begin(), x.sizes().end() - 1) == var.sizes())
    var = unsqueeze(var, -1);
  TC_CHECK(var.dim() == x.dim(), "gaussian_nll_loss: var of shape ", shape_str(var_in.sizes()),
           " does not match input of shape ", shape_str(x.sizes()));
  for (int64_t i = 0; i < x.dim(); ++i)
    TC_CHECK(var.size(i) == x.size(i) || (i == x.dim() - 1 && var.size(i) == 1),
             "gaussian_nll_loss: var of shape ", shape_str(var_in.sizes()),
             " does not match input of shape ", shape_str(x.sizes()));
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
